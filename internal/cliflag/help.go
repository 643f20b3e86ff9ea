package cliflag

import (
	"flag"
	"fmt"
	"io"
)

// PrintHelp writes a command's help to w: usage, a constant text of ours,
// then fs's flags with their defaults.
func PrintHelp(w io.Writer, usage string, fs *flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}
