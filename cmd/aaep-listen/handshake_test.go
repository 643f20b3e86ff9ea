package main

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"
)

// Every rejection reason reads as a sentence; the ones about identity name
// both ways of proving it, with aaep-listen's hints (the library's words
// name no flag: listenHints adds them), and an unknown code is quoted,
// sanitized.
func TestRejectionWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		hint subscriber.Hint
		want []string
	}{
		{"version_unsupported", 0, []string{"version"}},
		{"authentication_required", subscriber.HintAuthenticate, []string{"--token", "aaep-listen key"}},
		{"authorization_denied", subscriber.HintAuthorize, []string{"token", "thumbprint"}},
		{"rate_limit", 0, []string{"try again later"}},
		{"medai_busy\x1b[2J", 0, []string{"(medai_busy"}},
	}
	for _, tt := range tests {
		got := subscriber.RejectionWords(tt.code)
		if tt.hint != 0 {
			got = listenHints(tt.hint, got)
		}
		if !strings.HasSuffix(got, ".") {
			t.Errorf("%s: %q does not end a sentence", tt.code, got)
		}
		if strings.ContainsRune(got, '\x1b') {
			t.Errorf("%s: escape reached the words: %q", tt.code, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.code, got, w)
			}
		}
	}
}

// aaep-listen says exactly what it said when the library put its flags in
// its words: the library's words with listenHints are the old sentences.
func TestListenHintsKeepTheWords(t *testing.T) {
	t.Parallel()
	hints := subscriber.Hints(listenHints)
	for _, tt := range []struct{ got, want string }{
		{hints.RejectionWords("authentication_required"),
			"it needs proof of who you are: a token (--token), or a signed-replies key it accepts (see aaep-listen key; do not use --no-sign)."},
		{hints.RejectionWords("authorization_denied"),
			"you are not allowed to subscribe: your token, or your signed-replies key, is not one it accepts (aaep-listen key shows the key's thumbprint to give its operator)."},
		{hints.RejectionWords("rate_limit"), "too many subscriptions; try again later."},
		{listenHints(subscriber.HintManifestKey, "Signed by key K, which is not among your trusted keys. To trust it, put the producer's public key (a JWK file) in DIR."),
			"Signed by key K, which is not among your trusted keys. To trust it, put the producer's public key (a JWK file) in DIR, or pin it with --manifest-key FILE."},
		{listenHints(subscriber.HintManifestRequired, "You required a signed, verified manifest."),
			"You required a signed, verified manifest (--require-signed-manifest)."},
		{listenHints(subscriber.HintStrict, "Closing the subscription: the producer granted more than you asked for, and you asked for strict terms."),
			"Closing the subscription: the producer granted more than you asked for, and --strict is set."},
		{listenHints(subscriber.HintAutoReply, "Your auto-reply policy"), "Your --auto-reply policy"},
	} {
		if tt.got != tt.want {
			t.Errorf("said %q\nwant %q", tt.got, tt.want)
		}
	}
}
