package line

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/command"
)

// Read gives the commands of every line, the last one without its newline
// too, in order, and closes at the end.
func TestRead(t *testing.T) {
	var got []command.Command
	for c := range Read(strings.NewReader("accept 1\r\n\nanswer 2 blue\nquit")) {
		got = append(got, c)
	}
	want := []command.Command{command.Parse("accept 1"), command.Parse(""), command.Parse("answer 2 blue"), command.Parse("quit")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, ok := <-Read(nil); ok {
		t.Error("Read(nil) sent a command")
	}
}
