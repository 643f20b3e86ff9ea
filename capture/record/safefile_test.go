package record

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
)

// The output (--output), and each file of a rotated series
// (--rotate-size), is never written through a symbolic link: the
// recording stops with an error that says why and the file the link points
// at is left alone. An existing output file is made 0600.
func TestOutputSafely(t *testing.T) {
	for _, tt := range []struct {
		name string
		link string // the name, in the output's directory, that is a link to the victim
		o    Options
	}{
		{"output", "session.aaep", Options{}},
		{"rotated file", "session.aaep.1", Options{RotateSize: 2048}},
		{"jsonl output", "session.aaep", Options{JSONL: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := safefiletest.Link(t, dir, tt.link)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			o := tt.o
			o.NoRedact = true
			stderr, wait := runRecord(ctx, "file:"+cleanJSONL, filepath.Join(dir, "session.aaep"), o)
			err := wait()
			if err == nil {
				t.Errorf("no error writing through a link: %s", stderr)
			}
			if said := fmt.Sprint(stderr, err); !strings.Contains(said, "symbolic link") {
				t.Errorf("neither standard error nor the error says why: %s", said)
			}
			safefiletest.Intact(t, victim)
		})
	}
	path := filepath.Join(t.TempDir(), "old.aaep")
	safefiletest.Loose(t, path)
	recordFrom(t, "file:"+cleanJSONL, Options{Output: path})
	safefiletest.Private(t, path)
}
