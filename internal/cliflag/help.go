package cliflag

import (
	"flag"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/internal/textout"
)

// PrintHelp writes a command's help to w: usage, a constant text of ours,
// then fs's flags with their defaults.
func PrintHelp(w io.Writer, usage string, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// Refuse tells on w (standard error) why the command line of program
// (such as "aaep-listen manifest") cannot be carried out, and where its
// help is. It returns ExitUsage, the exit code.
func Refuse(w io.Writer, program string, err error) int {
	textout.Fprintf(w, "%s: %v\nRun %s --help for usage.\n", program, err, program)
	return ExitUsage
}
