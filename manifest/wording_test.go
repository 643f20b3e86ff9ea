package manifest

import (
	"errors"
	"strings"
	"testing"
)

// TestManifestSentenceOneStop: an error that ends its own sentence gets no
// second stop.
func TestManifestSentenceOneStop(t *testing.T) {
	for _, err := range []error{errors.New("dial tcp: connection refused."), errors.New("is it there?"), errors.New("timeout")} {
		s := Result{Err: err}.Sentence()
		if strings.Contains(s, "..") || strings.Contains(s, "?.") || !strings.HasSuffix(strings.TrimRight(s, "?"), ".") && !strings.HasSuffix(s, "?") {
			t.Errorf("Sentence() = %q", s)
		}
	}
}
