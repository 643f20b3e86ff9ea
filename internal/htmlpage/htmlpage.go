// Package htmlpage is the frame every HTML report of aaep-term shares: one
// self-contained page (no external assets) with one stylesheet, built whole
// and sanitized whole.
//
// The stylesheet only repeats what the words say: a row's class is its
// status or severity (fail, warn, skip; violation, warning) and the page
// states it in words too, so nothing is told by colour alone.
package htmlpage

import (
	"html/template"
	"io"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// css is the reports' stylesheet, light and dark.
const css = `body { font-family: system-ui, sans-serif; line-height: 1.5; margin: 1rem auto; max-width: 70rem; padding: 0 1rem; color: #111; background: #fff; }
table { border-collapse: collapse; width: 100%; margin-bottom: 2rem; }
caption { text-align: left; font-weight: bold; padding: 0.5rem 0; }
th, td { border: 1px solid #555; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th[scope=col] { background: #eee; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.fail, .violation { background: #fde8e8; border-left: 0.4rem solid #a00; }
.warn, .warning { background: #fff6d6; border-left: 0.4rem dashed #850; }
.skip { border-left: 0.4rem dotted #555; }
@media (prefers-color-scheme: dark) {
  body { color: #eee; background: #111; }
  th[scope=col] { background: #333; }
  th, td { border-color: #aaa; }
  .fail, .violation { background: #4a1414; }
  .warn, .warning { background: #3d3210; }
}
`

// Parse returns the page template name: title and main are template text
// for the page's title and for what its main element holds, with funcs
// available to both. It panics when they do not parse, as template.Must:
// the reports parse theirs once, at start.
func Parse(name string, funcs template.FuncMap, title, main string) *template.Template {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + title + "</title>\n<style>\n" + css + "</style>\n</head>\n<body>\n<main>\n")
	b.WriteString(strings.TrimPrefix(main, "\n"))
	if !strings.HasSuffix(main, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	return template.Must(template.New(name).Funcs(funcs).Parse(b.String()))
}

// Write executes t with data and writes the page to w. The page is built
// whole and sanitized whole: the template escapes HTML, and
// protocol.Sanitize removes what a browser or a screen reader would act on
// or hide (controls, bidi overrides, zero-width characters) from the words
// the data carries.
func Write(w io.Writer, t *template.Template, data any) error {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, protocol.Sanitize(b.String()))
	return err
}
