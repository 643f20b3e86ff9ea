package command

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Command
	}{
		{"accept", Command{Verb: VerbAccept, Word: "accept", Arg: "accept"}},
		{"  A 2 ", Command{Verb: VerbAccept, Prompt: 2, Word: "a", Arg: "A 2"}},
		{"yes", Command{Verb: VerbAccept, Word: "yes", Arg: "yes"}},
		{"reject 3", Command{Verb: VerbReject, Prompt: 3, Word: "reject", Arg: "reject 3"}},
		{"no", Command{Verb: VerbReject, Word: "no", Arg: "no"}},
		{"no thanks, use savings", Command{Verb: VerbText, Arg: "no thanks, use savings"}},
		{"answer 2 the blue one", Command{Verb: VerbAnswer, Prompt: 2, Arg: "the blue one", Word: "answer"}},
		{"answer savings", Command{Verb: VerbAnswer, Arg: "savings", Word: "answer"}},
		{"pending", Command{Verb: VerbPending, Word: "pending"}},
		{"details 1", Command{Verb: VerbDetails, Prompt: 1, Word: "details"}},
		{"?", Command{Verb: VerbDetails, Word: "?"}},
		{"HELP", Command{Verb: VerbHelp, Word: "help"}},
		{"quit", Command{Verb: VerbQuit, Word: "quit"}},
		{"2", Command{Verb: VerbText, Arg: "2"}},
		{"", Command{Verb: VerbEmpty}},
		{"set rate 2", Command{Verb: VerbSet, Word: "rate", Arg: "2"}},
		{"SET Verbosity  terse ", Command{Verb: VerbSet, Word: "verbosity", Arg: "terse"}},
		{"set lang yo,en", Command{Verb: VerbSet, Word: "lang", Arg: "yo,en"}},
		{"set include agent.tool.*, agent.session.*", Command{Verb: VerbSet, Word: "include", Arg: "agent.tool.*, agent.session.*"}},
		{"set exclude aaep:agent.progress.updated", Command{Verb: VerbSet, Word: "exclude", Arg: "aaep:agent.progress.updated"}},
		{"set", Command{Verb: VerbSet}},
		{"set rate 2 for mail", Command{Verb: VerbSet, Word: "rate", Arg: "2", Agent: "mail"}},
		{"set include agent.tool.* FOR code", Command{Verb: VerbSet, Word: "include", Arg: "agent.tool.*", Agent: "code"}},
		{"set verbosity terse for", Command{Verb: VerbSet, Word: "verbosity", Arg: "terse for"}},
		{"agents", Command{Verb: VerbAgents, Word: "agents"}},
		{"agents mail", Command{Verb: VerbText, Arg: "agents mail"}},
		{"mute mail", Command{Verb: VerbMute, Word: "mute", Agent: "mail"}},
		{"tell fix the bug", Command{Verb: VerbTell, Word: "tell", Arg: "fix the bug"}},
		{"tell", Command{Verb: VerbText, Arg: "tell"}},
		{"cancel", Command{Verb: VerbCancel, Word: "cancel"}},
		{"cancel code", Command{Verb: VerbCancel, Word: "cancel", Agent: "code"}},
		{"cancel my order now", Command{Verb: VerbText, Arg: "cancel my order now"}},
		{"Unmute mail", Command{Verb: VerbUnmute, Word: "unmute", Agent: "mail"}},
		{"only code", Command{Verb: VerbOnly, Word: "only", Agent: "code"}},
		{"mute", Command{Verb: VerbText, Arg: "mute"}},
		{"only the red one", Command{Verb: VerbText, Arg: "only the red one"}},
		{"all", Command{Verb: VerbAll, Word: "all"}},
		{"all of them", Command{Verb: VerbText, Arg: "all of them"}},
		{"quit mail", Command{Verb: VerbQuit, Word: "quit", Agent: "mail"}},
		{"quit now please", Command{Verb: VerbText, Arg: "quit now please"}},
		{"accept 0", Command{Verb: VerbText, Arg: "accept 0"}},
		{"accept always 2", Command{Verb: VerbAccept, Prompt: 2, Word: "accept", Always: true}},
		{"R Always", Command{Verb: VerbReject, Word: "r", Always: true}},
		{"no always ever", Command{Verb: VerbText, Arg: "no always ever"}},
		{"always accept 2", Command{Verb: VerbText, Arg: "always accept 2"}},
		{"accept 2 because the amount is right", Command{Verb: VerbAccept, Prompt: 2, Word: "accept", Arg: "accept 2 because the amount is right", Rationale: "the amount is right"}},
		{"no BECAUSE  too much ", Command{Verb: VerbReject, Word: "no", Arg: "no BECAUSE  too much", Rationale: "too much"}},
		{"reject 1 because", Command{Verb: VerbText, Arg: "reject 1 because"}},
		{"yes please", Command{Verb: VerbText, Arg: "yes please"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.in); got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
