package capture

import (
	"bytes"
	"strings"
	"testing"
)

// CheckFile counts a file's messages and problems; with lines, each
// problem is a line naming the file and none is kept, without them every
// problem is kept for the JSON report.
func TestCheckFile(t *testing.T) {
	t.Parallel()
	const file = "testdata/corpus/unconfirmed.aaep"
	kept := CheckFile(file, CheckOptions{}, nil)
	if kept.Unreadable != "" || kept.Messages == 0 || kept.Violations == 0 || len(kept.Problems) != kept.Violations+kept.Warnings {
		t.Fatalf("without lines: %+v", kept)
	}
	var lines bytes.Buffer
	told := CheckFile(file, CheckOptions{}, &lines)
	if len(told.Problems) != 0 || told.Violations != kept.Violations || told.Messages != kept.Messages {
		t.Errorf("with lines: %d problems kept, %d violations of %d messages; want none kept, %d of %d",
			len(told.Problems), told.Violations, told.Messages, kept.Violations, kept.Messages)
	}
	if n := strings.Count(lines.String(), file+": "); n < kept.Violations {
		t.Errorf("%d lines name the file, want at least %d:\n%s", n, kept.Violations, lines.String())
	}
	if missing := CheckFile("testdata/no-such-file.aaep", CheckOptions{}, nil); missing.Unreadable == "" {
		t.Error("a missing file is not unreadable")
	}
}

// Fold makes a report's strings one sanitized line each.
func TestFileReportFold(t *testing.T) {
	t.Parallel()
	r := &FileReport{File: "a\nb.aaep", Problems: []Violation{{Message: "one\ntwo", Pointers: []string{"/x\n"}}},
		Connections: []Connection{{Label: "l\nm"}}}
	r.Fold()
	for _, s := range []string{r.File, r.Problems[0].Message, r.Problems[0].Pointers[0], r.Connections[0].Label} {
		if strings.ContainsRune(s, '\n') {
			t.Errorf("%q still holds a line break", s)
		}
	}
}
