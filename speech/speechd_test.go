package speech

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

func TestSpeechdSpeaksInOrder(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	sink := &Sink{Backend: newBackend(t, d)}
	texts := []string{"Agent Ada started.", ".hidden file listed", "Agent Ada finished."}
	for _, text := range texts {
		announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Kind: "note", Text: text, Lang: "en"})
	}
	got := d.WaitSpoken(t, len(texts), 10*time.Second)
	// The generic module turns punctuation into spaces: compare the words.
	if len(got) != len(texts) || got[0] != texts[0] || strings.TrimSpace(got[1]) != "hidden file listed" || got[2] != texts[2] {
		t.Fatalf("spoken %q, want %q", got, texts)
	}
	// A lone dot inside the text must not end the message early.
	announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Text: "one\n.\ntwo"})
	got = d.WaitSpoken(t, len(texts)+1, 5*time.Second)
	if last := got[len(got)-1]; !strings.HasPrefix(last, "one") || !strings.HasSuffix(last, "two") {
		t.Fatalf("spoken %q, want the whole dotted text", got)
	}
}

// A critical announcement interrupts a normal one being said. Ordered by
// what the module tells, never by sleeps: the module notes when each text
// begins and takes 20 seconds over "normal one"; the critical prompt is
// sent once "normal one" has begun, and must begin next, long before
// "normal one" could have ended (it failed under load when a sleep stood
// for "the module is busy" and the prompt had 2.5 seconds).
func TestSpeechdCriticalInterruptsSlowNormal(t *testing.T) {
	t.Parallel()
	const wpm = 6 // "normal one": two words, 20 seconds
	d := speechdtest.StartSpeaking(t, wpm)
	sink := &Sink{Backend: newBackend(t, d)}
	for _, text := range []string{"normal one", "normal two", "normal three"} {
		announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Kind: "tool", Text: text})
	}
	begun := waitTimed(t, d, 1)
	if begun[0].Text != "normal one" {
		t.Fatalf("first begun %q, want normal one", begun[0].Text)
	}
	announceOK(t, sink, announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Confirm deleting files?"})
	begun = waitTimed(t, d, 2)
	if begun[1].Text != "Confirm deleting files?" {
		t.Fatalf("begun %q, then %q; want the critical prompt next", begun[0].Text, begun[1].Text)
	}
	if took := begun[1].At.Sub(begun[0].At); took >= 20*time.Second {
		t.Fatalf("the critical prompt began %v after normal one: it waited for it to end", took)
	}
}

// waitTimed waits until the module of d has begun n texts, and returns
// them; it fails the test after a minute.
func waitTimed(t *testing.T, d *speechdtest.Daemon, n int) []speechdtest.Utterance {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if got := d.Timed(); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the module began %d texts in a minute, want %d", len(d.Timed()), n)
		}
		time.Sleep(20 * time.Millisecond) // the module writes a file: read it again
	}
}

func TestSpeechdReconnectsAfterRestart(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	ctx := context.Background()
	b := newBackend(t, d)
	if err := b.Speak(ctx, Utterance{Text: "before", Priority: Message}); err != nil {
		t.Fatal(err)
	}
	d.WaitSpoken(t, 1, 5*time.Second)
	d.Stop()
	d.Restart(t)
	// The old connection is dead; the backend must notice and dial again,
	// however soon it is asked to speak.
	if err := b.Speak(ctx, Utterance{Text: "after", Priority: Important, Lang: "yo"}); err != nil {
		t.Fatal(err)
	}
	got := d.WaitSpoken(t, 2, 5*time.Second)
	if len(got) != 2 || got[1] != "after" {
		t.Fatalf("spoken %q, want before and after", got)
	}
}

