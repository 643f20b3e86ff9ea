package main

// exec.go: --exec CMD ARGS…, a producer started as a child and spoken to
// over stdio, as an exec: endpoint is.

import (
	"errors"
	"strings"
)

// cutExec splits args at the first --exec (or -exec): what follows is the
// producer's command line, nil when there is no --exec.
func cutExec(args []string) (flags, argv []string) {
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

// execEndpoint adds the exec: endpoint for argv to the endpoints given as
// arguments, refusing a second endpoint.
func execEndpoint(argv, rest []string, connect string) ([]string, error) {
	if argv == nil {
		return rest, nil
	}
	if len(argv) == 0 {
		return nil, errors.New("--exec needs the producer's command after it, as in --exec ./my-agent --stdio")
	}
	if len(rest) > 0 || connect != "" {
		return nil, errors.New("give the endpoint once: --exec takes the place of the ENDPOINT argument and --connect")
	}
	return []string{"exec:" + quoteCommand(argv)}, nil
}

// quoteCommand writes argv as an exec: command line that
// transport.SplitCommand reads back word for word.
func quoteCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w == "" {
			words[i] = `""`
			continue
		}
		var b strings.Builder
		for _, r := range w {
			switch r {
			case ' ', '\t', '\'', '"', '\\':
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}
