package cliflag

import (
	"errors"
	"flag"
	"io"
)

// ErrHelp is what ParseHelp returns once it printed the help asked for.
var ErrHelp = errors.New("help requested")

// ParseHelp parses args into fs as Parse does (flags before or after the
// operands) and returns the operands. Asked for help (-h, --help), it
// prints the help to out (PrintHelp) and returns ErrHelp.
func ParseHelp(fs *flag.FlagSet, args []string, usage string, out io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	rest, err := Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		PrintHelp(out, usage, fs)
		return nil, ErrHelp
	}
	return rest, err
}
