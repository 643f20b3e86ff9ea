package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
)

func TestLogAppendsWholeLines(t *testing.T) {
	name := filepath.Join(t.TempDir(), "audit.jsonl")
	for run := range 2 { // a second run appends
		l, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				yes := true
				err := l.Write(Record{Time: Stamp(time.Unix(int64(i), 0)), What: "decision", Prompt: run*100 + i,
					TokenSHA256: HashToken("rpl_secret"), Decision: "accept", DecidedBy: "user", Signed: &yes, Delivered: &yes,
					Action: strings.Repeat("x", 5000)})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(name)
	if strings.Contains(string(data), "rpl_secret") {
		t.Fatal("the raw reply token is in the audit log")
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not a whole record: %v", n+1, err)
		}
		if r.TokenSHA256 != HashToken("rpl_secret") || len(r.TokenSHA256) != 64 {
			t.Fatalf("token hash %q", r.TokenSHA256)
		}
		n++
	}
	if n != 100 {
		t.Fatalf("%d records, want 100", n)
	}
}

func TestHashToken(t *testing.T) {
	// printf rpl_abc | sha256sum
	if got := HashToken("rpl_abc"); got != "1856556ee684e3d9dd34fb579588e6b877578772161546cf8d06e20df4b005e1" {
		t.Fatalf("HashToken = %s", got)
	}
	if HashToken("") != "" {
		t.Fatal("an empty token hashed")
	}
}

var nilLog *Log

func TestNilLogWritesNothing(t *testing.T) {
	if err := nilLog.Write(Record{What: "prompt"}); err != nil {
		t.Fatal(err)
	}
	if err := nilLog.Close(); err != nil {
		t.Fatal(err)
	}
}

// The audit log is never written through a symbolic link (the file it
// points at is left alone), and an existing log is made 0600.
func TestOpenSafely(t *testing.T) {
	dir := t.TempDir()
	victim := safefiletest.Link(t, dir, "audit.jsonl")
	if l, err := Open(filepath.Join(dir, "audit.jsonl")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		l.Close()
		t.Errorf("a link was opened: error %v", err)
	}
	safefiletest.Intact(t, victim)
	old := filepath.Join(dir, "old.jsonl")
	safefiletest.Loose(t, old)
	l, err := Open(old)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	safefiletest.Private(t, old)
}
