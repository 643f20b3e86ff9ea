package procgroup

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// markVar names the environment variable Own sets to a value of its own
// for each command: what a descendant inherits even after setsid.
const markVar = "AAEP_TERM_PROCGROUP"

// mark adds a new mark to cmd's environment.
func mark(cmd *exec.Cmd) {
	b := make([]byte, 16)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, markVar+"="+hex.EncodeToString(b))
}

// markOf is cmd's mark, "KEY=VALUE", or "" when Own did not mark it.
func markOf(cmd *exec.Cmd) string {
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if strings.HasPrefix(cmd.Env[i], markVar+"=") {
			return cmd.Env[i]
		}
	}
	return ""
}

// maxRounds bounds the passes over /proc: a pass that kills nothing ends
// the work, and one that kills something (or finds a process it cannot
// read yet) is followed by another, for a process forked meanwhile.
const maxRounds = 8

// killMarked kills every process whose environment holds cmd's mark, as
// far as /proc lets this user read it.
func killMarked(cmd *exec.Cmd) {
	m := markOf(cmd)
	if m == "" {
		return
	}
	want := append([]byte(m), 0)
	self := os.Getpid()
	for range maxRounds {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		again := false // something was killed, or could not be read yet
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			switch {
			case err != nil:
			case len(env) == 0:
				// A process in the middle of execve shows no environment
				// for a moment (as do zombies and kernel threads, which
				// need no killing): look again in the next pass.
				again = again || midExec(e.Name())
			case hasEntry(env, want):
				again = syscall.Kill(pid, syscall.SIGKILL) == nil || again
			}
		}
		if !again {
			return
		}
	}
}

// midExec reports whether the process pid, which shows no environment,
// may be one between two programs (execve), rather than a zombie or a
// kernel thread (a child of kthreadd, pid 2).
func midExec(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(stat[i+1:]))
	return len(f) >= 2 && f[0] != "Z" && f[0] != "X" && f[1] != "2" && pid != "2"
}

// hasEntry reports whether env, NUL-separated entries, holds entry (with
// its NUL).
func hasEntry(env, entry []byte) bool {
	return bytes.HasPrefix(env, entry) || bytes.Contains(env, append([]byte{0}, entry...))
}
