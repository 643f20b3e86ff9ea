package hostile_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/protocol"
)

// subscriberEnv, set to a hostile string, makes the test binary a hostile
// subscriber (see TestMain): aaep-conform subscriber runs it with --exec.
const subscriberEnv = "AAEP_HOSTILE_SUBSCRIBER"

// hostileSubscriber subscribes to endpoint over the HTTP binding naming
// itself h, writes h on its standard output and error (with and without a
// line end), reads the event stream, and ends when its standard input does.
func hostileSubscriber(endpoint, h string) {
	fmt.Fprintf(os.Stdout, "%s\n%s\r\n", h, h)
	fmt.Fprint(os.Stderr, h+"\n")
	b, _ := json.Marshal(map[string]any{"type": protocol.TypeSubscriptionRequest, "aaep_version": "1.0.0",
		"subscriber_id": h, "subscriber_name": h, "subscriber_version": h,
		"capabilities": map[string]any{"supports_confirmation_reply": false, "languages": []string{h}}})
	resp, err := http.Post(endpoint+protocol.PathSubscriptions, "application/json", bytes.NewReader(b))
	if err == nil {
		var acc struct {
			ID string `json:"subscription_id"`
		}
		json.NewDecoder(resp.Body).Decode(&acc) //nolint:errcheck // an empty id is the suite's to judge
		resp.Body.Close()
		go func() {
			resp, err := http.Get(endpoint + protocol.PathEvents + "?subscription_id=" + acc.ID)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			}
		}()
	}
	for in := bufio.NewScanner(os.Stdin); in.Scan(); {
	}
	fmt.Fprint(os.Stdout, h) // last words without a line end
}

// conformRun is what one aaep-conform producer run against a hostile
// producer left: its lines and its reports.
type conformRun struct {
	lines, jsonReport, htmlReport string
	// namedJSON is the JSON report of the run against the producer that
	// names itself h in its handshake.
	namedJSON string
}

// conformRuns keeps one run per hostile string: the rows of the run's
// outputs share it.
var conformRuns = struct {
	sync.Mutex
	m   map[string]conformRun
	key string // a receipt-signing key made once
}{m: map[string]conformRun{}}

