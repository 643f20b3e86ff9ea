package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// hostile is what a producer might put in its words: markup, a script, an
// escape sequence, a bidi override and a forged line.
const hostile = "<script>alert(1)</script>\x1b[2J\u202eevil\nPASS P9-forged: all fine</pre></details>"

// sampleReport is a report as the producer tests would return it: two
// levels, every status, evidence that holds hostile frames and notes.
func sampleReport(level Level, statuses ...Status) *Report {
	start := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	r := &Report{
		Suite:    Suite{Name: "aaep-conform", Version: "v1.2.3", AAEPVersion: "1.0", Catalogue: strings.Repeat("ab", 32)},
		Target:   Target{Endpoint: "http://127.0.0.1:1/aaep", Binding: "sse", AgentID: "agent-1", AgentName: "Demo " + hostile, AgentVersion: "0.1"},
		Role:     RoleProducer,
		Level:    level,
		Started:  start,
		Finished: start.Add(3 * time.Second),
	}
	frame, _ := json.Marshal(map[string]string{"type": "agent.tool.invoked", "summary_normal": hostile})
	for i, st := range statuses {
		l := Level(1 + i%int(level))
		r.Results = append(r.Results, Result{
			Test:   Test{ID: "P" + string(rune('1'+l-1)) + "-test-" + string(rune('a'+i)), Role: RoleProducer, Level: l, Requirement: "the requirement " + hostile, Section: "9.3.1"},
			Status: st,
			Detail: "because " + hostile,
			Evidence: []Evidence{
				{At: time.Millisecond, Dir: "received", Frame: frame, Note: "the producer said " + hostile},
				{At: 2 * time.Millisecond, Dir: "note", Note: "took 1 ms"},
			},
			Took: 5 * time.Millisecond,
		})
	}
	return r
}

func TestConformingOnlyWhenEveryTestOfTheLevelPassed(t *testing.T) {
	for _, c := range []struct {
		name     string
		level    Level
		statuses []Status
		want     Level
	}{
		{"all pass L1", 1, []Status{Pass, Pass}, 1},
		{"warning allowed", 2, []Status{Pass, Warn}, 2},
		{"fail at L2", 2, []Status{Pass, Fail}, 1},
		{"skip at L2 stops it", 2, []Status{Pass, Skip}, 1},
		{"fail at L1", 2, []Status{Fail, Pass}, 0},
		{"level 3 without a level 3 test", 3, []Status{Pass, Pass}, 2},
		{"no tests", 1, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := sampleReport(c.level, c.statuses...)
			if got := r.ConformingLevel(); got != c.want {
				t.Errorf("ConformingLevel = %d, want %d", got, c.want)
			}
			claim := r.Claim()
			if conforming := c.want == c.level; conforming != (claim != "") {
				t.Errorf("claim %q for a report conforming at %d of %d", claim, c.want, c.level)
			}
			if claim != "" {
				want := "Demo " + hostile + " 0.1 is AAEP Level " + string(rune('0'+c.level)) + " conformant, verified by aaep-conform version v1.2.3 on 2026-11-24"
				if claim != want {
					t.Errorf("claim\n got %q\nwant %q", claim, want)
				}
			}
		})
	}
}

// The JSON report follows its schema (docs/schemas/conform-report.schema.json),
// checked with the repository's JSON Schema library.
func TestReportJSONFollowsSchema(t *testing.T) {
	for _, r := range []*Report{sampleReport(3, Pass, Fail, Skip, Warn, Pass, Pass), sampleReport(1), sampleReport(2, Pass, Pass)} {
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if err := Validate(ReportSchemaFile, b.Bytes()); err != nil {
			t.Errorf("the JSON report does not follow its schema: %v\n%s", err, b.String())
		}
		var doc map[string]any
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc["results_sha256"] != r.ResultsDigest() {
			t.Errorf("results_sha256 %v, want %s", doc["results_sha256"], r.ResultsDigest())
		}
	}
	// And the schema is not vacuous: a report with an unknown status is refused.
	bad := sampleReport(1, Pass)
	bad.Results[0].Status = "great"
	var b bytes.Buffer
	bad.WriteJSON(&b)
	if err := Validate(ReportSchemaFile, b.Bytes()); err == nil {
		t.Error("a report with status \"great\" follows the schema")
	}
}

