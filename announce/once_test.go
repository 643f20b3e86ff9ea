package announce

import "testing"

func TestOnce(t *testing.T) {
	o, c := markOpen, markClose
	for _, tc := range []struct{ in, want string }{
		{"Risk: high. This cannot be undone. " + o + "Pay now? This cannot be undone." + c + " If not, reject.",
			"Risk: high. This cannot be undone. " + o + "Pay now?" + c + " If not, reject."},
		{"A. " + o + "A." + c + " B.", "A. B."},
		{o + "X. Y." + c + " " + o + "y. Z." + c, o + "X. Y." + c + " " + o + "Z." + c},
		{"No repeat here. None.", "No repeat here. None."},
		{"Same. same! Other.", "Same. Other."},
		{"Consequence: " + o + "It is gone." + c + " " + o + "Sure? It is gone." + c, "Consequence: " + o + "It is gone." + c + " " + o + "Sure?" + c},
	} {
		if got := once(tc.in); got != tc.want {
			t.Errorf("once(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
