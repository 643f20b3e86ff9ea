// sink.go holds Sink, which speaks announcements, and Open, which picks a backend.

package speech

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
)

// Sink speaks announcements through a Backend. It implements announce.Sink;
// like it, Announce is called from one goroutine. A failing backend is
// reported once, not with every announcement.
type Sink struct {
	Backend Backend
	// Timeout bounds one call to the backend; zero means 2 seconds.
	Timeout time.Duration

	failing bool // the last call failed; further failures are not reported again
}

// Announce implements announce.Sink.
func (s *Sink) Announce(an announce.Announcement) error {
	if an.Text == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
	defer cancel()
	u := Utterance{Text: protocol.Line(an.Text), Lang: an.Lang, Priority: PriorityFor(an), Keep: !announce.Chatter(an)}
	err := s.Backend.Speak(ctx, u)
	switch {
	case err == nil:
		s.failing = false
	case !s.failing:
		// Reported once; the backend tries again with every announcement.
		s.failing = true
		return fmt.Errorf("%s failed (trying again with each announcement): %w", s.Backend.Name(), err)
	}
	return nil
}

// Speaking reports whether the backend says it is still saying the last
// announcement; backends that cannot tell say false. A Pacer waits for it.
func (s *Sink) Speaking() bool {
	sp, ok := s.Backend.(interface{ Speaking() bool })
	return ok && sp.Speaking()
}

// HearsEnd reports whether the backend tells when speech ends
// (speech-dispatcher does), so that Speaking is heard, not guessed.
func (s *Sink) HearsEnd() bool {
	_, ok := s.Backend.(interface{ Speaking() bool })
	return ok
}

// cancelTimeout bounds a cancel. speech-dispatcher answers CANCEL only once
// its output module has stopped, which can take as long as the text being
// said, so it is longer than the time a Speak may take.
const cancelTimeout = 10 * time.Second

// Cancel stops the speech now, as when the user asks for silence. It may
// take as long as the daemon needs to stop its voice.
func (s *Sink) Cancel() error {
	ctx, cancel := context.WithTimeout(context.Background(), max(cancelTimeout, s.timeout()))
	defer cancel()
	return s.Backend.Cancel(ctx)
}

// Close releases the backend. speech-dispatcher goes on saying what it was
// given; espeak-ng and the others are stopped.
func (s *Sink) Close() error { return s.Backend.Close() }

func (s *Sink) timeout() time.Duration {
	if s.Timeout <= 0 {
		return 2 * time.Second
	}
	return s.Timeout
}

// Env is what Open needs from the process: environment and program lookup.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error) // nil means exec.LookPath
	// CheckEspeak tells whether espeak-ng can play sound; nil means
	// CheckEspeak with the process's own environment.
	CheckEspeak func(context.Context) error
}

// Open returns the backend for mode: "speechd", "espeak", "say", "sapi" or
// "auto" (speech-dispatcher, else espeak-ng). It returns nil and no error for
// "off", and for "auto" when nothing is available. The string says in one line
// what was chosen, for the user.
func Open(ctx context.Context, mode, clientName string, env Env) (Backend, string, error) {
	look := env.LookPath
	if look == nil {
		look = exec.LookPath
	}
	switch mode {
	case "", "off":
		return nil, "speech: off", nil
	case "speechd":
		b, err := openSpeechd(ctx, clientName, env)
		if err != nil {
			return nil, "", fmt.Errorf("%w; %s", err, startSpeechd)
		}
		return b, "speech: speech-dispatcher at " + b.Addr.String(), nil
	case "espeak":
		if err := espeakWorks(ctx, env, look); err != nil {
			return nil, "", err
		}
		return NewProcess("espeak-ng", EspeakCommand), "speech: espeak-ng", nil
	case "say":
		return NewProcess("say", SayCommand), "speech: macOS say", nil
	case "sapi":
		return NewProcess("sapi", SAPICommand), "speech: Windows SAPI through PowerShell", nil
	case "auto":
		b, err := openSpeechd(ctx, clientName, env)
		if err == nil {
			return b, "speech: speech-dispatcher at " + b.Addr.String(), nil
		}
		eerr := espeakWorks(ctx, env, look)
		if eerr == nil {
			return NewProcess("espeak-ng", EspeakCommand), "speech: espeak-ng (speech-dispatcher not available)", nil
		}
		return nil, fmt.Sprintf("speech: off (%s; %s; %s)", unprefixed(err), startSpeechd, unprefixed(eerr)), nil
	}
	return nil, "", fmt.Errorf("speech: unknown backend %q: want auto, speechd, espeak, say, sapi or off", mode)
}

// unprefixed is err's text without this package's "speech: ", to go inside
// a line that begins with it.
func unprefixed(err error) string { return strings.TrimPrefix(err.Error(), "speech: ") }

// startSpeechd says what to do when speech-dispatcher does not answer.
const startSpeechd = "start speech-dispatcher (speech-dispatcher -s; install the speech-dispatcher package if it is missing) or set SPEECHD_ADDRESS to where it listens"

// espeakWorks tells whether espeak-ng is installed and can play sound, and
// what to do when not.
func espeakWorks(ctx context.Context, env Env, look func(string) (string, error)) error {
	if _, err := look("espeak-ng"); err != nil {
		return fmt.Errorf("speech: espeak-ng is not installed (install the espeak-ng package): %w", err)
	}
	check := env.CheckEspeak
	if check == nil {
		check = func(ctx context.Context) error { return CheckEspeak(ctx, nil) }
	}
	return check(ctx)
}

// CheckEspeak runs espeak-ng once, saying a space at volume zero, with env
// as its environment (nil: this process's), and reports an error when it
// cannot play sound: espeak-ng ends well even then, but says so on its
// standard error.
func CheckEspeak(ctx context.Context, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "espeak-ng", "-a", "0", "--stdin")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(" ")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	why := lastLine(stderr.String())
	switch {
	case err != nil && why != "":
		return fmt.Errorf("speech: espeak-ng cannot play sound (%s): %w; check that sound works for your user", why, err)
	case err != nil:
		return fmt.Errorf("speech: espeak-ng cannot play sound: %w; check that sound works for your user", err)
	case why != "":
		return fmt.Errorf("speech: espeak-ng cannot play sound (%s); check that sound works for your user", why)
	}
	return nil
}

// lastLine is the last line of a program's error output that is not empty,
// made safe to show: it is not ours.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return protocol.Line(prose.Cut(lines[len(lines)-1], 200))
}

func openSpeechd(ctx context.Context, clientName string, env Env) (*Speechd, error) {
	addr, err := ResolveAddress(env.Getenv)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return NewSpeechd(ctx, addr, clientName)
}