// conformProducer runs aaep-conform producer at Level 1 against the
// hostile producer (h in its manifest, its agent name, its events, its
// refusals), writing every report and a signed receipt.
func conformProducer(t *testing.T, h string) conformRun {
	conformRuns.Lock()
	defer conformRuns.Unlock()
	if r, ok := conformRuns.m[h]; ok {
		return r
	}
	if conformRuns.key == "" {
		key := filepath.Join(bin, "receipt-key.pem")
		if out := run(t, "aaep-conform", "key", "--out", key); !fileExists(key) {
			t.Fatalf("aaep-conform key made no key:\n%s", out)
		}
		conformRuns.key = key
	}
	// The files outlive this row: other rows read them (bin goes at the end).
	dir, err := os.MkdirTemp(bin, "conform")
	if err != nil {
		t.Fatal(err)
	}
	js, page, rcpt := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html"), filepath.Join(dir, "r.jws")
	var r conformRun
	hp := h
	if len(hp) > 4<<10 { // the suite refuses a string over 16 KB, and names no agent of a long name
		hp = hostile.GraphemeRun(4 << 10)
	}
	r.lines = run(t, "aaep-conform", "producer", producer(t, hp, true), "--level", "1", "--fast", "--quiet", "300ms",
		"--json", js, "--html", page, "--receipt", rcpt, "--sign-key", conformRuns.key)
	r.jsonReport, r.htmlReport = readFile(t, js), readFile(t, page)
	// That producer's events carry h, but the suite learns no agent name
	// from it: the one of the spec's layout names itself h when it
	// accepts, and its lines say so.
	named := filepath.Join(dir, "named.json")
	r.lines += run(t, "aaep-conform", "producer", handshakeProducer(t, hp), "--level", "1", "--fast", "--quiet", "300ms", "--json", named)
	r.namedJSON = readFile(t, named)
	conformRuns.m[h] = r
	return r
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func conformLines(t *testing.T, h string) string { return conformProducer(t, h).lines }
func conformJSON(t *testing.T, h string) string  { return conformProducer(t, h).jsonReport }
func conformHTML(t *testing.T, h string) string  { return conformProducer(t, h).htmlReport }

// conformJSONWords is the JSON report with the frames of its evidence
// left out: the frames are the wire as it was, kept whole as evidence
// (escaped in the file), while every other string, such as
// target.agent_name (of the producer that names itself h when it accepts)
// or a result's detail, must decode to one clean line,
// for `jq -r` prints it as it is.
func conformJSONWords(t *testing.T, h string) string {
	var doc struct {
		Target  json.RawMessage `json:"target"`
		Claim   string          `json:"claim"`
		Results []struct {
			Detail   string `json:"detail"`
			Evidence []struct {
				Note string `json:"note"`
			} `json:"evidence"`
		} `json:"results"`
	}
	var out strings.Builder
	run := conformProducer(t, h)
	for _, report := range []string{run.jsonReport, run.namedJSON} {
		if err := json.Unmarshal([]byte(report), &doc); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return out.String()
}

// conformVerifyForged verifies a receipt signed with our key, valid but
// for h in every name it gives the implementation (its agent's name, ID and
// version, its endpoint, command and subscriber) and the suite's version:
// what verify says of it, valid or refused.
func conformVerifyForged(flags ...string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		conformProducer(t, "x") // makes the key
		key, err := conform.LoadSigningKey(conformRuns.key)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		rep := &conform.Report{Role: conform.RoleProducer, Level: 1, Started: now.Add(-time.Minute), Finished: now,
			Suite: conform.Suite{Name: "aaep-conform", Version: h, AAEPVersion: protocol.Version, Catalogue: conform.CatalogueHash()}}
		for _, test := range conform.ProducerTests() {
			if test.Level == 1 {
				rep.Results = append(rep.Results, conform.Result{Test: test, Status: conform.Pass, Detail: h})
			}
		}
		rc, err := conform.NewReceipt(rep, key, now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		rc.Implementation = conform.Target{Endpoint: h, Command: h, AgentID: h, AgentName: h, AgentVersion: h, Subscriber: h}
		jws, err := rc.Sign(key)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "forged.jws")
		if err := os.WriteFile(path, []byte(jws+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return run(t, "aaep-conform", append([]string{"verify", path, "--key", conformRuns.key + ".pub"}, flags...)...)
	}
}

// conformSubscriber runs aaep-conform subscriber on the hostile subscriber
// (the test binary), showing its output: its words, its name, its
// subscription request all carry h.
func conformSubscriber(t *testing.T, h string) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := runEnv(t, []string{subscriberEnv + "=" + h}, "aaep-conform", "subscriber", "--level", "1", "--fast",
		"--exec", self+" {endpoint}", "--show-output", "--patience", "3s", "--window", "200ms")
	if utf8.ValidString(h) && strings.ContainsRune(out, utf8.RuneError) {
		t.Errorf("a line of the subscriber was cut inside a character:\n%s", clip(out))
	}
	// Each line the subscriber writes is shown as a line of its own, marked
	// as its words: such a line continues the one before it, and is no
	// forged line of ours. A line of its words not so marked stays a line.
	return strings.ReplaceAll(out, "\n"+childMark, " | ")
}

// childMark begins every line of a subscriber's own output.
const childMark = "The subscriber wrote: "

// hostileTestMain runs the test binary as the hostile subscriber when the
// environment asks, and reports whether it did.
func hostileTestMain() bool {
	if script := os.Getenv(acptest.Env); script != "" {
		os.Exit(acptest.Main(script, os.Stdin, os.Stdout)) // this binary as a scripted ACP agent
	}
	h, ok := os.LookupEnv(subscriberEnv)
	if !ok || len(os.Args) < 2 || !strings.HasPrefix(os.Args[1], "http") {
		return false
	}
	hostileSubscriber(os.Args[1], h)
	return true
}
