//go:build unix

package procgroup

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// Ended reports a child's exit status and its last kept lines of standard
// error, after every line was told in order and the end was told last.
func TestChildEnded(t *testing.T) {
	t.Parallel()
	var told []string
	c, err := Start([]string{"sh", "-c", `for i in 1 2 3 4 5; do echo "line $i" >&2; done; echo "  " >&2; exit 3`}, Options{
		Clean:  strings.TrimSpace,
		OnLine: func(s string) { told = append(told, s) },
		OnEnd:  func() { told = append(told, "end") },
		Keep:   2,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.Copy(io.Discard, c.Out); err != nil {
		t.Fatal(err)
	}
	e := c.Ended()
	<-c.errDone // OnEnd has run: told is no longer written
	if e.Running || e.State != "exit status 3" || !slices.Equal(e.Stderr, []string{"line 4", "line 5"}) {
		t.Errorf("Ended() = %+v", e)
	}
	if want := []string{"line 1", "line 2", "line 3", "line 4", "line 5", "end"}; !slices.Equal(told, want) {
		t.Errorf("told %q, want %q", told, want)
	}
}

// A child that exits cleanly when its input closes ends with no state;
// one that ignores its closed input is killed after KillWait.
func TestChildClose(t *testing.T) {
	t.Parallel()
	c, err := Start([]string{"cat"}, Options{KillWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c.In, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(c.Out).ReadString('\n'); err != nil || line != "hello\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	c.Close() // cat exits on its own well before the minute
	if e := c.Ended(); e.Running || e.State != "" {
		t.Errorf("cat ended %+v, want a clean exit", e)
	}

	stubborn, err := Start([]string{"sh", "-c", "trap '' HUP; exec sleep 1000"}, Options{KillWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	stubborn.Close() // returns only once the process was waited for
	if e := stubborn.Ended(); e.State != "signal: killed" {
		t.Errorf("a child that ignores its input ended %+v, want killed", e)
	}
}

// Of a line longer than the reader's buffer, the start is told, never the
// rest: the rest is not a line of its own.
func TestChildLongStderrLine(t *testing.T) {
	t.Parallel()
	var told []string
	c, err := Start([]string{"sh", "-c", `printf 'START%010000dTAIL\nnext\n' 0 >&2`}, Options{
		Clean:  strings.TrimSpace,
		OnLine: func(s string) { told = append(told, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.Copy(io.Discard, c.Out); err != nil {
		t.Fatal(err)
	}
	c.Ended()
	<-c.errDone // every line is told
	if len(told) != 2 || !strings.HasPrefix(told[0], "START") || strings.Contains(told[0], "TAIL") || told[1] != "next" {
		t.Errorf("told %.60q, want the start of the long line, then next", told)
	}
}
