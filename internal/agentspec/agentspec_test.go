package agentspec

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, label, endpoint string
		err                 bool
	}{
		{"http://127.0.0.1:8080", "", "http://127.0.0.1:8080", false},
		{"mail=http://127.0.0.1:8081", "mail", "http://127.0.0.1:8081", false},
		{"code_2=ws://h/aaep/v1/ws", "code_2", "ws://h/aaep/v1/ws", false},
		{"A-b=unix:/run/aaep/x.sock", "A-b", "unix:/run/aaep/x.sock", false},
		{"http://h/?token=x", "", "http://h/?token=x", false},
		{"file:a=b.aaep", "", "file:a=b.aaep", false},
		{"./a=b", "", "./a=b", false},
		{"mail=", "", "", true},
		{"=http://h", "", "=http://h", false},
		{"ma il=http://h", "", "ma il=http://h", false},
		{"mail=a=b", "mail", "a=b", false},
		{"-", "", "-", false},
		{"é=http://h", "", "é=http://h", false},
	} {
		s, err := Parse(tt.in)
		if (err != nil) != tt.err || s.Label != tt.label || s.Endpoint != tt.endpoint {
			t.Errorf("Parse(%q) = %+v, %v; want %q %q (error %v)", tt.in, s, err, tt.label, tt.endpoint, tt.err)
		}
	}
}

func TestParseAllRefusesTwins(t *testing.T) {
	if _, err := ParseAll([]string{"a=http://x", "http://y", "a=http://z"}); err == nil {
		t.Error("two agents with one label were accepted")
	}
	s, err := ParseAll([]string{"a=http://x", "http://y"})
	if err != nil || len(s) != 2 || s[1].Label != "" {
		t.Errorf("%+v, %v", s, err)
	}
}

func TestValidLabel(t *testing.T) {
	long := string(make([]byte, MaxLabel+1))
	for _, s := range []string{"", "a b", "a.b", "a:b", "a\x1b", long} {
		if ValidLabel(s) {
			t.Errorf("ValidLabel(%q) is true", s)
		}
	}
}

// One rule for both commands: a label given twice in another letter case
// is the same label (aaep-listen's commands name agents in any case).
func TestParseAllLabelCase(t *testing.T) {
	if _, err := ParseAll([]string{"mail=http://a", "MAIL=http://b"}); err == nil {
		t.Error("mail and MAIL taken as two labels")
	}
	if err := CheckLabel("a\u202eb"); err == nil || strings.ContainsRune(err.Error(), '\u202e') {
		t.Errorf("CheckLabel: %v", err)
	}
}
