package subscriber

// stderr.go: the lines a spawned producer writes on its standard error.
// Most are its log; only those that say something went wrong are warnings.

import (
	"regexp"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// problemWords finds the words of a log line that reports a problem.
var problemWords = regexp.MustCompile(`(?i)\b(?:error|errors|warn|warning|fail|failed|failure|fatal|panic|exception|denied|refused|cannot|can't|could not|unable)\b`)

// producerLog reads a transport problem note carrying a line of the
// producer's standard error: when the line reports no problem, it returns
// the line as a quiet status says it, and true. Any other note is false.
func producerLog(text string) (string, bool) {
	line, ok := strings.CutPrefix(text, transport.ProducerSays)
	if !ok || problemWords.MatchString(line) {
		return "", false
	}
	return "The producer's log: " + protocol.Theirs(line), true
}
