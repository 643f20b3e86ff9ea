package subscriber_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// Subscribe to a producer, accept the payment it asks about, and close once
// the agent's session is over. The producer is the real one, serving its
// "confirm" scenario on a loopback port; any AAEP endpoint (ws://, grpc://,
// unix:, exec:) is dialled the same way.
func Example() {
	all, _ := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	confirm, _ := producer.SelectScenarios(all, []string{"confirm"})
	p := producer.New(producer.Options{Scenarios: confirm})
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer p.Close()

	ctx := context.Background()
	c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{
		Identity: subscriber.Identity{ID: "example", Name: "example", Version: "1"},
		Terms:    subscriber.RequestedTerms{CanConfirm: true}, // true: this program answers confirmations
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		u, err := c.Next(ctx)
		if err != nil {
			return // io.EOF: the End was the last update
		}
		switch u.Kind {
		case subscriber.KindDelivery:
			if u.Delivery.Kind != subscriber.KindEvent {
				continue // reminders, outcomes, warnings: see subscriber.DeliveryKind
			}
			ev, prompt := u.Delivery.Event, u.Delivery.Prompt
			if ev.SummaryNormal != "" {
				fmt.Println(ev.SummaryNormal) // a subscriber.Text: printing sanitizes it
			}
			if prompt != nil && prompt.State == subscriber.PromptPending {
				if err := c.Confirm(ctx, prompt.Number, subscriber.DecisionAccept); err != nil {
					fmt.Println(err) // a *PromptError or a *SendError
				}
			}
			if ev.Type == subscriber.TypeSessionCompleted {
				c.Close() // Close never waits for this loop: the End is queued
			}
		case subscriber.KindReply:
			fmt.Println("Reply sent:", u.Reply.Decision, u.Reply.Err == nil)
		case subscriber.KindEnd:
			fmt.Println(u.Text)
		}
	}
	// Output:
	// Paying the electricity bill from your checking account.
	// Fetching the bill.
	// Reading the latest bill from Lisbon Energy.
	// The bill is 86.40 euros, due on Friday.
	// Waiting for your go-ahead before paying.
	// Please confirm: pay the electricity bill of 86.40 euros now? This cannot be undone.
	// Reply sent: accept true
	// You accepted; sending the payment.
	// Sending 86.40 euros to Lisbon Energy.
	// The bank confirmed the transfer.
	// Transfer done: the electricity bill is paid.
	// The subscription is closed.
}

