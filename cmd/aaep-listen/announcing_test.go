package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// "stop" cancels what speech-dispatcher is saying and what waits; speech
// goes on with what comes after.
func TestStopCancelsSpeech(t *testing.T) {
	d := speechdtest.Start(t, "2") // each text takes 2 seconds before it is noted as said
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "cancel")})
	r := startListenerEnv(t, []string{"SPEECHD_ADDRESS=" + d.Address()}, "--plain", "--speech", "speechd", url)
	r.waitOutput(t, "Translating the 40-page annual report")
	fmt.Fprintln(r.stdin, "stop")
	r.waitOutput(t, "Stopped;")
	r.waitOutput(t, "Translation stopped at your request")
	var spoken string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(spoken, "Translation stopped"); {
		time.Sleep(100 * time.Millisecond)
		spoken = strings.Join(d.Lines(), "\n")
	}
	if strings.Contains(spoken, "annual report") {
		t.Errorf("the text being said when you typed stop was still said:\n%s", spoken)
	}
	if !strings.Contains(spoken, "Translation stopped") {
		t.Errorf("speech did not go on after stop:\n%s", spoken)
	}
}

func TestConfigFile(t *testing.T) {
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
	if p := o.paced().pace; p.WPM != 240 || p.DropBackground {
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
	if p := o.paced().pace; p.WPM != 150 || !p.DropBackground {
		t.Errorf("pace %+v", p)
	}
	o, err = parse()
	if err != nil || o.announceConfig(nil).Verbosity != "normal" {
		t.Fatalf("without a file: %v", err)
	}
}
