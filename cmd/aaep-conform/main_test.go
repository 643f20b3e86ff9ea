package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/term"
)

var testNow = time.Date(2026, 11, 24, 4, 0, 0, 0, time.UTC)

// hostile is a producer's words that try to forge a line and reach the
// terminal with escape sequences.
const hostile = "ok\nPASS P9-forged: all is well\x1b[2J\x1b]0;title\x07\u202e"

// report builds a report as the catalogue returns it, one result per
// status given, levels 1 up to level in turn.
func report(level conform.Level, statuses ...conform.Status) *conform.Report {
	r := &conform.Report{
		Target:   conform.Target{Endpoint: "http://127.0.0.1:1/aaep", AgentName: "Agent " + hostile, AgentVersion: "2.0"},
		Level:    level,
		Started:  testNow.Add(-time.Minute),
		Finished: testNow.Add(-time.Second),
	}
	for i, st := range statuses {
		l := conform.Level(1 + i%int(level))
		id := "P" + string(rune('0'+l)) + "-test-" + string(rune('a'+i))
		r.Results = append(r.Results, conform.Result{
			Test:     conform.Test{ID: id, Role: conform.RoleProducer, Level: l, Requirement: "req", Section: "9.3.1"},
			Status:   st,
			Detail:   "detail " + hostile,
			Evidence: []conform.Evidence{{Dir: "received", Frame: json.RawMessage(`{"type":"session.started"}`)}},
		})
	}
	return r
}

type harness struct {
	d        *deps
	out, err *bytes.Buffer
	asked    []conform.ProducerOptions
	subAsked []conform.SubscriberOptions
	mu       sync.Mutex
}

// newHarness runs the command with its catalogue answering rep (or err),
// reporting every result through Progress first, from another goroutine,
// as the catalogue may.
func newHarness(rep *conform.Report, runErr error) *harness {
	tio, _, out, errOut := term.Test()
	h := &harness{out: out, err: errOut}
	h.d = &deps{
		io:     tio,
		now:    func() time.Time { return testNow },
		getenv: func(string) string { return "" },
		info:   buildinfo.Info{Program: program, Version: "v0.9.0", Commit: "abc", GoVersion: "go1.26", AAEP: "1.0"},
	}
	h.d.testProducer = func(ctx context.Context, o conform.ProducerOptions) (*conform.Report, error) {
		h.mu.Lock()
		h.asked = append(h.asked, o)
		h.mu.Unlock()
		if runErr != nil {
			return nil, runErr
		}
		r := *rep
		if len(o.Only) > 0 {
			r.Results = nil
			for _, res := range rep.Results {
				for _, id := range o.Only {
					if res.ID == id {
						r.Results = append(r.Results, res)
					}
				}
			}
		}
		var wg sync.WaitGroup
		for _, res := range r.Results[:len(r.Results)/2] {
			if o.Progress != nil {
				wg.Go(func() { o.Progress(res) })
			}
		}
		wg.Wait()
		return &r, nil
	}
	h.d.producerTests = func() []conform.Test {
		var ts []conform.Test
		if rep != nil {
			for _, r := range rep.Results {
				ts = append(ts, r.Test)
			}
		}
		return ts
	}
	h.d.testSubscriber = func(ctx context.Context, o conform.SubscriberOptions) (*conform.Report, error) {
		h.mu.Lock()
		h.subAsked = append(h.subAsked, o)
		h.mu.Unlock()
		if o.Output != nil {
			io.WriteString(o.Output, "listening\n"+hostile+"\r\nPASS S9-forged: all is well\nlast words without a newline")
		}
		if runErr != nil {
			return nil, runErr
		}
		o.Ready("http://127.0.0.1:5/aaep")
		r := *rep
		r.Target = conform.Target{Subscriber: "sub-1"}
		return &r, nil
	}
	return h
}

