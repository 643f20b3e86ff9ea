package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// signOptions are the flags of signed replies (the sigrpl extension) and
// the key they lead to.
type signOptions struct {
	KeyFile string // --key; empty means sigrpl.DefaultPath
	Off     bool   // --no-sign
	// Getenv finds the default key's directory; nil means os.Getenv.
	Getenv func(string) string

	key *sigrpl.Key
}

func addSignFlags(fs *flag.FlagSet, o *signOptions) {
	fs.StringVar(&o.KeyFile, "key", "", "reply-signing key `FILE` (default: aaep-term/"+sigrpl.KeyFile+" in your config directory); made there, readable by you only, on first use")
	fs.BoolVar(&o.Off, "no-sign", false, "send replies unsigned and offer no signing key")
}

// keyPath is the key file to use.
func (o *signOptions) keyPath() (string, error) {
	if o.KeyFile != "" {
		return o.KeyFile, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return sigrpl.DefaultPath(getenv)
}

// loadKey reads the key from --key FILE or the default path into o.key,
// making it there (mode 0600, through safefile) when there is no file yet.
// It returns the path and whether the key is new.
func (o *signOptions) loadKey() (path string, created bool, err error) {
	if path, err = o.keyPath(); err != nil {
		return "", false, err
	}
	o.key, created, err = sigrpl.LoadOrCreate(path)
	return path, created, err
}

// loadSignKey loads (or, the first time, makes) the signing key when
// replies can be sent and signing is on. A new key is announced on stderr
// with its thumbprint.
func loadSignKey(o *options) error {
	if o.Sign.Off || !o.mayAnswer() {
		return nil
	}
	path, created, err := o.Sign.loadKey()
	if err != nil {
		return fmt.Errorf("signing key %s: %w (use --key FILE or --no-sign)", path, err)
	}
	if created {
		o.IO.Eprintf("aaep-listen: made a reply-signing key in %s; its thumbprint is %s\n", path, o.Sign.key.KID())
	}
	warnKey(o.IO.ErrOut, o.Sign.key)
	return nil
}

// warnKey tells the user when other users can read the key file, and how to fix it.
func warnKey(w io.Writer, k *sigrpl.Key) {
	if s := k.Warning(); s != "" {
		fmt.Fprintf(w, "aaep-listen: %s\n", s)
	}
}

const keyUsage = `Usage: aaep-listen key [--key FILE]

Shows your reply-signing key: its thumbprint (to pin on a producer that
takes only signed answers from you), the file it is in, and its public key
as a JWK. The key is made the first time, in your config directory or at
--key FILE, readable by you only.

Flags:
`

// runKey is "aaep-listen key [--key FILE]": it shows the key's thumbprint
// (to pin on a producer) and its public JWK, making the key if needed.
func runKey(args []string, tio *term.IO, getenv func(string) string) int {
	o := signOptions{Getenv: getenv}
	fs := flag.NewFlagSet("aaep-listen key", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.KeyFile, "key", "", "key `FILE` (default: aaep-term/"+sigrpl.KeyFile+" in your config directory); made there, readable by you only, when there is none")
	rest, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintHelp(tio.Out, keyUsage, fs)
		return 0
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("key takes no arguments, only --key FILE; got %q", strings.Join(rest, " "))
	}
	if err != nil {
		return cliflag.Refuse(tio.ErrOut, "aaep-listen key", err)
	}
	path, _, err := o.loadKey()
	if err != nil {
		tio.Eprintf("aaep-listen: %v\n", err)
		return 1
	}
	warnKey(tio.ErrOut, o.key)
	jwk, err := o.key.PublicJWK().MarshalJSON()
	if err != nil {
		tio.Eprintf("aaep-listen: %v\n", err)
		return 1
	}
	tio.Printf("Thumbprint: %s\nKey file: %s\nPublic key: %s\n", o.key.KID(), path, jwk)
	return 0
}
