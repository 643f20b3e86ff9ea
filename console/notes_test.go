package console

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// Lines added from many goroutines are all taken, each goroutine's in the
// order it added them, however the taker lags.
func TestNotesKeepEveryLine(t *testing.T) {
	n := NewNotes()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				n.Add(fmt.Sprintf("%d %03d", g, i))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var got []string
	for finished := false; !finished; {
		select {
		case <-n.Ready():
		case <-done:
			finished = true
		}
		got = append(got, n.Take()...)
	}
	if len(got) != 400 {
		t.Fatalf("took %d lines, want 400", len(got))
	}
	for g := range 4 {
		var mine []string
		for _, s := range got {
			if s[0] == byte('0'+g) {
				mine = append(mine, s)
			}
		}
		if !slices.IsSorted(mine) {
			t.Errorf("goroutine %d's lines out of order", g)
		}
	}
}
