package transport

import (
	"slices"
	"testing"
)

// What JoinCommand is given comes back word for word from SplitCommand.
func TestJoinCommand(t *testing.T) {
	for _, argv := range [][]string{
		{"./agent"},
		{"/opt/my agent/bin", "--name", "it's", `say "hi"`, `C:\path`, "", "tab\there"},
		{"sh", "-c", "echo $HOME; exit 3"},
	} {
		got, err := SplitCommand(JoinCommand(argv))
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("%q: read back %q, %v", argv, got, err)
		}
	}
}
