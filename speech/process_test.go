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

// recorder builds commands that note each text in file+".begun" as they
// begin, and append it to file after delay seconds.
func recorder(file, delay string) func(Utterance) Command {
	return func(u Utterance) Command {
		script := `read -r t; echo "$t" >> "$1.begun"; sleep "$2"; echo "$t" >> "$1"`
		return Command{Path: "sh", Args: []string{"-c", script, "sh", file, delay}, Stdin: u.Text + "\n"}
	}
}

func readLines(file string) []string {
	b, _ := os.ReadFile(file)
	return strings.Fields(strings.ReplaceAll(string(b), "\n", " "))
}

// waitLines waits until file holds n texts and returns them; it fails the
// test after a minute.
func waitLines(t *testing.T, file string, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if got := readLines(file); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %d texts", file, readLines(file), n)
		}
		time.Sleep(20 * time.Millisecond) // a command writes the file: read it again
	}
}

// A critical utterance kills the one being said; ordered by what the
// commands note, not by sleeps (normal1 has begun when it comes).
func TestProcessCriticalKillsSlowUtterance(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "spoken")
	p := NewProcess("test", recorder(file, "1"))
	defer p.Close()
	ctx := context.Background()
	p.Speak(ctx, Utterance{Text: "normal1", Priority: Message})
	p.Speak(ctx, Utterance{Text: "normal2", Priority: Message})
	waitLines(t, file+".begun", 1)
	p.Speak(ctx, Utterance{Text: "critical", Priority: Important})
	got := waitLines(t, file, 2)
	if strings.Join(got, " ") != "critical normal2" {
		t.Fatalf("spoken %q, want the critical one, then the rest (normal1 killed)", got)
	}
}

// Cancel stops what is said and drops what waits: once a text spoken
// after the cancel is said, nothing before it was.
func TestProcessCancel(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "spoken")
	p := NewProcess("test", recorder(file, "0.5"))
	ctx := context.Background()
	p.Speak(ctx, Utterance{Text: "a", Priority: Message})
	p.Speak(ctx, Utterance{Text: "b", Priority: Message})
	waitLines(t, file+".begun", 1)
	p.Cancel(ctx)
	p.Speak(ctx, Utterance{Text: "after", Priority: Message})
	if got := waitLines(t, file, 1); strings.Join(got, " ") != "after" {
		t.Fatalf("spoken %q, want only what came after the cancel", got)
	}
	p.Close()
	if err := p.Speak(ctx, Utterance{Text: "late"}); err == nil {
		t.Fatal("Speak after Close accepted")
	}
}

func TestEspeakRealCommand(t *testing.T) {
	t.Parallel()
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
