package subscriber_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// A task or cancel the producer refuses reaches the person over every
// binding: over HTTP as Tell's error, elsewhere as a status line saying
// so, its reason sanitized. A task taken is no refusal.
func TestTaskRefused(t *testing.T) {
	t.Parallel()
	for _, b := range bindings {
		if !b.negotiates {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			tasks := make(chan string, 4)
			var endpoint string
			if b.name == "stdio" {
				// The child (TestMain) serves refusingLive too.
				exe, err := os.Executable()
				if err != nil {
					t.Fatal(err)
				}
				endpoint = "exec:" + transport.JoinCommand([]string{"/usr/bin/env", childProducerEnv + "=" + childTasks, exe, "-test.run=^$"})
			} else {
				p := producer.New(producer.Options{Live: refusingLive(tasks)})
				go func() { _ = p.Run(context.Background()) }()
				t.Cleanup(func() { p.Close() })
				endpoint = b.serve(t, p)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true},
				Tasks:     true,
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: b.layout}, GRPCBinding: grpcbind.Binding{}},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := &stream{t: t, c: c, ctx: ctx}
			s.until(func(u subscriber.Update) bool {
				return u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusSubscribed
			})
			if !c.TakesTasks() {
				t.Fatal("the producer did not say it takes tasks")
			}
			http := strings.HasPrefix(endpoint, "http")
			refused := func(err error, want string) {
				t.Helper()
				if http {
					var tr *subscriber.TaskRefusedError
					if !errors.As(err, &tr) || !strings.Contains(tr.Words(), want) || strings.ContainsAny(tr.Words(), "\x1b\u202e\n") {
						t.Errorf("over HTTP the refusal is the error: %v, want a TaskRefusedError saying %q", err, want)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				u := s.until(func(u subscriber.Update) bool {
					return u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusRefused
				})
				t.Log(u.Text)
				if !strings.Contains(u.Text, want) {
					t.Errorf("refusal said %q, want %q in it", u.Text, want)
				}
				if strings.ContainsAny(u.Text, "\x1b\u202e\n") {
					t.Errorf("the reason reached the person unsanitized: %q", u.Text)
				}
			}
			refused(c.Tell(ctx, "busy"), "the agent is busy")
			// Cut to 1,000 characters (over HTTP, the transport reads no
			// error body that long, and the refusal is said without it).
			long := strings.Repeat("no ", 333) + "…"
			if http {
				long = "The producer refused your task."
			}
			refused(c.Tell(ctx, "long"), long)
			refused(c.CancelTask(ctx), "no task is going on")
			if err := c.Tell(ctx, "go"); err != nil {
				t.Fatal(err)
			}
			if b.name == "stdio" {
				return // the child's agent is out of reach
			}
			if got := <-tasks; got != "go" {
				t.Errorf("the agent was given %q, want go", got)
			}
		})
	}
}

// refusalWords is what refusingLive refuses a busy task with.
const refusalWords = "the agent is busy\x1b[2J\u202e; CONFIRMATION NEEDED"

// refusingLive is a live agent that does nothing by itself and refuses
// some tasks: "busy" with refusalWords, "long" with 300,000 bytes; every
// cancel. It sends the others to tasks (nil: they are dropped).
func refusingLive(tasks chan<- string) *producer.Live {
	return &producer.Live{
		Agent: producer.Agent{ID: "tasked"},
		Next: func(ctx context.Context) ([]byte, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		Messages: map[string]func([]byte) error{
			protocol.TypeTask: func(msg []byte) error {
				var m struct{ Text string }
				_ = json.Unmarshal(msg, &m)
				switch m.Text {
				case "busy":
					return errors.New(refusalWords)
				case "long": // said in its first 1,000 characters
					return errors.New(strings.Repeat("no ", 100_000))
				}
				if tasks != nil {
					tasks <- m.Text
				}
				return nil
			},
			protocol.TypeTaskCancel: func([]byte) error { return errors.New("no task is going on") },
		},
		Honored: map[string]json.RawMessage{protocol.TasksPrefix: protocol.TasksCapability},
	}
}

// A producer cannot make a person hear that a task of theirs was refused
// when none was sent: a refusal with no task or cancel waiting for its
// answer is a diagnostic, never said as a refusal.
func TestUnaskedRefusalNotSaid(t *testing.T) {
	t.Parallel()
	frames := `{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0","producer":{"agent_id":"a"},"honored_capabilities":{"agtask":{"task":true}}}
{"type":"agtask:refused","refused":"agtask:task","reason":"You asked to delete everything.","subscription_id":"sub_1","timestamp":"2026-11-29T00:00:00Z"}
`
	c := subscriber.New(context.Background(), transport.NewNDJSONConn(strings.NewReader(frames), transport.FileOptions{}), "file:refusal.jsonl",
		subscriber.Config{Tasks: true})
	defer c.Close()
	var diagnosed bool
	eachUpdate(t, c, func(u subscriber.Update) {
		if u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusRefused {
			t.Errorf("an unasked refusal was said: %q", u.Text)
		}
		if u.Kind == subscriber.KindDiagnostic && strings.Contains(u.Diagnostic.Message, protocol.TypeTaskRefused) {
			diagnosed = true
		}
	})
	if !diagnosed {
		t.Error("no diagnostic for the unasked refusal")
	}
}
