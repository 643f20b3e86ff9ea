package producer

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// WaitOutcomes returns once as many prompts as asked for are settled, and
// when its context ends first, with what was settled and the context's
// error. The run is in a synctest bubble: a prompt's wait is on its clock.
func TestWaitOutcomes(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{Scenarios: scenarios(t, "confirm"), PromptTimeout: time.Minute})
		defer p.Close()
		run := make(chan error, 1)
		go func() { run <- p.Run(t.Context()) }()
		outs, err := p.WaitOutcomes(t.Context(), 1)
		if err != nil || len(outs) != 1 {
			t.Fatalf("WaitOutcomes(1) = %+v, %v; want the one prompt settled", outs, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		outs, err = p.WaitOutcomes(ctx, 2)
		if !errors.Is(err, context.DeadlineExceeded) || len(outs) != 1 {
			t.Fatalf("WaitOutcomes(2) of a run with one prompt = %+v, %v; want the one and the deadline", outs, err)
		}
		if err := <-run; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}
