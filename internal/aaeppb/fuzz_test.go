package aaeppb

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
)

// FuzzAaepMessage: whatever bytes a producer sends as an AaepMessage, the
// decoding either fails or gives a message that encodes and decodes again
// to the same JSON and type, and carries no more JSON than was sent.
func FuzzAaepMessage(f *testing.F) {
	f.Add([]byte{0x0a, 2, '{', '}', 0x12, 1, 'x'})
	f.Add([]byte{0x0a, 2, '{', '}', 0x0a, 1, '['}) // field 1 twice: the last wins
	f.Add([]byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x10})
	f.Add([]byte{0x1a, 3, 1, 2, 3, 0x0a, 0}) // an unknown field, then empty JSON
	f.Add([]byte{0x12, 2, 0xff, 0xfe})       // a type that is not UTF-8
	f.Fuzz(func(t *testing.T, b []byte) {
		var m AaepMessage
		if err := proto.Unmarshal(b, &m); err != nil {
			return
		}
		if len(m.Json) > len(b) {
			t.Fatalf("decoded %d bytes of JSON from %d bytes", len(m.Json), len(b))
		}
		again, err := proto.Marshal(&m)
		if err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
		var m2 AaepMessage
		if err := proto.Unmarshal(again, &m2); err != nil {
			t.Fatalf("re-encoded message does not decode: %v", err)
		}
		if !bytes.Equal(m.Json, m2.Json) || m.MessageType != m2.MessageType {
			t.Fatalf("round trip changed the message: %q/%q to %q/%q", m.Json, m.MessageType, m2.Json, m2.MessageType)
		}
	})
}
