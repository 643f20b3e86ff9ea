package session

import "testing"

// Two engines sharing one Numbers number their prompts uniquely across
// them, and each answers only its own numbers.
func TestSharedNumbersUniqueAcrossEngines(t *testing.T) {
	nums := Numbers()
	a, _ := newTest(Config{ReorderWait: wait, Numbers: nums})
	b, _ := newTest(Config{ReorderWait: wait, Numbers: nums})
	a.Handle(ev("s", 0, "session.started"), t0)
	b.Handle(ev("s", 0, "session.started"), t0)
	a.Handle(confirmation("s", 1, "a1"), t0)
	b.Handle(confirmation("s", 1, "b1"), t0)
	a.Handle(confirmation("s", 2, "a2"), t0)
	a.Tick(at(1))
	b.Tick(at(1))
	seen := map[int]string{}
	for name, e := range map[string]*Engine{"a": a, "b": b} {
		for _, p := range e.Pending() {
			if other, dup := seen[p.Number]; dup {
				t.Fatalf("prompt %d numbered in engine %s and engine %s", p.Number, other, name)
			}
			seen[p.Number] = name
		}
	}
	if len(seen) != 3 {
		t.Fatalf("want 3 prompts numbered, got %v", seen)
	}
	for n, owner := range seen {
		other := b
		if owner == "b" {
			other = a
		}
		if _, err := other.Confirm(n, "reject", at(1)); err == nil {
			t.Errorf("prompt %d of engine %s was answered through the other engine", n, owner)
		}
	}
}
