package line

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// FuzzTheirsOneLine: whatever marks, isolates, overrides or line breaks a
// text holds, a line of ours (Say) and an announcement with any ranges of
// producer words come out as one line whose only direction controls are our
// own isolates, balanced and never nested.
func FuzzTheirsOneLine(f *testing.F) {
	for _, s := range []string{"Subscribed to \u2068مساعد\u2069.", "\u2069\u2068\u2068x\u202e\u2069\ny", "a\u2066b\u2067c\u2069", "Finished: \u2068\u2069"} {
		f.Add(s, 3, 9)
	}
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string, start, end int) {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
		if err := w.Say(at, s); err != nil {
			t.Fatal(err)
		}
		an := announce.Announcement{At: at, Agent: s, Text: s, Theirs: []protocol.Span{{Start: start, End: end}, {Start: 0, End: len(s)}}}
		if err := w.Announce(an); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%d lines from %q: %q", len(lines), s, out.String())
		}
		for _, l := range lines {
			open := false
			for _, r := range l {
				switch {
				case r == '\u2068':
					if open {
						t.Fatalf("nested isolate in %q", l)
					}
					open = true
				case r == '\u2069':
					if !open {
						t.Fatalf("isolate closed before it opened in %q", l)
					}
					open = false
				case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2067, r < 0x20 && r != '\t':
					t.Fatalf("control %U in %q", r, l)
				}
			}
			if open {
				t.Fatalf("isolate left open in %q", l)
			}
		}
	})
}
