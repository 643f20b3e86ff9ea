package sigrpl

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

// TestParsePEMKey holds the one PEM key parser sigrpl and conform share:
// private keys in both forms, public keys only when asked for, and every
// other block or text refused with a sentence naming what it held.
func TestParsePEMKey(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(typ string, der []byte, err error) []byte {
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	}
	pkcs8 := enc(pemPKCS8(x509.MarshalPKCS8PrivateKey(ec)))
	sec1 := enc(pemEC(x509.MarshalECPrivateKey(ec)))
	edPKCS8 := enc(pemPKCS8(x509.MarshalPKCS8PrivateKey(ed)))
	pub := enc(pemPublic(x509.MarshalPKIXPublicKey(&ec.PublicKey)))
	cert := []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	broken := []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
	for _, tc := range []struct {
		name   string
		in     []byte
		public bool
		want   string // a type name, or the start of the error
		noPEM  bool
	}{
		{"pkcs8 ecdsa", pkcs8, false, "*ecdsa.PrivateKey", false},
		{"sec1 ecdsa", sec1, false, "*ecdsa.PrivateKey", false},
		{"pkcs8 ed25519", edPKCS8, false, "ed25519.PrivateKey", false},
		{"public allowed", pub, true, "*ecdsa.PublicKey", false},
		{"public refused", pub, false, `holds a "PUBLIC KEY" PEM block, not a private key`, false},
		{"certificate", cert, true, `holds a "CERTIFICATE" PEM block, not a key`, false},
		{"broken", broken, false, "parse the key:", false},
		{"empty", nil, false, "holds no PEM block", true},
		{"text", []byte("not a key"), true, "holds no PEM block", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParsePEMKey(tc.in, tc.public)
			if errors.Is(err, ErrNoPEM) != tc.noPEM {
				t.Errorf("ErrNoPEM %v, want %v (%v)", errors.Is(err, ErrNoPEM), tc.noPEM, err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %q, want %q", err, tc.want)
				}
				return
			}
			if got := typeName(k); got != tc.want {
				t.Errorf("key %s, want %s", got, tc.want)
			}
		})
	}
}

func pemPKCS8(b []byte, err error) (string, []byte, error)  { return "PRIVATE KEY", b, err }
func pemEC(b []byte, err error) (string, []byte, error)     { return "EC PRIVATE KEY", b, err }
func pemPublic(b []byte, err error) (string, []byte, error) { return "PUBLIC KEY", b, err }

func typeName(k any) string {
	switch k.(type) {
	case *ecdsa.PrivateKey:
		return "*ecdsa.PrivateKey"
	case ed25519.PrivateKey:
		return "ed25519.PrivateKey"
	case *ecdsa.PublicKey:
		return "*ecdsa.PublicKey"
	}
	return "other"
}
