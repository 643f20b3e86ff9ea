package cliflag

import (
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestHeader(t *testing.T) {
	tests := []struct {
		args []string
		want http.Header
		bad  bool
	}{
		{[]string{"--header", "X-A: 1", "--header", "x-a:2"}, http.Header{"X-A": {"1", "2"}}, false},
		{[]string{"--header", "Authorization: Bearer a:b"}, http.Header{"Authorization": {"Bearer a:b"}}, false},
		{[]string{"--header", "no colon"}, nil, true},
		{[]string{"--header", " : value"}, nil, true},
	}
	for _, tt := range tests {
		h := Header{}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(h, "header", "")
		err := fs.Parse(tt.args)
		if (err != nil) != tt.bad {
			t.Errorf("%q: error %v, want bad=%v", tt.args, err, tt.bad)
			continue
		}
		if len(h) != len(tt.want) {
			t.Errorf("%q: got %v, want %v", tt.args, h, tt.want)
		}
		for name, vs := range tt.want {
			if got := http.Header(h).Values(name); strings.Join(got, "|") != strings.Join(vs, "|") {
				t.Errorf("%q: %s = %q, want %q", tt.args, name, got, vs)
			}
		}
	}
}
