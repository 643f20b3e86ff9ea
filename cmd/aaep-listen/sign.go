package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/transport"
)

// signOptions are the flags of signed replies (the sigrpl extension) and
// what the connection learned about them.
type signOptions struct {
	KeyFile string // --key; empty means sigrpl.DefaultPath
	Off     bool   // --no-sign
	// Getenv finds the default key's directory; nil means os.Getenv.
	Getenv func(string) string

	key      *sigrpl.Key
	honored  bool // the producer said it checks signatures
	inHeader bool // the last Send signed its message in a header
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

// answers says whether endpoint has a back channel replies go to.
func answers(endpoint string) bool {
	return !transport.ReadsFile(endpoint)
}

// loadSignKey loads (or, the first time, makes) the signing key when
// replies can be sent and signing is on. A new key is announced on stderr
// with its thumbprint.
func loadSignKey(o *options) error {
	if o.Sign.Off || !o.Demo && !answers(o.Endpoint) {
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

// addOffer puts the public key in a subscription.request.
func addOffer(req map[string]any, o *options) {
	if o.Sign.key == nil {
		return
	}
	offer, err := o.Sign.key.Offer()
	if err != nil {
		return // an unsigned subscription; replies are announced as unsigned
	}
	req["extensions"] = map[string]any{sigrpl.Prefix: offer}
	if caps, ok := req["capabilities"].(map[string]any); ok {
		caps[sigrpl.Prefix] = map[string]any{"required": false}
	}
}

// sendHeader signs a message POSTed on the HTTP back channel.
func (o *options) sendHeader(msg []byte) (http.Header, error) {
	o.Sign.inHeader = false
	if o.Sign.key == nil {
		return nil, nil
	}
	sig, err := o.Sign.key.SignDetached(msg, time.Now()) // iat is the wall clock, whatever o.Now says
	if err != nil {
		return nil, fmt.Errorf("sign the answer: %w", err)
	}
	o.Sign.inHeader = true
	return http.Header{sigrpl.Header: {sig}}, nil
}

// sigAccepted notes whether the producer's subscription.accepted honours
// signed replies.
func (o *options) sigAccepted(honored map[string]any) {
	_, o.Sign.honored = honored[sigrpl.Prefix]
}

// wrap returns the message to Send for a reply body: on a framed
// connection to a producer that honours signed replies, the
// sigrpl:signed.reply wrapping it, signed at the wall-clock time;
// otherwise the body itself.
func (o *options) wrap(body []byte) (msg []byte, wrapped bool, err error) {
	o.Sign.inHeader = false
	if o.Sign.key == nil || !o.Sign.honored || o.Demo && !o.DemoGRPC || isHTTP(o.Endpoint) {
		return body, false, nil
	}
	msg, err = o.Sign.key.Wrap(body, time.Now())
	if err != nil {
		return nil, false, fmt.Errorf("sign the answer: %w", err)
	}
	return msg, true, nil
}

func isHTTP(endpoint string) bool {
	return strings.HasPrefix(endpoint, "http://") || strings.HasPrefix(endpoint, "https://")
}

// signedWords tells the user whether the answer just sent was signed.
func (o *options) signedWords(wrapped bool) string {
	kid := ""
	if o.Sign.key != nil {
		kid = o.Sign.key.KID()[:8]
	}
	switch {
	case o.Sign.Off:
		return "The answer was sent unsigned (--no-sign)."
	case o.Sign.key == nil:
		return "The answer was sent unsigned: no signing key."
	case (o.Sign.inHeader || wrapped) && o.Sign.honored:
		return "The answer was signed with your key " + kid + "; the producer checks signatures."
	case o.Sign.inHeader:
		return "The answer was signed with your key " + kid + ", but the producer did not say it checks signatures."
	}
	return "The answer was sent unsigned: the producer does not take signed answers on this connection."
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
		tio.Usage(keyUsage)
		fs.SetOutput(tio.Out)
		fs.PrintDefaults()
		return 0
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("key takes no arguments, only --key FILE; got %q", strings.Join(rest, " "))
	}
	if err != nil {
		tio.Eprintf("aaep-listen key: %v\nRun aaep-listen key --help for usage.\n", err)
		return cliflag.ExitUsage
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
