package demo

import (
	"strings"
	"testing"
)

// The demo agents are served each on its own loopback port, over HTTP,
// WebSocket and gRPC in turn, named LABEL=URL; stopping them all returns
// once every server has ended, and none says a failure.
func TestServeDemoAgents(t *testing.T) {
	agents, err := ServeAgents(MaxAgents, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"code=http://", "mail=ws://", "browser=grpc://", "calendar=http://", "backup=ws://"}
	for i, a := range agents {
		if !strings.HasPrefix(a.Endpoint(), want[i]) {
			t.Errorf("agent %d: %s, want %s…", i, a.Endpoint(), want[i])
		}
	}
	StopAgents(agents)
	for _, a := range agents {
		select {
		case <-a.Done():
		default:
			t.Errorf("%s: still serving after StopAgents", a.Label)
		}
		if err := a.Err(); err != nil {
			t.Errorf("%s: %v", a.Label, err)
		}
	}
	if _, err := ServeAgents(MaxAgents+1, 0); err == nil {
		t.Error("more demo agents than there are were served")
	}
}
