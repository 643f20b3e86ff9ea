// stdio.go: the stdio JSON-RPC binding (appendix B.6): a spawned producer
// speaking JSON-RPC 2.0 on its standard input and output, one message per
// line; what it writes on standard error is shown as diagnostics.

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/procgroup"
	"github.com/aaep-term/aaep-term/internal/wire"

	"github.com/aaep-term/aaep-term/protocol"
)

// StdioOptions configures DialStdio. The zero value is usable. The
// reconnect fields of LinkOptions do not apply: the end of the process is
// the end of the connection.
type StdioOptions struct {
	LinkOptions
	// Env holds extra NAME=value pairs for the producer's environment, which
	// is otherwise this process's.
	Env []string
	// Dir is the producer's working directory; empty means this process's.
	Dir string
	// KillWait is how long Close lets the producer exit by itself once its
	// standard input is closed, before killing it. Zero means one second.
	KillWait time.Duration
}

// stderrKeep is how many of the producer's last stderr lines an ExitError
// quotes; stderrLine bounds one shown line.
const (
	stderrKeep = 3
	stderrLine = 500
)

// ExitError is a producer process that ended with a failure. Stderr holds
// its last lines on standard error, sanitized.
type ExitError struct {
	Command string
	State   string // "exit status 2", "signal: killed", …
	Stderr  []string
}

func (e *ExitError) Error() string {
	s := fmt.Sprintf("transport: the producer process %s ended: %s", e.Command, e.State)
	if len(e.Stderr) > 0 {
		s += "; its last words on standard error: " + strings.Join(e.Stderr, " / ")
	}
	return protocol.Line(s)
}

// SplitCommand splits an exec: endpoint's command line into words at
// spaces; single or double quotes keep spaces in a word, and a backslash
// keeps the next character as it is. No other shell syntax applies.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("transport: unfinished quote or escape in the command %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("transport: an exec: endpoint needs a command to run")
	}
	return words, nil
}

// DialStdio starts the producer command argv and speaks JSON-RPC 2.0 with
// it: the subscription request goes as an aaep.subscribe request and its
// answer comes back as the handshake frame; aaep.event notifications become
// frames; Send wraps messages as aaep.subscribe, aaep.renegotiate (requests),
// aaep.close or aaep.reply (notifications) by their type; the producer's
// aaep.ping is answered. Each line the producer writes on standard error is
// reported to OnDiagnostic. When the process ends, Recv returns io.EOF after
// a clean exit and an *ExitError otherwise. Close closes the producer's
// standard input and kills it (and its process group) if it has not exited
// after KillWait.
func DialStdio(ctx context.Context, argv []string, opts StdioOptions) (Conn, error) {
	if len(argv) == 0 {
		return nil, errors.New("transport: no producer command to run")
	}
	lo := opts.LinkOptions
	lo.MaxReconnects = -1
	max := lo.withDefaults().MaxFrameBytes
	b := binding{
		name:        "stdio",
		noReconnect: true,
		dial: func(_ context.Context, diag func(string)) (link, error) {
			return startStdio(argv, opts, max, diag)
		},
		end: stdioEnding,
	}
	return dialLink(ctx, b, lo)
}

func stdioEnding(err error) (ending, bool) {
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return ending{final: err, words: "The producer process failed: " + ee.State + "."}, true
	case errors.Is(err, io.EOF):
		return ending{final: io.EOF, words: "The producer process ended.", reason: EndNormal}, true
	}
	return ending{final: fmt.Errorf("transport: reading from the producer process: %w", err), words: lossWords(err)}, true
}

// stdioLink is a spawned producer.
type stdioLink struct {
	child *procgroup.Child
	name  string
	rd    *wire.Reader
	diag  func(string)

	wmu    sync.Mutex // one writer at a time; guards nextID
	nextID int64
}

func startStdio(argv []string, opts StdioOptions, max int, diag func(string)) (link, error) {
	if diag == nil {
		diag = func(string) {}
	}
	child, err := procgroup.Start(argv, procgroup.Options{
		Dir: opts.Dir, Env: append(os.Environ(), opts.Env...), KillWait: opts.KillWait, Keep: stderrKeep,
		Clean:  func(line string) string { return cleanLine(line, stderrLine) },
		OnLine: func(s string) { diag(ProducerSays + s) },
	})
	if err != nil {
		return nil, &fatalError{err: fmt.Errorf("transport: start the producer %q: %w", argv[0], err),
			words: "The producer could not be started."}
	}
	return &stdioLink{
		child: child, name: strconv.Quote(strings.Join(hideEnv(argv), " ")),
		rd: wire.NewReader(child.Out, wire.FramingLines, max), diag: diag,
	}, nil
}

