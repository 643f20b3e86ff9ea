package subscriber

// groupnames.go: who said it. The names lines give a Group's members,
// decided in one place (Display) from what the producers send, which is
// untrusted: no producer's name may read as another member's.

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/transport"

	"golang.org/x/text/unicode/norm"

	"github.com/aaep-term/aaep-term/protocol"
)

// maxNames bounds the names a Group remembers having given: past it, a new
// name a producer gives is always told apart by its member's tag.
const maxNames = 4096

// maxShown bounds the decisions Display keeps per member: a producer that
// renames its agent at every event starts the cache afresh.
const maxShown = 16

// names keeps every name a line has given a member, so that no two
// members are ever named alike: the first to use a name keeps it, and
// another using it (or a tag, or a name given already) is told apart by its
// tag. It also keeps the members' tags in the three forms forges compares
// a name with, so that a decision costs a few look-ups, not one comparison
// per member.
type names struct {
	owner map[string]*Member // name as shown → the member it names
	// shared holds the plain names two members' producers both gave: no
	// member is named by one alone any more (Group.decide).
	shared map[string]bool
	given  map[*Member][]string // the names each member owns, to free them
	tags   map[string]*Member   // the members' tags, as they read (lookAlike)
	// The members' tags: as they are, letter case folded (foldKey), and as
	// they read (lookAlike).
	raw, folded, like tagIndex
}

func newNames() names {
	return names{owner: map[string]*Member{}, shared: map[string]bool{}, given: map[*Member][]string{}, tags: map[string]*Member{},
		raw: newTagIndex(), folded: newTagIndex(), like: newTagIndex()}
}

// own records that m owns name.
func (ns names) own(name string, m *Member) {
	ns.owner[name] = m
	ns.given[m] = append(ns.given[m], name)
}

// claim gives name to m when nobody else has it; it reports whether m may
// use it.
func (ns names) claim(name string, m *Member) bool {
	if o, ok := ns.owner[name]; ok {
		return o == m
	}
	if len(ns.owner) >= maxNames {
		return false
	}
	ns.own(name, m)
	return true
}

// release frees the names m had, and its tag.
func (ns names) release(m *Member) {
	for _, k := range ns.given[m] {
		if ns.owner[k] == m {
			delete(ns.owner, k)
		}
	}
	delete(ns.given, m)
	like := lookAlike(m.tag)
	for _, k := range []string{like, m.tag} {
		if ns.tags[k] == m {
			delete(ns.tags, k)
		}
	}
	ns.raw.remove(m.tag, m)
	ns.folded.remove(foldKey(m.tag), m)
	ns.like.remove(like, m)
}

// claimTag gives m its tag: its label, else its endpoint shortened, with
// "#N" when another member's tag reads the same ("MAIL" or "mail " beside
// "mail"). A name a producer gave yields to a tag: the tag is m's own, and
// that producer's later lines are told apart. g.mu is held.
func (g *Group) claimTag(m *Member, name string) {
	m.tag = m.label
	if m.tag == "" {
		m.tag = name
	}
	for i := 2; !g.names.claimTag(m.tag, m); i++ {
		m.tag = fmt.Sprintf("%s #%d", strings.TrimSuffix(m.tag, fmt.Sprintf(" #%d", i-1)), i)
	}
	if m.label != "" {
		m.label = m.tag // a label another member has already is told apart
	}
	g.gen++
}

func (ns names) claimTag(name string, m *Member) bool {
	like := lookAlike(name)
	if ns.tags[like] != nil || like == "" && ns.tags[name] != nil {
		return false
	}
	ns.own(name, m)
	ns.tags[like] = m
	if like == "" {
		ns.tags[name] = m
	}
	ns.raw.add(name, m)
	ns.folded.add(foldKey(name), m)
	ns.like.add(like, m)
	return true
}

// EndpointName is an endpoint as a line names it: host:port (and path) for
// a URL, else the endpoint itself; sanitized, as it may hold anything.
func EndpointName(e string) string {
	ep, err := transport.ParseEndpoint(e)
	if err != nil {
		return protocol.Name(transport.Shown(e))
	}
	return endpointName(ep)
}

