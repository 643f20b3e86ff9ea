// speechd.go holds Speechd, the speech-dispatcher backend that redials after a daemon restart.

package speech

import (
	"context"
	"strings"
	"sync"
)

// Speechd speaks through speech-dispatcher. It dials lazily and, when the
// daemon went away, dials again once per call before giving up.
type Speechd struct {
	Addr       Address
	ClientName string // e.g. "user:aaep-listen:main"

	mu       sync.Mutex // guards the fields below
	client   *Client    // nil until dialed or after the connection broke
	priority Priority
	lang     string
}

// NewSpeechd returns a backend for the daemon at addr, checking that it answers.
func NewSpeechd(ctx context.Context, addr Address, clientName string) (*Speechd, error) {
	s := &Speechd{Addr: addr, ClientName: clientName}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Name implements Backend.
func (s *Speechd) Name() string { return "speech-dispatcher" }

// connect returns the live client, dialing when there is none. s.mu is held.
func (s *Speechd) connect(ctx context.Context) (*Client, error) {
	if s.client != nil {
		return s.client, nil
	}
	c, err := Dial(ctx, s.Addr, s.ClientName)
	if err != nil {
		return nil, err
	}
	s.client, s.priority, s.lang = c, "", ""
	return c, nil
}

// drop forgets a broken client. s.mu is held.
func (s *Speechd) drop() {
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
}

// Speak implements Backend.
func (s *Speechd) Speak(ctx context.Context, u Utterance) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if err = s.speak(ctx, u); err == nil || ctx.Err() != nil {
			return err
		}
		s.drop()
	}
	return err
}

func (s *Speechd) speak(ctx context.Context, u Utterance) error {
	c, err := s.connect(ctx)
	if err != nil {
		return err
	}
	if u.Priority == "" {
		u.Priority = Message
	}
	if u.Priority != s.priority {
		if err := c.Command(ctx, "SET SELF PRIORITY "+string(u.Priority)); err != nil {
			return err
		}
		s.priority = u.Priority
	}
	if lang := ssipLanguage(u.Lang); lang != "" && lang != s.lang {
		if err := c.Command(ctx, "SET SELF LANGUAGE "+lang); err != nil {
			return err
		}
		s.lang = lang
	}
	if _, err := c.Speak(ctx, u.Text); err != nil {
		return err
	}
	return nil
}

// Cancel implements Backend: CANCEL self.
func (s *Speechd) Cancel(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		return nil
	}
	if err := s.client.Command(ctx, "CANCEL self"); err != nil {
		s.drop()
		return err
	}
	return nil
}

// Close implements Backend.
func (s *Speechd) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop()
	return nil
}

// ssipLanguage keeps the letters, digits and hyphens of a BCP 47 tag, so a
// hostile tag cannot smuggle a second command onto the line.
func ssipLanguage(tag string) string {
	tag = strings.TrimSpace(tag)
	if tag == "" || len(tag) > 35 {
		return ""
	}
	for _, r := range tag {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return tag
}
