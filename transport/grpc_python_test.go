package transport_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// pythonGRPC finds a Python 3 with grpcio (Debian's python3-grpcio). It
// fails the test under CI, where scripts/test installs the package, and
// skips it elsewhere.
func pythonGRPC(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import grpc").Run() == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("python3 with grpcio is missing (Debian: apt-get install python3-grpcio); scripts/test installs it")
	}
	t.Skip("python3 with grpcio is not installed (apt-get install python3-grpcio)")
	return ""
}

// pythonProducer starts testdata/grpc_producer.py and returns its endpoint
// and the lines it prints.
func pythonProducer(t *testing.T) (string, <-chan string) {
	t.Helper()
	cmd := exec.Command(pythonGRPC(t), "testdata/grpc_producer.py")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the script stops when its input ends
		if err := cmd.Wait(); err != nil {
			t.Errorf("the Python producer: %v\n%s", err, stderr.String())
		}
	})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	first, ok := <-lines
	port, found := strings.CutPrefix(first, "port ")
	if !ok || !found {
		t.Fatalf("the Python producer did not start: %q\n%s", first, stderr.String())
	}
	return "grpc://127.0.0.1:" + port, lines
}

func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l := <-lines:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("the Python producer said nothing more")
	}
	return ""
}

// TestGRPCPythonProducer: a producer written in Python with grpcio, which
// encodes and decodes AaepMessage by hand from appendix B.5, takes the
// subscription, a reply and the close from the transport, and its events
// and status reach Recv.
func TestGRPCPythonProducer(t *testing.T) {
	endpoint, lines := pythonProducer(t)
	var n notes
	c, err := transport.Dial(context.Background(), endpoint, transport.Options{GRPCBinding: grpcbind.Binding{},
		SSE:  transport.SSEOptions{Token: "py-token"},
		GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, m := recv(t, c)
	if f.Event != transport.EventHandshake || m.Type != "subscription.accepted" || m.SubscriptionID != "sub_py1" {
		t.Fatalf("first frame %s (event %q)", f.Data, f.Event)
	}
	if got := nextLine(t, lines); got != "request subscription.request type=subscription.request" {
		t.Errorf("the producer read the request as %q", got)
	}
	if _, m := recv(t, c); m.Type != "aaep:agent.session.started" || m.Summary != "Python started." {
		t.Errorf("event 0: %+v", m)
	}
	_, m = recv(t, c)
	if m.Type != "aaep:agent.awaiting.confirmation" || m.ReplyToken != "tok_py" {
		t.Fatalf("event 1: %+v", m)
	}
	send(t, c, map[string]any{"type": "confirmation.reply", "reply_token": m.ReplyToken, "decision": "accept", "subscription_id": "sub_py1"})
	if got := nextLine(t, lines); got != "got confirmation.reply type=confirmation.reply decision=accept" {
		t.Errorf("the producer read the reply as %q", got)
	}
	if _, m := recv(t, c); m.Summary != "Python heard accept." {
		t.Errorf("event 2: %+v", m)
	}
	send(t, c, map[string]any{"type": "subscription.close", "subscription_id": "sub_py1", "reason_code": "subscriber_shutdown"})
	if got := nextLine(t, lines); got != "got subscription.close type=subscription.close decision=" {
		t.Errorf("the producer read the close as %q", got)
	}
	if err := endErr(t, c); !errors.Is(err, io.EOF) {
		t.Errorf("after the close: %v, want io.EOF", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	man, err := grpcbind.GetManifest(ctx, endpoint, transport.GRPCOptions{})
	if err != nil || !strings.Contains(string(man), `"agent_id": "python-agent"`) {
		t.Errorf("GetManifest: %s, %v", man, err)
	}

	// Without the token, the producer's UNAUTHENTICATED ends the connection.
	c2, err := transport.Dial(context.Background(), endpoint, transport.Options{GRPCBinding: grpcbind.Binding{},
		GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))},
	})
	if err == nil {
		err = endErr(t, c2)
		c2.Close()
	}
	var ge *grpcbind.GRPCError
	if !errors.As(err, &ge) || ge.Code != codes.Unauthenticated || ge.Message != "no valid token" {
		t.Errorf("without the token: %v", err)
	}
}
