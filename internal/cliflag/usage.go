package cliflag

import (
	"errors"
	"fmt"
)

// Exit statuses the commands share.
const (
	ExitFailed = 1 // the run failed: unreachable, refused, …
	ExitUsage  = 2 // the command line asks for something that cannot be done
)

// UsageError is an error in how the command was called (a flag, a
// combination of flags, an endpoint that names nothing), found before or
// after the flags are parsed. The commands exit with status 2 for it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks err as a usage error; nil stays nil.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// Usagef is a new usage error, formatted as fmt.Errorf does.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// ExitCode is the exit status for a run that ended with err: 0 for nil, 2
// for a UsageError anywhere in its chain, 1 otherwise.
func ExitCode(err error) int {
	var u *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return ExitUsage
	}
	return ExitFailed
}
