// svg.go: the swim-lane timeline of a session, drawn in SVG for the HTML report.

package capture

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// lanes of the timeline, top to bottom.
var lanes = []string{"Lifecycle", "State", "Tools", "Output", "Prompts and replies", "Other"}

// laneOf puts a step in a lane by its event.
func laneOf(event string) int {
	switch {
	case strings.HasPrefix(event, "session."):
		return 0
	case strings.HasPrefix(event, "state.") || strings.HasPrefix(event, "progress."):
		return 1
	case strings.HasPrefix(event, "tool."):
		return 2
	case strings.HasPrefix(event, "output."):
		return 3
	case strings.HasPrefix(event, "awaiting.") || strings.Contains(event, ".reply") || strings.HasPrefix(event, "handoff."):
		return 4
	}
	return 5
}

// svgTimeline draws a session's steps on lanes against time. Each mark has a
// title (read by screen readers and shown on hover); a violation is a
// crossed square, a warning a triangle, any other step a circle, so no
// meaning rests on colour. The table after it is the full text alternative.
func svgTimeline(s *SessionTrace, idx int) template.HTML {
	const (
		left, laneH, width, top = 170.0, 34.0, 900.0, 20.0
	)
	height := top + laneH*float64(len(lanes)) + 30
	span := s.Duration
	if span <= 0 {
		span = 1
	}
	n := len(s.Steps)
	x := func(i int, st TraceStep) float64 {
		if s.HasTime && st.HasAt {
			return left + (width-left-20)*st.At/span
		}
		return left + (width-left-20)*float64(i)/float64(max(n-1, 1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg role="img" aria-labelledby="t%d d%d" viewBox="0 0 %.0f %.0f" width="100%%" xmlns="http://www.w3.org/2000/svg">`, idx, idx, width, height)
	fmt.Fprintf(&b, `<title id="t%d">Timeline of session %s</title>`, idx, html.EscapeString(s.ID))
	fmt.Fprintf(&b, `<desc id="d%d">%d steps on %d lanes: %s. %s The table below lists every step in words.</desc>`,
		idx, n, len(lanes), html.EscapeString(strings.Join(lanes, ", ")), html.EscapeString(capital(countWords(s.Violations, s.Warnings))+"."))
	for i, name := range lanes {
		y := top + laneH*float64(i) + laneH/2
		fmt.Fprintf(&b, `<text x="4" y="%.1f" font-size="13" fill="currentColor">%s</text>`, y+4, html.EscapeString(name))
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="currentColor" stroke-opacity="0.3"/>`, left, y, width-10, y)
	}
	for i, st := range s.Steps {
		cx, cy := x(i, st), top+laneH*float64(laneOf(st.Event))+laneH/2
		label := fmt.Sprintf("Line %d: %s", st.Line, st.Event)
		sev := ""
		for _, v := range st.Violations {
			label += fmt.Sprintf(". %s (%s, section %s): %s", severityWord(v.Severity), v.Rule, v.Section, v.Message)
			if sev != SeverityViolation {
				sev = v.Severity
			}
		}
		fmt.Fprintf(&b, `<g><title>%s</title>`, html.EscapeString(label))
		switch sev {
		case SeverityViolation:
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="14" height="14" fill="#b00" stroke="currentColor"/><path d="M%.1f %.1f l14 14 M%.1f %.1f l-14 14" stroke="#fff" stroke-width="2"/>`,
				cx-7, cy-7, cx-7, cy-7, cx+7, cy-7)
		case SeverityWarning:
			fmt.Fprintf(&b, `<path d="M%.1f %.1f l8 14 h-16 z" fill="#b60" stroke="currentColor"/>`, cx, cy-8)
		default:
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="currentColor"/>`, cx, cy)
		}
		b.WriteString(`</g>`)
	}
	end := "steps in order"
	if s.HasTime {
		end = seconds(s.Duration)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" fill="currentColor">start</text><text x="%.0f" y="%.0f" font-size="12" fill="currentColor" text-anchor="end">%s</text>`,
		left, height-6, width-10, height-6, html.EscapeString(end))
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every producer string above is escaped
}
