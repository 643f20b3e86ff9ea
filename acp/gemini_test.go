package acp_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/realagent"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// gemini is Gemini CLI with a scripted model told to write the proof
// file and then to say it is finished.
func gemini(t *testing.T) realagent.Agent {
	return realagent.Gemini(t, "echo ok > proof.txt", "Write the proof file", "I am finished.")
}

// The real Gemini CLI, with a scripted model, asks before it runs a shell
// command: accept runs it (the file exists) and its answer and the end of
// the task are said; reject runs nothing, and Gemini sends no tool update.
func TestGeminiCLI(t *testing.T) {
	acceptAndReject(t, func(t *testing.T, decision string) (realagent.Agent, acp.Options, []announce.Sink, func(string)) {
		var sd *speechdtest.Daemon
		var sinks []announce.Sink
		if decision == protocol.DecisionAccept { // heard through a real speech-dispatcher too
			sd, sinks = spoken(t)
		}
		return gemini(t), acp.Options{}, sinks, func(all string) {
			switch decision {
			case protocol.DecisionAccept:
				if !strings.Contains(all, "echo ok > proof.txt: done") || !strings.Contains(all, "I am finished.") {
					t.Errorf("the completion or the answer was not said:\n%s", all)
				}
				// The capture module says punctuation its own way: "echo ok   proof txt".
				waitSpoken(t, sd, "Confirmation needed, prompt 1", "proof txt: done", "I am finished.", "is done and waiting for you")
			default:
				if strings.Contains(all, ": done") {
					t.Errorf("a completion was said after reject:\n%s", all)
				}
			}
		}
	})
}
