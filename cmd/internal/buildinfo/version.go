// Package buildinfo says which build of an aaep-term command is running: its
// version, the commit it was built from, the Go release that built it and
// the AAEP version it speaks. All three commands answer --version and
// version with it.
package buildinfo

import (
	"fmt"
	"runtime/debug"

	"github.com/aaep-term/aaep-term/protocol"
)

// unknown stands for what the build did not record.
const unknown = "unknown"

// What scripts/build stamps at link time (-ldflags -X), for builds that
// record no version control information (go build -buildvcs=false, a
// source tree without .git): the release tag, if the commit has one, the
// commit, and "true" when the tree had local changes. Empty when not
// stamped.
var (
	stampedVersion  string
	stampedCommit   string
	stampedModified string
)

// Info is what a version request prints.
type Info struct {
	Program   string // the command's name, such as aaep-listen
	Version   string // the module version, "(devel)" for a build from a clone
	Commit    string // the VCS revision, or "unknown"
	Modified  bool   // the working tree had local changes when built
	GoVersion string
	AAEP      string // the AAEP protocol version spoken
}

// Read returns the running binary's Info: what Go recorded, completed by
// what scripts/build stamped.
func Read(program string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return FromBuildInfo(program, bi).Stamped(stampedVersion, stampedCommit, stampedModified == "true")
}

// Stamped completes i with a version and commit stamped at link time: a
// stamped version replaces a version Go could not know ("(devel)" or
// unknown), a stamped commit an unknown one. Empty stamps change nothing.
func (i Info) Stamped(version, commit string, modified bool) Info {
	if version != "" && (i.Version == unknown || i.Version == "(devel)") {
		i.Version = version
	}
	if commit != "" && i.Commit == unknown {
		i.Commit, i.Modified = commit, modified
	}
	return i
}

// Unversioned reports whether the build recorded neither a release
// version nor a commit: nothing names the source it was built from.
func (i Info) Unversioned() bool {
	return (i.Version == unknown || i.Version == "(devel)") && i.Commit == unknown
}

// FromBuildInfo returns the Info recorded in bi; bi may be nil (a binary
// built without module support), and each missing setting reads "unknown".
func FromBuildInfo(program string, bi *debug.BuildInfo) Info {
	i := Info{Program: program, Version: unknown, Commit: unknown, GoVersion: unknown, AAEP: protocol.Version}
	if bi == nil {
		return i
	}
	if bi.Main.Version != "" {
		i.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		i.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				i.Commit = s.Value
			}
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// Lines is the text printed for --version: four plain lines.
func (i Info) Lines() []string {
	commit := i.Commit
	if i.Modified && commit != unknown {
		commit += " (with local changes)"
	}
	return []string{
		fmt.Sprintf("%s version %s", i.Program, i.Version),
		"Commit: " + commit,
		"Go version: " + i.GoVersion,
		"AAEP version: " + i.AAEP,
	}
}

// Printer is the commands' sanitizing printer (term.IO), which prints one
// line per call.
type Printer interface {
	Printf(format string, a ...any)
}

// Print writes Lines to p, one call per line.
func (i Info) Print(p Printer) {
	for _, l := range i.Lines() {
		p.Printf("%s\n", l)
	}
}

// Answer prints the version of program to p (Read, Print) when args ask
// for it (Requested), and reports whether they did.
func Answer(program string, args []string, p Printer) bool {
	if !Requested(args) {
		return false
	}
	Read(program).Print(p)
	return true
}

// Requested reports whether args ask for the version: a first argument of
// version, or --version (-version) among the flags, before any "--" or
// --exec whose arguments belong to another program.
func Requested(args []string) bool {
	if len(args) > 0 && args[0] == "version" {
		return true
	}
	for _, a := range args {
		switch a {
		case "--version", "-version":
			return true
		case "--", "--exec", "-exec":
			return false
		}
	}
	return false
}
