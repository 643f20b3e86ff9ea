// Package safefile opens the files aaep-term writes for the user (the
// audit log, captures, exports, saved events) and the signing key it reads,
// so that another local user can neither redirect them nor read them:
//
//   - a symbolic link is never followed: a link at the path (to a file or to
//     none) is refused with an error that says so, and the final component is
//     opened with O_NOFOLLOW, so a link swapped in after the check is refused
//     too;
//   - an output file (Create, OpenAppend) is refused when a directory on
//     its path, as given, is a symbolic link: a link to a directory planted
//     on the way would carry the write somewhere else;
//   - a file it creates has mode 0600, whatever the umask;
//   - an existing file opened for writing is made 0600 (if that fails, for
//     a file of another user, it is refused, saying why);
//   - a secret read with ReadPrivate that others can read gives a warning
//     that names the command to fix it.
//
// Only regular files and character devices (such as /dev/null) are opened.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Create creates the file at path for writing, or truncates it, with mode
// 0600. A symbolic link among the directories of path is refused.
func Create(path string) (*os.File, error) {
	if err := checkDirs(path); err != nil {
		return nil, err
	}
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// OpenAppend opens the file at path for appending, creating it with mode
// 0600. A symbolic link among the directories of path is refused.
func OpenAppend(path string) (*os.File, error) {
	if err := checkDirs(path); err != nil {
		return nil, err
	}
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

// checkDirs refuses path when one of its directories, as written, is a
// symbolic link ("out/x" where out links to another user's directory).
// Keys (CreateNew, ReadPrivate) live in the user's own configuration
// directory, which a dotfiles manager may well link, and are not checked.
func checkDirs(path string) error {
	dir := filepath.Dir(filepath.Clean(path))
	for p := dir; ; p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				target = "somewhere"
			}
			return fmt.Errorf("%s: its directory %s is a symbolic link (to %s); aaep-term does not write through links, since a link could point into another user's directory: give the real path instead", path, p, target)
		}
		if parent := filepath.Dir(p); parent == p || p == "." {
			return nil
		}
	}
}

// CreateNew creates the file at path with mode 0600; it fails if there is
// already a file (or a link) there.
func CreateNew(path string) (*os.File, error) {
	return open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
}

// ReadPrivate reads the file at path, a secret of at most limit bytes. A
// symbolic link is refused. warning is a sentence for the user when other
// users can read or write the file, naming the command that fixes it.
func ReadPrivate(path string, limit int64) (data []byte, warning string, err error) {
	f, err := open(path, os.O_RDONLY)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, "", fmt.Errorf("%s is larger than %d bytes; it is not the file expected", path, limit)
	}
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		warning = fmt.Sprintf("%s can be read or changed by other users (its mode is %04o); make it private with: %s", path, st.Mode().Perm(), FixCommand(path))
	}
	return data, warning, nil
}

// FixCommand is the shell command that makes the file at path readable by
// its owner only.
func FixCommand(path string) string {
	return "chmod 600 " + shellQuote(path)
}

func open(path string, flag int) (*os.File, error) {
	if err := check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|noFollow, 0o600)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 || errors.Is(err, syscall.ELOOP) {
			return nil, linkError(path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := kind(path, st.Mode()); err != nil {
		f.Close()
		return nil, err
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 && st.Mode().IsRegular() && st.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s can be read or written by other users (its mode is %04o) and could not be made private (%v); aaep-term writes only files that other users cannot read: give another path, or a file of your own", path, st.Mode().Perm(), err)
		}
	}
	return f, nil
}

// check refuses a link or a file of the wrong kind at path before it is
// opened (opening a named pipe could block).
func check(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // nothing there yet; open says what else is wrong
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	return kind(path, st.Mode())
}

func kind(path string, m fs.FileMode) error {
	if m.IsRegular() || m&fs.ModeCharDevice != 0 {
		return nil
	}
	if m.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return fmt.Errorf("%s is not a regular file (%s); aaep-term opens only regular files", path, m.Type())
}

func linkError(path string) error {
	target, err := os.Readlink(path)
	if err != nil {
		target = "somewhere"
	}
	return fmt.Errorf("%s is a symbolic link (to %s); aaep-term does not follow links for the files it writes or its key, since a link could point at another file: give the real path instead", path, target)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