func (h *harness) run(args ...string) int {
	h.out.Reset()
	h.err.Reset()
	return run(context.Background(), args, h.d)
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// One plain line per test, then the summary and the claim: printed only
// when every test of the level passed, and then exit 0; else exit 1 and
// the tests that stop the claim; 2 when the suite could not run. The
// producer's words can neither start a line nor carry an escape sequence.
func TestProducerLinesClaimAndExitCodes(t *testing.T) {
	P, F, S, W := conform.Pass, conform.Fail, conform.Skip, conform.Warn
	for _, c := range []struct {
		name     string
		level    string
		rep      *conform.Report
		err      error
		code     int
		last     string
		nLines   int
		contains []string
	}{
		{"conforming", "2", report(2, P, P, W, P), nil, 0,
			"Agent ok PASS P9-forged: all is well 2.0 is AAEP Level 2 conformant, verified by aaep-conform version v0.9.0 on 2026-11-24.", 6,
			[]string{"PASS P1-test-a: detail ok", "WARN P1-test-c: detail", "Level 2 producer tests of Agent ok"}},
		{"a failure", "2", report(2, P, F, P, S), nil, 1,
			"Not AAEP Level 2 conformant (Level 1 holds): P2-test-b failed, P2-test-d was skipped.", 6,
			[]string{"FAIL P2-test-b: detail", "SKIP P2-test-d", "4 tests: 2 passed, 1 failed, 1 skipped, 0 warnings."}},
		{"no tests", "1", report(1), nil, 1, "Not AAEP Level 1 conformant: no test ran.", 2, nil},
		{"could not run", "1", nil, errors.New("connection refused"), 2, "", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(c.rep, c.err)
			code := h.run("producer", "http://127.0.0.1:1/aaep", "--level", c.level, "--answer-prompts")
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, h.out, h.err)
			}
			out := h.out.String()
			if c.code == 2 {
				if !strings.Contains(h.err.String(), "could not test http://127.0.0.1:1/aaep: connection refused") {
					t.Errorf("stderr %q", h.err)
				}
				return
			}
			ls := lines(out)
			if len(ls) != c.nLines || ls[len(ls)-1] != c.last {
				t.Errorf("got %d lines ending %q, want %d ending %q\n%s", len(ls), ls[len(ls)-1], c.nLines, c.last, out)
			}
			for _, want := range c.contains {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q\n%s", want, out)
				}
			}
			if strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Contains(out, "\nPASS P9") {
				t.Errorf("the producer's words reached stdout unsanitized:\n%q", out)
			}
			if strings.Count(out, "conformant, verified by") != map[bool]int{true: 1, false: 0}[c.code == 0] {
				t.Errorf("claim printed wrongly for exit %d:\n%s", c.code, out)
			}
		})
	}
}

// The command line is checked before anything runs: a level, a key for a
// receipt (a real one), a trigger of the right form.
func TestUsageErrorsRunNothing(t *testing.T) {
	dir := t.TempDir()
	placeholder := filepath.Join(dir, "placeholder.pem")
	os.WriteFile(placeholder, []byte("PLACEHOLDER"), 0o600)
	hmac := filepath.Join(dir, "hmac.jwk")
	os.WriteFile(hmac, []byte(`{"kty":"oct","k":"c2VjcmV0"}`), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"producer", "http://x"}, "--level 1, 2 or 3"},
		{[]string{"producer", "http://x", "--level", "4"}, "the levels are 1, 2 and 3"},
		{[]string{"producer", "--level", "1"}, "exactly one producer ENDPOINT"},
		{[]string{"producer", "http://x", "--level", "1", "--receipt", "r"}, "needs --sign-key"},
		{[]string{"producer", "http://x", "--level", "1", "--sign-key", "k"}, "signs nothing"},
		{[]string{"producer", "http://x", "--level", "1", "--receipt", "r", "--sign-key", placeholder}, "neither a PEM block nor a JWK"},
		{[]string{"producer", "http://x", "--level", "1", "--receipt", "r", "--sign-key", hmac}, "shared secret (HMAC)"},
		{[]string{"producer", "http://x", "--level", "1", "--trigger", "post http://x/sessions"}, "METHOD in capitals"},
		{[]string{"producer", "http://x", "--level", "1", "--trigger", "POST file:///etc/passwd"}, "http:// or https://"},
		{[]string{"producer", "http://x", "--level", "1", "--trigger", "POST http://x/s {not json"}, "body must be JSON"},
		{[]string{"producer", "http://x", "--level", "1", "--valid-for", "-3d"}, "at most ten years"},
		{[]string{"subscriber", "--level", "1", "--exec", "x", "--addr", "y"}, "not both"},
		{[]string{"verify", "r"}, "--key FILE or --trusted-keys DIR"},
		{[]string{"verify", "r", "--key", "a", "--endpoint", "http://x"}, "go with --recheck"},
		{[]string{"verify", "r", "--key", "a", "--answer-prompts"}, "go with --recheck"},
		{[]string{"producer", "http://x", "--level", "1", "--hold", "-1s"}, "not negative"},
		{[]string{"key"}, "--out FILE"},
		{[]string{"key", "--out", "x", "--type", "HS256"}, "ES256 or EdDSA"},
		{[]string{"nonsense"}, "unknown command"},
		{[]string{"produce"}, "Did you mean producer?"},
		{[]string{"target", "--stdio", "--unix", "p.sock"}, "goes without --unix"},
		{[]string{"target", "extra"}, "takes no operand"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			h := newHarness(report(1, conform.Pass), nil)
			if code := h.run(c.args...); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(h.err.String(), c.want) {
				t.Errorf("stderr %q lacks %q", h.err, c.want)
			}
			if len(h.asked) != 0 {
				t.Error("the tests ran")
			}
		})
	}
}

