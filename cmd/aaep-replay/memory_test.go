package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
)

// bigCapture writes a gzip capture of about size bytes of lines, which
// gzip makes a few tens of kilobytes: transport notes of 16 KB each.
func bigCapture(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.aaep.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	fmt.Fprintln(zw, `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","endpoint":"http://127.0.0.1:1/","transport":"sse","tool":"test"}`)
	pad := strings.Repeat("x", 16<<10)
	for i := 0; i*(16<<10) < size; i++ {
		fmt.Fprintf(zw, "[%d.%03d,\"i\",{\"transport\":\"note\",\"pad\":%q}]\n", i/1000, i%1000, pad)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// heapAtEnd is an output that measures the live heap when the line saying
// the end of the capture is written: what the player still holds then.
type heapAtEnd struct {
	mu   sync.Mutex
	heap uint64
	seen bool
}

func (w *heapAtEnd) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen && bytes.Contains(p, []byte("End of the capture")) {
		w.seen = true
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.heap = m.HeapAlloc
	}
	return len(p), nil
}

// aaep-replay play holds a bounded part of a capture whatever standard
// input is: a terminal (steered by commands), a file such as /dev/null
// with --interactive, or nothing to steer with. A gzip file of a few MB
// held 4.9 GiB at a terminal or with </dev/null: steered playing read the
// whole capture into memory to go back in it.
func TestPlayMemoryBounded(t *testing.T) {
	const size = 8 << 20
	path := bigCapture(t, size)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tt := range []struct {
		name  string
		in    io.Reader
		inTTY bool
		flags []string
	}{
		{"at a terminal", strings.NewReader(""), true, nil},
		{"--interactive, standard input /dev/null", null, false, []string{"--interactive"}},
		{"not steered", null, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &heapAtEnd{}
			tio := term.New(tt.in, w, io.Discard, tt.inTTY, false, func(string) string { return "" }, false)
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			code := run(context.Background(), append(append([]string{"play", "--speed", "0"}, tt.flags...), path), tio)
			if code != 0 || !w.seen {
				t.Fatalf("exit %d; the end of the capture said: %v", code, w.seen)
			}
			grew := int64(w.heap) - int64(before.HeapAlloc)
			if grew > size/4 {
				t.Errorf("the heap grew by %d MB playing a capture of %d MB of lines; want under %d MB", grew>>20, size>>20, size>>22)
			}
		})
	}
}
