package ttytest

import (
	"strings"
	"testing"
	"time"
)

// What a command draws and clears at once is not on the screen, but it is
// in what Written kept.
func TestWritten(t *testing.T) {
	t.Parallel()
	term := Start(t, 40, 5, nil, `read x; printf 'flash\r     \r'`)
	written := term.Written()
	term.Keys("go", "Enter")
	screen := term.WaitFor(30*time.Second, "EXITED rc=0")
	if strings.Contains(screen, "flash") {
		t.Fatalf("the screen still shows the cleared word:\n%s", screen)
	}
	if w := written(); !strings.Contains(w, "flash\r") {
		t.Errorf("written: %q, want the cleared word in it", w)
	}
}