// Every command has complete help, on stdout, exit 0.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		flags []string
	}{
		{"producer", []string{"-level", "-answer-prompts", "-manifest", "-manifest-keys", "-manifest-key", "-hold", "-quiet", "-fast", "-trigger", "-json", "-html", "-receipt", "-sign-key", "-valid-for", "-token", "-header", "-ca", "Exit status"}},
		{"subscriber", []string{"-level", "-exec", "-addr", "-json", "-html", "-receipt", "-sign-key"}},
		{"verify", []string{"-key", "-trusted-keys", "-report", "-strict", "-recheck", "-json", "-count", "-endpoint", "Exit status"}},
		{"key", []string{"-out", "-type"}},
		{"target", []string{"-addr", "-unix", "-stdio", "-print-manifest"}},
		{"subscriber", []string{"-binding", "-accept-line", "-reject-line", "-answer-line", "-renegotiate-line", "-shutdown", "-window", "-patience", "-show-output"}},
	} {
		h := newHarness(nil, nil)
		if code := h.run(c.cmd, "--help"); code != 0 {
			t.Errorf("%s --help: exit %d", c.cmd, code)
		}
		for _, f := range c.flags {
			if !strings.Contains(h.out.String(), f) {
				t.Errorf("%s --help lacks %s", c.cmd, f)
			}
		}
		for _, line := range strings.Split(h.out.String(), "\n") {
			if strings.Count(line, "(default ") > 1 {
				t.Errorf("%s --help says its default twice: %q", c.cmd, line)
			}
		}
	}
	h := newHarness(nil, nil)
	if h.run("help"); !strings.Contains(h.out.String(), "verify RECEIPT") {
		t.Error("help lacks the commands")
	}
	if h.run("--version"); !strings.Contains(h.out.String(), "aaep-conform version v0.9.0") {
		t.Errorf("--version: %q", h.out)
	}
}

