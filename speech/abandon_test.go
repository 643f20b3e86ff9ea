package speech

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// slowCancelServer is an SSIP peer on loopback that answers every command
// at once except CANCEL, whose answer comes after delay (as
// speech-dispatcher's does while its module finishes a text). answered is
// closed once that late answer is written.
func slowCancelServer(t *testing.T, delay time.Duration) (addr Address, answered <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	late := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			line := sc.Text()
			answer := "208 OK PRIORITY SET\r\n"
			if strings.HasPrefix(line, "CANCEL") {
				time.Sleep(delay)
				answer = "210 OK CANCELED\r\n"
			}
			if _, err := c.Write([]byte(answer)); err != nil {
				return
			}
			if strings.HasPrefix(line, "CANCEL") {
				close(late)
			}
		}
	}()
	return Address{Network: "tcp", Addr: ln.Addr().String()}, late
}

// A reply not waited for would answer the next command: a CANCEL given up
// on leaves the client unusable, and the next command fails instead of
// taking that late "210 OK CANCELED" as its own answer.
func TestAbandonedCommandGivesUpTheConnection(t *testing.T) {
	t.Parallel()
	addr, answered := slowCancelServer(t, 300*time.Millisecond)
	c, err := Dial(context.Background(), addr, "user:aaep-test:abandon")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Command(short, "CANCEL self"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CANCEL with 50 ms: %v, want a deadline error", err)
	}
	<-answered // the late answer is on its way to the client
	err = c.Command(context.Background(), "SET SELF PRIORITY message")
	if err == nil || !strings.Contains(err.Error(), "given up") {
		t.Fatalf("the command after an abandoned one: %v, want the connection given up", err)
	}
}

// Speechd dials again when its client was given up, against the real daemon.
func TestSpeechdDialsAgainAfterGivingUp(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	ctx := context.Background()
	s, err := NewSpeechd(ctx, addr(d), "user:aaep-test:again")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Speak(ctx, Utterance{Text: "first"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.client.fail(errors.New("given up for the test"))
	s.mu.Unlock()
	if err := s.Speak(ctx, Utterance{Text: "second"}); err != nil {
		t.Fatalf("Speak after the client was given up: %v (it should dial again)", err)
	}
	if spoken := d.WaitSpoken(t, 2, 10*time.Second); strings.Join(spoken, "|") != "first|second" {
		t.Errorf("spoken %q, want first and second", spoken)
	}
}
