package conform

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// WriteHTML writes the report as one self-contained, accessible HTML page:
// a table per level, each with a caption, column and row headers, every
// status in words (colour only repeats them), and each test's evidence in a
// disclosure (details) as preformatted, escaped text.
func (r *Report) WriteHTML(w io.Writer) error {
	// Built whole and sanitized whole, as the capture report is: the
	// template escapes HTML, the sanitizer removes what a browser or a
	// screen reader would act on or hide (controls, bidi overrides,
	// zero-width characters) from the implementation's words.
	var b strings.Builder
	if err := htmlReport.Execute(&b, r); err != nil {
		return fmt.Errorf("conform: write the HTML report: %w", err)
	}
	if _, err := io.WriteString(w, protocol.Sanitize(b.String())); err != nil {
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

var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"status":   statusPhrase,
	"level":    levelName,
	"evidence": evidenceText,
	"seconds":  seconds,
	"date":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"plural":   plural,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>AAEP conformance report: {{.Role}} {{.Target.Name}}, Level {{.Level}}</title>
<style>
body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 1rem auto; max-width: 70rem; padding: 0 1rem; color: #111; background: #fff; }
table { border-collapse: collapse; width: 100%; margin-bottom: 2rem; }
caption { text-align: left; font-weight: bold; padding: 0.5rem 0; }
th, td { border: 1px solid #555; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th[scope=col] { background: #eee; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.fail { background: #fde8e8; border-left: 0.4rem solid #a00; }
.warn { background: #fff6d6; border-left: 0.4rem dashed #850; }
.skip { border-left: 0.4rem dotted #555; }
@media (prefers-color-scheme: dark) {
  body { color: #eee; background: #111; }
  th[scope=col] { background: #333; }
  th, td { border-color: #aaa; }
  .fail { background: #4a1414; }
  .warn { background: #3d3210; }
}
</style>
</head>
<body>
<main>
<h1>AAEP conformance report</h1>
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
</main>
</body>
</html>
`))