// The whole path of a receipt: key, run with reports and receipt, verify
// (lines and JSON), tamper, expire, recheck.
func TestReceiptThroughTheCommand(t *testing.T) {
	for _, typ := range []string{"ES256", "EdDSA"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			key := filepath.Join(dir, "receipt-key.pem")
			h := newHarness(catalogueReport(2, conform.Pass), nil)
			if code := h.run("key", "--out", key, "--type", typ); code != 0 {
				t.Fatalf("key: exit %d: %s", code, h.err)
			}
			if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("private key: %v %v", fi.Mode(), err)
			}
			if code := h.run("key", "--out", key); code != 2 {
				t.Errorf("key over an existing file: exit %d", code)
			}
			rcpt, js, page := filepath.Join(dir, "r.jws"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
			if code := h.run("producer", "http://127.0.0.1:1/aaep", "--level", "2", "--answer-prompts", "--json", js, "--html", page, "--receipt", rcpt, "--sign-key", key, "--valid-for", "30d"); code != 0 {
				t.Fatalf("producer: exit %d\n%s%s", code, h.out, h.err)
			}
			if !strings.Contains(h.out.String(), "valid until 2026-12-24") {
				t.Errorf("stdout %s", h.out)
			}
			b, _ := os.ReadFile(js)
			if err := conform.Validate(conform.ReportSchemaFile, b); err != nil {
				t.Errorf("the JSON report: %v", err)
			}
			if b, _ := os.ReadFile(page); !bytes.Contains(b, []byte("<caption>")) {
				t.Error("the HTML report has no table")
			}

			if code := h.run("verify", rcpt, "--key", key+".pub"); code != 0 {
				t.Fatalf("verify: exit %d\n%s%s", code, h.out, h.err)
			}
			if strings.ContainsAny(h.out.String(), "\x1b\x07\u202e") {
				t.Errorf("the receipt's words reached stdout unsanitized:\n%q", h.out)
			}
			for _, want := range []string{"Receipt " + rcpt + ": valid.", "Claim: Agent ok PASS P9-forged: all is well 2.0 is AAEP Level 2 conformant, verified by aaep-conform version v0.9.0 on 2026-11-24.", "Valid from 2026-11-24 until 2026-12-24."} {
				if !strings.Contains(h.out.String(), want) {
					t.Errorf("verify lacks %q:\n%s", want, h.out)
				}
			}
			if code := h.run("verify", rcpt, "--key", key+".pub", "--report", js); code != 0 || !strings.Contains(h.out.String(), "holds the results the receipt was signed over") {
				t.Errorf("verify --report: exit %d\n%s%s", code, h.out, h.err)
			}
			if code := h.run("verify", rcpt, "--key", key+".pub", "--report", page); code != 1 || !strings.Contains(h.out.String(), "does not match the receipt: it is not a JSON report") {
				t.Errorf("verify --report with the HTML page: exit %d\n%s%s", code, h.out, h.err)
			}
			if code := h.run("verify", rcpt, "--trusted-keys", dir, "--json"); code != 0 {
				t.Fatalf("verify --json: exit %d\n%s%s", code, h.out, h.err)
			}
			var vr conform.VerifyReport
			if err := json.Unmarshal(h.out.Bytes(), &vr); err != nil || !vr.Valid || vr.Receipt.LevelClaimed != 2 {
				t.Errorf("verify --json: %+v %v\n%s", vr, err, h.out)
			}

			// Recheck: the same producer agrees; one that now fails differs.
			if code := h.run("verify", rcpt, "--key", key+".pub", "--recheck", "--answer-prompts", "--count", "3"); code != 0 {
				t.Fatalf("recheck: exit %d\n%s%s", code, h.out, h.err)
			}
			if got := strings.Count(h.out.String(), "AGREES "); got != 3 {
				t.Errorf("%d tests agree, want 3:\n%s", got, h.out)
			}
			last := h.asked[len(h.asked)-1]
			if len(last.Only) != 3 || last.Seed == 0 || last.Endpoint != "http://127.0.0.1:1/aaep" {
				t.Errorf("recheck ran %+v", last)
			}
			broken := newHarness(catalogueReport(2, conform.Fail), nil)
			if code := broken.run("verify", rcpt, "--key", key+".pub", "--recheck", "--answer-prompts"); code != 1 || !strings.Contains(broken.out.String(), "differ from the receipt") {
				t.Errorf("recheck against a broken producer: exit %d\n%s", code, broken.out)
			}

			// A suite we are older than: noted, or refused with --strict.
			older := newHarness(nil, nil)
			older.d.info.Version = "v0.8.0"
			if code := older.run("verify", rcpt, "--key", key+".pub"); code != 0 || !strings.Contains(older.out.String(), "Note: It was made by aaep-conform version v0.9.0, newer than ours (v0.8.0)") {
				t.Errorf("a newer suite's receipt: exit %d\n%s", code, older.out)
			}
			if code := older.run("verify", rcpt, "--key", key+".pub", "--strict"); code != 1 || !strings.Contains(older.out.String(), "refused: --strict: It was made by aaep-conform version v0.9.0, newer than ours") {
				t.Errorf("a newer suite's receipt with --strict: exit %d\n%s", code, older.out)
			}

			// Tampered and expired receipts are refused, exit 1.
			orig, _ := os.ReadFile(rcpt)
			parts := strings.Split(strings.TrimSpace(string(orig)), ".")
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			parts[1] = base64.RawURLEncoding.EncodeToString(bytes.Replace(payload, []byte(`"status":"pass"`), []byte(`"status":"fail"`), 1))
			os.WriteFile(rcpt, []byte(strings.Join(parts, ".")), 0o600)
			if code := h.run("verify", rcpt, "--key", key+".pub"); code != 1 || !strings.Contains(h.out.String(), "refused: its signature does not match its content") {
				t.Errorf("tampered: exit %d\n%s", code, h.out)
			}
			os.WriteFile(rcpt, orig, 0o600)
			h.d.now = func() time.Time { return testNow.Add(31 * 24 * time.Hour) }
			if code := h.run("verify", rcpt, "--key", key+".pub"); code != 1 || !strings.Contains(h.out.String(), "refused: it expired on 2026-12-24") {
				t.Errorf("expired: exit %d\n%s", code, h.out)
			}
		})
	}
}

