package cliflag

import (
	"errors"
	"strings"
	"testing"
)

// TestCommands: a program of subcommands runs the one its first argument
// names, and tells what it returns the same way for every program: help,
// usage errors with where the help is, failures with the command's code
// (or Failed for 0), unknown commands with the nearest known one.
func TestCommands(t *testing.T) {
	ret := func(code int, err error) func([]string) (int, error) {
		return func([]string) (int, error) { return code, err }
	}
	c := &Commands{
		Program: "prog",
		Usage:   "Usage: prog COMMAND\n",
		Failed:  2,
		List: []Command{
			{"ok", func(args []string) (int, error) {
				if strings.Join(args, " ") != "a b" {
					return 1, errors.New("args " + strings.Join(args, " "))
				}
				return 0, nil
			}},
			{"violations", ret(1, nil)},
			{"helped", ret(0, ErrHelp)},
			{"usage", ret(2, Usagef("no FILE"))},
			{"fails", ret(0, errors.New("cannot read \x1b[31mx"))},
			{"fails3", ret(3, errors.New("broken"))},
		},
	}
	flags := &Commands{Program: "prog", Usage: "U\n", Failed: 1, Flags: func(args []string) (int, error) {
		return 0, Usagef("flags %s", strings.Join(args, " "))
	}}
	for _, tc := range []struct {
		c        *Commands
		args     []string
		code     int
		out, err string
	}{
		{c, nil, 2, "", "prog: say what to do.\n\nUsage: prog COMMAND\n"},
		{c, []string{"help"}, 0, "Usage: prog COMMAND\n", ""},
		{c, []string{"--help"}, 0, "Usage: prog COMMAND\n", ""},
		{c, []string{"ok", "a", "b"}, 0, "", ""},
		{c, []string{"violations"}, 1, "", ""},
		{c, []string{"helped"}, 0, "", ""},
		{c, []string{"usage"}, 2, "", "prog usage: no FILE\nRun prog usage --help for usage.\n"},
		{c, []string{"fails"}, 2, "", "prog fails: cannot read x\n"},
		{c, []string{"fails3"}, 3, "", "prog fails3: broken\n"},
		{c, []string{"fials"}, 2, "", "prog: unknown command \"fials\". Did you mean fails?\nRun prog help for the commands.\n"},
		{c, []string{"--input", "x"}, 2, "", "prog: unknown command \"--input\".\nRun prog help for the commands.\n"},
		{flags, []string{"--input", "x"}, 2, "", "prog: flags --input x\nRun prog --help for usage.\n"},
		{flags, []string{"-"}, 2, "", "prog: unknown command \"-\".\nRun prog help for the commands.\n"},
	} {
		var out, errOut strings.Builder
		code := tc.c.Run(tc.args, &out, &errOut)
		if code != tc.code || out.String() != tc.out || errOut.String() != tc.err {
			t.Errorf("%q: exit %d, out %q, err %q; want %d, %q, %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
	}
}
