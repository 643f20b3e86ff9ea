package conform

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/procgroup"
)

// typist runs the subscriber under test and acts as its user, typing
// lines on its standard input. Everything it writes to its standard output
// and error goes where the options say.
type typist struct {
	stdin     io.WriteCloser
	st        *stage
	done      chan struct{} // closed when the process has ended
	err       error         // how it ended, once done is closed
	interrupt func()        // sends SIGINT, as Control-C in a terminal does
	kill      func()        // ends it and whatever it started

	once sync.Once
}

// startSubscriber runs command, split at spaces without a shell.
// Its standard output and error go to out (nil: discarded) and to keep,
// where the tests of what it announces read them.
func startSubscriber(ctx context.Context, command string, st *stage, out, keep io.Writer) (*typist, error) {
	args := strings.Fields(command)
	if len(args) == 0 {
		return nil, fmt.Errorf("conform: --exec is empty")
	}
	cmd := exec.Command(args[0], args[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("conform: running %s: %w", args[0], err)
	}
	w := keep
	if out != nil {
		w = io.MultiWriter(keep, out)
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = 2 * time.Second
	procgroup.Own(cmd) // whatever it forks is ended with it
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("conform: running the subscriber: %w", err)
	}
	u := &typist{stdin: stdin, st: st, done: make(chan struct{}), kill: func() { procgroup.Kill(cmd) }}
	u.interrupt = func() {
		st.note("note", nil, "sent SIGINT to the subscriber")
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck // already gone
	}
	go func() {
		u.err = cmd.Wait()
		procgroup.Kill(cmd) // its helpers, when it ended on its own
		st.note("note", nil, fmt.Sprintf("the subscriber ended (%v)", exitText(u.err)))
		close(u.done)
	}()
	go func() { // the suite's context ends the subscriber too
		select {
		case <-ctx.Done():
			procgroup.Kill(cmd)
		case <-u.done:
		}
	}()
	return u, nil
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// say types one line, as the user.
func (u *typist) say(line string) {
	u.st.note("sent", nil, fmt.Sprintf("typed on the subscriber's standard input: %q", line))
	io.WriteString(u.stdin, line+"\n") //nolint:errcheck // a subscriber that quit fails its tests
}

// endInput closes standard input, as a user ending the session does.
func (u *typist) endInput() {
	u.st.note("note", nil, "closed the subscriber's standard input")
	u.once.Do(func() { u.stdin.Close() })
}

func (u *typist) running() bool {
	select {
	case <-u.done:
		return false
	default:
		return true
	}
}

// stop ends the subscriber if it still runs and waits for it.
func (u *typist) stop() {
	u.once.Do(func() { u.stdin.Close() })
	select {
	case <-u.done:
		return
	case <-time.After(2 * time.Second):
	}
	u.kill()
	<-u.done
}

// runInProcess runs a subscriber in this process (SubscriberOptions.run),
// as startSubscriber runs a command: its typing comes through a pipe, and
// an interrupt or a kill ends its context and its input, as they would
// end a process that does not handle them.
func runInProcess(ctx context.Context, run func(context.Context, string, io.Reader, io.Writer) error, endpoint string, st *stage, out, keep io.Writer) *typist {
	w := keep
	if out != nil {
		w = io.MultiWriter(keep, out)
	}
	ctx, cancel := context.WithCancel(ctx)
	in, stdin := io.Pipe()
	end := func() { cancel(); in.CloseWithError(context.Canceled) }
	u := &typist{stdin: stdin, st: st, done: make(chan struct{}), kill: end}
	u.interrupt = func() {
		st.note("note", nil, "sent SIGINT to the subscriber")
		end()
	}
	go func() {
		u.err = run(ctx, endpoint, in, w)
		end()
		st.note("note", nil, fmt.Sprintf("the subscriber ended (%v)", exitText(u.err)))
		close(u.done)
	}()
	go func() { // the suite's context ends the subscriber too
		<-ctx.Done()
		end()
	}()
	return u
}
