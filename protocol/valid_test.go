package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, s := range []string{
		``, ` `, `{}`, ` {"a":[1,-2.5e+3,true,false,null,"\u00e9\n"]} `, `"x"`, `0`, `-0`, `01`, `1.`, `.5`, `1e`, `[1,]`, `{"a":1,}`,
		`{"a" 1}`, `{"a":1}x`, `{"a":1}` + "\x00", `"` + "\x00" + `"`, `"\x"`, `"\u12g4"`, `"\ud800"`, "\"\xff\"", `nul`, `truex`,
		`[` + "\t\r\n" + `]`, "\u00a0{}", deep(maxValidDepth), deep(maxValidDepth + 1), `{"a":{"b":[{"c":"` + strings.Repeat("é\"", 1) + `}]}}`,
	} {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.40q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

// FuzzValid: Valid and encoding/json.Valid agree on every input, so a
// reader may use either.
func FuzzValid(f *testing.F) {
	for _, s := range []string{typical, `{}`, `[1,{"a":"\ud800"}]`, "\"\xff\"", `{"a":1} `, `{"a":1}` + "\x00", `1e+`, `"\u00e`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}
