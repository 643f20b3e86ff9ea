package braille

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/announce"
)

func TestRightToLeftIsMarked(t *testing.T) {
	for _, tt := range []struct {
		an   announce.Announcement
		want string
	}{
		{announce.Announcement{Text: "Done."}, "Done."},
		{announce.Announcement{Text: "Done.", RTL: true}, "(rtl) Done."},
		{announce.Announcement{Text: "Sent to مريم."}, "(rtl) Sent to مريم."}, // not declared, still marked
	} {
		if got := strings.Join(layout(tt.an, 40).cells, ""); got != tt.want {
			t.Errorf("layout(%q) = %q, want %q", tt.an.Text, got, tt.want)
		}
	}
}
