// key.go: aaep-conform key.

package main

import (
	"flag"

	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/cliflag"
)

const keyUsage = `Usage: aaep-conform key --out FILE [--type ES256|EdDSA]

Makes a key pair to sign receipts: the private key as PEM (PKCS #8) in FILE,
readable by you only (mode 0600), and the public key as PEM in FILE.pub, to
give to whoever verifies your receipts. An existing file is never
overwritten. The key ID printed is the key's RFC 7638 thumbprint, as
receipts name it.

Flags:
`

func runKey(args []string, d *deps) (int, error) {
	fs := flag.NewFlagSet("key", flag.ContinueOnError)
	var out, typ string
	fs.StringVar(&out, "out", "", "write the private key to `FILE` and the public key to FILE.pub (required)")
	fs.StringVar(&typ, "type", string(conform.KeyES256), "the key `TYPE`: ES256 (ECDSA P-256) or EdDSA (Ed25519)")
	rest, err := cliflag.ParseHelp(fs, args, keyUsage, d.io.Out)
	if err != nil {
		return exitCannot, err
	}
	switch {
	case len(rest) != 0:
		return exitCannot, cliflag.Usagef("key takes no operand; give the file with --out FILE")
	case out == "":
		return exitCannot, cliflag.Usagef("say where to write the key with --out FILE")
	case typ != string(conform.KeyES256) && typ != string(conform.KeyEdDSA):
		return exitCannot, cliflag.Usagef("--type %q: ES256 or EdDSA", typ)
	}
	k, err := conform.GenerateKey(conform.KeyType(typ))
	if err != nil {
		return exitCannot, err
	}
	if err := k.Save(out); err != nil {
		return exitCannot, err
	}
	d.io.Printf("Wrote the private key to %s (readable by you only) and the public key to %s.pub.\n", out, out)
	d.io.Printf("Key ID %s, %s.\n", k.KeyID(), k.Alg())
	return exitConforming, nil
}
