package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Refusal is why a receipt is not accepted, as one plain sentence.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return "the receipt is refused: " + r.Reason }

func refuse(format string, a ...any) error { return &Refusal{Reason: fmt.Sprintf(format, a...)} }

// VerifyOptions say what a receipt is checked against.
type VerifyOptions struct {
	// Keys are the keys trusted to sign receipts; the receipt's kid picks one.
	Keys []*PublicKey
	// Now is the time the receipt must be valid at; zero means time.Now().
	Now time.Time
	// Suite is ours: a receipt from a newer version, or with a catalogue
	// we do not know, gets a note saying so.
	Suite Suite
}

// Verification is an accepted receipt.
type Verification struct {
	Receipt *Receipt
	Key     *PublicKey // the trusted key that signed it
	// Notes are what the verifier should know but that does not refuse
	// the receipt: a newer suite version, a catalogue unknown to us.
	Notes []string
}

// skew is how far in the future a receipt's issue time may be, for clocks
// that differ.
const skew = 5 * time.Minute

// maxReceipt bounds a receipt read: a full L3 receipt is a few kilobytes.
const maxReceipt = 1 << 20

// VerifyReceipt checks a receipt as written by Receipt.Sign: that it is a
// compact JWS signed with ES256 or EdDSA (never none, never HMAC, never a
// placeholder), by one of the trusted keys, that its payload follows the
// receipt schema and agrees with itself, and that it is valid at o.Now. A
// receipt not accepted gives a *Refusal saying why.
func VerifyReceipt(data []byte, o VerifyOptions) (*Verification, error) {
	s := string(bytes.TrimSpace(data))
	switch {
	case s == "":
		return nil, refuse("the file is empty")
	case len(s) > maxReceipt:
		return nil, refuse("it is %d bytes, too large to be a receipt", len(s))
	case s[0] == '{':
		if bytes.Contains(data, []byte(`"signature"`)) {
			return nil, refuse("it is a JSON document with a signature field, a placeholder, not a signed receipt (a compact JWS of three base64url parts separated by dots)")
		}
		return nil, refuse("it is a JSON document, not a signed receipt (a compact JWS of three base64url parts separated by dots)")
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, refuse("it is not a compact JWS: it has %d parts separated by dots, not 3", len(parts))
	}
	hdr, err := jwsHeader(parts[0])
	if err != nil {
		return nil, err
	}
	if err := placeholder(parts[2], hdr.Alg); err != nil {
		return nil, err
	}
	key, err := pickKey(hdr, o.Keys)
	if err != nil {
		return nil, err
	}
	jws, err := jose.ParseSignedCompact(s, receiptAlgs)
	if err != nil {
		return nil, refuse("it is not a well-formed JWS: %v", err)
	}
	payload, err := jws.Verify(key.key)
	if err != nil {
		return nil, refuse("its signature does not match its content: it was changed after it was signed, or signed by another key than %s", key.kid)
	}
	if err := Validate(ReceiptSchemaFile, payload); err != nil {
		return nil, refuse("its content does not follow the receipt schema: %v", err)
	}
	var rc Receipt
	if err := json.Unmarshal(payload, &rc); err != nil {
		return nil, refuse("its content cannot be read: %v", err)
	}
	// What was signed must be read as exactly what Receipt.Sign writes,
	// the canonical JSON of the receipt read: a key given twice
	// ("level_claimed":1,"level_claimed":3) means one value to one JSON
	// reader and another to the next, so the verifier might not read what
	// the signer meant. No other payload is ever signed by the suite.
	if canon, err := Canonical(&rc); err != nil || !bytes.Equal(canon, payload) {
		return nil, refuse("its content is not in the canonical form aaep-conform signs (a key given twice, keys out of order, extra spaces or escapes), so it could be read as saying something other than what was signed")
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	if err := consistent(&rc, hdr, now); err != nil {
		return nil, err
	}
	return &Verification{Receipt: &rc, Key: key, Notes: suiteNotes(rc.Suite, o.Suite)}, nil
}

type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// jwsHeader reads the protected header and refuses an algorithm other than
// ES256 and EdDSA, saying what it is.
func jwsHeader(part string) (header, error) {
	var h header
	b, err := b64.DecodeString(part)
	if err != nil {
		return h, refuse("its header is not base64url")
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, refuse("its header is not a JSON object")
	}
	switch alg := h.Alg; {
	case strings.EqualFold(alg, "none") || alg == "":
		return h, refuse("it is unsigned (algorithm %q): anyone could have written it", alg)
	case strings.HasPrefix(strings.ToUpper(alg), "HS"):
		return h, refuse("it is signed with a shared secret (%s, HMAC), which whoever checks it must hold and so could forge it: receipts are signed with ES256 or EdDSA only", alg)
	case alg != string(jose.ES256) && alg != string(jose.EdDSA):
		return h, refuse("it is signed with %q: receipts are signed with ES256 or EdDSA only", alg)
	}
	if h.Typ != "" && h.Typ != ReceiptMediaType {
		return h, refuse("its header says it is a %q, not a conformance receipt (%s)", h.Typ, ReceiptMediaType)
	}
	return h, nil
}

// placeholder refuses a signature that cannot be one: empty, not base64url,
// of the wrong length, every byte the same, or plain text.
func placeholder(sig, alg string) error {
	if sig == "" {
		return refuse("it has no signature (an empty placeholder)")
	}
	b, err := b64.DecodeString(sig)
	if err != nil {
		return refuse("its signature %q is not base64url: a placeholder, not a signature", truncate(sig, 40))
	}
	if len(b) != 64 { // ES256 (r||s) and Ed25519 signatures are both 64 bytes
		return refuse("its signature is %d bytes, not the 64 of %s: a placeholder, not a signature", len(b), alg)
	}
	if bytes.Count(b, b[:1]) == len(b) {
		return refuse("its signature is %d identical bytes: a placeholder, not a signature", len(b))
	}
	text := true
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			text = false
			break
		}
	}
	if text {
		return refuse("its signature is plain text (%q): a placeholder, not a signature", truncate(string(b), 40))
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// pickKey finds the trusted key the header names.
func pickKey(h header, keys []*PublicKey) (*PublicKey, error) {
	if h.Kid == "" {
		return nil, refuse("its header names no signing key (kid), so no trusted key can be matched to it")
	}
	for _, k := range keys {
		if k.kid != h.Kid {
			continue
		}
		if string(k.alg) != h.Alg {
			return nil, refuse("its header says %s, but the trusted key %s is an %s key", h.Alg, k.kid, k.alg)
		}
		return k, nil
	}
	switch {
	case len(keys) == 0:
		return nil, refuse("no trusted key was given to check it against")
	case len(keys) == 1 && keys[0].Source != "":
		return nil, refuse("it was signed by key %s, not by the key in %s (%s), which is the one you trust", h.Kid, keys[0].Source, keys[0].kid)
	}
	return nil, refuse("it was signed by key %s, which is not one of the %d keys you trust", h.Kid, len(keys))
}

// consistent checks what a schema cannot: the receipt agrees with its
// header, with itself, and with the time.
func consistent(rc *Receipt, h header, now time.Time) error {
	if rc.IssuerKeyID != h.Kid {
		return refuse("its content names issuer key %s, but it was signed by key %s", rc.IssuerKeyID, h.Kid)
	}
	if err := coversCatalogue(rc); err != nil {
		return err
	}
	rep := Report{Level: rc.LevelTested}
	for _, r := range rc.Results {
		rep.Results = append(rep.Results, Result{Test: Test{ID: r.ID, Level: r.Level}, Status: r.Status})
	}
	if got := rep.Summary(); got != rc.Summary {
		return refuse("its summary (%s) does not match its own results (%s)", strings.TrimSuffix(rc.Summary.String(), "."), strings.TrimSuffix(got.String(), "."))
	}
	if held := rep.ConformingLevel(); rc.LevelClaimed != held {
		return refuse("it claims Level %d, but its own results support Level %d", rc.LevelClaimed, held)
	}
	day := func(t time.Time) string { return t.UTC().Format(time.DateTime) + " UTC" }
	switch {
	case !rc.ExpiresAt.After(rc.IssuedAt):
		return refuse("it expires (%s) before it was issued (%s)", day(rc.ExpiresAt), day(rc.IssuedAt))
	case rc.IssuedAt.After(now.Add(skew)):
		return refuse("it was issued in the future, on %s", day(rc.IssuedAt))
	case rc.TestedAt.After(rc.IssuedAt.Add(skew)):
		return refuse("its test run (%s) is later than its issue (%s)", day(rc.TestedAt), day(rc.IssuedAt))
	case !now.Before(rc.ExpiresAt):
		return refuse("it expired on %s", day(rc.ExpiresAt))
	}
	return nil
}

// coversCatalogue refuses results that list a test twice and, when the
// receipt names our catalogue, results that are not exactly that
// catalogue's tests of the receipt's role up to the level tested, each at
// its own level: a claim rests on every test of its level, not on a few.
func coversCatalogue(rc *Receipt) error {
	levels := map[string]Level{}
	for _, r := range rc.Results {
		if _, dup := levels[r.ID]; dup {
			return refuse("it lists the result of test %s twice", r.ID)
		}
		levels[r.ID] = r.Level
	}
	if rc.Suite.Catalogue != CatalogueHash() {
		return nil // a catalogue we do not know: suiteNotes says so
	}
	want := 0
	for _, t := range Catalogue() {
		if t.Role != rc.Role || t.Level > rc.LevelTested {
			continue
		}
		want++
		switch l, ok := levels[t.ID]; {
		case !ok:
			return refuse("it names our test catalogue but holds no result for %s, a Level %d test", t.ID, t.Level)
		case l != t.Level:
			return refuse("it says test %s is Level %d, but in the catalogue it names it is Level %d", t.ID, l, t.Level)
		}
	}
	if len(levels) != want {
		return refuse("it holds %d results, but the catalogue it names has %d %s tests up to Level %d", len(levels), want, rc.Role, rc.LevelTested)
	}
	return nil
}

// suiteNotes says where the receipt's suite differs from ours.
func suiteNotes(theirs, ours Suite) []string {
	var notes []string
	if theirs.Version != ours.Version {
		switch c, ok := compareVersions(theirs.Version, ours.Version); {
		case ok && c > 0:
			notes = append(notes, fmt.Sprintf("It was made by aaep-conform version %s, newer than ours (%s): its tests may check what ours do not.", theirs.Version, ours.Version))
		case ok:
			notes = append(notes, fmt.Sprintf("It was made by aaep-conform version %s, older than ours (%s).", theirs.Version, ours.Version))
		default:
			notes = append(notes, fmt.Sprintf("It was made by aaep-conform version %s; ours is %s, and the two cannot be ordered.", theirs.Version, ours.Version))
		}
	}
	if theirs.Catalogue != ours.Catalogue {
		notes = append(notes, fmt.Sprintf("Its test catalogue (SHA-256 %s) is not ours (%s): a test of the same ID may check something else; --recheck runs only the IDs we know.", theirs.Catalogue, ours.Catalogue))
	}
	if theirs.AAEPVersion != ours.AAEPVersion {
		notes = append(notes, fmt.Sprintf("It tested AAEP version %s; ours is %s.", theirs.AAEPVersion, ours.AAEPVersion))
	}
	return notes
}

// compareVersions orders two versions "vMAJOR.MINOR.PATCH[-pre]" by their
// numbers (a pre-release before its release); ok is false when either is
// not of that form, such as "(devel)".
func compareVersions(a, b string) (c int, ok bool) {
	pa, preA, okA := parseVersion(a)
	pb, preB, okB := parseVersion(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range pa {
		if pa[i] != pb[i] {
			if pa[i] < pb[i] {
				return -1, true
			}
			return 1, true
		}
	}
	switch {
	case preA == preB:
		return 0, true
	case preA == "":
		return 1, true
	case preB == "":
		return -1, true
	}
	return strings.Compare(preA, preB), true
}

func parseVersion(v string) (nums [3]int, pre string, ok bool) {
	v, ok = strings.CutPrefix(v, "v")
	if !ok {
		return nums, "", false
	}
	v, pre, _ = strings.Cut(v, "-")
	v, _, _ = strings.Cut(v, "+")
	fields := strings.Split(v, ".")
	if len(fields) != 3 {
		return nums, "", false
	}
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nums, "", false
		}
		nums[i] = n
	}
	return nums, pre, true
}

// MatchReport checks that a JSON report (as Report.WriteJSON writes it)
// holds the very results a receipt was signed over: the SHA-256 of its
// results, as canonical JSON, is the receipt's results_sha256.
func MatchReport(rc *Receipt, report []byte) error {
	var doc struct {
		Results json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(report, &doc); err != nil || len(doc.Results) == 0 {
		return fmt.Errorf("it is not a JSON report of aaep-conform")
	}
	got := Digest(doc.Results)
	if got != rc.ResultsSHA256 {
		return fmt.Errorf("its results (SHA-256 %s) are not the ones the receipt was signed over (%s)", got, rc.ResultsSHA256)
	}
	return nil
}
