package conform

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// Summary counts a report's results by status.
type Summary struct {
	Total   int `json:"total"`
	Passed  int `json:"pass"`
	Failed  int `json:"fail"`
	Skipped int `json:"skip"`
	Warned  int `json:"warn"`
}

// Summary counts the results.
func (r *Report) Summary() Summary {
	var s Summary
	for _, res := range r.Results {
		s.Total++
		switch res.Status {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		case Skip:
			s.Skipped++
		case Warn:
			s.Warned++
		}
	}
	return s
}

// String is the summary as a plain sentence: "12 tests: 10 passed, 1
// failed, 0 skipped, 1 warning."
func (s Summary) String() string {
	return fmt.Sprintf("%d %s: %d passed, %d failed, %d skipped, %d %s.",
		s.Total, plural(s.Total, "test", "tests"), s.Passed, s.Failed, s.Skipped, s.Warned, plural(s.Warned, "warning", "warnings"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ConformingLevel is the highest level, up to the one asked for, whose every
// test (and every test of the levels below) passed or only warned: a failure
// or a skip stops a level, and so does a level with no test at all. It is 0
// when not even Level 1 holds.
func (r *Report) ConformingLevel() Level {
	ran := map[Level]bool{}
	broken := map[Level]bool{}
	for _, res := range r.Results {
		ran[res.Level] = true
		if res.Status != Pass && res.Status != Warn {
			broken[res.Level] = true
		}
	}
	var got Level
	for l := Level(1); l <= r.Level; l++ {
		if !ran[l] || broken[l] {
			break
		}
		got = l
	}
	return got
}

// Conforming says whether every test of the level asked for passed (or only
// warned): the claim may be made.
func (r *Report) Conforming() bool {
	return r.Level >= 1 && r.ConformingLevel() == r.Level
}

// Name is what the claim calls the implementation tested: its agent name
// (or id) with its version when the handshake or manifest gave them,
// otherwise the endpoint or command. It is the implementation's own words,
// not sanitized here.
func (t Target) Name() string {
	name := t.AgentName
	if name == "" {
		name = t.AgentID
	}
	if name != "" && t.AgentVersion != "" {
		name += " " + t.AgentVersion
	}
	switch {
	case name != "":
		return name
	case t.Subscriber != "": // a subscriber; Endpoint is then the suite's own
		return t.Subscriber
	case t.Command != "":
		return t.Command
	case t.Endpoint != "":
		return t.Endpoint
	}
	return "the implementation tested"
}

// Claim is the conformance claim of spec section 9.8 that the report
// supports, or "" when it supports none (Conforming is false):
// "X is AAEP Level N conformant, verified by aaep-conform version V on DATE".
func (r *Report) Claim() string {
	if !r.Conforming() {
		return ""
	}
	return ClaimSentence(r.Target.Name(), r.Level, r.Suite, r.Finished)
}

// ClaimSentence builds a claim sentence; a receipt's claim is built the same
// way as a report's.
func ClaimSentence(name string, l Level, s Suite, date time.Time) string {
	suite := s.Name
	if suite == "" {
		suite = "aaep-conform"
	}
	if s.Version == Unversioned {
		return fmt.Sprintf("%s is AAEP Level %d conformant, verified by %s (an unversioned build: no version or commit was recorded) on %s",
			name, l, suite, date.UTC().Format(time.DateOnly))
	}
	return fmt.Sprintf("%s is AAEP Level %d conformant, verified by %s version %s on %s",
		name, l, suite, s.Version, date.UTC().Format(time.DateOnly))
}

// Unversioned is the Suite.Version of a build of the suite that recorded
// neither a release version nor a commit; a claim it supports says so
// plainly instead of naming a version.
const Unversioned = "unversioned"

// SuiteVersion is the Suite.Version of a build: its module version when it
// is a release (v…), or for a build from a clone "devel+" and the commit it
// was built from ("-dirty" with local changes), so that a claim names a
// build one can find; Unversioned when it recorded neither.
func SuiteVersion(version, commit string, modified bool) string {
	if len(version) > 1 && version[0] == 'v' {
		return version
	}
	if commit == "" || commit == "unknown" {
		return Unversioned
	}
	v := "devel+" + commit[:min(12, len(commit))]
	if modified {
		v += "-dirty"
	}
	return v
}

// ResultsDigest is the SHA-256 (hex) of the canonical JSON of the full
// results, evidence included: a receipt holds it, so a report can be matched
// to its receipt.
func (r *Report) ResultsDigest() string { return Digest(r.results()) }

// results are the results, an empty list rather than nil (JSON [] not null).
func (r *Report) results() []Result {
	if r.Results == nil {
		return []Result{}
	}
	return r.Results
}

// ReportDocument is the JSON report: the report with what is derived from
// it, as docs/schemas/conform-report.schema.json describes.
type ReportDocument struct {
	Type string `json:"type"` // ReportType
	*Report
	Summary         Summary `json:"summary"`
	ConformingLevel Level   `json:"conforming_level"`
	Claim           string  `json:"claim,omitempty"`
	ResultsSHA256   string  `json:"results_sha256"`
}

// ReportType names a JSON report.
const ReportType = "aaep-conform-report"

// Document is the JSON report of r.
func (r *Report) Document() ReportDocument {
	rr := *r
	rr.Results = r.results()
	return ReportDocument{
		Type:            ReportType,
		Report:          &rr,
		Summary:         r.Summary(),
		ConformingLevel: r.ConformingLevel(),
		Claim:           r.Claim(),
		ResultsSHA256:   r.ResultsDigest(),
	}
}

// WriteJSON writes the JSON report, indented. The evidence keeps the
// frames exactly as received, so a producer's strings are in it whole; in
// the file, every character a terminal might act on or hide is written as
// a \u escape (see escapeInvisible), so showing the file shows none raw.
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Document()); err != nil {
		return fmt.Errorf("conform: write the JSON report: %w", err)
	}
	if _, err := w.Write(escapeInvisible(b.Bytes())); err != nil {
		return fmt.Errorf("conform: write the JSON report: %w", err)
	}
	return nil
}

// escapeInvisible returns the JSON text doc with DEL and every control,
// format (bidi, zero-width) and line or paragraph separator character
// written as a \u escape, and bytes that are not UTF-8 as \ufffd. Inside
// strings, every blank (protocol.IsBlank) but a lone ASCII space is
// escaped too, so no padding in a producer's text can make a terminal
// showing the file wrap its words onto a row of their own. Outside its
// strings a JSON text holds only ASCII, so only strings change, and each
// decodes to what it did (invalid UTF-8 aside, which decoding turns into
// U+FFFD anyway): a digest of the decoded document is the same.
func escapeInvisible(doc []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(doc))
	inString, afterBlank := false, false
	for len(doc) > 0 {
		r, n := utf8.DecodeRune(doc)
		blank := inString && protocol.IsBlank(r) && (r != ' ' || afterBlank)
		afterBlank = inString && protocol.IsBlank(r)
		switch {
		case r == '"':
			inString = !inString
			b.WriteByte('"')
		case r == '\\' && len(doc) > 1:
			b.Write(doc[:2]) // an escape the encoder wrote: \" stays in the string
			n = 2
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case blank || r == 0x7f || (r >= 0x80 && (unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp))):
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.Write(doc[:n])
		}
		doc = doc[n:]
	}
	return b.Bytes()
}

