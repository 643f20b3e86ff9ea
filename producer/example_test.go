package producer_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// A producer served on a loopback port. With EndWhenDone the stream ends
// after the last scenario, and Done is closed.
func Example() {
	all, err := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	if err != nil {
		panic(err)
	}
	happy, err := producer.SelectScenarios(all, []string{"happy"})
	if err != nil {
		panic(err)
	}
	p := producer.New(producer.Options{Scenarios: happy, Speed: 0, EndWhenDone: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)

	// A subscriber: here, the legacy stream read to its end.
	resp, err := http.Get("http://" + ln.Addr().String() + protocol.PathLegacyEvents)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	<-p.Done()
	p.Close() // ends streams still open, so Shutdown need not wait for them
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	fmt.Println(len(body) > 0)
	// Output: true
}
