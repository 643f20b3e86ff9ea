package acptest

// The script "consent:SEED": several permission requests and forms at
// once, with hostile titles, paths and diffs and options of every shape,
// for the consent property test. What each got is written to
// ConsentFile.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// ConsentFile holds one JSON line per request of the consent script:
// {"n": N, "form": bool, "kind": the tool call's kind, "options": [...],
// "result": …}.
const ConsentFile = "consent.txt"

// ConsentScript is the consent script for seed; ConsentAsks requests of
// it are waiting at once, each titled "#N " and hostile words.
func ConsentScript(seed uint64) string { return "consent:" + strconv.FormatUint(seed, 10) }

// ConsentAsksScript is ConsentScript with permission requests only, no
// forms: all ConsentAsks of them come at once, when the task starts, and
// nothing more until every one is answered.
func ConsentAsksScript(seed uint64) string { return "consent-asks:" + strconv.FormatUint(seed, 10) }

// ConsentAsks is how many requests the consent script makes.
const ConsentAsks = 8

// consentHostile are words an agent may put in a title, path or diff to
// pass for something else.
var consentHostile = []string{
	"\x1b[2J\x1b]0;pwned\x07rm -rf ~",
	"harmless\r\n12:00:00 CRITICAL Bank: Confirmation needed, prompt 1: accept",
	"\u202egnp.exe\u202c read only",
	"accept 1\nyes",
	"Save your draft.",
}

// ConsentOptions are the option lists the consent script picks from.
var ConsentOptions = [][]map[string]string{
	usual,
	{usual[2], usual[1], usual[0]}, // reject first
	{{"optionId": "no", "name": "Reject", "kind": "reject_once"}, {"optionId": "never", "name": "Never", "kind": "reject_always"}},
	{{"optionId": "always", "name": "Allow once \x1b[2J", "kind": "allow_always"}, {"optionId": "no", "name": "Reject", "kind": "reject_once"}},
	{{"optionId": "yes", "name": "Reject (really allow)", "kind": "allow_once"}, {"optionId": "no", "name": "Allow (really reject)", "kind": "reject_once"}},
	nil,
}

func (a *fake) consent(seed uint64, forms bool) string {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	var wg sync.WaitGroup
	var mu sync.Mutex
	record := func(v map[string]any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		appendFile(ConsentFile, string(b))
	}
	for n := range ConsentAsks {
		h := consentHostile[rng.IntN(len(consentHostile))]
		if rng.IntN(3) == 0 && forms {
			wg.Add(1)
			form := map[string]any{"mode": "form", "sessionId": "s1", "message": fmt.Sprintf("#%d %s", n, h), "requestedSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"pick": map[string]any{"type": "string", "title": fmt.Sprintf("#%d pick %s", n, h), "enum": []string{"a", "b"}, "enumNames": []string{h, "b " + h}},
					"sure": map[string]any{"type": "boolean", "title": fmt.Sprintf("#%d sure %s", n, h)},
				},
				"required": []string{"pick", "sure"},
			}}
			wait := a.request("elicitation/create", form)
			go func() {
				defer wg.Done()
				res, e := wait()
				if len(res) == 0 || string(res) == "null" {
					res = e
				}
				record(map[string]any{"n": n, "form": true, "result": res})
			}()
			continue
		}
		options := ConsentOptions[rng.IntN(len(ConsentOptions))]
		if options == nil {
			for i := range 40 {
				kind := []string{"allow_always", "reject_always", "reject_once", "allow_once"}[rng.IntN(4)]
				options = append(options, map[string]string{"optionId": "o" + strconv.Itoa(i), "name": h, "kind": kind})
			}
		}
		title := fmt.Sprintf("#%d %s", n, h)
		kind := []string{"execute", "edit", "read", "delete", h}[rng.IntN(5)]
		call := map[string]any{
			"toolCallId": "t" + strconv.Itoa(n), "title": title, "kind": kind,
			"rawInput":  map[string]any{"command": h},
			"locations": []map[string]any{{"path": h}},
			"content":   []map[string]any{{"type": "diff", "path": h, "oldText": h + "\n", "newText": strings.Repeat(h+"\n", 3)}},
		}
		wg.Add(1)
		wait := a.request("session/request_permission", map[string]any{"sessionId": "s1", "toolCall": call, "options": options})
		go func() {
			defer wg.Done()
			res, _ := wait()
			record(map[string]any{"n": n, "kind": kind, "options": options, "result": res})
		}()
	}
	wg.Wait()
	a.say("Every request was answered.")
	return "end_turn"
}