// Record a subscription into a capture through Config.Tap, then check the
// capture. This recorder cannot answer prompts and says so (CanConfirm
// false), so the producer applies the default of its confirmation at once.
func ExampleConfig_tap() {
	all, _ := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	confirm, _ := producer.SelectScenarios(all, []string{"confirm"})
	p := producer.New(producer.Options{Scenarios: confirm, EndWhenDone: true})
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer p.Close()

	var file bytes.Buffer
	w, err := capture.NewWriter(&file, capture.Header{Tool: "example"}, time.Now(), capture.WriterOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{
		Identity: subscriber.Identity{ID: "recorder", Name: "example recorder", Version: "1"},
		Tap: func(dir subscriber.Direction, msg []byte, at time.Time) {
			_ = w.Write(capture.Dir(string(dir)), msg, at) // a real recorder keeps the first error
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		u, err := c.Next(ctx)
		if err != nil {
			break
		}
		if u.Kind == subscriber.KindEnd {
			fmt.Println(u.Text)
		}
	}

	r, _ := capture.NewReader(&file)
	check, _ := capture.NewChecker(capture.CheckOptions{})
	_ = check.CheckAll(r, func(st capture.Step) {
		if st.Record.Dir == capture.In { // what the producer sent, and what the check found
			fmt.Println(st.Record.Dir, st.Type, len(st.Violations))
		}
	})
	fmt.Println(len(check.Finish()), "violations at the end")
	// Output:
	// The producer ended the stream.
	// i subscription.accepted 0
	// i aaep:agent.session.started 0
	// i aaep:agent.state.changed 0
	// i aaep:agent.tool.invoked 0
	// i aaep:agent.tool.completed 0
	// i aaep:agent.state.changed 0
	// i aaep:agent.state.changed 0
	// i aaep:agent.state.changed 0
	// i aaep:agent.output.streaming 0
	// i aaep:agent.session.completed 0
	// 0 violations at the end
}

// Read a capture (or a file of JSON Lines events) through the same client
// as a live producer: a file endpoint gives the capture's received
// messages, as fast as they can be read, and the End comes after the last.
// The engine judges them as it would live: the confirmation's time ran out
// long ago, so it is told as stale and never offered for an answer, and
// the tool call after it is linked to it.
func ExampleDial_capture() {
	ctx := context.Background()
	c, err := subscriber.Dial(ctx, "../capture/testdata/corpus/after-reject.aaep", subscriber.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for {
		u, err := c.Next(ctx)
		if err != nil {
			return
		}
		switch u.Kind {
		case subscriber.KindDelivery:
			d := u.Delivery
			fmt.Println(d.Kind, d.Event.Type)
			if d.Note != "" {
				fmt.Println("  " + d.Note)
			}
		case subscriber.KindDiagnostic:
			fmt.Println("diagnostic:", u.Diagnostic.Message)
		case subscriber.KindStatus:
			fmt.Println(u.Status, u.Text)
		case subscriber.KindEnd:
			fmt.Println("end:", u.Text)
		}
	}
	// Output:
	// connected Connected to ../capture/testdata/corpus/after-reject.aaep.
	// event aaep:agent.session.started
	// prompt-stale aaep:agent.awaiting.confirmation
	// event aaep:agent.tool.invoked
	//   Started after a confirmation that was settled before you could answer it.
	// event aaep:agent.tool.completed
	// event aaep:agent.session.completed
	// end: End of the input.
}

// Supervise two agents in one program, as aaep-listen does: their updates
// come out of one stream, each batch naming its member; their prompts share
// one numbering, so an answer needs only the number and reaches the agent
// that asked. Here the bank's payment is accepted and the shop's refused.
func ExampleGroup() {
	all, _ := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	confirm, _ := producer.SelectScenarios(all, []string{"confirm"})
	var producers []*producer.Producer
	var urls []string
	for range 2 {
		p := producer.New(producer.Options{Scenarios: confirm, EndWhenDone: true})
		srv := httptest.NewServer(p)
		defer srv.Close()
		defer p.Close()
		producers, urls = append(producers, p), append(urls, srv.URL)
	}

	ctx := context.Background()
	cfg := subscriber.Config{
		Identity: subscriber.Identity{ID: "example", Name: "example", Version: "1"},
		Terms:    subscriber.RequestedTerms{CanConfirm: true},
	}
	g := subscriber.NewGroup(subscriber.GroupConfig{Expected: 2})
	defer g.Stop()
	g.Add(ctx, "bank", urls[0], cfg)
	g.Add(ctx, "shop", urls[1], cfg)
	for g.Live() > 0 {
		b, err := g.Next(ctx)
		if err != nil {
			return
		}
		for _, u := range b.Updates {
			if u.Kind != subscriber.KindDelivery || u.Delivery.Prompt == nil || u.Delivery.Prompt.State != subscriber.PromptPending {
				continue
			}
			decision := subscriber.DecisionAccept
			if b.Member.Tag() == "shop" {
				decision = subscriber.DecisionReject
			}
			_ = g.Confirm(ctx, u.Delivery.Prompt.Number, decision) // by number alone
		}
	}
	fmt.Println("bank:", producers[0].Outcomes()[0].Decision)
	fmt.Println("shop:", producers[1].Outcomes()[0].Decision)
	// Output:
	// bank: accept
	// shop: reject
}

// Reach a producer over gRPC: the binding is package transport/grpcbind,
// named in Config.Transport, so that a program that never reaches gRPC
// does not link it.
func Example_gRPC() {
	all, _ := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	confirm, _ := producer.SelectScenarios(all, []string{"confirm"})
	srv, err := producer.ServeLoopback(producer.New(producer.Options{Scenarios: confirm}), producer.BindingGRPC)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Stop()

	cfg := subscriber.Config{Identity: subscriber.Identity{ID: "example", Name: "example", Version: "1"}}
	cfg.Transport.GRPCBinding = grpcbind.Binding{}
	ctx := context.Background()
	c, err := subscriber.Dial(ctx, srv.URL(), cfg) // grpc://127.0.0.1:PORT
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for {
		u, err := c.Next(ctx)
		if err != nil {
			return
		}
		if u.Kind == subscriber.KindDelivery && u.Delivery.Event != nil {
			fmt.Println(u.Delivery.Event.SummaryNormal) // the first event
			return
		}
	}
	// Output:
	// Paying the electricity bill from your checking account.
}
