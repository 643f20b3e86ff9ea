// Command minreader is the floor BenchmarkEndToEnd200k (cmd/aaep-listen) measures aaep-listen
// against: it reads an SSE stream and writes one line per event (the
// event's type and ID), without decoding or validating anything.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get(os.Args[1] + "/events")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer w.Flush()
	for {
		l, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		data, ok := bytes.CutPrefix(l, []byte("data: "))
		if !ok {
			continue
		}
		w.WriteString("event ")
		w.Write(member(data, `"type":"`))
		w.WriteByte(' ')
		w.Write(member(data, `"event_id":"`))
		w.WriteByte('\n')
	}
}

// member is the string value after key, up to its closing quote.
func member(b []byte, key string) []byte {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil
	}
	b = b[i+len(key):]
	if j := bytes.IndexByte(b, '"'); j >= 0 {
		return b[:j]
	}
	return b
}
