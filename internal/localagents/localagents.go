// Package localagents finds the producers running on this machine for this
// user: the sockets in the spec's Unix-socket directory (appendix B.4.1),
// those there at the start and those that appear or go later.
package localagents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// Change is one producer socket that is there or that went.
type Change struct {
	// Path is the socket's path as found, for dialling (Endpoint); it is
	// not sanitized and must not be shown as it is (see Label).
	Path string
	// Gone says the socket was removed (or renamed away). Only sockets
	// reported before without Refused are reported gone.
	Gone bool
	// Refused, when not empty, says in plain words why the socket is not
	// offered for a subscription (another user's socket). It is reported
	// once; its removal is not.
	Refused string
	// Err, when set, ends the watch: the directory can no longer be
	// watched (it was removed or moved away). The sockets offered before
	// have been reported gone, and the channel closes after it.
	Err error
}

// String says c in one plain line for people: "New agent: mail.",
// "Agent mail has gone.", why a socket is not subscribed to, or why the
// watch ended. Names are sanitized (see Label).
func (c Change) String() string {
	switch {
	case c.Err != nil:
		return protocol.Line(c.Err.Error()) + "."
	case c.Refused != "":
		return fmt.Sprintf("Not subscribing to the agent %s: %s.", Label(c.Path), c.Refused)
	case c.Gone:
		return fmt.Sprintf("Agent %s has gone.", Label(c.Path))
	}
	return fmt.Sprintf("New agent: %s.", Label(c.Path))
}

// Dir returns the directory local producers put their sockets in (spec
// §8.5.4, appendix B.4.1): $XDG_RUNTIME_DIR/aaep. Without XDG_RUNTIME_DIR
// (or with a relative one, which the XDG rules ignore) it is the spec's
// fallback, $TMPDIR/aaep-<uid> (/tmp/aaep-<uid> without TMPDIR): the same
// place producer.ListenUnix and unix:ID endpoints use. Watch refuses the
// directory unless it belongs to the user and no one else may write in it,
// which matters most for the fallback in a shared /tmp.
func Dir(getenv func(string) string) string {
	return transport.UnixSocketDir(getenv)
}

// Endpoint is the endpoint the listener dials for the socket at path.
func Endpoint(path string) string { return "unix:" + path }

// Label names the socket at path for people: its base name without its
// extension ("mail" for …/aaep/mail.sock), sanitized to one line. A file
// name is the producer's text, like anything else it sends.
func Label(path string) string {
	base := filepath.Base(path)
	if name := strings.TrimSuffix(base, filepath.Ext(base)); name != "" {
		base = name
	}
	return protocol.Name(base)
}

// prepare makes dir when it is missing (0700, its parent must exist), and
// refuses it unless it is a directory of this user's, not a symbolic link,
// that no one else may write in: anyone who can put a socket there could
// pose as an agent.
func prepare(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("localagents: cannot make the agents' directory: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("localagents: %w", err)
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("localagents: %s is a symbolic link, not a directory; refusing to watch it", dir)
	case !st.IsDir():
		return fmt.Errorf("localagents: %s is not a directory", dir)
	case st.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("localagents: others may write in %s (mode %v), so anyone could pose as an agent there; refusing to watch it (chmod 700 it)", dir, st.Mode().Perm())
	}
	if uid, ok := owner(st); ok && uid != os.Getuid() {
		return fmt.Errorf("localagents: %s belongs to user %d, not to you (%d); refusing to watch it", dir, uid, os.Getuid())
	}
	return nil
}

// inspect says whether the file at path is a producer socket to offer:
// ok false means it is not a socket at all (or no longer there), to be
// ignored; refused says why a socket is not offered.
func inspect(path string) (ok bool, refused string) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode().Type() != fs.ModeSocket {
		return false, ""
	}
	// Root is trusted, as transport.DialUnix trusts it.
	if uid, known := owner(st); known && uid != os.Getuid() && uid != 0 {
		return true, fmt.Sprintf("the socket belongs to user %d, not to you (%d)", uid, os.Getuid())
	}
	return true, ""
}
