package line

import (
	"bytes"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

func TestRightToLeftIsIsolated(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		an   announce.Announcement
		want string
	}{
		{"latin", announce.Announcement{Agent: "Ada", Text: "Done."}, "12:00:00 Ada: Done.\n"},
		{"declared rtl", announce.Announcement{Agent: "Ada", Text: "Done 42.", RTL: true}, "12:00:00 Ada: \u2068Done 42.\u2069\n"},
		{"arabic in ltr text", announce.Announcement{Agent: "Ada", Text: "Sent to مريم today."}, "12:00:00 Ada: \u2068Sent to مريم today.\u2069\n"},
		{"hebrew agent name", announce.Announcement{Agent: "עוזר", Text: "Done."}, "12:00:00 \u2068עוזר\u2069: Done.\n"},
		{"hostile override stripped, then isolated", announce.Announcement{Agent: "Ada",
			Text: protocol.Text("\u202eשלום\u2066 x").String(), RTL: true}, "12:00:00 Ada: \u2068שלום x\u2069\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
		tt.an.At = at
		if err := w.Announce(tt.an); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if got := out.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
