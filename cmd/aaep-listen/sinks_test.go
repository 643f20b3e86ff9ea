package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// A confirmation shown on a braille display is accepted with a routing key
// over "accept", and the producer goes on as accepted.
func TestBraillePromptAnsweredWithRoutingKey(t *testing.T) {
	t.Parallel()
	d := brltest.Start(t, 40, "")
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--braille", "auto", "--brlapi-host", d.Host, "--answer-after", "0", url)
	r.waitOutput(t, "Confirmation needed")
	d.WaitVisual(t, "the prompt with its answer words", func(s string) bool { return strings.HasPrefix(s, "#1 accept reject ") })
	d.Press(t, "FWINRT")
	d.WaitVisual(t, "the prompt's next window", func(s string) bool { return !strings.HasPrefix(s, "#1 ") })
	d.Press(t, "FWINLT")
	d.WaitVisual(t, "the prompt's first window", func(s string) bool { return strings.HasPrefix(s, "#1 accept") })
	d.Press(t, "ROUTE 4") // over "accept"
	// A payment that cannot be undone: the display asks the second step.
	d.WaitVisual(t, "the second step", func(s string) bool { return strings.HasPrefix(s, "#1 yes no Transfer") })
	if strings.Contains(r.stdout(), "Sent your answer") {
		t.Fatalf("one routing key sent the payment:\n%s", r.stdout())
	}
	d.Press(t, "ROUTE 4") // over "yes"
	r.waitOutput(t, "Sent your answer to prompt 1")
	r.wait(t)
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Accepted {
		t.Fatalf("producer outcomes %+v, want accepted", outs)
	}
	if !strings.Contains(r.stdout(), "braille: BRLTTY display.") {
		t.Errorf("the listener did not say braille is on:\n%s", r.stdout())
	}
}

// What the listener announces is spoken by speech-dispatcher, the prompt first.
func TestSpeechFollowsTheAnnouncements(t *testing.T) {
	d := speechdtest.Start(t, "")
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListenerEnv(t, []string{"SPEECHD_ADDRESS=" + d.Address()}, "--plain", "--speech", "auto", url)
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "reject 1")
	r.wait(t)
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Rejected {
		t.Fatalf("producer outcomes %+v", outs)
	}
	out := r.stdout()
	if !strings.Contains(out, "speech: speech-dispatcher at unix_socket:") {
		t.Errorf("the listener did not say which speech it uses:\n%s", out)
	}
	// Until the end is spoken: the daemon speaks behind the lines.
	spoken := d.WaitSpokenUntil(t, func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Finished") })
	}, time.Minute)
	if len(spoken) == 0 {
		t.Fatal("nothing was spoken")
	}
	// The capture module turns punctuation into spaces: compare words.
	words := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') }), " ")
	}
	// Everything spoken was announced; the critical prompt interrupts the
	// chatter queued before it, which comes afterwards or not at all; the
	// end comes last. speech-dispatcher speaks long texts sentence by sentence.
	flat := words(out)
	for _, s := range spoken {
		if paced.MatchString(s) {
			continue // the pacer's own count of what it left out to keep up
		}
		if !strings.Contains(flat, words(s)) {
			t.Errorf("spoken %q was never announced", s)
		}
	}
	if last := spoken[len(spoken)-1]; !strings.HasPrefix(last, "Finished") {
		t.Errorf("last spoken %q, want the end of the session\nspoken: %q", last, spoken)
	}
	if !strings.Contains(strings.Join(spoken, "\n"), "Confirmation needed") {
		t.Errorf("the prompt was not spoken: %q", spoken)
	}
}

// paced matches what the pacer says when it collapses its queue.
var paced = regexp.MustCompile(`^\s*\d+ [a-z, ]+ skipped\.|; the latest:`)

// startListenerEnv is startListener with extra environment variables.
func startListenerEnv(t *testing.T, env []string, args ...string) *listenerRun {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return startListener(t, args...)
}

func TestSinkFlagsChecked(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--speech", "loud"}, {"--braille", "on"}, {"--notify", "always"}} {
		tio, _, _, _ := term.Test()
		if _, err := parseFlags(append(args, "--demo"), tio, os.Getenv); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