// The subscriber test: where the suite serves is printed when no command
// is run; the report is printed as for a producer.
func TestSubscriberCommand(t *testing.T) {
	h := newHarness(report(1, conform.Pass), nil)
	if code := h.run("subscriber", "--level", "1"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, h.out, h.err)
	}
	out := h.out.String()
	for _, want := range []string{"Serving as a scripted producer; connect the subscriber to test to http://127.0.0.1:5/aaep\n", "Level 1 subscriber tests of sub-1", "sub-1 is AAEP Level 1 conformant"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// Nothing is answered that the user did not configure: a Level 2 or 3
// producer run answers the agent's prompts for real, so it runs only with
// --answer-prompts, and says so before it runs; without the flag it says
// the same sentence and runs nothing, exit 2. Level 1 answers nothing and
// needs no flag. verify --recheck of a Level 2 receipt is held the same.
func TestPromptsAnsweredOnlyWhenAsked(t *testing.T) {
	const sentence = "This run accepts and rejects the agent's prompts for real"
	for _, c := range []struct {
		level  string
		answer bool
		code   int
		said   bool
	}{
		{"1", false, 0, false},
		{"2", false, 2, true},
		{"3", false, 2, true},
		{"2", true, 0, true},
		{"3", true, 0, true},
	} {
		t.Run(fmt.Sprintf("level %s answer %v", c.level, c.answer), func(t *testing.T) {
			lv, _ := strconv.Atoi(c.level)
			st := make([]conform.Status, lv)
			for i := range st {
				st[i] = conform.Pass
			}
			h := newHarness(report(conform.Level(lv), st...), nil)
			saidFirst := false
			run := h.d.testProducer
			h.d.testProducer = func(ctx context.Context, o conform.ProducerOptions) (*conform.Report, error) {
				saidFirst = strings.Contains(h.err.String(), sentence)
				return run(ctx, o)
			}
			args := []string{"producer", "http://127.0.0.1:1/aaep", "--level", c.level}
			if c.answer {
				args = append(args, "--answer-prompts")
			}
			if code := h.run(args...); code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, h.out, h.err)
			}
			if got := strings.Contains(h.err.String(), sentence); got != c.said {
				t.Errorf("said %v, want %v: %q", got, c.said, h.err)
			}
			switch {
			case c.code == 2 && len(h.asked) != 0:
				t.Error("the tests ran without --answer-prompts")
			case c.code == 0 && c.said && !saidFirst:
				t.Error("the run began before it said it answers prompts")
			}
		})
	}
	t.Run("verify --recheck", func(t *testing.T) {
		dir := t.TempDir()
		key := filepath.Join(dir, "k.pem")
		rcpt := filepath.Join(dir, "r.jws")
		h := newHarness(catalogueReport(2, conform.Pass), nil)
		if code := h.run("key", "--out", key); code != 0 {
			t.Fatalf("key: %s", h.err)
		}
		if code := h.run("producer", "http://127.0.0.1:1/aaep", "--level", "2", "--answer-prompts", "--receipt", rcpt, "--sign-key", key); code != 0 {
			t.Fatalf("producer: %s", h.err)
		}
		h.asked = nil
		if code := h.run("verify", rcpt, "--key", key+".pub", "--recheck"); code != 2 || !strings.Contains(h.err.String(), sentence) || len(h.asked) != 0 {
			t.Errorf("recheck without --answer-prompts: exit %d, %d runs, stderr %q", code, len(h.asked), h.err)
		}
	})
}

