package conform

import "strconv"

// allOf begins a sentence about every one of n things: "The one session
// seen", "All 3 sessions seen" (one and many name the thing, in the
// singular and the plural).
func allOf(n int, one, many string) string {
	if n == 1 {
		return "The one " + one
	}
	return "All " + strconv.Itoa(n) + " " + many
}
