package outputs

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/command"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string // in the error; "" for none
	}{
		{Options{}, ""},
		{Options{Speech: "auto", Braille: "auto"}, ""},
		{Options{Speech: "espeak", Braille: "off"}, ""},
		{Options{Speech: "loud"}, "--speech"},
		{Options{Braille: "on"}, "--braille"},
	} {
		err := tt.o.Check()
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want an error naming %q", tt.o, err, tt.want)
		}
	}
}

// Nothing asked for opens nothing; a braille display that cannot be reached
// is told in one line and leaves no output behind.
func TestOpenNothingAndMissingBraille(t *testing.T) {
	t.Parallel()
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	s := Open(context.Background(), Options{}, note)
	if len(s.List) != 0 || s.Answers != nil || len(notes) != 0 {
		t.Errorf("nothing asked: %d outputs, notes %q", len(s.List), notes)
	}
	s.Close()
	dir := t.TempDir()
	s = Open(context.Background(), Options{Braille: "auto", BrlAPIHost: dir + "/no-such-socket:9",
		Getenv: func(k string) string {
			if k == "BRLAPI_AUTH" {
				return "none"
			}
			return ""
		}}, note)
	defer s.Close()
	if len(s.List) != 0 || s.Answers != nil || len(notes) != 1 || !strings.HasPrefix(notes[0], "No braille: ") {
		t.Errorf("unreachable display: %d outputs, notes %q", len(s.List), notes)
	}
}

// Once tells only the first error, from any goroutine.
func TestOnce(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	f := Once(func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }, "The display stopped")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); f(errors.New("gone")) }()
	}
	wg.Wait()
	if len(notes) != 1 || notes[0] != "The display stopped: gone. Other outputs go on." {
		t.Errorf("notes %q", notes)
	}
}

// A routing key on a braille prompt is the typed command, the same value
// line mode gives for the words: nothing is written out and parsed back.
func TestBrailleAnswerTyped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n      int
		accept bool
		words  string
	}{{3, true, "accept 3"}, {12, false, "reject 12"}} {
		got := answer(tc.n, tc.accept)
		want := command.Parse(tc.words)
		want.Arg = ""   // the line as typed, which accept and reject do not read (as tui.Action.Command)
		want.Key = true // a key on the prompt shown, not a number typed
		if !reflect.DeepEqual(got, want) {
			t.Errorf("answer(%d, %v) = %+v, want %+v", tc.n, tc.accept, got, want)
		}
	}
}