// The subscriber's options are flags, passed on as given; they are
// checked before anything runs.
func TestSubscriberFlags(t *testing.T) {
	h := newHarness(report(1, conform.Pass), nil)
	code := h.run("subscriber", "--level", "1", "--exec", "my-sub {endpoint}", "--binding", "websocket",
		"--accept-line", "y {token}", "--reject-line", "n {token}", "--answer-line", "a {n} {text}", "--renegotiate-line", "rate 2",
		"--shutdown", "interrupt", "--window", "2s", "--patience", "20s")
	if code != 0 || len(h.subAsked) != 1 {
		t.Fatalf("exit %d, %d runs\n%s", code, len(h.subAsked), h.err)
	}
	o := h.subAsked[0]
	want := conform.SubscriberOptions{Level: 1, Exec: "my-sub {endpoint}", Binding: conform.BindingWebSocket, AcceptLine: "y {token}", RejectLine: "n {token}",
		AnswerLine: "a {n} {text}", RenegotiateLine: "rate 2", Shutdown: conform.ShutdownInterrupt, Window: 2 * time.Second, Patience: 20 * time.Second}
	o.Ready, o.Progress = nil, nil
	if fmt.Sprintf("%+v", o) != fmt.Sprintf("%+v", want) {
		t.Errorf("options\n%+v\nwant\n%+v", o, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shutdown", "kill"}, "say stdin or interrupt"},
		{[]string{"--binding", "grpc"}, "say sse or websocket"},
		{[]string{"--window", "-1s"}, "not negative"},
	} {
		h := newHarness(report(1, conform.Pass), nil)
		if code := h.run(append([]string{"subscriber", "--level", "1", "--exec", "x"}, c.args...)...); code != 2 || !strings.Contains(h.err.String(), c.want) || len(h.subAsked) != 0 {
			t.Errorf("%v: exit %d, %d runs, stderr %q, want %q", c.args, code, len(h.subAsked), h.err, c.want)
		}
	}
	h = newHarness(report(1, conform.Pass), nil)
	if code := h.run("subscriber", "--level", "1", "--accept-line", "y"); code != 2 || !strings.Contains(h.err.String(), "go with --exec") {
		t.Errorf("--accept-line without --exec: exit %d %q", code, h.err)
	}
}

// The subscriber's own output is discarded unless asked for; then each of
// its lines is shown on standard error, sanitized, marked as its words: it
// cannot carry an escape sequence nor forge a line of ours.
func TestSubscriberOutputSanitized(t *testing.T) {
	h := newHarness(report(1, conform.Pass), nil)
	if code := h.run("subscriber", "--level", "1", "--exec", "my-sub {endpoint}"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if h.subAsked[0].Output != nil || strings.Contains(h.out.String()+h.err.String(), "listening") {
		t.Errorf("the subscriber's output was shown unasked:\n%s%s", h.out, h.err)
	}
	h = newHarness(report(1, conform.Pass), nil)
	if code := h.run("subscriber", "--level", "1", "--exec", "my-sub {endpoint}", "--show-output"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := h.err.String()
	for _, l := range lines(got) {
		if !strings.HasPrefix(l, "The subscriber wrote: ") {
			t.Errorf("a line not marked as the subscriber's: %q", l)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07\u202e\r") || strings.Contains(h.out.String(), "S9-forged") {
		t.Errorf("the subscriber's bytes reached the terminal unsanitized:\n%q", got)
	}
	for _, want := range []string{"The subscriber wrote: listening\n", "The subscriber wrote: last words without a newline\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%q", want, got)
		}
	}
}
