package cliflag

import (
	"slices"
	"testing"
)

func TestOrigins(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"none", nil, false},
		{"*", []string{"*"}, false},
		{"http://localhost:3000, https://app.example", []string{"http://localhost:3000", "https://app.example"}, false},
		{"http://localhost:3000/", []string{"http://localhost:3000"}, false},
		{"http://localhost:3000/app", nil, true},
		{"localhost:3000", nil, true},
		{"ftp://x", nil, true},
	} {
		var o Origins
		err := o.Set(tc.in)
		if (err != nil) != tc.bad || !tc.bad && !slices.Equal(o.List, tc.want) {
			t.Errorf("Set(%q) = %v, %v", tc.in, o.List, err)
		}
	}
}
