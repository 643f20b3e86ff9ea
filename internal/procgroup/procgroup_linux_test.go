package procgroup

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A descendant that left the child's process group and session (setsid)
// is killed with the child: nothing the child started outlives Kill.
func TestKillReachesSetsid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, script string }{
		{"in the group", `sh -c 'echo $$; exec sleep 1000' & wait`},
		{"setsid", `setsid sh -c 'echo $$; exec sleep 1000' & wait`},
		{"setsid, then its parent gone", `setsid sh -c 'echo $$; exec sleep 1000' & exit 0`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", tt.script)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			Own(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) //nolint:errcheck // gone when the test passes
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			Kill(cmd)
			cmd.Wait() //nolint:errcheck // killed
			// A pidfd becomes readable when its process ends; the wait is
			// bounded only so that a failure is reported.
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, 10_000)
			for err == unix.EINTR { // a signal to the test process is no answer
				n, err = unix.Poll(fds, 10_000)
			}
			if n != 1 || err != nil {
				t.Errorf("the descendant (pid %d) still runs after Kill (%d, %v)", pid, n, err)
			}
		})
	}
}
