package connfail

import (
	"errors"
	"testing"
)

func TestFirstReasonWins(t *testing.T) {
	var r Reason
	if r.Err() != nil || r.Or("closed").Error() != "closed" {
		t.Fatalf("a new Reason: %v, %v", r.Err(), r.Or("closed"))
	}
	first, second := errors.New("first"), errors.New("second")
	r.Set(first)
	r.Set(second)
	if r.Err() != first || r.Or("closed") != first {
		t.Errorf("got %v and %v, want the first reason", r.Err(), r.Or("closed"))
	}
}
