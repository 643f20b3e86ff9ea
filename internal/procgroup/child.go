package procgroup

// child.go: a program run as a peer over its standard input and output, in
// a process group of its own: started, its standard error read line by
// line, its exit waited for once, and closed, killed with whatever it left
// behind. Both the stdio binding and the ACP bridge run their peers so.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// How long a child whose output ended may take to exit, and then to close
// its standard error (a helper it started may hold it open), before Ended
// stops waiting.
const (
	exitGrace   = 2 * time.Second
	stderrGrace = 500 * time.Millisecond
)

// Options says how to start a child.
type Options struct {
	Dir string   // working directory; "" is this process's
	Env []string // the whole environment; nil is this process's

	// KillWait is how long Close waits, once the child's input is closed,
	// for it to exit before killing it; 0 means one second.
	KillWait time.Duration

	// Clean turns one line of standard error, as read and possibly cut,
	// into what may be shown; "" drops it. nil drops every line.
	Clean func(line string) string
	// OnLine gets each line Clean kept, in order, from one goroutine.
	OnLine func(line string)
	// OnEnd is called once standard error has ended, after every OnLine.
	OnEnd func()
	// Keep is how many of the last kept lines Exit reports; 0 means 3.
	Keep int
}

// Child is a started program. Write to In, read from Out; Close ends it.
type Child struct {
	In  *os.File // the child's standard input
	Out *os.File // the child's standard output

	cmd      *exec.Cmd
	killWait time.Duration
	keep     int

	exited  chan struct{} // closed once the process is waited for
	waitErr error         // set before exited closes
	errDone chan struct{} // closed once standard error has ended

	mu   sync.Mutex // guards last
	last []string

	closing sync.Once
}

// Exit is how a child ended.
type Exit struct {
	Running bool     // it closed its output but had not exited after a grace period
	State   string   // how it exited ("exit status 3", "signal: killed"); "" for a clean exit
	Stderr  []string // its last kept lines of standard error, oldest first
}

// Start starts argv in a process group of its own (Own), with pipes for
// its standard input, output and error.
func Start(argv []string, o Options) (*Child, error) {
	if len(argv) == 0 {
		return nil, errors.New("procgroup: no command to start")
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var p [3][2]*os.File // stdin, stdout, stderr: read and write ends
	for i := range p {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("procgroup: %w", err)
		}
		files = append(files, r, w)
		p[i] = [2]*os.File{r, w}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p[0][0], p[1][1], p[2][1]
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	Own(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, err
	}
	p[0][0].Close()
	p[1][1].Close()
	p[2][1].Close()
	c := &Child{
		In: p[0][1], Out: p[1][0], cmd: cmd, killWait: o.KillWait, keep: o.Keep,
		exited: make(chan struct{}), errDone: make(chan struct{}),
	}
	if c.killWait <= 0 {
		c.killWait = time.Second
	}
	if c.keep <= 0 {
		c.keep = 3
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	go c.readStderr(p[2][0], o)
	return c, nil
}

// readStderr reads standard error to its end, a line at a time; of a very
// long line only the start is kept.
func (c *Child) readStderr(f *os.File, o Options) {
	defer close(c.errDone)
	defer f.Close()
	br := bufio.NewReaderSize(f, 4096)
	for {
		slice, err := br.ReadSlice('\n')
		line := string(slice) // the next read overwrites slice
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if o.Clean != nil {
			if s := o.Clean(line); s != "" {
				c.mu.Lock()
				c.last = append(c.last, s)
				if len(c.last) > c.keep {
					c.last = c.last[1:]
				}
				c.mu.Unlock()
				if o.OnLine != nil {
					o.OnLine(s)
				}
			}
		}
		if err != nil {
			if o.OnEnd != nil {
				o.OnEnd()
			}
			return
		}
	}
}

// Ended waits, once the child's output has ended, for it to exit and for
// its standard error to end, each for a grace period, and says how it
// ended.
func (c *Child) Ended() Exit {
	t := time.NewTimer(exitGrace)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
		return Exit{Running: true, Stderr: c.lastLines()}
	}
	t.Reset(stderrGrace)
	select {
	case <-c.errDone:
	case <-t.C:
	}
	e := Exit{Stderr: c.lastLines()}
	if c.waitErr != nil {
		e.State = c.waitErr.Error()
		var xe *exec.ExitError
		if errors.As(c.waitErr, &xe) {
			e.State = xe.ProcessState.String()
		}
	}
	return e
}

func (c *Child) lastLines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.last...)
}

// Close closes the child's input, waits up to KillWait for it to exit,
// then kills its process group and everything that inherited its mark,
// and closes its output. It is safe to call more than once.
func (c *Child) Close() {
	c.closing.Do(func() {
		c.In.Close() // a write blocked on a full pipe fails now
		t := time.NewTimer(c.killWait)
		defer t.Stop()
		select {
		case <-c.exited:
		case <-t.C:
		}
		Kill(c.cmd) // helpers it left behind too
		_ = c.cmd.Process.Kill()
		<-c.exited
		c.Out.Close()
	})
}
