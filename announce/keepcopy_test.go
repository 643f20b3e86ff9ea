package announce

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/aaep-term/aaep-term/protocol"
)

// sharesBytes reports whether s's bytes lie in block's.
func sharesBytes(s, block string) bool {
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(block)))
	return len(s) > 0 && p >= b && p < b+uintptr(len(block))
}

// The producer an announcer names last is kept as a copy: an event's
// strings share its frame's bytes (up to a frame's limit), which a kept
// string would keep alive for as long as the agent keeps its name.
func TestAgentNameKeptAsACopy(t *testing.T) {
	block := strings.Repeat("x", 1000) + "agent-7" + "Agent Seven" + strings.Repeat("y", 1000)
	ev := &protocol.Event{Producer: protocol.Producer{AgentID: block[1000:1007], AgentName: protocol.Text(block[1007:1018])}}
	a := New(Config{})
	if got := a.agentName(ev); got != "Agent Seven" {
		t.Fatalf("agent named %q, want %q", got, "Agent Seven")
	}
	for _, kept := range []string{a.named.id, string(a.named.name), a.named.said} {
		if sharesBytes(kept, block) {
			t.Errorf("the announcer keeps %q in the event's bytes, not a copy", kept)
		}
	}
}
