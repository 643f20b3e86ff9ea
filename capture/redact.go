// redact.go: removing secrets from messages while keeping their structure and lengths.

package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
)

// Redactor removes secrets from messages before they are written. Every
// change keeps the message's shape: the same members, each string the same
// length, so a redacted capture checks and traces like the original.
//
//   - reply_token values are replaced by a hash of themselves (same prefix,
//     same length): a reply still matches its prompt, the token cannot be replayed.
//   - values of members named like credentials (authorization, token,
//     password, secret, api_key, …) are replaced by asterisks.
//   - in every string: "Bearer <token>" and well-known key formats (JSON Web
//     Tokens, sk-…, ghp_…, AKIA…) are replaced by asterisks.
//   - in args_summary, request_text, action, consequence and extra_context
//     text: the value of "name: value" or "name=value" pairs whose name looks
//     like a credential is replaced by asterisks.
//
// A Redactor is immutable and safe for concurrent use.
type Redactor struct {
	anywhere []*regexp.Regexp // whole match is a secret
	pairs    *regexp.Regexp   // group 1 is the value of a credential-like pair
}

// NewRedactor returns the default redactor.
func NewRedactor() *Redactor {
	return &Redactor{
		anywhere: []*regexp.Regexp{
			regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}`),
			regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
			regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}`),
			regexp.MustCompile(`\b(?:ghp|gho|ghs|ghu|github_pat|xox[abpr])_?[A-Za-z0-9_-]{16,}`),
			regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
		},
		pairs: regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|pin|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth|authorization|credentials?|session[_-]?key|cookie)\b["']?\s*[:=]\s*["']?([^\s,;"'&}\\]+)`),
	}
}

// credentialKeys are member names whose string values are always secret.
var credentialKeys = map[string]bool{
	"authorization": true, "token": true, "access_token": true, "refresh_token": true,
	"id_token": true, "password": true, "passwd": true, "secret": true, "client_secret": true,
	"api_key": true, "apikey": true, "bearer": true, "cookie": true, "private_key": true,
}

// textKeys are members whose free text may carry credentials in name: value form.
var textKeys = map[string]bool{
	"args_summary": true, "request_text": true, "action": true, "consequence": true,
	"extra_context": true, "description": true,
}

// Redact returns a redacted copy of msg, a JSON object; other input is
// returned unchanged.
func (r *Redactor) Redact(msg []byte) []byte {
	out := bytes.Clone(msg)
	r.redactInPlace(out)
	return out
}

// redactInPlace redacts b, valid JSON, without changing its length.
func (r *Redactor) redactInPlace(b []byte) {
	var (
		key    []byte // the member name the next value belongs to (aliases b; names are never changed)
		inText int    // depth at which a free-text member began, or 0
		stack  [16][]byte
		keys   = stack[:0] // keys[d-1]: the member holding the container at depth d
	)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			keys = append(keys, key)
		case '}', ']':
			if inText == len(keys) {
				inText = 0
			}
			if len(keys) > 0 {
				key = keys[len(keys)-1]
				keys = keys[:len(keys)-1]
			}
		case '"':
			end := stringEnd(b, i)
			s := b[i+1 : end]
			j := end + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
				j++
			}
			if j < len(b) && b[j] == ':' {
				key = s
				if textKeys[string(key)] && inText == 0 {
					inText = len(keys) + 1 // the value, if an object, opens one level deeper
				}
				i = end
				continue
			}
			r.value(key, s, inText != 0 || textKeys[string(key)])
			i = end
		}
	}
}

// value redacts the contents s of one string value of member key.
func (r *Redactor) value(key, s []byte, text bool) {
	lk := key
	if bytes.ContainsFunc(key, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
		lk = bytes.ToLower(key)
	}
	switch {
	case string(lk) == "reply_token":
		hashToken(s)
		return
	case credentialKeys[string(lk)]:
		mask(s)
		return
	}
	if mayHoldKey(s) {
		for _, re := range r.anywhere {
			for _, m := range re.FindAllIndex(s, -1) {
				mask(s[m[0]:m[1]])
			}
		}
	}
	if text && bytes.ContainsAny(s, ":=") {
		for _, m := range r.pairs.FindAllSubmatchIndex(s, -1) {
			mask(s[m[2]:m[3]])
		}
	}
}

// keyHints are fragments without which no pattern of Redactor.anywhere
// matches; checking them first keeps the regular expressions off most strings.
var keyHints = [][]byte{[]byte("earer"), []byte("EARER"), []byte("eyJ"), []byte("k-"), []byte("gh"), []byte("xox"), []byte("AKIA"), []byte("github")}

func mayHoldKey(s []byte) bool {
	for _, h := range keyHints {
		if bytes.Contains(s, h) {
			return true
		}
	}
	return false
}

// hashToken replaces what follows the prefix (up to the first '_') of a
// token with hex digits of its SHA-256, keeping its length.
func hashToken(s []byte) {
	if bytes.IndexByte(s, '\\') >= 0 {
		mask(s)
		return
	}
	sum := sha256.Sum256(s)
	digits := hex.EncodeToString(sum[:])
	start := bytes.IndexByte(s, '_') + 1
	for i := start; i < len(s); i++ {
		s[i] = digits[(i-start)%len(digits)]
	}
}

// mask replaces every byte of s with an asterisk.
func mask(s []byte) {
	for i := range s {
		s[i] = '*'
	}
}

// stringEnd returns the index of the quote closing the string opening at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b) - 1
}
