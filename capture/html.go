// html.go: the trace as a self-contained, accessible HTML report.

package capture

import (
	"fmt"
	"html/template"
	"io"

	"github.com/aaep-term/aaep-term/internal/htmlpage"
	"github.com/aaep-term/aaep-term/internal/prose"
)

// WriteHTML writes the trace as one HTML file with no external assets: a
// heading per session, a table with a caption per session, and every
// problem stated in words (the colours only repeat what the words say).
func (t *Trace) WriteHTML(w io.Writer) error {
	// htmlpage builds it whole and sanitizes it whole.
	if err := htmlpage.Write(w, htmlReport, t); err != nil {
		return fmt.Errorf("capture: write the HTML trace: %w", err)
	}
	return nil
}

var htmlReport = htmlpage.Parse("trace", template.FuncMap{
	"seconds":  seconds,
	"severity": severityWord,
	"summary":  func(s *SessionTrace) string { return s.summary() },
	"tsummary": func(t *Trace) string { return capital(t.summary()) },
	"verdict":  func(t *Trace) string { return t.verdict() },
	"orWord":   orWord,
	"changed":  func(st TraceStep) bool { return st.To != "" && st.From != st.To },
	"timeline": svgTimeline,
	"newGroup": func(t *Trace, i int) bool { return t.newGroup(i) },
	"groupN":   func(t *Trace, i int) int { return t.groupSize(i) },
	"agent":    func(s *SessionTrace) string { return s.agentWords() },
	"plural":   prose.Plural,
}, `AAEP state-machine trace of {{.Source}}`, `<h1>State-machine trace of {{.Source}}</h1>
<p>{{tsummary .}}.</p>
{{- if .Diagnostics}}
<h2>Notes on reading the file</h2>
<ul>
{{- range .Diagnostics}}
<li>Line {{.Line}}: {{.Message}}</li>
{{- end}}
</ul>
{{- end}}
{{- range $i, $s := .Sessions}}
{{- if newGroup $ $i}}
<h2 id="c{{$i}}">Connection {{$s.Connection}}: {{groupN $ $i}} {{plural (groupN $ $i) "session" "sessions"}}</h2>
{{- end}}
<section aria-labelledby="s{{$i}}">
{{if $s.Connection}}<h3 id="s{{$i}}">{{else}}<h2 id="s{{$i}}">{{end}}Session {{$s.ID}}, agent {{agent $s}}{{if $s.Connection}}</h3>{{else}}</h2>{{end}}
<p>{{summary $s}}.</p>
<figure>
{{timeline $s $i}}
<figcaption>Timeline of session {{$s.ID}}: a circle is a step, a crossed square a violation, a triangle a warning. Every step is also in the table below.</figcaption>
</figure>
<table>
<caption>Steps of session {{$s.ID}}, in the order received</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Time</th><th scope="col">Event</th><th scope="col">What happened</th><th scope="col">State after</th><th scope="col">Problems</th></tr></thead>
<tbody>
{{- range $s.Steps}}{{template "row" .}}{{end}}
</tbody>
</table>
</section>
{{- end}}
{{- if .Other}}
<section aria-labelledby="other">
<h2 id="other">Outside any session</h2>
<table>
<caption>Messages that belong to no session</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Time</th><th scope="col">Event</th><th scope="col">What happened</th><th scope="col">State after</th><th scope="col">Problems</th></tr></thead>
<tbody>
{{- range .Other}}{{template "row" .}}{{end}}
</tbody>
</table>
</section>
{{- end}}
<p>End of trace: {{verdict .}}.</p>
{{define "row"}}
<tr{{if .Violations}} class="{{(index .Violations 0).Severity}}"{{end}}>
<th scope="row">{{.Line}}</th>
<td>{{if .HasAt}}{{seconds .At}}{{else}}unknown{{end}}</td>
<td>{{.Event}}</td>
<td>{{.Detail}}</td>
<td>{{if changed .}}{{.From}} to {{.To}}{{else if .To}}{{.To}}, unchanged{{end}}</td>
<td>{{range .Violations}}<p><strong>{{severity .Severity}}</strong> ({{.Rule}}, spec section {{.Section}}): {{.Message}}</p>{{else}}none{{end}}</td>
</tr>{{end}}`)
