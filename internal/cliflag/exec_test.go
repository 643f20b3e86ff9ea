package cliflag

import (
	"slices"
	"testing"
)

func TestCutExec(t *testing.T) {
	for _, tc := range []struct {
		args, flags, argv []string
	}{
		{[]string{"--plain", "http://x"}, []string{"--plain", "http://x"}, nil},
		{[]string{"--plain", "--exec", "agent", "--plain"}, []string{"--plain"}, []string{"agent", "--plain"}},
		{[]string{"-exec", "agent"}, []string{}, []string{"agent"}},
		{[]string{"--exec"}, []string{}, []string{}},
		{[]string{"--", "--exec"}, []string{"--", "--exec"}, nil},
	} {
		flags, argv := CutExec(tc.args)
		if !slices.Equal(flags, tc.flags) || !slices.Equal(argv, tc.argv) || (argv == nil) != (tc.argv == nil) {
			t.Errorf("%q: flags %q, argv %q", tc.args, flags, argv)
		}
	}
}
