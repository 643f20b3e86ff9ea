package line

import (
	"bufio"
	"io"
	"strings"

	"github.com/aaep-term/aaep-term/command"
)

// Read reads r a line at a time and sends each line as the command
// command.Parse makes of it, in order; the channel closes at the end of r
// (at once when r is nil). It stops reading while nobody takes the last
// command.
func Read(r io.Reader) <-chan command.Command {
	ch := make(chan command.Command)
	if r == nil {
		close(ch)
		return ch
	}
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			s, err := br.ReadString('\n')
			if s != "" {
				ch <- command.Parse(strings.TrimRight(s, "\r\n"))
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}
