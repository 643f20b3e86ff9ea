package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
)

// The program in docs/library.md is this file's, word for word.
func TestLibraryDocShowsThisProgram(t *testing.T) {
	doc, err := os.ReadFile("../library.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte("```go\n"+string(src)+"```\n")) {
		t.Error("docs/library.md does not show docs/minilisten/main.go as it is: copy the file into its go block")
	}
}

// lines is an io.Writer for two goroutines that tells when a line matching
// a pattern was written.
type lines struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wait  *regexp.Regexp
	found chan struct{}
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.wait != nil && l.wait.Match(p) {
		l.wait = nil
		close(l.found)
	}
	return len(p), nil
}

// Against the real producer: the program subscribes, shows the prompt,
// sends the typed answer, hears what the agent did, and closes on quit.
func TestListenAnswersAndQuits(t *testing.T) {
	all, err := producer.LoadScenarios(os.DirFS("../../demo/scenarios"), ".")
	if err != nil {
		t.Fatal(err)
	}
	confirm, err := producer.SelectScenarios(all, []string{"confirm"})
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: confirm})
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer p.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, typed := io.Pipe()
	out := &lines{wait: regexp.MustCompile(`^Prompt 1 waits`), found: make(chan struct{})}
	done := make(chan int, 1)
	go func() { done <- listen(ctx, srv.URL, in, out) }()

	<-out.found
	out.mu.Lock()
	out.wait, out.found = regexp.MustCompile(`Transfer done`), make(chan struct{})
	found := out.found
	out.mu.Unlock()
	io.WriteString(typed, "accept 1\n")
	<-found
	io.WriteString(typed, "accept 1\nquit\n")
	if code := <-done; code != 0 {
		t.Errorf("exit code %d", code)
	}
	out.mu.Lock()
	got := out.buf.String()
	out.mu.Unlock()
	for _, want := range []string{
		"Connecting to " + srv.URL + ".\n",
		"Subscribed to Demo Assistant.\n",
		"Prompt 1 waits for your answer.\n",
		"The answer was sent unsigned: no signing key.\n",
		"event You accepted; sending the payment.\n",
		"Prompt 1 is already answered.\n",
		"The subscription is closed.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\u2068\u2069\x1b") {
		t.Errorf("marks or escapes in the output:\n%q", got)
	}
}