// ByLevel groups the results by level, lowest first, each in the order it
// ran; levels with no result are left out.
func (r *Report) ByLevel() []LevelResults {
	var out []LevelResults
	at := map[Level]int{}
	for _, res := range r.Results {
		i, ok := at[res.Level]
		if !ok {
			i = len(out)
			at[res.Level] = i
			out = append(out, LevelResults{Level: res.Level})
		}
		out[i].Results = append(out[i].Results, res)
	}
	slices.SortStableFunc(out, func(a, b LevelResults) int { return cmp.Compare(a.Level, b.Level) })
	return out
}

// LevelResults are the results of one level.
type LevelResults struct {
	Level   Level
	Results []Result
}

// Word is a status as an upper-case word for a line of text: PASS,
// FAIL, SKIP, WARN.
func (s Status) Word() string { return strings.ToUpper(string(s)) }

// MarshalJSON writes the evidence with its frame as received when that is
// JSON, and otherwise as a JSON string of the bytes received (invalid UTF-8
// as U+FFFD): a producer that sends something other than JSON cannot make
// a report, its digest or a receipt fail to be written.
func (e Evidence) MarshalJSON() ([]byte, error) {
	type plain Evidence // without this method
	p := plain(e)
	if len(p.Frame) > 0 && !json.Valid(p.Frame) {
		q, err := json.Marshal(string(p.Frame))
		if err != nil {
			return nil, err
		}
		p.Frame = q
	}
	return json.Marshal(p)
}
