package conform

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/htmlpage"
)

// WriteHTML writes the report as one self-contained, accessible HTML page:
// a table per level, each with a caption, column and row headers, every
// status in words (colour only repeats them), and each test's evidence in a
// disclosure (details) as preformatted, escaped text.
func (r *Report) WriteHTML(w io.Writer) error {
	// htmlpage builds it whole and sanitizes it whole.
	if err := htmlpage.Write(w, htmlReport, r); err != nil {
		return fmt.Errorf("conform: write the HTML report: %w", err)
	}
	return nil
}

// statusPhrase is a status in words for the report.
func statusPhrase(s Status) string {
	switch s {
	case Pass:
		return "Passed"
	case Fail:
		return "Failed"
	case Skip:
		return "Skipped"
	case Warn:
		return "Warning"
	}
	return "Unknown status " + string(s)
}

func levelName(l Level) string {
	switch l {
	case 1:
		return "Level 1, notification"
	case 2:
		return "Level 2, interactive"
	case 3:
		return "Level 3, negotiated"
	}
	return fmt.Sprintf("Level %d", l)
}

func evidenceText(ev []Evidence) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, "%s %s", seconds(e.At), e.Dir)
		if e.Note != "" {
			fmt.Fprintf(&b, ": %s", e.Note)
		}
		b.WriteString("\n")
		if len(e.Frame) > 0 {
			b.Write(e.Frame)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

var htmlReport = htmlpage.Parse("report", template.FuncMap{
	"status":   statusPhrase,
	"level":    levelName,
	"evidence": evidenceText,
	"seconds":  seconds,
	"date":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"plural":   plural,
}, `AAEP conformance report: {{.Role}} {{.Target.Name}}, Level {{.Level}}`, `<h1>AAEP conformance report</h1>
{{- $s := .Summary}}
<dl>
<dt>Tested</dt><dd>{{.Role}} {{.Target.Name}}{{with .Target.Endpoint}}, at {{.}}{{end}}{{with .Target.Command}}, run as {{.}}{{end}}</dd>
<dt>Level asked for</dt><dd>{{level .Level}}</dd>
<dt>Suite</dt><dd>{{.Suite.Name}} version {{.Suite.Version}}, AAEP version {{.Suite.AAEPVersion}}, catalogue SHA-256 {{.Suite.Catalogue}}</dd>
<dt>Run</dt><dd>from {{date .Started}} to {{date .Finished}}{{if .Fast}}, in fast mode: tests that wait out long timeouts were skipped{{end}}</dd>
<dt>Results</dt><dd>{{$s.String}}</dd>
<dt>Conformance</dt><dd>{{with .Claim}}{{.}}.{{else}}No claim: {{if .ConformingLevel}}only Level {{.ConformingLevel}} holds{{else}}not even Level 1 holds{{end}}; a level is claimed only when every one of its tests passed.{{end}}</dd>
</dl>
{{- range $i, $l := .ByLevel}}
<section aria-labelledby="l{{$i}}">
<h2 id="l{{$i}}">{{level $l.Level}}</h2>
<table>
<caption>{{level $l.Level}}: {{len $l.Results}} {{plural (len $l.Results) "test" "tests"}}, in the order they ran</caption>
<thead><tr><th scope="col">Test</th><th scope="col">Status</th><th scope="col">Requirement</th><th scope="col">Spec section</th><th scope="col">Why</th><th scope="col">Time</th><th scope="col">Evidence</th></tr></thead>
<tbody>
{{- range $l.Results}}
<tr class="{{.Status}}">
<th scope="row">{{.ID}}</th>
<td><strong>{{status .Status}}</strong></td>
<td>{{.Requirement}}</td>
<td>{{.Section}}</td>
<td>{{.Detail}}</td>
<td>{{seconds .Took}}</td>
<td>{{if .Evidence}}<details><summary>{{len .Evidence}} {{plural (len .Evidence) "item" "items"}} of evidence for {{.ID}}</summary><pre>{{evidence .Evidence}}</pre></details>{{else}}none{{end}}</td>
</tr>
{{- end}}
</tbody>
</table>
</section>
{{- else}}
<p>No test ran.</p>
{{- end}}
<p>End of report: {{$s.String}}</p>
`)
