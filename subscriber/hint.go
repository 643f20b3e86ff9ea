package subscriber

// hint.go: the client says what happened in its own words, which name no
// program, flag or command; a program adds how its user acts on it.

// Hint is a situation the client reports in which the person could act
// through the program that runs the client: give a token, trust a key,
// loosen a setting. Config.Hints words it in the program's terms.
type Hint int

const (
	// HintAuthenticate: the producer refused the subscription because it
	// wants proof of who the subscriber is (authentication_required).
	HintAuthenticate Hint = iota + 1
	// HintAuthorize: the producer refused the subscription because the
	// token or signed-replies key is not one it accepts
	// (authorization_denied).
	HintAuthorize
	// HintManifestKey: the producer's manifest is signed by a key that is
	// not among the trusted keys.
	HintManifestKey
	// HintManifestRequired: the manifest did not verify and
	// ManifestConfig.Require is set, so the subscription is closed.
	HintManifestRequired
	// HintStrict: the producer granted more than was asked and
	// session.Terms.Strict is set, so the subscription is closed.
	HintStrict
	// HintAutoReply: the words naming the gate's automatic reply rule
	// ("Your auto-reply policy"), at the start of a decision's sentence.
	HintAutoReply
)

// Hints gives the words to say for h in place of said, the client's own
// words for it: the program keeps what said says and adds how its user
// acts on it (a flag to give, a command to run). It returns said when it
// has nothing to add; an empty answer also keeps said. It is called on
// the client's goroutines and must not call the client.
type Hints func(h Hint, said string) string

// word is said with the hint for h that f adds, if any.
func (f Hints) word(h Hint, said string) string {
	if f == nil {
		return said
	}
	if s := f(h, said); s != "" {
		return s
	}
	return said
}

// rejectionHint is the hint a rejection's reason_code calls for; 0 when none.
func rejectionHint(code string) Hint {
	switch code {
	case "authentication_required":
		return HintAuthenticate
	case "authorization_denied":
		return HintAuthorize
	}
	return 0
}

// RejectionWords is RejectionWords(code), with the hint f adds.
func (f Hints) RejectionWords(code string) string {
	said := RejectionWords(code)
	if h := rejectionHint(code); h != 0 {
		return f.word(h, said)
	}
	return said
}
