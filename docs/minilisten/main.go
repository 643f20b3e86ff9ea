// Command minilisten listens to one AAEP producer and lets you answer its
// prompts by typing "accept 1", "reject 1" or "answer 2 blue". It is the
// complete program of docs/library.md, kept here so that it compiles and its
// test runs it against the real producer.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/subscriber"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: minilisten ENDPOINT")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := listen(ctx, os.Args[1], os.Stdin, os.Stdout) // Control-C closes the subscription
	stop()
	os.Exit(code)
}

// listen prints what the producer at endpoint says, answers prompts as
// typed on in, and returns the exit code.
func listen(ctx context.Context, endpoint string, in io.Reader, out io.Writer) int {
	// Start returns at once; "Connecting to …" is the first update.
	c := subscriber.Start(ctx, endpoint, subscriber.Config{
		Identity: subscriber.Identity{ID: "minilisten", Name: "minilisten", Version: "0.1"},
		// Someone types answers, so say so: the producer sends prompts only
		// to a subscription that can answer them.
		Terms: subscriber.RequestedTerms{CanConfirm: true, CanClarify: true},
	})
	defer c.Close()
	go answer(ctx, c, in, out)

	code := 0
	for {
		u, err := c.Next(ctx)
		if err != nil { // io.EOF after the End; or ctx is done
			return code
		}
		switch u.Kind {
		case subscriber.KindDelivery:
			show(out, u.Delivery)
		case subscriber.KindDiagnostic:
			fmt.Fprintln(out, "Problem:", u.Diagnostic.Message)
		case subscriber.KindStatus, subscriber.KindReply:
			fmt.Fprintln(out, plain(u.Text))
		case subscriber.KindEnd:
			fmt.Fprintln(out, plain(u.Text))
			if u.Err != nil {
				code = 1
			}
		}
	}
}

// plain drops the marks around the producer's words in one of the client's
// sentences (sanitized already); a richer output would isolate them.
func plain(text string) string {
	s, _ := subscriber.SplitTheirs(text)
	return s
}

// show prints one delivery: the event's summary, and how to answer a prompt.
func show(out io.Writer, d subscriber.Delivery) {
	if d.Event == nil {
		return
	}
	line := d.Event.SummaryNormal.Line() // producer text, sanitized to one line
	if line == "" {
		line = d.Event.Type
	}
	if d.Note != "" {
		line += " (" + d.Note + ")"
	}
	fmt.Fprintln(out, d.Kind, line)
	if p := d.Prompt; p != nil && d.Kind == subscriber.KindEvent && p.State == subscriber.PromptPending {
		fmt.Fprintf(out, "Prompt %d waits for your answer.\n", p.Number)
	}
}

// answer reads typed lines and answers prompts; it runs beside the reader.
func answer(ctx context.Context, c *subscriber.Client, in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		verb, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		num, text, _ := strings.Cut(rest, " ")
		n, _ := strconv.Atoi(num)
		var err error
		switch verb {
		case subscriber.DecisionAccept, subscriber.DecisionReject:
			err = c.Confirm(ctx, n, verb)
		case "answer":
			err = c.Answer(ctx, n, text)
		case "quit":
			c.Close()
			return
		default:
			fmt.Fprintln(out, "Type accept N, reject N, answer N TEXT or quit.")
			continue
		}
		var pe *subscriber.PromptError
		switch {
		case errors.As(err, &pe):
			fmt.Fprintln(out, pe.Words) // no such prompt, settled already, or not an answer it takes
		case errors.Is(err, subscriber.ErrClosed):
			return
		case err != nil:
			fmt.Fprintln(out, err) // a *SendError: the prompt still waits
		}
	}
}
