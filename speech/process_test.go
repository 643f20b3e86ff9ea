package speech

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// recorder builds commands that append the text to a file, after delay seconds.
func recorder(file, delay string) func(Utterance) Command {
	return func(u Utterance) Command {
		return Command{Path: "sh", Args: []string{"-c", "sleep " + delay + "; cat >> " + file + "; echo >> " + file}, Stdin: u.Text}
	}
}

func readLines(file string) []string {
	b, _ := os.ReadFile(file)
	return strings.Fields(strings.ReplaceAll(string(b), "\n", " "))
}

func TestProcessCriticalKillsSlowUtterance(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spoken")
	p := NewProcess("test", recorder(file, "1"))
	defer p.Close()
	ctx := context.Background()
	p.Speak(ctx, Utterance{Text: "normal1", Priority: Message})
	p.Speak(ctx, Utterance{Text: "normal2", Priority: Message})
	time.Sleep(200 * time.Millisecond)
	p.Speak(ctx, Utterance{Text: "critical", Priority: Important})
	deadline := time.Now().Add(5 * time.Second)
	for len(readLines(file)) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	got := readLines(file)
	if strings.Join(got, " ") != "critical normal2" {
		t.Fatalf("spoken %q, want the critical one, then the rest (normal1 killed)", got)
	}
}

func TestProcessCancel(t *testing.T) {
	file := filepath.Join(t.TempDir(), "spoken")
	p := NewProcess("test", recorder(file, "0.5"))
	ctx := context.Background()
	p.Speak(ctx, Utterance{Text: "a", Priority: Message})
	p.Speak(ctx, Utterance{Text: "b", Priority: Message})
	time.Sleep(100 * time.Millisecond)
	p.Cancel(ctx)
	time.Sleep(800 * time.Millisecond)
	p.Close()
	if got := readLines(file); len(got) != 0 {
		t.Fatalf("spoken after cancel: %q", got)
	}
	if err := p.Speak(ctx, Utterance{Text: "late"}); err == nil {
		t.Fatal("Speak after Close accepted")
	}
}

func TestEspeakRealCommand(t *testing.T) {
	speechdtest.Need(t, "espeak-ng")
	wav := filepath.Join(t.TempDir(), "out.wav")
	c := EspeakCommand(Utterance{Text: "Confirm deleting three files?", Lang: "en"})
	cmd := exec.Command(c.Path, append([]string{"-w", wav}, c.Args...)...)
	cmd.Stdin = strings.NewReader(c.Stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	if fi, err := os.Stat(wav); err != nil || fi.Size() < 10000 {
		t.Fatalf("no speech written: %v", err)
	}
}

func FuzzReadReply(f *testing.F) {
	f.Add("225-21\r\n225 OK MESSAGE QUEUED\r\n")
	f.Add("701-1\r\n701-2\r\n701 BEGIN\r\n")
	f.Add("230 OK RECEIVING DATA\r\n")
	f.Add("9999\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		br := bufio.NewReader(strings.NewReader(in))
		for i := 0; i < 100; i++ {
			r, err := readReply(br)
			if err != nil {
				return
			}
			if len(r.Lines) == 0 || r.Code < 100 || r.Code > 999 {
				t.Fatalf("bad reply %+v", r)
			}
			_ = r.err("x")
		}
	})
}
