// Package speechdtest starts a real speech-dispatcher for tests, private to one
// test, whose output module writes what it would say to a file instead.
package speechdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/proctest"
)

// Daemon is a running speech-dispatcher with a capture module.
type Daemon struct {
	Dir    string // its private directory
	Socket string // its Unix socket
	Spoken string // the file each spoken text is appended to, one line each
	cmd    *exec.Cmd
}

// Need skips the test when program is not installed, or fails it when the
// CI environment variable is set.
func Need(t testing.TB, program string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required under CI: %v", program, err)
		}
		t.Skipf("%s not installed", program)
	}
}

// Start starts speech-dispatcher for t and stops it when t ends. A non-empty
// delay (seconds, for sleep) makes the module that slow for each text.
func Start(t testing.TB, delay string) *Daemon {
	t.Helper()
	slow := ""
	if delay != "" {
		slow = "sleep " + delay + "; "
	}
	return start(t, func(d *Daemon) string {
		return slow + "echo \\'$DATA\\' >> " + d.Spoken + "; echo $LANGUAGE >> " + d.langs()
	})
}

// StartSpeaking starts speech-dispatcher for t with a module that takes as
// long as a voice speaking wpm words a minute: it notes the time each text
// begins (see Timed) and sleeps for its words. Interrupting a text kills it.
func StartSpeaking(t testing.TB, wpm int) *Daemon {
	t.Helper()
	return start(t, func(d *Daemon) string {
		script := filepath.Join(d.Dir, "speak.sh")
		body := fmt.Sprintf("#!/bin/sh\nprintf '%%s %%s\\n' \"$(date +%%s.%%N)\" \"$1\" >> %s\necho \"$1\" >> %s\n"+
			"exec sleep \"$(echo \"$1\" | wc -w | awk '{print $1*60/%d}')\"\n", d.timed(), d.Spoken, wpm)
		if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
		return "sh " + script + " \\'$DATA\\'"
	})
}

// start starts speech-dispatcher with a capture module running the shell
// command synth returns.
func start(t testing.TB, synth func(*Daemon) string) *Daemon {
	t.Helper()
	Need(t, "speech-dispatcher")
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
	d := &Daemon{Dir: dir, Socket: filepath.Join(dir, "run", "speechd.sock"), Spoken: filepath.Join(dir, "spoken.txt")}
	f, err := os.OpenFile(filepath.Join(conf, "speechd.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "AddModule \"capture\" \"sd_generic\" \"capture.conf\"\nDefaultModule capture\nAudioOutputMethod \"libao\"\n")
	f.Close()
	// Every language gets a voice and UTF-8, so no text is recoded on its way to the module.
	langs := ""
	for _, l := range []string{"en", "yo", "ar", "he"} {
		langs += fmt.Sprintf("AddVoice \"%s\" \"MALE1\" \"capture\"\nGenericLanguage \"%s\" \"%s\" \"utf-8\"\n", l, l, l)
	}
	module := fmt.Sprintf("Debug 0\nGenericExecuteSynth \"%s\"\nGenericCmdDependency \"echo\"\n%s",
		synth(d), langs)
	os.WriteFile(filepath.Join(conf, "modules", "capture.conf"), []byte(module), 0o600)
	os.WriteFile(filepath.Join(dir, "home", ".libao"), []byte("default_driver=null\n"), 0o600)
	d.Restart(t)
	t.Cleanup(d.Stop)
	return d
}

// Address is the SPEECHD_ADDRESS value of the daemon.
func (d *Daemon) Address() string { return "unix_socket:" + d.Socket }

// Restart starts the daemon again after Stop, on the same socket.
func (d *Daemon) Restart(t testing.TB) {
	t.Helper()
	cmd := exec.Command("speech-dispatcher", "-s", "-t", "0", "-C", filepath.Join(d.Dir, "conf"), "-c", "unix_socket",
		"-S", d.Socket, "-P", filepath.Join(d.Dir, "run", "sd.pid"), "-L", filepath.Join(d.Dir, "logs"), "-l", "3")
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(d.Dir, "home"), "XDG_RUNTIME_DIR="+filepath.Join(d.Dir, "run"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("start speech-dispatcher: %v", err)
	}
	d.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("unix", d.Socket); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.Stop()
	t.Fatalf("speech-dispatcher did not listen on %s", d.Socket)
}

// Stop stops the daemon by its process id.
func (d *Daemon) Stop() {
	if d.cmd == nil {
		return
	}
	proctest.Stop(d.cmd, 3*time.Second)
	d.cmd = nil
	os.Remove(d.Socket)
}

// Lines returns what was spoken so far, one text per line.
func (d *Daemon) Lines() []string {
	b, _ := os.ReadFile(d.Spoken)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// WaitSpoken polls until want lines were spoken or within has passed.
func (d *Daemon) WaitSpoken(t testing.TB, want int, within time.Duration) []string {
	t.Helper()
	return d.WaitSpokenUntil(t, func(lines []string) bool { return len(lines) >= want }, within)
}

// WaitSpokenUntil polls (the daemon's module writes a file: it is read
// again) until done holds for the lines spoken so far, or within has
// passed; it returns the lines.
func (d *Daemon) WaitSpokenUntil(t testing.TB, done func(lines []string) bool, within time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		lines := d.Lines()
		if done(lines) || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *Daemon) timed() string { return filepath.Join(d.Dir, "timed.txt") }

// Utterance is one text a StartSpeaking daemon began to say, and when.
type Utterance struct {
	At   time.Time
	Text string
}

// Timed returns what a StartSpeaking daemon began to say so far, in order.
func (d *Daemon) Timed() []Utterance {
	b, _ := os.ReadFile(d.timed())
	var out []Utterance
	for _, l := range strings.Split(string(b), "\n") {
		at, text, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		sec, frac, _ := strings.Cut(at, ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		ns, err2 := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, Utterance{At: time.Unix(s, ns), Text: text})
	}
	return out
}

func (d *Daemon) langs() string { return filepath.Join(d.Dir, "languages.txt") }

// Languages returns the language the module was asked to speak each text in,
// one per text spoken so far, for daemons from Start.
func (d *Daemon) Languages() []string {
	b, _ := os.ReadFile(d.langs())
	return strings.Fields(string(b))
}
