package session

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// With event filters in force the producer leaves out the events they
// exclude, numbers and all: the missing numbers are waited for (order
// holds) and then given up without a gap or joined warning. Without
// filters the same stream is reported.
func TestFilteredNumbersAreNoGap(t *testing.T) {
	tests := []struct {
		name     string
		filtered bool
		seqs     []int64
		want     []string
	}{
		{"filtered gap", true, []int64{0, 1, 3, 5}, []string{"s/0", "s/1", "s/3", "s/5"}},
		{"filtered join", true, []int64{4, 5}, []string{"s/4", "s/5"}},
		{"filtered, shuffled, still in order", true, []int64{0, 3, 1}, []string{"s/0", "s/1", "s/3"}},
		{"unfiltered gap", false, []int64{0, 1, 3}, []string{"s/0", "s/1", "gap: Session s: event 2 never arrived.", "s/3"}},
		{"unfiltered join", false, []int64{4, 5}, []string{"joined: Joined session s at event 4; its earlier events were not received.", "s/4", "s/5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			e.Filtered(tt.filtered)
			now := t0
			for _, n := range tt.seqs {
				now = now.Add(time.Millisecond)
				typ := "progress.updated"
				if n == 0 {
					typ = "session.started"
				}
				e.Handle(ev("s", n, typ), now)
			}
			e.Tick(now.Add(wait))
			if got := orderLog(r); !slices.Equal(got, tt.want) {
				t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}
