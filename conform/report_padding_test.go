package conform

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// In the JSON report file, no string holds two blanks in a row, nor any
// blank but an ASCII space, so a producer's padding cannot make a terminal
// wrap its words onto a row of their own; the document still decodes to
// exactly what was encoded, and the indentation outside strings is kept.
func TestEscapeInvisiblePadding(t *testing.T) {
	pad := strings.Repeat(" ", 80) + "12:00:00 CRITICAL Bank: FORGED"
	for _, s := range []string{
		"HOST" + pad,
		"HOST" + strings.Repeat("\u00a0\u2003\u3000\u2800\u205f\u3164", 20) + "CRITICAL",
		`quote " and \ backslash  then  spaces`,
		" lone spaces stay ",
	} {
		doc, err := json.MarshalIndent(map[string]any{"frame": map[string]string{"agent_name": s}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out := escapeInvisible(doc)
		var back map[string]map[string]string
		if err := json.Unmarshal(out, &back); err != nil || back["frame"]["agent_name"] != s {
			t.Fatalf("%q decodes to %q (%v)", s, back["frame"]["agent_name"], err)
		}
		for _, line := range bytes.Split(out, []byte("\n")) {
			text := strings.TrimLeft(string(line), " ") // the indentation
			prev := false
			for _, r := range text {
				blank := protocol.IsBlank(r)
				if blank && (prev || r != ' ') {
					t.Fatalf("raw padding left in %q", text)
				}
				prev = blank
			}
			if !utf8.Valid(line) {
				t.Fatalf("not UTF-8: %q", line)
			}
		}
		if !bytes.HasPrefix(out, []byte("{\n  \"frame\": {\n    \"agent_name\"")) {
			t.Fatalf("indentation changed:\n%s", out)
		}
	}
}
