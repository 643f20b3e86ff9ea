package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/producer"
)

// childProducerEnv makes the test binary a stdio producer (see TestMain);
// childManifestKeyEnv, if set, is the private JWK it signs its manifest with.
const (
	childProducerEnv    = "AAEP_LISTEN_TEST_STDIO_PRODUCER"
	childManifestKeyEnv = "AAEP_LISTEN_TEST_MANIFEST_KEY"
)

// childProducer serves the "confirm" scenario on standard input and output.
func childProducer() int {
	all, err := producer.LoadScenarios(os.DirFS("../../demo"), "scenarios")
	if err == nil {
		all, err = producer.SelectScenarios(all, []string{"confirm"})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	opts := producer.Options{Scenarios: all, EndWhenDone: true}
	if jwk := os.Getenv(childManifestKeyEnv); jwk != "" {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON([]byte(jwk)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		signer, ok := k.Key.(crypto.Signer)
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: not a private key\n", childManifestKeyEnv)
			return 1
		}
		opts.ManifestKey = &producer.ManifestKey{Signer: signer, KID: k.KeyID}
	}
	if f := os.Getenv(childPIDFileEnv); f != "" { // agents_e2e_test.go kills it mid-prompt
		if err := os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	p := producer.New(opts)
	defer p.Close()
	if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// manifestKey makes a producer signing key and a trusted-keys directory
// holding its public half.
func manifestKey(t *testing.T, alg string) (*producer.ManifestKey, string) {
	t.Helper()
	k, err := producer.NewManifestKey(alg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(k.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "producer.jwk"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return k, dir
}

// testPKI is a certificate authority with a loopback server certificate
// and a client certificate, written as PEM files.
type testPKI struct {
	CAFile, ClientCert, ClientKey string
	Server                        tls.Certificate
	Pool                          *x509.CertPool
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey := ecKey(t)
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "aaep-term test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, usage x509.ExtKeyUsage, cn string) ([]byte, *ecdsa.PrivateKey) {
		k := ecKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	p := &testPKI{CAFile: filepath.Join(dir, "ca.pem"), ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	writePEM(t, p.CAFile, "CERTIFICATE", caDER)
	srvDER, srvKey := issue(2, x509.ExtKeyUsageServerAuth, "127.0.0.1")
	p.Server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	cliDER, cliKey := issue(3, x509.ExtKeyUsageClientAuth, "listener")
	writePEM(t, p.ClientCert, "CERTIFICATE", cliDER)
	keyDER, err := x509.MarshalECPrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, p.ClientKey, "EC PRIVATE KEY", keyDER)
	p.Pool = x509.NewCertPool()
	p.Pool.AddCert(ca)
	return p
}

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
