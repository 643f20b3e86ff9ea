package capture

import "testing"

// One connection of several is found by label or ID, the first when none
// is named, and its records are kept apart from the others'.
func TestFindConnection(t *testing.T) {
	t.Parallel()
	cs := []Connection{{ID: "c1", Label: "mail", Endpoint: "http://a/"}, {ID: "c2", Label: "code", Endpoint: "http://b/"}}
	for name, want := range map[string]string{"": "c1", "code": "c2", "c1": "c1"} {
		if c, ok := FindConnection(cs, name); !ok || c.ID != want {
			t.Errorf("FindConnection(%q) = %s, %v; want %s", name, c.ID, ok, want)
		}
	}
	if _, ok := FindConnection(cs, "browser"); ok {
		t.Error("FindConnection found an agent the capture does not hold")
	}
	if got := ConnectionNames(cs); got != "mail, code" {
		t.Errorf("ConnectionNames = %q", got)
	}
	recs := RecordsOf([]Record{{Conn: "c1", Line: 2}, {Conn: "c2", Line: 3}, {Conn: "c1", Line: 4}}, "c1")
	if len(recs) != 2 || recs[0].Line != 2 || recs[1].Line != 4 {
		t.Errorf("RecordsOf = %+v", recs)
	}
}
