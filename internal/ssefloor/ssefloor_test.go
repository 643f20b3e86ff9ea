package ssefloor

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// Each gives the data lines and nothing else, whole however the stream is
// cut; Member reads a string member's value.
func TestEachAndMember(t *testing.T) {
	stream := "retry: 10\n\nid: 1\ndata: {\"type\":\"a\",\"event_id\":\"e1\"}\n\n: comment\ndata: {\"event_id\":\"e2\"}\n\n"
	var types, ids []string
	err := Each(iotest.OneByteReader(strings.NewReader(stream)), func(data []byte) {
		types = append(types, string(Member(data, `"type":"`)))
		ids = append(ids, string(Member(data, `"event_id":"`)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(types, ",") + "|" + strings.Join(ids, ","); got != "a,|e1,e2" {
		t.Errorf("got %q, want %q", got, "a,|e1,e2")
	}
	bad := errors.New("reset")
	if err := Each(iotest.ErrReader(bad), func([]byte) {}); err != bad {
		t.Errorf("Each of a failing reader: %v, want %v", err, bad)
	}
}