// endpointName is EndpointName of an endpoint already parsed.
func endpointName(ep transport.Endpoint) string {
	if u := ep.URL; u != nil {
		return protocol.Name(u.Host + strings.TrimSuffix(u.Path, "/"))
	}
	return protocol.Name(transport.Shown(ep.String()))
}

// Display is how lines name member m when its producer names its agent
// name (sanitized already; "" when it gave none). It is the one place that
// decides, and it never returns a name that reads as another member's tag
// or holds one in brackets: a member with a label is its label; a plain
// ASCII name no other member's producer gave is the name; another name,
// or one two members' producers gave, is "name (tag)" for each of them;
// a name that would pass for another member is the tag. Decisions are kept
// per member and producer name until the members' tags change or a name
// becomes shared, so a line costs a map look-up.
func (g *Group) Display(m *Member, name string) string {
	s, _ := g.DisplayNote(m, name)
	return s
}

// DisplayNote is Display, and the sentence to say before the line the
// first time a second member's producer gives a plain name another member
// was shown by: from then on both are named with their tags, and note says
// so, once per name ("" otherwise). The producer's name in it is marked
// (protocol.Theirs).
func (g *Group) DisplayNote(m *Member, name string) (shown, note string) {
	if m.label != "" {
		return m.label, ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.shownGen != g.gen || len(m.shown) >= maxShown {
		m.shown, m.shownGen = map[string]string{}, g.gen
	}
	if s, ok := m.shown[name]; ok {
		return s, ""
	}
	s, note := g.decide(m, name)
	m.shown[name] = s
	return s, note
}

// decide is Display's decision, made afresh, and the note DisplayNote
// says. g.mu is held.
func (g *Group) decide(m *Member, name string) (shown, note string) {
	if name == "" || name == "Unknown agent" || g.forges(m, name) {
		return m.tag, ""
	}
	q := name + " (" + m.tag + ")"
	if plainName(name) && !g.names.shared[name] {
		first := g.names.owner[name]
		if g.names.claim(name, m) {
			return name, ""
		}
		if first != nil && first != m && len(g.names.shared) < maxNames {
			// Whoever spoke first does not keep the name: both are told
			// apart from now on, the first's kept decisions made again.
			g.names.shared[name] = true
			delete(g.names.owner, name)
			g.gen++
			was := first.tag
			if fq := name + " (" + first.tag + ")"; g.names.claim(fq, first) {
				was = fq
			}
			now := m.tag
			if g.names.claim(q, m) {
				now = q
			}
			return now, fmt.Sprintf("Two agents call themselves %s: from now on each is named with its address, %s and %s.",
				protocol.Theirs(name), protocol.Theirs(was), protocol.Theirs(now))
		}
	}
	if g.names.claim(q, m) {
		return q, ""
	}
	return m.tag, "" // a hostile name took even that: the tag is m's alone
}

// forges reports whether name, given by m's producer, would pass for
// another member: it is another's tag, or has one in brackets as a name
// told apart does. Names are compared as they read (lookAlike), not byte
// by byte: "mail ", "m a i l", "MAIL", "ｍａｉｌ" and "mail #2" all pass for
// the member mail. It looks the tags up (names), so it costs the same
// however many members there are; forgesSlow in the tests is the same
// rule, member by member. g.mu is held.
func (g *Group) forges(m *Member, name string) bool {
	ns := g.names
	n := lookAlike(name)
	if ns.folded.other(foldKey(name), m) || ns.like.other(n, m) {
		return true // the tag itself, letter case or look-alikes aside
	}
	// The tag and a number after it ("mail2", from "mail #2").
	digits := len(n) - len(strings.TrimRight(n, "0123456789"))
	for k := len(n) - digits; k < len(n); k++ {
		if k > 0 && ns.like.other(n[:k], m) {
			return true
		}
	}
	if !strings.ContainsAny(norm.NFKC.String(name), "()[]{}<>") {
		return false
	}
	// Bracketed: a tag anywhere in it as it reads, or in brackets as it is.
	return ns.like.within(n, m) || ns.raw.bracketed(name, m)
}

// tagIndex finds the members whose tag, in one form, is a given string,
// and knows the lengths those strings have, to find them inside names.
type tagIndex struct {
	by   map[string][]*Member
	lens map[int]int // length in bytes → how many keys have it
}

func newTagIndex() tagIndex { return tagIndex{by: map[string][]*Member{}, lens: map[int]int{}} }

func (x tagIndex) add(key string, m *Member) {
	if len(x.by[key]) == 0 {
		x.lens[len(key)]++
	}
	x.by[key] = append(x.by[key], m)
}

func (x tagIndex) remove(key string, m *Member) {
	ms := slices.DeleteFunc(x.by[key], func(o *Member) bool { return o == m })
	if len(ms) > 0 {
		x.by[key] = ms
		return
	}
	delete(x.by, key)
	if x.lens[len(key)]--; x.lens[len(key)] == 0 {
		delete(x.lens, len(key))
	}
}

// other reports whether a member other than m has key.
func (x tagIndex) other(key string, m *Member) bool {
	for _, o := range x.by[key] {
		if o != m {
			return true
		}
	}
	return false
}

// within reports whether s holds the key of a member other than m, at a
// rune boundary; an empty key does not count.
func (x tagIndex) within(s string, m *Member) bool {
	for l := range x.lens {
		if l == 0 || l > len(s) {
			continue
		}
		for i := 0; i+l <= len(s); i++ {
			if utf8.RuneStart(s[i]) && x.other(s[i:i+l], m) {
				return true
			}
		}
	}
	return false
}

// bracketed reports whether s holds "(" + key + ")" for the key of a
// member other than m.
func (x tagIndex) bracketed(s string, m *Member) bool {
	for i := strings.IndexByte(s, '('); i >= 0; {
		rest := s[i+1:]
		for l := range x.lens {
			if l < len(rest) && rest[l] == ')' && x.other(rest[:l], m) {
				return true
			}
		}
		j := strings.IndexByte(rest, '(')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// foldKey is s with every letter in the smallest of its case forms
// (unicode.SimpleFold): two strings have the same key when
// strings.EqualFold holds.
func foldKey(s string) string {
	plain := true // no lower case, nothing beyond ASCII: nothing to fold
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c < utf8.RuneSelf && (c < 'a' || c > 'z')
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Find is the member a command names: by tag or endpoint, or a name its
// lines were given, letter case aside; nil when none is.
func (g *Group) Find(name string) *Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.members {
		if strings.EqualFold(m.tag, name) || m.endpoint == name {
			return m
		}
	}
	for shown, m := range g.names.owner {
		if strings.EqualFold(shown, name) {
			return m
		}
	}
	return nil
}

// ReadAlike reports whether two names read the same to a person: letter
// case, spacing and punctuation aside, full-width letters as ASCII, and
// 0/o, 1/l/i, rn/m, vv/w taken for one another.
func ReadAlike(a, b string) bool { return lookAlike(a) == lookAlike(b) }

// lookAlike is name as it reads: compatibility forms folded (full-width
// letters become ASCII), lower case, letters and digits only, and the
// ASCII look-alikes 0/o, 1/l/i and rn/m made one.
func lookAlike(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(norm.NFKC.String(name)) {
		switch {
		case r == '0':
			b.WriteByte('o')
		case r == '1' || r == 'i' || r == '|':
			b.WriteByte('l')
		case r >= 'a' && r <= 'z' || r >= '2' && r <= '9':
			b.WriteRune(r)
		case r > 0x7f && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(b.String(), "rn", "m"), "vv", "w")
}

// plainName reports whether a producer's name may stand alone beside
// other members: printable ASCII words, one space apart, with no brackets
// or '#' (the marks of names told apart). Any other name (letters of other
// scripts, which may look like another member's, included) is always shown
// with its member's tag.
func plainName(name string) bool {
	if name == "" || name != strings.TrimSpace(name) || strings.Contains(name, "  ") || strings.ContainsAny(name, "()[]{}<>#") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return false
		}
	}
	return true
}
