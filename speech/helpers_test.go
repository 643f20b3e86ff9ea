package speech

import (
	"context"
	"testing"

	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

func addr(d *speechdtest.Daemon) Address { return Address{Network: "unix", Addr: d.Socket} }

// newBackend returns a Speechd connected to d, closed when the test ends.
func newBackend(t *testing.T, d *speechdtest.Daemon) *Speechd {
	t.Helper()
	b, err := NewSpeechd(context.Background(), addr(d), "user:aaep-listen:test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
