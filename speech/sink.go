// sink.go holds Sink, which speaks announcements, and Open, which picks a backend.

package speech

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/aaep-term/aaep-term/announce"
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
	u := Utterance{Text: protocol.Line(an.Text), Lang: an.Lang, Priority: PriorityFor(an)}
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
			return nil, "", err
		}
		return b, "speech: speech-dispatcher at " + b.Addr.String(), nil
	case "espeak":
		if _, err := look("espeak-ng"); err != nil {
			return nil, "", fmt.Errorf("speech: espeak-ng not found: %w", err)
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
		if _, lerr := look("espeak-ng"); lerr == nil {
			return NewProcess("espeak-ng", EspeakCommand), "speech: espeak-ng (speech-dispatcher not available)", nil
		}
		return nil, "speech: off (no speech-dispatcher, no espeak-ng)", nil
	}
	return nil, "", fmt.Errorf("speech: unknown backend %q: want auto, speechd, espeak, say, sapi or off", mode)
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
