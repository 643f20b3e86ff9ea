package protocol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
)

// TestTwoShapesTwoTemplates: a type whose messages come in two shapes of
// the same length (the check's agent.tool.invoked: fetch and search, the
// tool, its arguments and the extensions' padding of other lengths) keeps
// a template of each, twins, and its messages patch the one of their
// shape, each decoded as a fresh decoder decodes it. With one template a
// type, the messages of the other shape scan their changed values and
// patch nothing.
func TestTwoShapesTwoTemplates(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	var fetch, search []byte
	for i := 40_000; fetch == nil || search == nil; i++ {
		m := capturetest.ToolEvent(i)
		switch {
		case strings.Contains(string(m), `"tool":"fetch"`) && strings.Contains(string(m), "tool.invoked"):
			fetch = m
		case strings.Contains(string(m), `"tool":"search"`):
			search = m
		}
	}
	if len(fetch) != len(search) {
		t.Fatalf("shapes of %d and %d bytes", len(fetch), len(search))
	}
	// Two shapes in turn, in runs of 1 to 3, their event IDs and call IDs
	// changed at the same length.
	n, i := 0, 0
	decode := func(m []byte) {
		t.Helper()
		i++
		in := strings.Replace(string(m), `"event_id":"evt_`, fmt.Sprintf(`"event_id":"evt_%04d`, i), 1)
		in = strings.Replace(in, `"tool_call_id":"call_`, fmt.Sprintf(`"tool_call_id":"call_%04d`, i), 1)
		in = in[:len(in)-len(`pppppppp"}}}`)] + `"}}}` // the same length as before
		if _, err := agree(t, &d, []byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		n++
	}
	for run := range 60 {
		for _, m := range [][]byte{fetch, search} {
			for range 1 + run%3 {
				decode(m)
			}
		}
	}
	if d.made > 2 || d.templated < n-2 {
		t.Errorf("%d messages of two shapes: %d templates made, %d messages taken from one", n, d.made, d.templated)
	}
	var tw int
	for _, tp := range d.templates {
		if tp != nil && tp.twin != nil {
			if tp.twin.twin != tp {
				t.Fatal("a twin's twin is not the template")
			}
			if tp.stale >= maxStale || !tp.patched {
				t.Errorf("a twin not patched by the messages of its shape (stale %d)", tp.stale)
			}
			tw++
		}
	}
	if tw != 2 {
		t.Errorf("%d templates with a twin, want 2", tw)
	}
	// One shape gone: its twin goes after maxStale messages of the other.
	for range maxStale {
		decode(fetch)
	}
	for _, tp := range d.templates {
		if tp != nil && tp.twin != nil {
			t.Errorf("a twin kept after %d messages of the other shape", maxStale)
		}
	}
	for range 2 {
		decode(search)
	}
	// A third shape (a summary of another length in each message): the
	// twins patch nothing, one goes after maxStale of them, its twin stays.
	for k := range 2 * maxStale {
		i++
		in := strings.Replace(string(fetch), `"Fetching the report."`, `"Fetching `+strings.Repeat("x", k%7)+`"`, 1)
		in = strings.Replace(in, `"event_id":"evt_`, fmt.Sprintf(`"event_id":"evt_%04d`, i), 1)
		if _, err := agree(t, &d, []byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
	for _, tp := range d.templates {
		if tp != nil && tp.twin != nil {
			t.Errorf("twins kept after %d messages that patched neither", 2*maxStale)
		}
	}
}

// TestTwinsPushOutNoTemplate: a type's second shape is no twin when the
// templates are full: the other types' templates stay.
func TestTwinsPushOutNoTemplate(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	var kinds []string
	for k := range nTemplates - 1 {
		kinds = append(kinds, strings.Replace(typical, `"aaep:agent.tool.invoked"`, fmt.Sprintf(`"acme:agent.custom.kind%02d"`, k), 1))
	}
	kinds = append(kinds, typical)
	long := strings.Replace(typical, `"tool":"`, `"tool":"x`, 1)
	i := 0
	decode := func(m string) {
		t.Helper()
		i++
		in := strings.Replace(m, `"event_id":"evt_`, fmt.Sprintf(`"event_id":"evt_%04d`, i), 1)
		if _, err := agree(t, &d, []byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
	for _, m := range kinds {
		decode(m)
		decode(m)
	}
	made := d.made
	for range 4 {
		decode(typical)
		decode(long)
	}
	for _, tp := range d.templates {
		if tp == nil || tp.twin != nil {
			t.Fatalf("a twin in full templates")
		}
	}
	if d.made != made {
		t.Errorf("%d templates made", d.made-made)
	}
	for _, m := range kinds {
		decode(m)
	}
	if d.made != made {
		t.Errorf("%d templates made again", d.made-made)
	}
}
