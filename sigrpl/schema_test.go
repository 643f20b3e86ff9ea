package sigrpl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The published schema accepts what Wrap and Offer make, and the header
// Sign writes, and refuses a private key in an offer.
func TestPublishedSchema(t *testing.T) {
	const path = "../docs/schemas/sigrpl.signed.reply.schema.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	compile := func(ref string) *jsonschema.Schema {
		t.Helper()
		s, err := c.Compile(path + ref)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	valid := func(s *jsonschema.Schema, raw []byte) error {
		t.Helper()
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		return s.Validate(v)
	}
	k := genKey(t)
	msg, err := k.Wrap(body, aud, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := valid(compile(""), msg); err != nil {
		t.Errorf("wrapped reply: %v", err)
	}
	o, _ := k.Offer()
	offer, _ := json.Marshal(o)
	if err := valid(compile("#/$defs/offer"), offer); err != nil {
		t.Errorf("offer: %v", err)
	}
	sig, _ := k.SignDetached(body, aud, now)
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(sig, ".")[0])
	if err := valid(compile("#/$defs/protectedHeader"), hdr); err != nil {
		t.Errorf("protected header %s: %v", hdr, err)
	}
	private := bytes.Replace(offer, []byte(`"kty"`), []byte(`"d":"AAAA","kty"`), 1)
	if err := valid(compile("#/$defs/offer"), private); err == nil {
		t.Error("an offer with a private key passed the schema")
	}
	if err := valid(compile(""), []byte(`{"type":"sigrpl:signed.reply","jws":"a..c"}`)); err == nil {
		t.Error("a detached JWS passed as a wrapped reply")
	}
}
