package notify

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
)

func TestDesktopUrgencyAndGrouping(t *testing.T) {
	f := startFakeServer(t)
	s := NewSink(NewDesktop(false), Config{Level: On, Window: 2 * time.Second}) // the 52 announcements come within one window, however busy the machine
	defer s.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "started", Agent: "Ada", Text: "Ada started."}))
	for i := 0; i < 50; i++ {
		must(s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "tool", Agent: "Ada", Text: "Tool call finished."}))
	}
	must(s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Agent: "Ada", Text: "Delete 3 files? Type accept 1 or reject 1."}))
	must(s.Announce(announce.Announcement{Priority: announce.Background, Kind: "progress", Text: "40%"}))
	f.wait(t, 3, 30*time.Second)
	// Nothing more must come: one summary per window. Close sends what is
	// still held and returns once the server has answered every call, so
	// what it recorded then is all there will be.
	s.Close()
	got := f.recorded()
	if len(got) != 3 {
		t.Fatalf("%d notifications, want 3 (first, critical, one summary): %+v", len(got), got)
	}
	if got[0].Summary != "Ada" || got[0].Body != "Ada started." || got[0].Urgency != 1 || got[0].App != AppName || got[0].Timeout != 5000 {
		t.Errorf("first: %+v", got[0])
	}
	if got[1].Summary != "Ada needs you" || got[1].Urgency != 2 || !strings.Contains(got[1].Body, "Delete 3 files") {
		t.Errorf("critical: %+v", got[1])
	}
	if got[2].Urgency != 1 || got[2].Summary != AppName+": 50 announcements" || !strings.Contains(got[2].Body, "and 47 earlier.") {
		t.Errorf("summary: %+v", got[2])
	}
}

func TestCriticalLevelAndBellAlert(t *testing.T) {
	f := startFakeServer(t)
	s := NewSink(NewDesktop(true), Config{Level: Critical})
	s.Announce(announce.Announcement{Priority: announce.Normal, Text: "not shown"})
	if err := s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "errored", Agent: "Ada", Text: "Ada failed."}); err != nil {
		t.Logf("alert: %v (the bell may fail without a speaker)", err)
	}
	got := f.wait(t, 1, 3*time.Second)
	s.Close()
	if len(got) != 1 || got[0].Urgency != 2 || got[0].Summary != "Ada: errored" {
		t.Fatalf("got %+v, want only the critical one", got)
	}
}

func TestLevels(t *testing.T) {
	if _, err := ParseLevel("loud"); err == nil {
		t.Fatal("bad level accepted")
	}
	l, err := ParseLevel("")
	if err != nil || l != Off {
		t.Fatalf("empty level: %v %v", l, err)
	}
	s := NewSink(recorder{}, Config{Level: Off})
	if err := s.Announce(announce.Announcement{Priority: announce.Critical, Text: "x"}); err != nil {
		t.Fatal(err)
	}
}

type recorder struct{}

func (recorder) Notify(title, body string) error { panic("off must not notify") }
func (recorder) Alert(title, body string) error  { panic("off must not notify") }

// slow is a notification server that takes its time, counting what it shows.
type slow struct {
	mu               sync.Mutex
	normal, critical int
}

func (s *slow) Notify(title, body string) error {
	time.Sleep(20 * time.Millisecond)
	s.mu.Lock()
	s.normal++
	s.mu.Unlock()
	return nil
}

func (s *slow) Alert(title, body string) error {
	time.Sleep(20 * time.Millisecond)
	s.mu.Lock()
	s.critical++
	s.mu.Unlock()
	return nil
}

// A slow server holds up neither the announcer nor any critical notification.
func TestSlowServerDropsNoCritical(t *testing.T) {
	n := &slow{}
	s := NewSink(n, Config{Level: On, Window: time.Hour})
	start := time.Now()
	for i := 0; i < 1000; i++ {
		s.Announce(announce.Announcement{Priority: announce.Normal, Text: "chatter"})
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("1000 normal announcements took %v", el)
	}
	for i := 0; i < 40; i++ {
		s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Confirm?"})
	}
	s.Close()
	if n.critical != 40 || n.normal != 2 {
		t.Fatalf("shown %d critical (want 40) and %d normal (want the first and one summary)", n.critical, n.normal)
	}
}
