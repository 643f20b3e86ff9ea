package cliflag

import (
	"errors"
	"fmt"
	"testing"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"failure", errors.New("connection refused"), 1},
		{"usage", Usagef("--cert needs --client-key"), 2},
		{"wrapped usage", fmt.Errorf("start the demo: %w", Usage(errors.New("no scenario named x"))), 2},
		{"nil marked", Usage(nil), 0},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := Usagef("a %s", "b").Error(); got != "a b" {
		t.Errorf("message %q", got)
	}
}
