package conform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

func TestParseTrigger(t *testing.T) {
	for _, tc := range []struct {
		in                string
		method, url, body string
		bad               bool
	}{
		{in: "POST http://h/sessions", method: "POST", url: "http://h/sessions"},
		{in: `post http://h/sessions {"user_message": "pay the bill now"}`, method: "POST", url: "http://h/sessions", body: `{"user_message": "pay the bill now"}`},
		{in: "GET https://h/x  two spaces", method: "GET", url: "https://h/x", body: " two spaces"},
		{in: "POST", bad: true},
		{in: "POST ftp://h/x", bad: true},
		{in: "", bad: true},
	} {
		got, err := parseTrigger(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got.method != tc.method || got.url != tc.url || got.body != tc.body {
			t.Errorf("%q: got %q %q %q", tc.in, got.method, got.url, got.body)
		}
	}
}

func TestForgeChangesToken(t *testing.T) {
	for _, tok := range []string{"rpl_93c31ae7e66c9d0f90d1f6dbf14d8034", "rpl_zzzzzzzz", "rpl_99999999", "", "x"} {
		f := forge(tok)
		if f == tok {
			t.Errorf("forge(%q) = the same token", tok)
		}
		if len(tok) > 0 && len(f) != len(tok) {
			t.Errorf("forge(%q) = %q: not the same shape", tok, f)
		}
	}
}

// TestProducerTrigger starts the sessions through a trigger, as deployed
// producers do on POST /sessions: the request arrives as written, and the
// run goes on to judge the sessions it started.
func TestProducerTrigger(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	synctest.Test(t, func(t *testing.T) {
		p := producer.New(producer.Options{Scenarios: conformScenarios(t), Speed: 1, EndWhenDone: true})
		mux := http.NewServeMux()
		mux.Handle("/", p)
		mux.HandleFunc("POST /sessions", func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			got = append(got, r.Header.Get("Content-Type")+" "+string(b))
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		})
		url, client := serveHandlerMem(t, mux)
		t.Cleanup(func() { p.Close() })
		o := ProducerOptions{Endpoint: url, Level: 2, Fast: true, Trigger: "POST " + url + `/sessions {"user_message": "Pay the bill."}`}
		o.Transport.SSE.HTTPClient = client
		wantAllPass(t, runWith(t, o))
	})
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != `application/json {"user_message": "Pay the bill."}` {
		t.Errorf("trigger requests %q", got)
	}
}

// TestProducerTriggerRefused: a trigger the producer refuses means the
// suite could not run.
func TestProducerTriggerRefused(t *testing.T) {
	url := serveSSE(t, producer.Options{Speed: 1})
	_, err := TestProducer(context.Background(), ProducerOptions{Endpoint: url, Level: 1, Trigger: "POST " + url + "/no-such-path"})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("err = %v, want the trigger's 404", err)
	}
}

// TestProducerDeployedLayout runs Level 2 over the layout deployed
// producers serve (GET /events, POST /messages): no handshake, so no
// Level 3.
func TestProducerDeployedLayout(t *testing.T) {
	t.Parallel()
	var topts transport.Options
	topts.SSE.Layout = transport.LayoutLegacy
	wantAllPass(t, runMem(t, producer.Options{Speed: 1}, ProducerOptions{Level: 2, Fast: true, Transport: topts}))
}

// TestProducerFastSkipsLongTimeouts runs the demo scenarios, whose prompts
// wait minutes: in fast mode the timeout test is skipped and says why.
func TestProducerFastSkipsLongTimeouts(t *testing.T) {
	t.Parallel()
	demos, err := demo.Pick([]string{"confirm", "clarify"})
	if err != nil {
		t.Fatal(err)
	}
	// The demo asks once; three confirmations reach the timeout step.
	scs := append(append([]producer.Scenario{}, demos...), demos[0], demos[0])
	rep := runMem(t, producer.Options{Scenarios: scs, Speed: 0.05}, ProducerOptions{Level: 2, Fast: true})
	for _, r := range rep.Results {
		if r.ID == PTimeoutDefault {
			if r.Status != Skip || !strings.Contains(r.Detail, "fast mode") || !strings.Contains(r.Detail, "120 seconds") {
				t.Errorf("%s: %s %q, want a skip saying fast mode and 120 seconds", r.ID, r.Status, r.Detail)
			}
			return
		}
	}
	t.Errorf("no %s result", PTimeoutDefault)
}

// TestSignedManifestProbe: a manifest signed honestly verifies with the
// trusted key; a forged, wrongly keyed, unsigned-by-alg or HMAC one fails;
// without a trusted key the test is skipped, not passed.
func TestSignedManifestProbe(t *testing.T) {
	t.Parallel()
	key, err := producer.NewManifestKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jwk, err := json.Marshal(key.PublicJWK())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "producer.jwk"), jwk, 0o600); err != nil {
		t.Fatal(err)
	}
	trusted, err := manifest.LoadKeys(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		fault producer.ManifestFault
		keys  *manifest.Keys
		want  Status
	}{
		{"honest", producer.ManifestHonest, trusted, Pass},
		{"no trusted key", producer.ManifestHonest, nil, Skip},
		{"forged", producer.ManifestForged, trusted, Fail},
		{"wrong key", producer.ManifestWrongKey, trusted, Fail},
		{"alg none", producer.ManifestAlgNone, trusted, Fail},
		{"HS256", producer.ManifestHS256, trusted, Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := serveSSE(t, producer.Options{Speed: 1, ManifestKey: key, ManifestFault: tc.fault})
			ep, err := transport.ParseEndpoint(url)
			if err != nil {
				t.Fatal(err)
			}
			r := &prun{o: ProducerOptions{Endpoint: url, Level: 3, ManifestKeys: tc.keys}, ep: ep, start: time.Now(), results: map[string]*Result{}}
			r.probeSigned(context.Background())
			got := r.results[PSignedManifest]
			if got == nil || got.Status != tc.want {
				t.Fatalf("got %+v, want %s", got, tc.want)
			}
			t.Logf("%s: %s", got.Status, got.Detail)
		})
	}
}