// The schemas the package embeds are the ones docs/schemas publishes.
func TestSchemasPublished(t *testing.T) {
	for _, n := range []string{ReportSchemaFile, ReceiptSchemaFile} {
		ours, err := SchemaFile(n)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := os.ReadFile(filepath.Join("..", "docs", "schemas", n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, pub) {
			t.Errorf("docs/schemas/%s differs from conform/schemas/%s: copy it", n, n)
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	got, err := Canonical(map[string]any{"b": 1, "a": []any{"<&>", 1e21, 9007199254740993}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":["<&>",1e+21,9007199254740993],"b":1}`; string(got) != want {
		t.Errorf("Canonical = %s, want %s", got, want)
	}
	r := sampleReport(2, Pass, Fail)
	d := r.ResultsDigest()
	r.Results[1].Evidence[0].Note += "."
	if r.ResultsDigest() == d {
		t.Error("changing a note of the evidence leaves the results digest as it was")
	}
}

// The HTML report, parsed as a browser would: lang and title, one table per
// level each with a caption, every header cell with a scope, every status
// in words, evidence in details/pre, and the producer's hostile words
// escaped (no element, no control character, no bidi override from them).
func TestHTMLReportIsAccessibleAndEscaped(t *testing.T) {
	r := sampleReport(3, Pass, Fail, Skip, Warn, Pass, Pass)
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "\x1b", "\u202e", "src=", "href=", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var (
		lang, title                     string
		tables, captions, details, pres int
		headerCells, scoped, rowHeaders int
		statusWords                     []string
		elements                        = map[string]int{}
	)
	var walk func(n *html.Node, inTable *bool)
	walk = func(n *html.Node, inTable *bool) {
		if n.Type == html.ElementNode {
			elements[n.Data]++
			switch n.Data {
			case "html":
				lang = attr(n, "lang")
			case "title":
				title = text(n)
			case "table":
				tables++
				if n.FirstChild == nil || firstElement(n).Data != "caption" {
					t.Errorf("table %d does not begin with a caption", tables)
				}
			case "caption":
				captions++
			case "th":
				headerCells++
				if s := attr(n, "scope"); s == "col" || s == "row" {
					scoped++
				}
				if attr(n, "scope") == "row" {
					rowHeaders++
				}
			case "strong":
				statusWords = append(statusWords, text(n))
			case "details":
				details++
				if firstElement(n).Data != "summary" {
					t.Error("a details element has no summary first")
				}
			case "pre":
				pres++
				if !strings.Contains(text(n), "<script>alert(1)</script>") {
					t.Errorf("the evidence lost the producer's words: %q", text(n))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inTable)
		}
	}
	walk(doc, nil)
	if lang != "en" {
		t.Errorf("html lang=%q, want en", lang)
	}
	if !strings.HasPrefix(title, "AAEP conformance report") {
		t.Errorf("title %q", title)
	}
	if tables != 3 || captions != 3 {
		t.Errorf("%d tables and %d captions, want one of each per level (3)", tables, captions)
	}
	if scoped != headerCells {
		t.Errorf("%d of %d header cells have a scope", scoped, headerCells)
	}
	if rowHeaders != len(r.Results) || details != len(r.Results) || pres != len(r.Results) {
		t.Errorf("%d row headers, %d details, %d pre for %d results", rowHeaders, details, pres, len(r.Results))
	}
	if got, want := strings.Join(statusWords, ","), "Passed,Warning,Failed,Passed,Skipped,Passed"; got != want {
		t.Errorf("statuses in words %q, want %q (level by level)", got, want)
	}
	if elements["script"] != 0 {
		t.Error("the producer's words made a script element")
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return &html.Node{}
}

// A producer that sends bytes that are not JSON cannot stop the report:
// the frame is kept as a JSON string of what was received, the report
// follows its schema, and its digest is made.
func TestReportKeepsFramesThatAreNotJSON(t *testing.T) {
	r := sampleReport(1, Fail)
	r.Results[0].Evidence = append(r.Results[0].Evidence, Evidence{Dir: "received", Frame: json.RawMessage("{\"type\": \xff garbage")})
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	if err := Validate(ReportSchemaFile, b.Bytes()); err != nil {
		t.Errorf("schema: %v", err)
	}
	if !strings.Contains(b.String(), `"frame": "{\"type\": \ufffd garbage"`) {
		t.Errorf("the frame is not kept as a string:\n%s", b.String())
	}
	if d := r.ResultsDigest(); len(d) != 64 {
		t.Errorf("digest %q", d)
	}
}

// Whatever a producer says (its name, a frame, a detail), the JSON report
// is written and follows its schema, and the HTML report holds no element
// of its making.
func FuzzReportOutputs(f *testing.F) {
	f.Add("Agent", []byte(`{"type":"x"}`), "fine")
	f.Add(hostile, []byte("\xff{"), "</pre><script>x</script>")
	f.Fuzz(func(t *testing.T, name string, frame []byte, detail string) {
		r := sampleReport(1, Pass)
		r.Target.AgentName = name
		r.Results[0].Detail = detail
		r.Results[0].Evidence = []Evidence{{Dir: "received", Frame: frame, Note: detail}}
		var js, page bytes.Buffer
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := Validate(ReportSchemaFile, js.Bytes()); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		doc, err := html.Parse(&page)
		if err != nil {
			t.Fatal(err)
		}
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img" || n.Data == "a" || n.Data == "iframe") {
				t.Fatalf("a %s element from the producer's words", n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	})
}

// Every field of the types the reports and receipts are made of is in their
// schemas (whose objects allow no other): a field added to Target, Result,
// Evidence or Suite without its schema would make every report or receipt
// fail validation.
func TestSchemasNameEveryField(t *testing.T) {
	load := func(name string) map[string]any {
		b, err := SchemaFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	receipt, report := load(ReceiptSchemaFile), load(ReportSchemaFile)
	props := func(schema map[string]any, path ...string) map[string]any {
		v := any(schema)
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(map[string]any)["properties"].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		v      any
		schema map[string]any
	}{
		{"Receipt", Receipt{}, props(receipt)},
		{"ResultStatus", ResultStatus{}, props(receipt, "properties", "results", "items")},
		{"Target", Target{}, props(receipt, "$defs", "target")},
		{"Suite", Suite{}, props(receipt, "$defs", "suite")},
		{"Summary", Summary{}, props(receipt, "$defs", "summary")},
		{"ReportDocument", ReportDocument{Report: &Report{}}, props(report)},
		{"Result", Result{}, props(report, "$defs", "result")},
		{"Evidence", Evidence{}, props(report, "$defs", "result", "properties", "evidence", "items")},
	} {
		for _, name := range jsonNames(reflectType(c.v)) {
			if _, ok := c.schema[name]; !ok {
				t.Errorf("%s.%s is not in its schema", c.name, name)
			}
		}
	}
}
func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }

// jsonNames are the JSON names of a struct's fields, embedded ones
// flattened as encoding/json does.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			names = append(names, jsonNames(ft)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// A subscriber's report is named by the subscriber (its handshake's name
// and ID, else its command), not by the suite's own scripted producer, whose
// endpoint it also records.
func TestTargetNameOfASubscriber(t *testing.T) {
	for _, c := range []struct {
		t    Target
		want string
	}{
		{Target{Endpoint: "http://127.0.0.1:5/aaep", Command: "aaep-listen {endpoint}", Subscriber: "aaep-term"}, "aaep-term"},
		{Target{Endpoint: "http://127.0.0.1:5/aaep", Command: "aaep-listen {endpoint}"}, "aaep-listen {endpoint}"},
		{Target{Endpoint: "http://agent.example/aaep"}, "http://agent.example/aaep"},
		{Target{Endpoint: "http://agent.example/aaep", AgentName: "A", AgentVersion: "1"}, "A 1"},
	} {
		if got := c.t.Name(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.t, got, c.want)
		}
	}
}

// The target's manifest is one line of JSON, as aaep-conform target
// --print-manifest prints it, and each run TargetRuns makes is a fresh
// producer.
func TestTargetManifest(t *testing.T) {
	newRun, err := TargetRuns(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := TargetManifest(newRun)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(m) || bytes.ContainsRune(m, '\n') || !bytes.Contains(m, []byte(`"agent_id":"aaep-conform-target"`)) {
		t.Errorf("manifest %s", m)
	}
	a, b := newRun(), newRun()
	defer a.Close()
	defer b.Close()
	if a == b {
		t.Error("two runs are one producer")
	}
}

// Printer prints each result once, from any goroutine, however often it is
// told of it, and Finish adds those it was not told of, the summary and
// the claim (or why there is none).
func TestPrinter(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  *Report
		last string
	}{
		{"claim", sampleReport(1, Pass, Pass), "AAEP Level 1 conformant"},
		{"no claim", sampleReport(1, Pass, Fail), "Not AAEP Level 1 conformant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines []string // one a Printf: the details hold hostile newlines
			var mu sync.Mutex
			p := &Printer{Printf: func(format string, a ...any) {
				mu.Lock()
				defer mu.Unlock()
				lines = append(lines, fmt.Sprintf(format, a...))
			}}
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() { p.Result(tc.rep.Results[0]) })
			}
			wg.Wait()
			p.Finish(tc.rep)
			if len(lines) != 4 || !strings.Contains(lines[0], tc.rep.Results[0].ID) || !strings.Contains(lines[1], tc.rep.Results[1].ID) ||
				!strings.HasPrefix(lines[2], "Level 1 producer tests of ") || !strings.Contains(lines[3], tc.last) {
				t.Errorf("printed: %q", lines)
			}
		})
	}
}

// A release names its version; a build from a clone its commit, marked
// dirty with local changes; a build that recorded neither is Unversioned.
func TestSuiteVersion(t *testing.T) {
	for _, tc := range []struct {
		version, commit string
		modified        bool
		want            string
	}{
		{"v1.2.0", "abc", false, "v1.2.0"},
		{"(devel)", "0123456789abcdef0123", false, "devel+0123456789ab"},
		{"(devel)", "0123456789abcdef0123", true, "devel+0123456789ab-dirty"},
		{"(devel)", "abc", false, "devel+abc"},
		{"(devel)", "unknown", false, Unversioned},
		{"", "", true, Unversioned},
	} {
		if got := SuiteVersion(tc.version, tc.commit, tc.modified); got != tc.want {
			t.Errorf("SuiteVersion(%q, %q, %v) = %q, want %q", tc.version, tc.commit, tc.modified, got, tc.want)
		}
	}
}
