package aaeppb

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestWireFormat pins the field numbers and types of appendix B.5: json is
// field 1 (bytes, tag 0x0a), message_type field 2 (string, tag 0x12). The
// expected bytes are encoded by hand, not by the generated code.
func TestWireFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  proto.Message
		want []byte
	}{
		{"json and type", &AaepMessage{Json: []byte(`{}`), MessageType: "x"}, []byte{0x0a, 2, '{', '}', 0x12, 1, 'x'}},
		{"json only", &AaepMessage{Json: []byte(`{}`)}, []byte{0x0a, 2, '{', '}'}},
		{"manifest", &Manifest{Json: []byte(`{}`)}, []byte{0x0a, 2, '{', '}'}},
		{"manifest request", &GetManifestRequest{}, nil},
	} {
		got, err := proto.MarshalOptions{Deterministic: true}.Marshal(tc.msg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: encoded % x, want % x", tc.name, got, tc.want)
		}
	}
	var m AaepMessage
	if err := proto.Unmarshal([]byte{0x12, 1, 'y', 0x0a, 1, '['}, &m); err != nil || string(m.Json) != "[" || m.MessageType != "y" {
		t.Errorf("decoding a hand-encoded message gave %v, %v", &m, err)
	}
}