// TestHostileProducer serves a stream a hostile producer might: bytes
// that are not JSON, invalid UTF-8, terminal escapes, a forged line in a
// summary. The run fails the schema test and its report is valid JSON
// whose details carry no escape or control byte.
func TestHostileProducer(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathLegacyEvents {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.session.started","event_id":"evt_1","session_id":"sess_1","sequence_number":0,"timestamp":"2026-01-01T00:00:00Z","producer":{"agent_id":"x"},"summary_normal":"\u001b[2J\u001b]0;pwned\u0007ok\nPASS all tests"}`
		fmt.Fprintf(w, "data: not json \xff\xfe\x1b[31m\n\ndata: %s\n\n", ev)
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var topts transport.Options
	topts.SSE.Layout = transport.LayoutLegacy
	rep, err := TestProducer(context.Background(), ProducerOptions{Endpoint: srv.URL, Level: 1, Transport: topts, Quiet: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatalf("the report is not JSON: %v", err)
	}
	if !json.Valid(b) {
		t.Fatal("the report is not valid JSON")
	}
	for _, r := range rep.Results {
		if strings.ContainsFunc(r.Detail, func(c rune) bool { return c < 0x20 || c == 0x7f || c == 0x9b }) {
			t.Errorf("%s: detail %q holds a control character", r.ID, r.Detail)
		}
		t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
		if r.ID == PEnvelopeSchema && r.Status != Fail {
			t.Errorf("%s: %s, want fail", r.ID, r.Status)
		}
	}
}

// FuzzParseTrigger: a trigger either is refused or splits into a method
// and an http(s) URL without spaces, and a body the input ends with.
func FuzzParseTrigger(f *testing.F) {
	f.Add(`POST http://127.0.0.1:8080/sessions {"user_message": "Pay the bill."}`)
	f.Add("GET https://h/x")
	f.Add("POST  http://h/x")
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := parseTrigger(s)
		if err != nil {
			return
		}
		if strings.Contains(tr.url, " ") || strings.Contains(tr.method, " ") || tr.method == "" || !strings.HasPrefix(tr.url, "http") {
			t.Fatalf("%q: method %q url %q", s, tr.method, tr.url)
		}
		in := strings.TrimSpace(s)
		if !strings.HasSuffix(in, tr.body) || !strings.Contains(in, " "+tr.url) {
			t.Fatalf("%q: url %q body %q are not the input's", s, tr.url, tr.body)
		}
	})
}

// TestProducerDemoLevel1: the demo producer's scenarios, every one of them,
// pass Level 1; a background state change without summary_normal is a
// warning, not a failure (it is not likely to be announced).
func TestProducerDemoLevel1(t *testing.T) {
	t.Parallel()
	demos, err := demo.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := runMem(t, producer.Options{Scenarios: demos, Speed: 0.1}, ProducerOptions{Level: 1, Fast: true, Quiet: time.Second})
	for _, r := range rep.Results {
		t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
		if r.Status == Fail || r.Status == Skip {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Detail)
		}
	}
}

// TestJWSManifest: a manifest URL serving an HTML page, or anything else
// with two dots, is not a signed manifest; a compact JWS whose header
// names its alg and whose payload is a manifest is.
func TestJWSManifest(t *testing.T) {
	t.Parallel()
	p := producer.New(producer.Options{Scenarios: conformScenarios(t)})
	defer p.Close()
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("GET", protocol.PathManifest, nil))
	manifest := rec.Body.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	for _, c := range []struct {
		name string
		body string
		ok   bool
	}{
		{"a signed manifest", b64([]byte(`{"alg":"ES256","kid":"k1"}`)) + "." + b64(manifest) + "." + b64([]byte("signature")), true},
		{"an HTML page with two dots", "<html><title>docs.example.org</title></html>", false},
		{"three words", "a.b.c", false},
		{"a header without alg", b64([]byte(`{"typ":"JWT"}`)) + "." + b64(manifest) + "." + b64([]byte("signature")), false},
		{"a header that is not JSON", b64([]byte(`alg`)) + "." + b64(manifest) + "." + b64([]byte("signature")), false},
		{"a payload that is no manifest", b64([]byte(`{"alg":"ES256"}`)) + "." + b64([]byte(`{"hello":1}`)) + "." + b64([]byte("signature")), false},
		{"four parts", b64([]byte(`{"alg":"ES256"}`)) + "." + b64(manifest) + ".x.y", false},
	} {
		err := jwsManifest([]byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestProducerReplyStamps: the suite's replies carry timestamps with
// milliseconds (spec 3.2.5 allows 3 or 6 fractional digits, no other).
func TestProducerReplyStamps(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var stamps []string
	popts := producer.Options{Speed: 1, OnMessage: func(_ string, msg []byte) {
		var m struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(msg, &m) == nil && strings.HasSuffix(m.Type, ".reply") {
			mu.Lock()
			stamps = append(stamps, m.Timestamp)
			mu.Unlock()
		}
	}}
	runMem(t, popts, ProducerOptions{Level: 2, Fast: true, Quiet: time.Second})
	mu.Lock()
	defer mu.Unlock()
	if len(stamps) == 0 {
		t.Fatal("the suite sent no reply")
	}
	good := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?Z$`)
	for _, s := range stamps {
		if !good.MatchString(s) {
			t.Errorf("a reply's timestamp %q has neither 3 nor 6 fractional digits", s)
		}
	}
}
