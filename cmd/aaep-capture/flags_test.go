package main

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
)

// The flags of what a recording does are read into record.Options, whose
// own tests (capture/record) record with them: --filter with
// aaep-listen's --include and --exclude is one filter, and values that
// name nothing are refused with the flag's name.
func TestRecordingFlags(t *testing.T) {
	tio, _, _, _ := term.Test()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--include", "tool.*"}, "tool.*"},
		{[]string{"--exclude", "progress.*, output.*"}, "-progress.*,-output.*"},
		{[]string{"--filter", "tool.*", "--include", "session.*", "--exclude", "tool.completed"}, "tool.*,session.*,-tool.completed"},
	} {
		o, err := parseFlags(append([]string{"--endpoint", "x", "-o", "-"}, tc.args...), tio)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		} else if o.Filter.String() != tc.want {
			t.Errorf("%q: filter %q, want %q", tc.args, o.Filter.String(), tc.want)
		}
	}
	o, err := parseFlags([]string{"--endpoint", "x", "-o", "f", "--rotate-size", "2K", "--auto-reply", "reject", "--format", "jsonl"}, tio)
	if err != nil || o.RotateSize != 2048 || !o.AutoReply || !o.JSONL {
		t.Errorf("options %+v, %v", o, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter", "tool.["}, "--filter"},
		{[]string{"--rotate-size", "1Q"}, "--rotate-size"},
		{[]string{"--auto-reply", "accept"}, "never automatic"},
	} {
		if _, err := parseFlags(append([]string{"--endpoint", "x", "-o", "f"}, tc.args...), tio); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
