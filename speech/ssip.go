// ssip.go holds the SSIP wire format: addresses, reply parsing and dot-escaping.

package speech

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
)

// maxLine bounds one SSIP line read from the daemon.
const maxLine = 64 << 10

// maxLines bounds the lines of one SSIP reply.
const maxLines = 256

// ErrNoDaemon reports that no speech-dispatcher socket could be found or dialed.
var ErrNoDaemon = errors.New("speech: speech-dispatcher is not running")

// Address is where speech-dispatcher listens: Network is "unix" or "tcp".
type Address struct {
	Network string
	Addr    string
}

func (a Address) String() string {
	if a.Network == "unix" {
		return "unix_socket:" + a.Addr
	}
	return "inet_socket:" + a.Addr
}

// ResolveAddress finds the daemon's address the way speech-dispatcher clients do:
// SPEECHD_ADDRESS (unix_socket:PATH or inet_socket:HOST:PORT), else the
// per-user socket under XDG_RUNTIME_DIR. It never starts a daemon.
func ResolveAddress(getenv func(string) string) (Address, error) {
	if v := strings.TrimSpace(getenv("SPEECHD_ADDRESS")); v != "" {
		return ParseAddress(v)
	}
	dir := getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return Address{}, fmt.Errorf("%w: neither SPEECHD_ADDRESS nor XDG_RUNTIME_DIR is set", ErrNoDaemon)
	}
	return Address{Network: "unix", Addr: filepath.Join(dir, "speech-dispatcher", "speechd.sock")}, nil
}

// ParseAddress reads a SPEECHD_ADDRESS value.
func ParseAddress(v string) (Address, error) {
	method, rest, _ := strings.Cut(v, ":")
	switch method {
	case "unix_socket":
		if rest == "" {
			return Address{}, fmt.Errorf("speech: SPEECHD_ADDRESS %q: missing socket path", v)
		}
		return Address{Network: "unix", Addr: rest}, nil
	case "inet_socket":
		host, port, ok := strings.Cut(rest, ":")
		if !ok || port == "" {
			port = "6560"
		}
		if host == "" {
			host = "127.0.0.1"
		}
		return Address{Network: "tcp", Addr: net.JoinHostPort(host, port)}, nil
	}
	return Address{}, fmt.Errorf("speech: SPEECHD_ADDRESS %q: want unix_socket:PATH or inet_socket:HOST:PORT", v)
}

// reply is one complete SSIP message from the daemon: a reply to a command, or
// an asynchronous event when Code is 700–799.
type reply struct {
	Code  int
	Lines []string // the text after "NNN-" / "NNN ", one per line; the last is the status text
}

func (r reply) isEvent() bool { return r.Code >= 700 && r.Code < 800 }
func (r reply) ok() bool      { return r.Code >= 200 && r.Code < 300 }

func (r reply) err(cmd string) error {
	return fmt.Errorf("speech: %s: speech-dispatcher answered %d %s", cmd, r.Code, r.Lines[len(r.Lines)-1])
}

// readReply reads one SSIP message: any number of "NNN-text" lines ending with
// one "NNN text" line, all with the same code.
func readReply(br *bufio.Reader) (reply, error) {
	var r reply
	for {
		line, err := readLine(br)
		if err != nil {
			return reply{}, err
		}
		if len(line) < 4 {
			return reply{}, fmt.Errorf("speech: malformed reply line %q", line)
		}
		code, err := strconv.Atoi(line[:3])
		if err != nil || code < 100 || code > 999 || (line[3] != '-' && line[3] != ' ') {
			return reply{}, fmt.Errorf("speech: malformed reply line %q", line)
		}
		if len(r.Lines) > 0 && code != r.Code {
			return reply{}, fmt.Errorf("speech: reply code changed from %d to %d", r.Code, code)
		}
		if len(r.Lines) >= maxLines {
			return reply{}, fmt.Errorf("speech: reply longer than %d lines", maxLines)
		}
		r.Code = code
		r.Lines = append(r.Lines, line[4:])
		if line[3] == ' ' {
			return r, nil
		}
	}
}

// readLine reads one CRLF (or LF) terminated line of at most maxLine bytes.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		if len(b)+len(chunk) > maxLine {
			return "", fmt.Errorf("speech: reply line longer than %d bytes", maxLine)
		}
		b = append(b, chunk...)
		if !isPrefix {
			return strings.TrimSuffix(string(b), "\r"), nil
		}
	}
}

// escapeText turns text into the body of a SPEAK command: CRLF lines, a line
// starting with "." doubled, and the terminating lone ".".
func escapeText(text string) string {
	var b strings.Builder
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, ".") {
			b.WriteByte('.')
		}
		b.WriteString(line)
		b.WriteString("\r\n")
	}
	b.WriteString(".\r\n")
	return b.String()
}
