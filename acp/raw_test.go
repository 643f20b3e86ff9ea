package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// With RawFile, every JSON-RPC line to and from the agent is appended to
// the file, in order and in its direction, whole: the handshake, the task,
// the permission request and the answer the user gave; through Dialer,
// the hook aaep-capture --acp-raw dials acp: endpoints with.
func TestRawACPLines(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw := filepath.Join(t.TempDir(), "raw.jsonl")
	ctx, cancel := context.WithCancel(acptest.Context(t))
	defer cancel()
	c := subscriber.Start(ctx, "acp:'"+exe+"' -test.run=^$", subscriber.Config{
		Identity: session.Identity{ID: "raw-test", Name: "raw-test", Version: "1"},
		Terms:    session.Terms{CanConfirm: true},
		Transport: transport.Options{ACP: acp.Dialer(acp.Options{
			Name: "code", Dir: dir, Task: "write the proof file", RawFile: raw,
			Env: append(os.Environ(), acptest.Env+"=happy"),
		})},
	})
	defer c.Close()
	answered := false
	for done := false; !done; {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("the subscription ended: %v", err)
		}
		if u.Kind != subscriber.KindDelivery {
			continue
		}
		if p := u.Delivery.Prompt; p != nil && !answered {
			answered = true
			if err := c.Confirm(ctx, p.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
		}
		done = u.Delivery.Event != nil && u.Delivery.Event.Type == protocol.TypeSessionCompleted
	}
	c.Close()
	acptest.Wait(t, "the subscription, once closed,", c.Done())
	f, err := os.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var seen []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			T, Agent, Dir string
			Msg           struct {
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if rec.Agent != "code" || rec.T == "" || (rec.Dir != "i" && rec.Dir != "o") {
			t.Errorf("record %s", sc.Text())
		}
		what := rec.Msg.Method
		if strings.Contains(string(rec.Msg.Result), `"optionId":"yes"`) {
			what = "allow"
		}
		if what != "" {
			seen = append(seen, rec.Dir+" "+what)
		}
	}
	all := strings.Join(seen, ", ")
	want := []string{"o initialize", "o session/new", "o session/prompt", "i session/request_permission", "o allow"}
	last := -1
	for _, w := range want {
		i := strings.Index(all, w)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in %s", w, all)
		}
		last = i
	}
}
