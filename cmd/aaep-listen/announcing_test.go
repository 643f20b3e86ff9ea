package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/speech"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// "stop" drops what waits to be said and cancels what speech-dispatcher has
// queued. The producer sends the whole session at once; the module takes 2
// seconds a text, so when stop is typed the end of the session is still
// waiting, and must never be spoken. (What the module is already saying
// when stop comes may still reach its file: the generic module finishes its
// command.) That speech goes on after stop is TestPacerSilence's part.
// Nothing waits a fixed time: once stop was told, a marker of the same
// priority is queued by another speech-dispatcher client; the daemon says
// messages in the order they came, so when the marker is spoken, anything
// of the listener's that stop left queued would have been spoken first.
func TestStopCancelsSpeech(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "2")
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "cancel")})
	r := startListenerWith(t, []string{"SPEECHD_ADDRESS=" + d.Address()}, "--plain", "--speech", "speechd", url)
	r.waitOutput(t, "Translation stopped at your request")
	fmt.Fprintln(r.stdin, "stop")
	r.waitOutput(t, "Stopped;")
	if !regexp.MustCompile(`Stopped; \d+ announcements? (was|were) not spoken`).MatchString(r.stdout()) {
		t.Errorf("stop did not say what it dropped:\n%s", r.stdout())
	}
	const marker = "Marker after stop."
	b, _, err := speech.Open(context.Background(), "speechd", "test:marker:main", speech.Env{Getenv: func(k string) string {
		if k == "SPEECHD_ADDRESS" {
			return d.Address()
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Speak(context.Background(), speech.Utterance{Text: marker, Priority: speech.Message}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); !slices.Contains(d.Lines(), marker); {
		if time.Now().After(deadline) {
			t.Fatalf("the marker was never spoken:\n%s", strings.Join(d.Lines(), "\n"))
		}
		time.Sleep(50 * time.Millisecond) // the daemon's module writes a file: read it again
	}
	if spoken := strings.Join(d.Lines(), "\n"); strings.Contains(spoken, "Translation stopped") {
		t.Errorf("the end of the session was spoken after stop:\n%s", spoken)
	}
}

func TestConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "announce.json")
	os.WriteFile(good, []byte(`{"verbosity":"terse","pace_wpm":240,"types":{"progress.updated":{"speak":false}}}`), 0o600)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"verbosity":"chatty"}`), 0o600)
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir // holds no aaep-term/announce.json
		}
		return ""
	}
	parse := func(args ...string) (*options, error) {
		tio, _, _, _ := term.Test()
		return parseFlags(append(args, "--demo"), tio, env)
	}
	if _, err := parse("--config", bad); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("bad settings file: %v", err)
	}
	if _, err := parse("--config", filepath.Join(dir, "none.json")); err == nil {
		t.Fatal("a missing --config file is no error")
	}
	o, err := parse("--config", good)
	if err != nil {
		t.Fatal(err)
	}
	if c := o.announceConfig(nil); c.Verbosity != "terse" || len(c.Types) != 1 {
		t.Errorf("settings not applied: %+v", c)
	}
	if p := o.outputs(false).Pace; p.WPM != 240 || p.DropBackground {
		t.Errorf("pace %+v", p)
	}
	o, err = parse("--config", good, "--verbosity", "detailed", "--pace-wpm", "150", "--cognitive-load", "low", "--lang", "yo,en")
	if err != nil {
		t.Fatal(err)
	}
	c := o.announceConfig(nil)
	if c.Verbosity != "detailed" || strings.Join(c.Languages, ",") != "yo,en" {
		t.Errorf("flags must win over the file: %+v", c)
	}
	if p := o.outputs(false).Pace; p.WPM != 150 || !p.DropBackground {
		t.Errorf("pace %+v", p)
	}
	o, err = parse()
	if err != nil || o.announceConfig(nil).Verbosity != "normal" {
		t.Fatalf("without a file: %v", err)
	}
}
