package speech

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needProgram skips (or fails, under CI) when name is not installed.
func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required under CI: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
}

// speechd is a real speech-dispatcher with a capture module, private to one test.
type speechd struct {
	dir    string
	sock   string
	spoken string
	cmd    *exec.Cmd
}

// startSpeechd starts speech-dispatcher whose module appends each text to a
// file; delay makes the module slow.
func startSpeechd(t *testing.T, delay string) *speechd {
	t.Helper()
	needProgram(t, "speech-dispatcher")
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"run", "logs", "home"} {
		os.MkdirAll(filepath.Join(dir, d), 0o700)
	}
	conf := filepath.Join(dir, "conf")
	if out, err := exec.Command("cp", "-r", "/etc/speech-dispatcher", conf).CombinedOutput(); err != nil {
		t.Fatalf("copy config: %v %s", err, out)
	}
	s := &speechd{dir: dir, sock: filepath.Join(dir, "run", "speechd.sock"), spoken: filepath.Join(dir, "spoken.txt")}
	f, err := os.OpenFile(filepath.Join(conf, "speechd.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "AddModule \"capture\" \"sd_generic\" \"capture.conf\"\nDefaultModule capture\nAudioOutputMethod \"libao\"\n")
	f.Close()
	slow := ""
	if delay != "" {
		slow = "sleep " + delay + "; "
	}
	module := fmt.Sprintf("Debug 0\nGenericStripPunctChars \"\"\nGenericExecuteSynth \"%secho \\'$DATA\\' >> %s\"\nGenericCmdDependency \"echo\"\nAddVoice \"en\" \"MALE1\" \"capture\"\nAddVoice \"yo\" \"MALE1\" \"capture\"\n", slow, s.spoken)
	os.WriteFile(filepath.Join(conf, "modules", "capture.conf"), []byte(module), 0o600)
	os.WriteFile(filepath.Join(dir, "home", ".libao"), []byte("default_driver=null\n"), 0o600)
	s.start(t)
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *speechd) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command("speech-dispatcher", "-s", "-t", "0", "-C", filepath.Join(s.dir, "conf"), "-c", "unix_socket",
		"-S", s.sock, "-P", filepath.Join(s.dir, "run", "sd.pid"), "-L", filepath.Join(s.dir, "logs"), "-l", "3")
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(s.dir, "home"), "XDG_RUNTIME_DIR="+filepath.Join(s.dir, "run"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("start speech-dispatcher: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("unix", s.sock); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	t.Fatalf("speech-dispatcher did not listen on %s", s.sock)
}

func (s *speechd) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
	os.Remove(s.sock)
}

func (s *speechd) addr() Address { return Address{Network: "unix", Addr: s.sock} }

// waitSpoken polls the capture file until it holds want lines.
func (s *speechd) waitSpoken(t *testing.T, want int, within time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(within)
	var lines []string
	for {
		b, _ := os.ReadFile(s.spoken)
		lines = nil
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) >= want || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// backend returns a Speechd connected to d, closed when the test ends.
func (s *speechd) backend(t *testing.T) *Speechd {
	t.Helper()
	b, err := NewSpeechd(context.Background(), s.addr(), "user:aaep-listen:test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
