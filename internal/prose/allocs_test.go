package prose

import "testing"

// Join builds its text in one allocation, whatever sentences need a stop.
func TestJoinAllocations(t *testing.T) {
	if a := testing.AllocsPerRun(200, func() {
		_ = Join("Progress: step 3 of 9", "\u2068Fetching the report,\u2069", "Done.")
	}); a > 1 {
		t.Errorf("Join allocates %v times, want 1", a)
	}
}
