// check.go: options that cannot make a recording, refused before anything
// is sent to a producer.

package record

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aaep-term/aaep-term/transport"
)

// Check refuses options that cannot make a recording, before anything is
// sent to a producer: no endpoint or one that names nothing, no output or
// one that cannot be written (a directory, a folder that is not there),
// plain JSONL of several agents (it cannot say which sent an event), no
// handshake on the spec layout (which needs one), rotating standard
// output, and negative limits. Its words name aaep-capture's flags.
func (o *Options) Check() error {
	if len(o.Agents) == 0 {
		return errors.New("give the producer to record with --endpoint")
	}
	for _, a := range o.Agents {
		if err := transport.CheckEndpoint(a.Endpoint); err != nil {
			return err
		}
	}
	if o.Output == "" {
		return errors.New("give the file to write with --output (or -o - for standard output)")
	}
	if err := checkOutput(o.Output); err != nil {
		return err
	}
	switch {
	case o.JSONL && len(o.Agents) > 1:
		return errors.New("--format jsonl cannot say which agent sent an event; record several endpoints in the aaep format")
	case o.NoHandshake && o.Transport.SSE.Layout == transport.LayoutSpec:
		return errors.New("--no-handshake and --layout spec contradict each other: the spec layout needs the handshake")
	case o.RotateSize > 0 && o.Output == "-":
		return errors.New("--rotate-size needs a file to write, not standard output")
	case o.Duration < 0 || o.MaxEvents < 0:
		return errors.New("--duration and --max-events must not be negative")
	}
	return nil
}

// checkOutput refuses an output that cannot be written: a directory, or a
// file in a folder that is not there. What else can go wrong (permissions,
// a symbolic link) is found when the file is opened.
func checkOutput(path string) error {
	if path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--output %s is a directory: name the file to write, such as %s", path, filepath.Join(path, "session.aaep"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--output %s: the folder %s is not there; create it first", path, dir)
	case err != nil:
		return fmt.Errorf("--output %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("--output %s: %s is not a folder", path, dir)
	}
	return nil
}
