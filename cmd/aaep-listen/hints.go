package main

import (
	"strings"

	"github.com/aaep-term/aaep-term/subscriber"
)

// listenHints adds aaep-listen's flags and commands to the client's words
// (subscriber.Hints): the library says what happened, the command says
// what to type about it.
func listenHints(h subscriber.Hint, said string) string {
	said = strings.TrimSuffix(said, ".")
	switch h {
	case subscriber.HintAuthenticate:
		return "it needs proof of who you are: a token (--token), or a signed-replies key it accepts (see aaep-listen key; do not use --no-sign)."
	case subscriber.HintAuthorize:
		return said + " (aaep-listen key shows the key's thumbprint to give its operator)."
	case subscriber.HintManifestKey:
		return said + ", or pin it with --manifest-key FILE."
	case subscriber.HintManifestRequired:
		return said + " (--require-signed-manifest)."
	case subscriber.HintStrict:
		return "Closing the subscription: the producer granted more than you asked for, and --strict is set."
	case subscriber.HintAutoReply:
		return "Your --auto-reply policy"
	}
	return ""
}
