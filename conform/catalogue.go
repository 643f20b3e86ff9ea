package conform

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Catalogue is every test the suite has: the producer tests, then the
// subscriber tests, each in the order it runs.
func Catalogue() []Test {
	return append(append([]Test{}, ProducerTests()...), SubscriberTests()...)
}

// CatalogueHash is the SHA-256 (hex) of the catalogue's canonical JSON
// (Canonical): it changes when a test is added, removed, renamed, moved to
// another level or section, or its requirement is reworded. A receipt names
// it, so a verifier can tell whether it knows the tests the receipt speaks of.
func CatalogueHash() string {
	return Digest(Catalogue())
}

// Digest is the SHA-256 (hex) of v's canonical JSON. It panics if v cannot
// be encoded as JSON, which for the package's own types cannot happen.
func Digest(v any) string {
	b, err := Canonical(v)
	if err != nil {
		panic(fmt.Sprintf("conform: digest: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Canonical encodes v as canonical JSON: object keys sorted, no
// insignificant white space, numbers as written by encoding/json, and no
// HTML escaping of <, > and &. The same value always gives the same bytes,
// whoever encodes it with this function.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("conform: canonical JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep every number exactly as encoded
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("conform: canonical JSON: %w", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil { // maps are written with sorted keys
		return nil, fmt.Errorf("conform: canonical JSON: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