func TestSpeechdCancelAndEvents(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "1")
	ctx := context.Background()
	c, err := Dial(ctx, addr(d), "user:aaep-listen:test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Command(ctx, "SET SELF NOTIFICATION ALL on"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Speak(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Speak(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	// Events arrive between replies; the commands above still got their own replies.
	select {
	case ev := <-c.Events():
		if ev.Code != 701 {
			t.Fatalf("first event %d %q, want 701 begin", ev.Code, ev.Lines)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no begin event")
	}
	if err := c.Command(ctx, "CANCEL self"); err != nil {
		t.Fatal(err)
	}
	// Texts are said in the order they came: once "third", sent after the
	// cancel, is spoken, "second" would have been if the cancel had not
	// dropped it.
	if _, err := c.Speak(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	spoken := d.Lines()
	for deadline := time.Now().Add(time.Minute); !slices.Contains(spoken, "third"); spoken = d.Lines() {
		if time.Now().After(deadline) {
			t.Fatalf("third never spoken: %q", spoken)
		}
		time.Sleep(20 * time.Millisecond) // the module writes a file: read it again
	}
	if slices.Contains(spoken, "second") {
		t.Fatalf("second spoken after CANCEL self: %q", spoken)
	}
}

func TestSpeechdBadCommandIsAnError(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	ctx := context.Background()
	c, err := Dial(ctx, addr(d), "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Command(ctx, "SET SELF PRIORITY shouting"); err == nil {
		t.Fatal("bad priority accepted")
	}
	if err := c.Command(ctx, "SET SELF PRIORITY text"); err != nil {
		t.Fatalf("the connection is still usable: %v", err)
	}
}

func TestOpenAutoWithoutDaemon(t *testing.T) {
	t.Parallel()
	env := Env{Getenv: func(k string) string {
		if k == "SPEECHD_ADDRESS" {
			return "unix_socket:" + t.TempDir() + "/none.sock"
		}
		return ""
	}, LookPath: func(string) (string, error) { return "", errNotFound }}
	b, msg, err := Open(context.Background(), "auto", "user:x:y", env)
	if err != nil || b != nil || !strings.Contains(msg, "off") {
		t.Fatalf("auto with nothing: %v %q %v", b, msg, err)
	}
	if _, _, err := Open(context.Background(), "speechd", "user:x:y", env); err == nil {
		t.Fatal("speechd without a daemon: no error")
	}
	if _, _, err := Open(context.Background(), "loud", "", env); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

func announceOK(t *testing.T, s *Sink, an announce.Announcement) {
	t.Helper()
	if err := s.Announce(an); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAutoFallsBackToEspeak(t *testing.T) {
	t.Parallel()
	env := Env{Getenv: func(k string) string {
		if k == "SPEECHD_ADDRESS" {
			return "unix_socket:" + t.TempDir() + "/none.sock"
		}
		return ""
	}, LookPath: func(name string) (string, error) { return "/usr/bin/" + name, nil },
		CheckEspeak: func(context.Context) error { return nil }}
	b, msg, err := Open(context.Background(), "auto", "user:x:y", env)
	if err != nil || b == nil || b.Name() != "espeak-ng" || !strings.Contains(msg, "espeak-ng") {
		t.Fatalf("auto without a daemon: %v %q %v", b, msg, err)
	}
	b.Close()
}

// Speech that cannot work is found at start and says what to start or
// install: a speech-dispatcher that does not answer, espeak-ng missing, or
// espeak-ng that cannot play sound (the real espeak-ng, with no sound
// configured: it ends well and says so only on its standard error).
func TestOpenSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	speechdtest.Need(t, "espeak-ng")
	silent := filepath.Join(t.TempDir(), "asound.conf")
	if err := os.WriteFile(silent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	noSound := append(os.Environ(), "ALSA_CONFIG_PATH="+silent, "PULSE_SERVER=unix:"+silent+".none", "AUDIODEV=none")
	mute := func(ctx context.Context) error { return CheckEspeak(ctx, noSound) }
	none := "unix_socket:" + t.TempDir() + "/none.sock"
	getenv := func(k string) string {
		if k == "SPEECHD_ADDRESS" {
			return none
		}
		return ""
	}
	installed := func(name string) (string, error) { return exec.LookPath(name) }
	missing := func(string) (string, error) { return "", errNotFound }
	for _, tc := range []struct {
		mode string
		env  Env
		want []string // in the error, or in the line that says speech is off
	}{
		{"speechd", Env{Getenv: getenv}, []string{"start speech-dispatcher", "speech-dispatcher -s"}},
		{"espeak", Env{Getenv: getenv, LookPath: missing}, []string{"install the espeak-ng package"}},
		{"espeak", Env{Getenv: getenv, LookPath: installed, CheckEspeak: mute}, []string{"espeak-ng cannot play sound", "check that sound works"}},
		{"auto", Env{Getenv: getenv, LookPath: installed, CheckEspeak: mute}, []string{"speech: off", "start speech-dispatcher", "espeak-ng cannot play sound"}},
		{"auto", Env{Getenv: getenv, LookPath: missing}, []string{"speech: off", "start speech-dispatcher", "install the espeak-ng package"}},
	} {
		b, msg, err := Open(context.Background(), tc.mode, "user:x:y", tc.env)
		if b != nil {
			b.Close()
			t.Errorf("%s: speech opened: %q", tc.mode, msg)
			continue
		}
		said := msg
		if err != nil {
			said = err.Error()
		}
		for _, w := range tc.want {
			if !strings.Contains(said, w) {
				t.Errorf("%s: %q does not say %q", tc.mode, said, w)
			}
		}
	}
}

func TestSpeechdLanguagePerAnnouncement(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	sink := &Sink{Backend: newBackend(t, d)}
	announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Text: "E kaaro", Lang: "yo"})
	announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Text: "marhaban", Lang: "ar", RTL: true})
	announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Text: "hello", Lang: "en\r\nQUIT"})
	got := d.WaitSpoken(t, 3, 5*time.Second)
	if strings.Join(got, "|") != "E kaaro|marhaban|hello" {
		t.Fatalf("spoken %q", got)
	}
}

// A daemon that goes away is reported once, and speech comes back with it.
func TestSinkReportsAnOutageOnce(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	sink := &Sink{Backend: newBackend(t, d)}
	announceOK(t, sink, announce.Announcement{Priority: announce.Normal, Text: "one"})
	d.WaitSpoken(t, 1, 5*time.Second)
	d.Stop()
	errs := 0
	for i := 0; i < 5; i++ {
		if err := sink.Announce(announce.Announcement{Priority: announce.Normal, Text: "lost"}); err != nil {
			errs++
		}
	}
	if errs != 1 {
		t.Fatalf("%d errors for one outage, want 1", errs)
	}
	d.Restart(t)
	announceOK(t, sink, announce.Announcement{Priority: announce.Critical, Text: "back"})
	if got := d.WaitSpoken(t, 2, 5*time.Second); len(got) != 2 || got[1] != "back" {
		t.Fatalf("spoken %q", got)
	}
}