// ProducerSays starts the text of a problem note that carries a line a
// spawned producer wrote on its standard error, sanitized: its own words,
// which may be a log line rather than a problem.
const ProducerSays = "Producer: "

func (l *stdioLink) read() ([]byte, error) {
	for {
		b, err := l.rd.Next()
		var tl *wire.TooLargeError
		if errors.As(err, &tl) {
			return nil, &FrameTooLargeError{Size: tl.Size, Limit: tl.Limit}
		}
		if err != nil {
			return nil, l.ended(err)
		}
		m, err := wire.Parse(b)
		if err != nil {
			l.diag(fmt.Sprintf("Skipped a line from the producer that is not JSON-RPC 2.0 (%d bytes): %s.", len(b), strings.TrimPrefix(err.Error(), "wire: ")))
			continue
		}
		switch {
		case m.Method == wire.MethodEvent || m.Method == wire.MethodClose:
			if len(m.Params) == 0 || m.Params[0] != '{' {
				l.diag("Skipped an " + m.Method + " from the producer whose params are not an object.")
				continue
			}
			return m.Params, nil
		case m.Method == wire.MethodPing && m.IsRequest():
			_ = l.send(wire.Result(m.ID, []byte(`{}`)))
		case m.IsRequest():
			_ = l.send(wire.Fail(m.ID, wire.CodeMethodNotFound, "the subscriber has no method "+m.Method, nil))
		case m.IsNotification():
			l.diag("Ignored a notification from the producer with the unknown method " + cleanLine(m.Method, 80) + ".")
		case m.Error != nil:
			if len(m.Error.Data) > 0 && m.Error.Data[0] == '{' {
				return m.Error.Data, nil // a subscription.rejected, for this binding
			}
			l.diag(fmt.Sprintf("The producer answered a request with error %d: %s.", m.Error.Code, cleanLine(m.Error.Message, 200)))
		case len(m.Result) > 0 && m.Result[0] == '{' && string(m.Result) != "{}":
			return m.Result, nil // subscription.accepted, for a subscribe or renegotiate
		}
	}
}

// ended turns the end of the producer's output into the reason the
// connection ends: the process's exit.
func (l *stdioLink) ended(err error) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, os.ErrClosed) {
		return err
	}
	e := l.child.Ended()
	switch {
	case e.Running:
		return fmt.Errorf("transport: the producer process %s closed its output but is still running", l.name)
	case e.State == "":
		return io.EOF
	}
	return &ExitError{Command: l.name, State: e.State, Stderr: e.Stderr}
}

// write wraps msg in the JSON-RPC envelope its type calls for.
func (l *stdioLink) write(_ context.Context, msg []byte) error {
	if !json.Valid(msg) {
		return errors.New("the message is not JSON")
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var line []byte
	switch subscriptionType(msg) {
	case "subscription.request":
		l.nextID++
		line = wire.Request(json.RawMessage(strconv.FormatInt(l.nextID, 10)), wire.MethodSubscribe, msg)
	case "subscription.renegotiate":
		l.nextID++
		line = wire.Request(json.RawMessage(strconv.FormatInt(l.nextID, 10)), wire.MethodRenegotiate, msg)
	case "subscription.close":
		line = wire.Request(nil, wire.MethodClose, msg)
	default:
		line = wire.Request(nil, wire.MethodReply, msg)
	}
	return l.writeLocked(line)
}

// send writes one JSON-RPC message of the link's own.
func (l *stdioLink) send(line []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return l.writeLocked(line)
}

func (l *stdioLink) writeLocked(line []byte) error {
	b, err := wire.Append(nil, wire.FramingLines, line)
	if err != nil {
		return err
	}
	_, err = l.child.In.Write(b)
	return err
}

// close ends the producer: its input closes, and it is killed, with
// whatever it started, if it has not exited after killWait.
func (l *stdioLink) close(int, string) { l.child.Close() }
