package cliflag

// exec.go: --exec COMMAND ARGS…, a producer started as a child and spoken
// to over stdio, as an exec: endpoint is.

import (
	"errors"

	"github.com/aaep-term/aaep-term/transport"
)

// CutExec splits args at the first --exec (or -exec) before any "--": what
// follows is the producer's command line, nil when there is no --exec.
func CutExec(args []string) (flags, argv []string) {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--exec" || a == "-exec" {
			return args[:i:i], append([]string{}, args[i+1:]...)
		}
	}
	return args, nil
}

// ExecEndpoint adds the exec: endpoint for argv (from CutExec) to the
// endpoints given as arguments, rest, refusing a second endpoint (one in
// rest, or connect, --connect's).
func ExecEndpoint(argv, rest []string, connect string) ([]string, error) {
	if argv == nil {
		return rest, nil
	}
	if len(argv) == 0 {
		return nil, errors.New("--exec needs the producer's command after it, as in --exec ./my-agent --stdio")
	}
	if len(rest) > 0 || connect != "" {
		return nil, errors.New("give the endpoint once: --exec takes the place of the ENDPOINT argument and --connect")
	}
	return []string{"exec:" + transport.JoinCommand(argv)}, nil
}
