package cliflag

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		operands []string
		json     bool
		token    string
		err      string // "help", "usage" or ""
	}{
		{"flags anywhere", []string{"a", "--json", "b", "--token", "t", "c"}, []string{"a", "b", "c"}, true, "t", ""},
		{"no operands", []string{"--json"}, nil, true, "", ""},
		{"nothing", nil, nil, false, "", ""},
		{"after --", []string{"a", "--json", "--", "-b", "--json"}, []string{"a", "-b", "--json"}, true, "", ""},
		{"-- first", []string{"--", "--json"}, []string{"--json"}, false, "", ""},
		{"-- as a value", []string{"--token", "--", "--json", "a"}, []string{"a"}, true, "--", ""},
		{"-- as a value with =", []string{"--token=--", "--", "--json"}, []string{"--json"}, false, "--", ""},
		{"a lone dash is an operand", []string{"-", "--json"}, []string{"-"}, true, "", ""},
		{"help", []string{"a", "--help"}, nil, false, "", "help"},
		{"unknown flag", []string{"a", "--nope"}, nil, false, "", "usage"},
		{"missing value", []string{"--token"}, nil, false, "", "usage"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		json := fs.Bool("json", false, "")
		token := fs.String("token", "", "")
		operands, err := Parse(fs, tt.args)
		var ue *UsageError
		switch {
		case tt.err == "help" && !errors.Is(err, flag.ErrHelp),
			tt.err == "usage" && !errors.As(err, &ue),
			tt.err == "" && err != nil:
			t.Errorf("%s: error %v, want %s", tt.name, err, tt.err)
			continue
		}
		if tt.err != "" {
			continue
		}
		if !slices.Equal(operands, tt.operands) || *json != tt.json || *token != tt.token {
			t.Errorf("%s: operands %q json %v token %q; want %q %v %q", tt.name, operands, *json, *token, tt.operands, tt.json, tt.token)
		}
	}
}
