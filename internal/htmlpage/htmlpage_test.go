package htmlpage

import (
	"html/template"
	"strings"
	"testing"
)

// A page is whole (one main, the shared stylesheet, closed html), and the
// words it carries reach the page escaped and sanitized: no markup, no
// bidi override, no control.
func TestWriteEscapesAndSanitizes(t *testing.T) {
	page := Parse("t", template.FuncMap{"upper": strings.ToUpper}, `Title {{.}}`, `<p>{{upper .}}</p>`)
	var b strings.Builder
	if err := Write(&b, page, "a<script>\u202eb\x1b[2Jc"); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, bad := range []string{"<script>", "\u202e", "\x1b"} {
		if strings.Contains(got, bad) {
			t.Errorf("the page holds %q:\n%s", bad, got)
		}
	}
	for _, want := range []string{"<!DOCTYPE html>", "<title>Title a&lt;script&gt;", "<main>\n<p>A&lt;SCRIPT&gt;", ".fail, .violation", "</main>\n</body>\n</html>\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}
}
