package line

import (
	"reflect"
	"strings"
	"testing"
)

// Read gives the commands of every line, the last one without its newline
// too, in order, and closes at the end.
func TestRead(t *testing.T) {
	var got []Command
	for c := range Read(strings.NewReader("accept 1\r\n\nanswer 2 blue\nquit")) {
		got = append(got, c)
	}
	want := []Command{Parse("accept 1"), Parse(""), Parse("answer 2 blue"), Parse("quit")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, ok := <-Read(nil); ok {
		t.Error("Read(nil) sent a command")
	}
}
