package line

import (
	"io"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/aaep-term/aaep-term/announce"
)

// The agent a writer named last is kept as a copy: an announcement's
// strings may share the bytes of the frame it was made from (up to a
// frame's limit), which a kept string would keep alive for as long as
// the agent keeps its name.
func TestAgentKeptAsACopy(t *testing.T) {
	block := strings.Repeat("x", 1000) + "Agent Seven" + strings.Repeat("y", 1000)
	w := NewWriter(io.Discard, io.Discard, WriterOptions{Location: time.UTC})
	a := &announce.Announcement{At: time.Unix(0, 0), Agent: block[1000:1011], Text: "Working."}
	if err := w.AnnounceRef(a); err != nil {
		t.Fatal(err)
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(w.agent))), uintptr(unsafe.Pointer(unsafe.StringData(block)))
	if w.agent != "Agent Seven" || p >= b && p < b+uintptr(len(block)) {
		t.Errorf("the writer keeps the agent %q in the announcement's bytes, not a copy", w.agent)
	}
}
