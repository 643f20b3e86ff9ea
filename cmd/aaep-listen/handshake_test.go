package main

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"
)

// Every rejection reason reads as a sentence; the ones about identity name
// both ways of proving it, and an unknown code is quoted, sanitized.
func TestRejectionWords(t *testing.T) {
	tests := []struct {
		code string
		want []string
	}{
		{"version_unsupported", []string{"version"}},
		{"authentication_required", []string{"--token", "aaep-listen key"}},
		{"authorization_denied", []string{"token", "thumbprint"}},
		{"rate_limit", []string{"try again later"}},
		{"medai_busy\x1b[2J", []string{"(medai_busy"}},
	}
	for _, tt := range tests {
		got := subscriber.RejectionWords(tt.code)
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
