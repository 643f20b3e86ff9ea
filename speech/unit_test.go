package speech

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/announce"
)

var errNotFound = errors.New("not found")

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]Address{
		"unix_socket:/run/s.sock":    {"unix", "/run/s.sock"},
		"inet_socket:127.0.0.1:6561": {"tcp", "127.0.0.1:6561"},
		"inet_socket:localhost":      {"tcp", "localhost:6560"},
	} {
		got, err := ParseAddress(in)
		if err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"unix_socket:", "pipe:/x", ""} {
		if _, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) accepted", bad)
		}
	}
	a, err := ResolveAddress(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return "/run/user/7"
		}
		return ""
	})
	if err != nil || a.Addr != "/run/user/7/speech-dispatcher/speechd.sock" {
		t.Fatalf("ResolveAddress = %v, %v", a, err)
	}
	if _, err := ResolveAddress(func(string) string { return "" }); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("no env: %v", err)
	}
}

func TestReadReply(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("225-21\r\n225 OK MESSAGE QUEUED\r\n701-21\r\n701-3\r\n701 BEGIN\r\n300 ERR\r\n"))
	r, err := readReply(br)
	if err != nil || r.Code != 225 || r.Lines[0] != "21" || r.isEvent() {
		t.Fatalf("reply %v %v", r, err)
	}
	r, err = readReply(br)
	if err != nil || !r.isEvent() || len(r.Lines) != 3 {
		t.Fatalf("event %v %v", r, err)
	}
	r, err = readReply(br)
	if err != nil || r.ok() {
		t.Fatalf("error reply %v %v", r, err)
	}
	for _, bad := range []string{"22\r\n", "abc OK\r\n", "225-x\r\n226 y\r\n", "225+x\r\n"} {
		if _, err := readReply(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readReply(%q) accepted", bad)
		}
	}
}

func TestEscapeText(t *testing.T) {
	got := escapeText(".start\nmiddle\r\n.\nend")
	want := "..start\r\nmiddle\r\n..\r\nend\r\n.\r\n"
	if got != want {
		t.Fatalf("escapeText = %q, want %q", got, want)
	}
}

func TestPriorityFor(t *testing.T) {
	for _, c := range []struct {
		p    announce.Priority
		kind string
		want Priority
	}{
		{announce.Critical, "confirmation", Important},
		{announce.Normal, "tool", Message},
		{announce.Normal, "output", Message}, // queued, never replaced: every sentence of the answer is said
		{announce.Background, "progress", Progress},
		{announce.Background, "state", Notification},
	} {
		if got := PriorityFor(announce.Announcement{Priority: c.p, Kind: c.kind}); got != c.want {
			t.Errorf("PriorityFor(%v, %s) = %s, want %s", c.p, c.kind, got, c.want)
		}
	}
}

func TestCommands(t *testing.T) {
	u := Utterance{Text: "-v evil; rm -rf /", Lang: "yo-NG"}
	e := EspeakCommand(u)
	if e.Path != "espeak-ng" || strings.Join(e.Args, " ") != "-v yo-ng --stdin" || e.Stdin != u.Text {
		t.Errorf("espeak: %+v", e)
	}
	s := SayCommand(u)
	if s.Path != "say" || strings.Join(s.Args, " ") != "-f -" || s.Stdin != u.Text {
		t.Errorf("say: %+v", s)
	}
	w := SAPICommand(u)
	if w.Path != "powershell.exe" || len(w.Args) != 4 || w.Args[2] != "-Command" || w.Stdin != u.Text {
		t.Fatalf("sapi: %+v", w)
	}
	if !strings.Contains(w.Args[3], "$l = 'yo-NG'") || !strings.Contains(w.Args[3], "[Console]::In.ReadToEnd()") || strings.Contains(w.Args[3], "rm -rf") {
		t.Errorf("sapi script: %s", w.Args[3])
	}
	if x := SAPICommand(Utterance{Text: "hi", Lang: "en'; Remove-Item x; '"}); !strings.Contains(x.Args[3], "$l = ''") {
		t.Errorf("hostile language reached the script: %s", x.Args[3])
	}
}
