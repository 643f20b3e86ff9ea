package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

// demoArgs run the demo as TestDemoOrderIsStable does: at full speed,
// without times, plain, unsigned.
var demoArgs = []string{"--demo", "--demo-speed", "0", "--no-time", "--plain", "--no-sign"}

// loopbackPort is a loopback address's port, which differs from run to run.
var loopbackPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// demoOutput is a demo run's output as the tests compare it: stdout, then
// stderr, the loopback ports left out.
func demoOutput(stdout, stderr string) string {
	return loopbackPort.ReplaceAllString(stdout+"--- stderr ---\n"+stderr, "127.0.0.1:PORT")
}

// The demo at full speed with standard input closed says the same lines in
// the same order every run, stdout and stderr, every scenario included:
// "Listening to …" first, nothing about reconnecting at the producer's
// normal end, and the end said once. Nothing but the structure of the
// client orders them: a timer deciding the order would show as a
// difference between runs. Standard input is /dev/null, so the
// subscription says from the start that nobody can answer, and the
// producer applies each prompt's default without sending it (spec
// §5.3.1.4): nothing is left to timing.
func TestDemoOrderIsStable(t *testing.T) {
	t.Parallel()
	const runs = 50
	bin := listenerBinary(t)
	outs := make([]string, runs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // the machine is shared
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(bin, demoArgs...)
			cmd.Env = append(cmd.Environ(), "NO_COLOR=1", "TZ=UTC")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr // standard input is /dev/null: closed at once
			if err := cmd.Run(); err != nil {
				t.Errorf("run %d: %v\n%s", i, err, stderr.String())
			}
			outs[i] = demoOutput(stdout.String(), stderr.String())
		}()
	}
	wg.Wait()
	first := outs[0]
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if !strings.HasPrefix(lines[0], "Listening to http://127.0.0.1:PORT.") {
		t.Errorf("the first line is %q, not Listening", lines[0])
	}
	if strings.Contains(first, "reconnecting") || strings.Contains(first, "Connection closed") {
		t.Errorf("the producer's normal end is told as a lost connection:\n%s", first)
	}
	if n := strings.Count(first, "The producer ended the stream."); n != 1 {
		t.Errorf("the end is said %d times:\n%s", n, first)
	}
	scenarios, err := demo.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		if !strings.Contains(first, sc.Agent.Name) {
			t.Errorf("scenario %s is not in the output:\n%s", sc.Name, first)
		}
	}
	for _, want := range []string{
		"Standard input is closed, so nobody can answer here: the subscription says so, and the producer applies each prompt's default decision at once.",
		"No go-ahead; the payment is off.", // confirm: its default, applied by the producer
		"Booking for 8 in the evening.",    // clarify: its default
	} {
		if !strings.Contains(first, want) {
			t.Errorf("the output lacks %q:\n%s", want, first)
		}
	}
	for i, out := range outs[1:] {
		if out != first {
			t.Fatalf("run %d differs from run 0:\n%s", i+1, differs(t, "run 0", first, fmt.Sprintf("run %d", i+1), out))
		}
	}
}

// The demo's manifest check waits for the demo producer's answer, which
// is sure to come (the same process serves it), however late it comes: no
// timer decides what the demo says. The manifest's answer here comes only
// after whatever bound the check sets, as on a machine so busy that the
// producer answered after it. With the 2-second bound every check had, the
// late run said "The producer's manifest could not be fetched …" as its
// third line, before the first event: the one timer that decided a line of
// the demo, and the likely cause of the one failure of TestDemoOrderIsStable
// under a load of 10 on 2 cores. The late run must say what a run on time
// says, line for line.
func TestDemoManifestAnsweredLate(t *testing.T) {
	t.Parallel()
	onTime := demoInProcess(t, nil)
	late := demoInProcess(t, &http.Client{Transport: lateManifest{}})
	if late != onTime {
		t.Fatalf("the manifest answered late changes what the demo says:\n%s", differs(t, "answered on time", onTime, "answered late", late))
	}
}

// lateManifest answers a request for the manifest only once the bound its
// context sets, if any, has run out (and then not at all): a producer
// slower than any timer of the client's. A request for the manifest
// without a bound, and every other request, goes as usual.
type lateManifest struct{}

func (lateManifest) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if _, bounded := ctx.Deadline(); bounded && req.URL.Path == protocol.PathManifest {
		<-ctx.Done()
		return nil, fmt.Errorf("answered after the bound: %w", ctx.Err())
	}
	return http.DefaultTransport.RoundTrip(req)
}

// demoInProcess runs the demo in this process as TestDemoOrderIsStable
// runs the command, standard input /dev/null, its HTTP requests (the
// manifest's, the event stream's) made with client (nil: the default), and
// returns its output (demoOutput).
func demoInProcess(t *testing.T, client *http.Client) string {
	t.Helper()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	tio, _, stdout, stderr := term.Test()
	tio.In = null // nobody can answer: the subscription says so
	o, err := parseFlags(demoArgs, tio, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.TLS.Client = client
	if err := listen(t.Context(), o); err != nil {
		t.Fatalf("listen: %v\n%s", err, stderr)
	}
	return demoOutput(stdout.String(), stderr.String())
}

// differs says where b first differs from a, line by line, with context,
// and keeps both whole in files of the system's temporary directory (not
// the test's, which goes with the test), named in what it says: whoever
// sees a failure has both outputs.
func differs(t *testing.T, aName, a, bName, b string) string {
	t.Helper()
	s := lineDiff(aName, a, bName, b)
	for _, out := range []struct{ name, text string }{{aName, a}, {bName, b}} {
		s += "\n" + out.name + " in full: " + keepOutput(t, out.name, out.text)
	}
	return s
}

// keepOutput writes text to a new file of the system's temporary
// directory, which outlives the test, and returns its name.
func keepOutput(t *testing.T, name, text string) string {
	t.Helper()
	f, err := os.CreateTemp("", strings.NewReplacer("/", "-", " ", "-").Replace("aaep-listen-"+t.Name()+"-"+name)+"-*.txt")
	if err != nil {
		return fmt.Sprintf("(not kept: %v)", err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		return fmt.Sprintf("%s (cut short: %v)", f.Name(), err)
	}
	return f.Name()
}

// lineDiff shows the first line where a and b differ, numbered, with three
// lines of context either side.
func lineDiff(aName, a, bName, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			lo := max(0, i-3)
			return fmt.Sprintf("line %d differs (%d lines against %d).\n", i+1, len(al), len(bl)) +
				numbered(aName, al, lo, i+4) + "\n" + numbered(bName, bl, lo, i+4)
		}
	}
	return ""
}

// numbered is lines lo to hi (from 0, hi excluded) of ls, each with its
// number from 1, under the heading name.
func numbered(name string, ls []string, lo, hi int) string {
	var b strings.Builder
	b.WriteString(name + ":\n")
	for i := lo; i < min(hi, len(ls)); i++ {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, ls[i])
	}
	return b.String()
}
