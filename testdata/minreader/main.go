// Command minreader is the floor BenchmarkEndToEnd200k (cmd/aaep-listen) measures aaep-listen
// against: it reads an SSE stream and writes one line per event (the
// event's type and ID), without decoding or validating anything.
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"

	"github.com/aaep-term/aaep-term/internal/ssefloor"
)

func main() {
	resp, err := http.Get(os.Args[1] + "/events")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer w.Flush()
	ssefloor.Each(resp.Body, func(data []byte) {
		w.WriteString("event ")
		w.Write(ssefloor.Member(data, `"type":"`))
		w.WriteByte(' ')
		w.Write(ssefloor.Member(data, `"event_id":"`))
		w.WriteByte('\n')
	})
}
