package cliflag

import (
	"errors"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/internal/textout"
)

// Command is one subcommand of a program (check in "aaep-replay check
// FILE"). Run is given the arguments after its name and returns the exit
// code and the error to tell, if any: ErrHelp once the command printed its
// help, a *UsageError for a command line it cannot carry out (for these
// two the code returned does not count).
type Command struct {
	Name string
	Run  func(args []string) (int, error)
}

// Commands is a program made of subcommands: what its first argument
// names is run, and what that run returns is told and turned into the
// program's exit code, the same way for every such program.
type Commands struct {
	Program string    // "aaep-replay"
	Usage   string    // the program's help, a constant text of ours
	List    []Command // the subcommands, in the order the help names them
	// Flags, when not nil, runs a command line whose first argument is a
	// flag (aaep-replay --input FILE --visualize); without it, that is an
	// unknown command.
	Flags func(args []string) (int, error)
	// Failed is the exit code of a run that returned an error with code 0.
	Failed int
}

// Run carries out the command line args and returns the exit code. No
// argument is a usage error that prints the help on errOut; help, -h,
// -help and --help print it on out. A usage error is told with where the
// command's help is and exits ExitUsage; ErrHelp exits 0; another error is
// told and exits with the code its command returned, or Failed for 0.
func (c *Commands) Run(args []string, out, errOut io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(errOut, c.Program+": say what to do.\n\n"+c.Usage)
		return ExitUsage
	}
	var run func([]string) (int, error)
	names := make([]string, 0, len(c.List)+1)
	for _, cmd := range c.List {
		if cmd.Name == args[0] {
			run = cmd.Run
		}
		names = append(names, cmd.Name)
	}
	name, rest := c.Program+" "+args[0], args[1:]
	switch {
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Fprint(out, c.Usage)
		return 0
	case run == nil && c.Flags != nil && len(args[0]) > 1 && args[0][0] == '-':
		name, run, rest = c.Program, c.Flags, args
	case run == nil:
		textout.Fprintf(errOut, "%s\nRun %s help for the commands.\n", UnknownCommand(c.Program, args[0], append(names, "help")), c.Program)
		return ExitUsage
	}
	code, err := run(rest)
	switch {
	case errors.Is(err, ErrHelp):
		return 0
	case ExitCode(err) == ExitUsage:
		return Refuse(errOut, name, err)
	case err != nil:
		textout.Fprintf(errOut, "%s: %v\n", name, err)
		if code == 0 {
			code = c.Failed
		}
	}
	return code
}
