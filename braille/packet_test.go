package braille

import (
	"bytes"
	"testing"
)

func TestKeyDecoding(t *testing.T) {
	if c, ok := Key(0x20010003).Route(); !ok || c != 3 {
		t.Fatalf("ROUTE 3: %d %v", c, ok)
	}
	if !Key(0x20000018).is(cmdFWINRT) || !Key(0x20000017).is(cmdFWINLT) || Key(0x20000002).is(cmdFWINRT) {
		t.Fatal("window keys misread")
	}
	if _, _, ok := Key(0x0000ff0d).Command(); ok {
		t.Fatal("a character key read as a command")
	}
	if !Key(0x20000002 | 1<<40).is(cmdLNDN) {
		t.Fatal("flags in the upper half hide the command")
	}
}

func TestReadPacket(t *testing.T) {
	p, err := readPacket(bytes.NewReader(encodePacket(typeSize, []byte{0, 0, 0, 40, 0, 0, 0, 1})))
	if err != nil || p.Type != typeSize || len(p.Payload) != 8 {
		t.Fatalf("%+v %v", p, err)
	}
	big := []byte{0, 0, 0x10, 0x01, 0, 0, 0, 'w'}
	if _, err := readPacket(bytes.NewReader(big)); err == nil {
		t.Fatal("oversized packet accepted")
	}
	if _, err := readPacket(bytes.NewReader([]byte{0, 0, 0, 9, 0, 0, 0, 'k', 1})); err == nil {
		t.Fatal("short packet accepted")
	}
}

func TestOptionsAddress(t *testing.T) {
	for host, want := range map[string]string{"": "unix /var/lib/BrlAPI/0", ":17": "unix /var/lib/BrlAPI/17", "box": "tcp box:4101", "box:3": "tcp box:4104", "127.0.0.1:0": "tcp 127.0.0.1:4101"} {
		n, a, err := Options{Host: host}.address()
		if err != nil || n+" "+a != want {
			t.Errorf("address(%q) = %s %s %v, want %s", host, n, a, err, want)
		}
	}
	if _, _, err := (Options{Host: ":x"}).address(); err == nil {
		t.Error("bad host accepted")
	}
	o := OptionsFromEnv(func(k string) string { return map[string]string{"BRLAPI_HOST": ":5", "BRLAPI_AUTH": "keyfile:/k"}[k] })
	if o.Host != ":5" || o.KeyFile != "/k" {
		t.Errorf("OptionsFromEnv = %+v", o)
	}
}

func FuzzReadPacket(f *testing.F) {
	f.Add(encodePacket(typeKey, []byte{0, 0, 0, 0, 0x20, 1, 0, 3}))
	f.Add(encodePacket(typeAuth, []byte{0, 0, 0, 'N', 0, 0, 0, 'K'}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 'v'})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		for {
			p, err := readPacket(r)
			if err != nil {
				return
			}
			if len(p.Payload) > maxPacket {
				t.Fatalf("payload of %d bytes", len(p.Payload))
			}
			if !bytes.Equal(encodePacket(p.Type, p.Payload)[8:], p.Payload) {
				t.Fatal("re-encoding changed the payload")
			}
			_ = errorCode(p)
		}
	})
}
