package cliflag

import (
	"flag"
	"strings"
)

// Parse parses args into fs, letting flags and operands come in any order
// ("check a.aaep --json b.aaep"), and returns the operands in order. After
// a "--" that stands where a flag could, every argument is an operand, even
// one that starts with a dash. The error is fs.Parse's: flag.ErrHelp for -h
// or --help, which the caller answers with its usage, or a UsageError.
//
// fs should be made with flag.ContinueOnError and its output discarded: the
// caller says what went wrong.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, Usage(err)
		}
		rest := fs.Args()
		if terminated(fs, args, len(args)-len(rest)) {
			return append(operands, rest...), nil
		}
		if len(rest) == 0 {
			return operands, nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// terminated reports whether fs.Parse stopped at a "--" terminator: the
// last of the used arguments of args is "--" and is not the value of the
// flag before it.
func terminated(fs *flag.FlagSet, args []string, used int) bool {
	if used == 0 || args[used-1] != "--" {
		return false
	}
	if used < 2 {
		return true
	}
	name, isFlag := strings.CutPrefix(args[used-2], "-")
	name = strings.TrimPrefix(name, "-")
	if !isFlag || name == "" || strings.Contains(name, "=") {
		return true
	}
	f := fs.Lookup(name)
	if f == nil {
		return true
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag() // a flag that takes no value: "--" ended the flags
}
