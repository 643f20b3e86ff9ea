package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Limits bound what a Decoder accepts (AAEP §3.7). Messages over a soft
// limit are decoded and reported; over a hard limit they are not decoded
// at all. Zero fields take the defaults in brackets.
type Limits struct {
	MaxBytes     int // soft: serialized size of an event [64 KiB]
	MaxDepth     int // soft: nesting depth, the event object being 1 [8]
	MaxString    int // soft: bytes of any one string [16 KiB]
	MaxFields    int // soft: top-level members plus extension prefixes [32]
	HardMaxBytes int // hard: size [1 MiB]
	HardMaxDepth int // hard: nesting depth [64]
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxBytes, 64<<10)
	def(&l.MaxDepth, 8)
	def(&l.MaxString, 16<<10)
	def(&l.MaxFields, 32)
	def(&l.HardMaxBytes, 1<<20)
	def(&l.HardMaxDepth, 64)
	return l
}

// Decoder decodes and validates events. Its zero value is ready to use; it
// compiles the embedded schemas on first use. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	Limits  Limits
	Schemas *Schemas // nil: compiled on first use

	spans     [nField]span    // the members' values, those of met alone set
	met       fieldSet        // the members met in this event
	seen      []field         // the fields met, in the order met
	strangers []member        // top-level members no event type defines, up to maxStrangers
	memo      objMemo         // the members of objects scanned once in this call
	verdicts  [nField]verdict // each member's last value that passed its rule
	// older are, for each member whose value changes, the values that
	// passed before its verdict's (made when one first does): a stream
	// of several sessions and event types rotates a few values of a
	// member (its session IDs, its summaries), so the value at hand is
	// often one of them (recall).
	older [nField]*[nOlder]verdict
	same  [nField]uint8 // each member's value against its verdict, as scanned
	stamp stamp         // the last timestamp read
	// follows is, for each known member, the member that followed it
	// in the last event that had it (follows[nField]: the first member,
	// follows[nField+1]: the one after a member no event type defines).
	// A stream's events mostly repeat that order, so the next name is
	// compared with its pattern before it is scanned (keyPattern).
	follows [nField + 2]field
	// lim is Limits with its defaults, worked out again when Limits is
	// no longer limitsSet, or first (withDefaults leaves no limit zero).
	limitsSet, lim Limits
	// judged is what judged chose for the type last judged, a copy of
	// which is judgedType[:judgedLen], by judgedBy: a stream repeats its
	// types (Decoder.judgeOf).
	judged     judge
	judgedBy   *Schemas
	judgedType [64]byte
	judgedLen  int
	// templates are the last messages of a few types, the first
	// templates[:k] not nil (template): most of a message of a type is
	// the last one's bytes. templated counts the events decoded from
	// one (for tests).
	templates [nTemplates]*template
	templated int
	dropped   int // templates not made of a message (for tests)
	made      int // templates made (for tests)
	// changed[:nChanged] are the members fromTemplate scanned (a
	// template's are distinct known members), at changedAt in it.
	changed   [nField]field
	changedAt [nField]int32
	// deltaAfter is, for each, how much further the message is than the
	// template after its value.
	deltaAfter [nField]int32
	nChanged   int
	scanned    fieldSet // the same, as a set
	// spansOf is the template whose members' spans d.spans holds, at
	// its places, and whose fields d.seen's array holds (the last call
	// decoded its very bytes, or made it of its message), or nil:
	// fromTemplate need not set them again.
	spansOf *template
	// taken is the template the message at hand was taken from, or nil.
	taken   *template
	slow    int  // how many events needed the schema validator (for tests)
	allSlow bool // every event goes to the schema validator (for tests)
	// noTemplates keeps no template (for tests of the verdicts).
	noTemplates bool
	// last is the event the last Decode call returned, and plain says
	// that its message repeated no member, escaped no member's name and
	// nested no deeper than PeekType reads: its type is then what
	// PeekType finds (PeekedType). escaped is set where a name is
	// unescaped, seldom (kept in the member loop, it cost every event).
	last    *Event
	plain   bool
	escaped bool
	// into is the room the next event is decoded into (DecodeInto); nil:
	// a new event.
	into *eventBox
}

// verdict remembers a top-level member's last value that satisfied its
// rule, surely (the schema validator was not needed for it). A rule's
// verdict depends on the value's kind and bytes alone, so the same bytes
// under the same rule need not be checked again: the producer, the
// localization hints, the context and version of a stream repeat from
// event to event.
//
// A member whose value changes from event to event (the event's ID, its
// sequence number, a tool call's ID) would be compared and copied for
// nothing: after missMax misses in a row (once its older values are all
// taken, see Decoder.older) its verdict rests for restFor events, then is
// tried once again.
//
// The bytes of a string, object or array are compared as the member is
// scanned (Decoder.same): when they are the same, the value is not scanned
// at all, and what the scan would have found (its span, the longest string
// and the nesting in it, an object's members) is taken from the verdict.
// A string's, object's or array's bytes, from its first to its closing
// quote or bracket, decide all that whatever follows them.
type verdict struct {
	r      *rule
	kind   kind
	misses uint8  // misses in a row
	rest   uint8  // events left before the verdict is looked at again
	val    []byte // a copy, owned by the Decoder: the span's bytes
	tok    []byte // val as written: a string's with its quotes (val is in it)
	// What the scan found in val: a string's escapes and bytes ≥ 0x80,
	// the longest string in an object or array and how deep it nests
	// (1 for one without objects or arrays in it), an object's members
	// at their places in val.
	esc, high bool
	longStr   int
	depth     int
	members   []member
	// A tok of up to 16 bytes (most repeated values: a session's ID, a
	// version, an urgency, a word) in two words, and which of their
	// bytes are tok's: compared inline, without memequal's call.
	short, mask [2]uint64
}

// is reports whether the n bytes of b at i (i ≥ 0, n ≤ len(b)-i) are
// v.tok, of length n. A tok of up to 16 bytes is compared in v.short's
// two words when 16 bytes are left at i.
func (v *verdict) is(b []byte, i, n int) bool {
	if n <= 16 && i <= len(b)-16 {
		w := (*[16]byte)(b[i : i+16])
		return (binary.LittleEndian.Uint64(w[:8])^v.short[0])&v.mask[0]|
			(binary.LittleEndian.Uint64(w[8:])^v.short[1])&v.mask[1] == 0
	}
	return string(b[i:i+n]) == string(v.tok)
}

// What the scan found of a member's value against its verdict.
const (
	sameUnknown uint8 = iota // not compared (a number, a literal, a verdict resting)
	sameYes                  // the verdict's bytes, not scanned
	sameNo                   // other bytes
)

// missMax and restFor tune how verdicts rest (see verdict).
const (
	missMax = 4
	restFor = 64
)

// stamp is a timestamp fastTime read, and what it read: the events of a
// busy stream often carry the same millisecond, and more often the same
// second, whose date and time then need not be read again.
//
// It keeps a copy of the timestamp's bytes, not the message's: a caller
// of DecodeInto may fill its buffer again with the next message, whose
// timestamp, at the same place, would then read as the same.
type stamp struct {
	buf   [40]byte  // the timestamp, buf[:n] (n = 0: none)
	n     int       // its length
	zone  int       // what follows the fraction ("Z" or an offset), the last zone bytes of buf[:n]
	t     time.Time // what it reads
	whole time.Time // t without its fraction of a second
}

// maxVerdict bounds the bytes a verdict keeps.
const maxVerdict = 256

// nOlder is how many values a member keeps besides its verdict's.
const nOlder = 3

// member is a member of an object: its key and its value.
type member struct{ key, val span }

// maxStrangers bounds the undefined members the decoder keeps to judge
// itself; with more, the schema validator judges them.
const maxStrangers = 16

// Decode decodes one event and checks it against our schema for its type
// (the envelope alone for extension types) and the size limits. The schema
// is chosen as [Schemas.Check] chooses it (see [KindOf]).
//
// A nil error means the event is valid. A *ValidationError comes with the
// event decoded as far as possible: it can be announced, with a diagnostic.
// A *SyntaxError or *LimitError comes with a nil event, and so does a
// *NotEventError: a handshake or reply message is not an event. The event keeps b as
// its Raw bytes, and its strings share b's memory (or that of the
// Decoder's own copy of earlier bytes that were the same, which nothing
// changes); b must not be modified afterwards.
func (d *Decoder) Decode(b []byte) (*Event, error) {
	d.last, d.escaped = nil, false // until an event is decoded (PeekedType)
	spansOf := d.spansOf
	d.spansOf = nil // until the end of a call that leaves them so
	if d.Schemas == nil {
		s, err := NewSchemas()
		if err != nil {
			return nil, err
		}
		d.Schemas = s
	}
	if d.Limits != d.limitsSet || d.lim.HardMaxBytes == 0 {
		d.limitsSet, d.lim = d.Limits, d.Limits.withDefaults()
		d.dropTemplates()
	}
	lim := d.lim
	if len(b) > lim.HardMaxBytes {
		return nil, &LimitError{What: "size", Value: len(b), Limit: lim.HardMaxBytes}
	}
	sc := scanner{b: b, hardMax: lim.HardMaxDepth}
	// The spans of the last event stay: only those of members met (met)
	// are read.
	d.met = fieldSet{}
	d.seen = d.seen[:0]
	if sc.next() != '{' {
		return nil, &SyntaxError{Offset: int64(sc.i), Msg: "an AAEP event must be a JSON object"}
	}
	d.memo.reset()
	// others counts the members not in d.seen (repeated, or no event
	// type's): the event has len(d.seen)+others.
	others, dup, undoTwice := 0, false, false
	d.strangers = d.strangers[:0]
	// The members, in a loop rather than sc.object's callback: this runs
	// for every member of every event.
	var key span
	prev := nField // the member before this one
	f := noField   // the member at hand
	// named: f's name, and the comma before it, were matched with the
	// pattern of what followed prev (by run), without more's call to end
	// the member before; decided: run compared its value with its
	// verdicts, which it is not.
	named, decided := false, false
	// A message of a type whose last message is kept (a template) is
	// compared with it, and the members loop does not run when only
	// values differ.
	templated := d.tryTemplate(&sc, spansOf)
	for more := !templated && sc.open(); more; {
		if !named {
			f = noField
			if lf := d.follows[prev]; lf < nField {
				if p := &keyPatterns[lf]; p.at(b, sc.i) {
					f = lf
					sc.i += p.n
					if n := p.n - 3; n > sc.longStr {
						sc.longStr = n
					}
				}
			}
			if f == noField {
				if !sc.key(&key) {
					break
				}
				name := b[key.start:key.end]
				if key.esc {
					name, d.escaped = []byte(unescape(name)), true
				}
				f = lookupField(name)
				d.follows[prev] = f
			}
		}
		named = false
		if prev = f; f == noField {
			prev = nField + 1
		}
		if f == noField {
			others++
			var v span
			sc.value(&v)
			if len(d.strangers) < maxStrangers {
				d.strangers = append(d.strangers, member{key, v})
			} else {
				dup = true // too many to judge here: the schema validator will
			}
		} else {
			sp := &d.spans[f]
			if d.met.has(f) {
				others++
				dup = true
				undoTwice = undoTwice || f == fIrreversible || f == fReversibility
			} else {
				d.met.add(f)
				d.seen = append(d.seen, f)
			}
			c := sc.peek()
			if c <= ' ' {
				c = sc.next()
			}
			// As compare and scanValue, which fromTemplate calls; here
			// inline (their calls cost the loop 200 instructions an event).
			if decided {
				decided = false
			} else if d.same[f] = sameUnknown; d.verdicts[f].rest == 0 && c != 0 {
				d.same[f] = sc.sameAs(&d.verdicts[f], sp, &d.memo)
				if d.same[f] == sameNo && d.older[f] != nil && d.recall(f, &sc, sp) {
					d.same[f] = sameYes
				}
			}
			switch {
			case d.same[f] == sameYes:
			case c == '{':
				// Its members are remembered as they are scanned: filling
				// the event and checking it read them again (the producer,
				// the localization hints and progress of every event).
				sc.memoObject(sp, &d.memo)
			default:
				sc.value(sp)
			}
		}
		// The next members are most often those that followed this one
		// before, with the same values: run takes them.
		if sc.err == nil {
			if prev, f, named, decided = d.run(&sc, prev); named {
				continue
			}
		}
		more = sc.more()
	}
	members := len(d.seen) + others
	// Only white space may follow the event (next's 0 would also be a
	// NUL byte: `{…}\x00…` was taken for an event, not being JSON).
	if sc.err == nil {
		if sc.ws(); sc.i != len(b) {
			sc.fail("more data after the event")
		}
	}
	if sc.err != nil {
		if sc.maxDepth > lim.HardMaxDepth {
			return nil, &LimitError{What: "depth", Value: sc.maxDepth, Limit: lim.HardMaxDepth}
		}
		return nil, sc.err
	}

	// src shares b's bytes instead of copying them (585 bytes an event in
	// a capture): b is not modified afterwards (see above), so the strings
	// cut from src, which the event keeps, cannot change either.
	src := unsafe.String(unsafe.SliceData(b), len(b))
	box := d.newBox(b, undoTwice)
	d.last, d.plain = &box.Event, !dup && !d.escaped && sc.maxDepth <= peekDepth
	x := decodeState{b: b, src: src, spans: &d.spans, met: &d.met, seen: d.seen, ev: &box.Event, box: box, unsure: dup, memo: &d.memo, verdicts: &d.verdicts, older: &d.older, same: &d.same, stamp: &d.stamp}
	if templated {
		x.tpl, x.scanned = d.taken, &d.scanned
		x.fillFromTemplate(d.changed[:d.nChanged])
	} else {
		x.populate(d.seen)
	}
	var j judge
	if templated {
		j = d.taken.judge // the same type's bytes, the same Schemas
	} else {
		j = d.judgeOf(x.ev.Type)
	}
	if j.kind != KindEvent {
		d.last = nil
		return nil, &NotEventError{Type: x.ev.Type, Kind: j.kind}
	}
	x.bad = j.unknownCore
	// validate checks the members seen, or those fromTemplate scanned
	// (the others are a template's bytes, which passed the same rules).
	if templated {
		x.validate(j.fast, d.changed[:d.nChanged])
	} else {
		x.validate(j.fast, d.seen)
	}
	x.strangers(j.fast, d.strangers)

	var problems []Problem
	if x.bad || x.unsure || d.allSlow {
		d.slow++
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(x.src))
		if err != nil { // cannot happen for input the scanner accepted
			return nil, &SyntaxError{Msg: err.Error()}
		}
		problems = d.Schemas.problems(v)
	}
	if len(b) > lim.MaxBytes || sc.maxDepth > lim.MaxDepth || members+len(x.ev.Extensions) > lim.MaxFields || sc.longStr > lim.MaxString {
		problems = append(problems, x.limits(lim, members, &sc)...)
	}
	if len(problems) > 0 {
		return x.ev, &ValidationError{Problems: problems}
	}
	switch {
	case x.unsure || x.bad:
	case templated:
		d.follow(b, j, x.ev, sc.longStr, sc.maxDepth)
	case !dup && !d.escaped && len(d.strangers) == 0 && !d.allSlow && !d.noTemplates:
		d.spansOf = d.keepTemplate(b, j, x.ev, nil)
	}
	return x.ev, nil
}

// compare sets d.same[f]: the value at sc.i (c its first byte) compared
// with f's verdict and its older values, taken when it is one of them, as
// the member loop compares it.
func (d *Decoder) compare(f field, sc *scanner, c byte) {
	if d.same[f] = sameUnknown; d.verdicts[f].rest == 0 && c != 0 {
		sp := &d.spans[f]
		d.same[f] = sc.sameAs(&d.verdicts[f], sp, &d.memo)
		if d.same[f] == sameNo && d.older[f] != nil && d.recall(f, sc, sp) {
			d.same[f] = sameYes
		}
	}
}

// scanValue scans the value of f at sc.i (c its first byte), an object's
// members remembered, as the member loop scans it.
func (d *Decoder) scanValue(f field, sc *scanner, c byte) {
	if c == '{' {
		sc.memoObject(&d.spans[f], &d.memo)
	} else {
		sc.value(&d.spans[f])
	}
}

// judgeOf is d.Schemas.judgeOf(typ), without its map's look-up when typ
// is the type judged last (a copy of it is kept, not the event's bytes).
func (d *Decoder) judgeOf(typ string) judge {
	if n := d.judgedLen; n == len(typ) && n > 0 && d.judgedBy == d.Schemas && string(d.judgedType[:n]) == typ {
		return d.judged
	}
	j := d.Schemas.judgeOf(typ)
	d.judgedLen = 0
	// An event's judge names its type by the Schemas' own string, or not
	// at all: kept, it keeps nothing of the message.
	if j.kind == KindEvent && len(typ) <= len(d.judgedType) {
		d.judged, d.judgedBy, d.judgedLen = j, d.Schemas, copy(d.judgedType[:], typ)
	}
	return j
}

// run takes the members from sc.i on (a comma, where a member ends) as
// long as each is the one that followed the member before in the last
// event that had it, its name written as then (with the comma before it,
// compact; more is not called), and its value the bytes of one of its
// verdicts (sameAs, recall): most of a stream's members. A loop of its
// own, with few values to keep across its calls, costs less a member than
// the member loop. It returns the last member taken (prev when none) and
// how it stopped: at the comma of a member it does not know (named
// false), or after the name of member f (named), whose value is to be
// scanned (decided: compared with its verdicts, d.same says how: white
// space before it is other bytes) or looked at first by the member loop
// (repeated, its verdict resting).
func (d *Decoder) run(sc *scanner, prev field) (last, f field, named, decided bool) {
	b := sc.b
	for {
		f = d.follows[prev]
		if f >= nField {
			return prev, noField, false, false
		}
		// Away from the event's end the name is compared inline (match).
		p, i := &commaKeyPatterns[f], sc.i
		if !(i >= 0 && i <= len(b)-32 && p.match((*[32]byte)(b[i:i+32])) || i > len(b)-32 && p.at(b, i)) {
			return prev, noField, false, false
		}
		sc.i = i + p.n
		if n := p.n - 4; n > sc.longStr {
			sc.longStr = n
		}
		sp, v := &d.spans[f], &d.verdicts[f]
		if d.met.has(f) || v.rest != 0 {
			return prev, f, true, false
		}
		if d.same[f] = sc.sameAs(v, sp, &d.memo); d.same[f] == sameNo && d.older[f] != nil && d.recall(f, sc, sp) {
			d.same[f] = sameYes
		}
		if d.same[f] != sameYes {
			return prev, f, true, true
		}
		d.met.add(f)
		d.seen = append(d.seen, f)
		prev = f
	}
}

// recall compares the value at sc.i with f's older verdicts (its verdict's
// bytes were other): when it is one of them, taken as sameAs takes it,
// that one becomes f's verdict and the verdict takes its place among the
// older, so a value met again goes first.
func (d *Decoder) recall(f field, sc *scanner, sp *span) bool {
	o, b, i := d.older[f], sc.b, sc.i
	for j := range o {
		// A value of another length, or of up to 16 bytes and others,
		// is told inline, without sameAs's call: a stream's sessions
		// in turn are met in the worst order for a value moved first.
		w := &o[j]
		n := len(w.tok)
		if n == 0 || i < 0 || n > len(b)-i || b[i+n-1] != w.tok[n-1] || n <= 16 && !w.is(b, i, n) {
			continue
		}
		if sc.sameAs(w, sp, &d.memo) == sameYes {
			v := &d.verdicts[f]
			misses, rest := v.misses, v.rest
			*v, o[j] = o[j], *v
			v.misses, v.rest = misses, rest
			return true
		}
	}
	return false
}

// sameAs compares the value at s.i with v's. The same bytes are taken as
// they are, unscanned: sp is set as the scan would set it, s goes past
// them, and an object's members are remembered in m as memoObject would.
// A number or literal is not compared (its end depends on what follows).
func (s *scanner) sameAs(v *verdict, sp *span, m *objMemo) uint8 {
	n, i, b := len(v.tok), s.i, s.b
	switch v.kind {
	case kString:
		if i < 0 || n > len(b)-i || !v.is(b, i, n) {
			return sameNo
		}
		*sp = span{start: int32(i + 1), end: int32(i + n - 1), kind: kString, esc: v.esc, high: v.high, seen: true}
		if n-2 > s.longStr {
			s.longStr = n - 2
		}
		s.i = i + n
		return sameYes
	case kObject, kArray:
		if s.hardMax > 0 && s.depth+v.depth > s.hardMax {
			return sameUnknown // beyond the limit: the scan says where
		}
		if i < 0 || n > len(b)-i || !v.is(b, i, n) {
			return sameNo
		}
		*sp = span{start: int32(i), end: int32(i + n), kind: v.kind, seen: true}
		s.longStr = max(s.longStr, v.longStr)
		s.maxDepth = max(s.maxDepth, s.depth+v.depth)
		s.i = i + n
		if v.kind == kObject && len(m.objs) < maxMemo {
			lo := len(m.members)
			for _, mb := range v.members {
				mb.key.start, mb.key.end = mb.key.start+sp.start, mb.key.end+sp.start
				mb.val.start, mb.val.end = mb.val.start+sp.start, mb.val.end+sp.start
				m.members = append(m.members, mb)
			}
			m.objs = append(m.objs, memoObj{start: sp.start, lo: lo, hi: len(m.members)})
		}
		return sameYes
	}
	return sameUnknown
}

// eventBox is an event allocated with room for what it usually points
// to, so that decoding it is one allocation.
type eventBox struct {
	Event
	context                   [1]string
	ext                       [1]Extension
	recoverable, irreversible bool
}

// decodeState is one Decode call's working state.
type decodeState struct {
	b      []byte
	src    string        // b as a string, so unescaped strings are substrings of it
	spans  *[nField]span // those of met alone are this event's
	met    *fieldSet
	seen   []field // the fields met, each once
	ev     *Event  // &box.Event
	box    *eventBox
	bad    bool // a schema rule is broken
	unsure bool // the fast path cannot decide; the schema validator will
	memo   *objMemo
	// verdicts are the Decoder's, or nil: every value is checked.
	verdicts *[nField]verdict
	older    *[nField]*[nOlder]verdict // with verdicts: the values before them
	same     *[nField]uint8            // with verdicts: each value against its verdict, as scanned
	stamp    *stamp                    // the Decoder's last timestamp, or nil
	// fastTimeOf is the timestamp, which fastTime read (fastTimeOK) or
	// not: its date-time format need not be read again.
	fastTimeOf string
	fastTimeOK bool
	// tpl is the template the message was taken from, or nil, and
	// scanned the members fromTemplate scanned: the others' fields are
	// the template's event's (fillFromTemplate), their strings cut again.
	tpl     *template
	scanned *fieldSet
}

// objMemo remembers the members of the first objects a Decode call looks
// into (the producer, the localization hints…), so that filling the event
// and checking it do not scan each again. Its slices are reused from call
// to call.
type objMemo struct {
	objs    []memoObj
	members []member
}

// memoObj is a remembered object: where it begins, and its members in
// objMemo.members[lo:hi].
type memoObj struct {
	start  int32
	lo, hi int
}

// maxMemo bounds the objects remembered, so that finding one stays cheap;
// the others are scanned each time, as before.
const maxMemo = 8

func (m *objMemo) reset() {
	m.objs, m.members = m.objs[:0], m.members[:0]
}

// find returns the remembered members of the object beginning at start.
func (m *objMemo) find(start int32) ([]member, bool) {
	for _, o := range m.objs {
		if o.start == start {
			return m.members[o.lo:o.hi], true
		}
	}
	return nil, false
}

// span is member f's value, or nothing when the event has no f.
func (x *decodeState) span(f field) span {
	if !x.met.has(f) {
		return span{}
	}
	return x.spans[f]
}

// limits reports the soft limits the event exceeds.
func (x *decodeState) limits(lim Limits, members int, sc *scanner) []Problem {
	var out []Problem
	if len(x.b) > lim.MaxBytes {
		out = append(out, Problem{Code: ProblemLimit, Message: fmt.Sprintf("the event is %d bytes, over the %d-byte limit", len(x.b), lim.MaxBytes)})
	}
	if sc.maxDepth > lim.MaxDepth {
		out = append(out, Problem{Code: ProblemLimit, Message: fmt.Sprintf("the event is nested %d levels deep, over the limit of %d", sc.maxDepth, lim.MaxDepth)})
	}
	if n := members + len(x.ev.Extensions); n > lim.MaxFields {
		out = append(out, Problem{Code: ProblemLimit, Message: fmt.Sprintf("the event has %d top-level members and extensions, over the limit of %d", n, lim.MaxFields)})
	}
	if sc.longStr > lim.MaxString {
		out = append(out, Problem{Code: ProblemLimit, Message: fmt.Sprintf("a string of %d bytes is over the %d-byte limit", sc.longStr, lim.MaxString)})
	}
	return out
}

// str returns a string value, or "" and false for any other kind.
func (x *decodeState) str(sp span) (string, bool) {
	if sp.kind != kString {
		return "", false
	}
	if sp.esc {
		return unescape(x.b[sp.start:sp.end]), true
	}
	return x.src[sp.start:sp.end], true
}

// strVal is str's string alone ("" for other kinds), small enough to be
// inlined for its usual case, a string without escapes: filling the event
// takes most members' values so.
func (x *decodeState) strVal(sp span) string {
	if sp.kind == kString && !sp.esc {
		return x.src[sp.start:sp.end]
	}
	return x.strValOther(sp)
}

// strValOther is strVal for a string with escapes or another kind.
//
//go:noinline
func (x *decodeState) strValOther(sp span) string {
	s, _ := x.str(sp)
	return s
}

// integer returns an integer value. exact is false when the literal is not
// a plain integer of at most 15 digits (1.0, 1e3, huge values): the value is
// then approximate and validation is left to the schema validator.
func (x *decodeState) integer(sp span) (v int64, exact, ok bool) {
	if sp.kind != kNumber {
		return 0, false, false
	}
	lit := x.b[sp.start:sp.end]
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) <= 15 {
		plain := true
		for _, c := range lit {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if plain {
			if neg {
				v = -v
			}
			return v, true, true
		}
	}
	f, err := strconv.ParseFloat(x.src[sp.start:sp.end], 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return int64(f), false, f == math.Trunc(f) && err == nil
	}
	return int64(f), false, true
}

// number returns a number value; exact as for integer.
func (x *decodeState) number(sp span) (v float64, exact, ok bool) {
	if sp.kind != kNumber {
		return 0, false, false
	}
	lit := x.src[sp.start:sp.end]
	f, err := strconv.ParseFloat(lit, 64)
	return f, err == nil && len(lit) <= 15 && !strings.ContainsAny(lit, "eE"), true
}

func (x *decodeState) boolean(sp span) (v, ok bool) {
	if sp.kind != kBool {
		return false, false
	}
	return x.b[sp.start] == 't', true
}

// strings returns an array's string items, skipping other kinds.
func (x *decodeState) strings(sp span) []string {
	if sp.kind != kArray {
		return nil
	}
	var out []string
	x.items(sp, func(item span) {
		if s, ok := x.str(item); ok {
			out = append(out, s)
		}
	})
	return out
}

// items calls fn with each item of an array value.
func (x *decodeState) items(sp span, fn func(span)) {
	sc := scanner{b: x.b, i: int(sp.start)}
	sc.array(func() {
		var item span
		sc.value(&item)
		fn(item)
	})
}

// memoObject scans the object at s.i into sp, as value does, and remembers
// its members in m, so that filling the event and checking it do not scan
// it again (the producer and the localization hints, on every event). With
// m full it is only scanned.
func (s *scanner) memoObject(sp *span, m *objMemo) {
	if len(m.objs) >= maxMemo {
		s.value(sp)
		return
	}
	*sp = span{start: int32(s.i), kind: kObject, seen: true}
	lo := len(m.members)
	s.object(func(k span) {
		var v span
		s.value(&v)
		m.members = append(m.members, member{k, v})
	})
	sp.end = int32(s.i)
	m.objs = append(m.objs, memoObj{start: sp.start, lo: lo, hi: len(m.members)})
}

// members calls fn with each member of an object value, in order, its
// name unescaped.
func (x *decodeState) members(sp span, fn func(key []byte, v span)) {
	for _, m := range x.objMembers(sp) {
		fn(x.name(m.key), m.val)
	}
}

// key is a member's name: a substring of the event (no copy) unless it
// has escapes.
func (x *decodeState) key(k span) string {
	if k.esc {
		return unescape(x.b[k.start:k.end])
	}
	return x.src[k.start:k.end]
}

// name is a member's name as bytes: the event's own unless it has escapes.
func (x *decodeState) name(k span) []byte {
	if k.esc {
		return []byte(unescape(x.b[k.start:k.end]))
	}
	return x.b[k.start:k.end]
}

// objMembers returns the members of an object value, in order: the ones
// remembered when the object was scanned before in this call, or else
// scanned now (and remembered while the memo has room). The slice is
// valid for the rest of the call; ranging over it needs no callback, so
// filling the event and checking it stay plain loops.
func (x *decodeState) objMembers(sp span) []member {
	if ms, ok := x.memo.find(sp.start); ok {
		return ms
	}
	sc := scanner{b: x.b, i: int(sp.start)}
	if len(x.memo.objs) < maxMemo {
		var whole span
		sc.memoObject(&whole, x.memo)
		o := x.memo.objs[len(x.memo.objs)-1]
		return x.memo.members[o.lo:o.hi]
	}
	// The memo is full: the members go after the others, unremembered.
	// Appending may move the array; a slice returned earlier keeps the
	// old one, whose members are the same.
	lo := len(x.memo.members)
	sc.object(func(k span) {
		var v span
		sc.value(&v)
		x.memo.members = append(x.memo.members, member{k, v})
	})
	return x.memo.members[lo:]
}

// json is the value of sp as sent, whatever its kind: a string with its
// quotes.
func (x *decodeState) json(sp span) json.RawMessage {
	if sp.kind == kString {
		return json.RawMessage(x.b[sp.start-1 : sp.end+1])
	}
	return json.RawMessage(x.b[sp.start:sp.end])
}

func (x *decodeState) raw(sp span) json.RawMessage {
	if sp.kind != kObject {
		return nil
	}
	return json.RawMessage(x.b[sp.start:sp.end])
}

// populate fills the event from every member of fields whose kind fits,
// whatever the type; validation is separate.
func (x *decodeState) populate(fields []field) {
	ev := x.ev
	for _, f := range fields {
		sp := x.spans[f]
		switch f {
		case fAtContext:
			if s, ok := x.str(sp); ok {
				x.box.context[0] = s // the usual one context: no allocation of its own
				ev.Context = x.box.context[:]
			} else {
				ev.Context = x.strings(sp)
			}
		case fAaepVersion:
			ev.AAEPVersion = x.strVal(sp)
		case fType:
			ev.Type = NormalizeType(x.strVal(sp))
		case fEventID:
			ev.EventID = x.strVal(sp)
		case fSessionID:
			ev.SessionID = x.strVal(sp)
		case fSequenceNumber:
			ev.Seq, _, ev.HasSeq = x.integer(sp)
		case fTimestamp:
			if s, ok := x.str(sp); ok {
				ev.Timestamp, x.fastTimeOK = x.time(s)
				if !x.fastTimeOK {
					ev.Timestamp, _ = parseTimestamp(s)
				}
				x.fastTimeOf = s
			}
		case fProducer:
			x.producer(sp)
		case fVerbosity:
			ev.Verbosity = x.strVal(sp)
		case fUrgency:
			ev.Urgency = Urgency(x.strVal(sp))
		case fLocalizationHints:
			x.localization(sp)
		case fCorrelationID:
			ev.CorrelationID = x.strVal(sp)
		case fExtensions:
			if sp.kind == kObject {
				x.extensions(sp)
			}
		case fSummaryTerse:
			ev.SummaryTerse = Text(x.strVal(sp))
		case fSummaryNormal:
			ev.SummaryNormal = Text(x.strVal(sp))
		case fSummaryDetailed:
			ev.SummaryDetailed = Text(x.strVal(sp))
		default:
			x.payload(f, sp)
		}
	}
}

// extensions fills the event's extensions from the object at sp. The
// first is kept in the event's own room (most events carry one or none),
// so it costs no allocation; a repeated name keeps its last value, in the
// place of its first. A repeat is looked for among the few kept so far,
// or in a map once there are more than maxLinearExtensions, so that an
// object of many members costs no more than its length.
func (x *decodeState) extensions(sp span) {
	ev := x.ev
	ev.Extensions = x.box.ext[:0]
	var at map[string]int // name → index, once there are many
	for _, m := range x.objMembers(sp) {
		name, data := x.key(m.key), x.json(m.val)
		i := -1
		if at != nil {
			if j, ok := at[name]; ok {
				i = j
			}
		} else {
			i = slices.IndexFunc(ev.Extensions, func(e Extension) bool { return e.Name == name })
		}
		if i >= 0 {
			ev.Extensions[i].Data = data
			continue
		}
		ev.Extensions = append(ev.Extensions, Extension{Name: name, Data: data})
		if at != nil {
			at[name] = len(ev.Extensions) - 1
		} else if len(ev.Extensions) > maxLinearExtensions {
			at = make(map[string]int, 2*len(ev.Extensions))
			for j, e := range ev.Extensions {
				at[e.Name] = j
			}
		}
	}
	if len(ev.Extensions) == 0 {
		ev.Extensions = nil
	}
}

// maxLinearExtensions is how many extensions are searched one by one for
// a repeated name before a map is made.
const maxLinearExtensions = 8

// time is fastTime, remembering the last timestamp it read: the same
// timestamp again is not read again, and one in the same second (the same
// 19 first bytes and zone) only for its fraction.
func (x *decodeState) time(s string) (time.Time, bool) {
	st := x.stamp
	if st == nil {
		return fastTime(s)
	}
	n := st.n
	if len(s) == n && n > 0 && s == string(st.buf[:n]) {
		return st.t, true
	}
	if len(s) > 19 && n > 19 && len(s) <= len(st.buf) && s[:19] == string(st.buf[:19]) {
		if nsec, zone, ok := fraction(s[19:]); ok && zone == string(st.buf[n-st.zone:n]) {
			st.n, st.t = copy(st.buf[:], s), st.whole.Add(time.Duration(nsec))
			return st.t, true
		}
	}
	whole, nsec, zone, ok := fastSecond(s)
	if !ok {
		return time.Time{}, false
	}
	st.n, st.zone, st.t, st.whole = 0, len(zone), whole.Add(time.Duration(nsec)), whole
	if len(s) <= len(st.buf) {
		st.n = copy(st.buf[:], s)
	}
	return st.t, true
}

// payload fills the members specific to event types.
func (x *decodeState) payload(f field, sp span) {
	ev := x.ev
	str := func() string { return x.strVal(sp) }
	num := func() int64 { v, _, _ := x.integer(sp); return v }
	flag := func(in *bool) *bool { // in: the box's room for it
		if v, ok := x.boolean(sp); ok {
			*in = v
			return in
		}
		return nil
	}
	switch f {
	case fExpectedDurationMS:
		ev.ExpectedDurationMS = num()
	case fRequestedBy:
		ev.RequestedBy = Text(x.strVal(sp))
	case fRequestText:
		ev.RequestText = Text(x.strVal(sp))
	case fToolsAvailable:
		ev.ToolsAvailable = x.strings(sp)
	case fDurationMS:
		ev.DurationMS = num()
	case fToolInvocationsCount:
		ev.ToolInvocationsCount = num()
	case fOutputSummary:
		ev.OutputSummary = Text(x.strVal(sp))
	case fResultURI:
		ev.ResultURI = str()
	case fErrorCategory:
		ev.ErrorCategory = str()
	case fErrorCode:
		ev.ErrorCode = str()
	case fErrorURI:
		ev.ErrorURI = str()
	case fRecoverable:
		ev.Recoverable = flag(&x.box.recoverable)
	case fRemediationHint:
		ev.RemediationHint = Text(x.strVal(sp))
	case fCancelledBy:
		ev.CancelledBy = str()
	case fCancellationReason:
		ev.CancellationReason = str()
	case fPartialResult:
		ev.PartialResult = Text(x.strVal(sp))
	case fFromState:
		ev.FromState = str()
	case fToState:
		ev.ToState = str()
	case fProgress:
		x.progress(sp)
	case fEtaMS:
		ev.EtaMS = num()
	case fTool:
		ev.Tool = str()
	case fToolCallID:
		ev.ToolCallID = str()
	case fDescription:
		ev.Description = Text(x.strVal(sp))
	case fArgsSummary:
		ev.ArgsSummary = Text(x.strVal(sp))
	case fRiskLevel:
		ev.RiskLevel = str()
	case fIrreversible:
		ev.Irreversible = flag(&x.box.irreversible)
	case fStatus:
		ev.Status = str()
	case fErrorMessage:
		ev.ErrorMessage = Text(x.strVal(sp))
	case fChunk:
		ev.Chunk = Text(x.strVal(sp))
	case fPosition:
		ev.Position = num()
	case fComplete:
		ev.Complete, _ = x.boolean(sp)
	case fCoalesceHint:
		ev.CoalesceHint = str()
	case fOutputID:
		ev.OutputID = str()
	case fContentType:
		ev.ContentType = str()
	case fLanguage:
		ev.Language = str()
	case fReplyToken:
		ev.ReplyToken = str()
	case fTimeoutSeconds:
		ev.TimeoutSeconds = num()
	case fAction:
		ev.Action = Text(x.strVal(sp))
	case fConsequence:
		ev.Consequence = Text(x.strVal(sp))
	case fDefaultDecision:
		ev.DefaultDecision = str()
	case fReversibility:
		ev.Reversibility = str()
	case fAllowedReplies:
		ev.AllowedReplies = x.strings(sp)
	case fExtraContext:
		ev.ExtraContext = x.raw(sp)
	case fQuestion:
		ev.Question = Text(x.strVal(sp))
	case fAcceptedResponseKinds:
		ev.AcceptedResponseKinds = x.strings(sp)
	case fChoices:
		x.choices(sp)
	case fContext:
		ev.ClarifyContext = Text(x.strVal(sp))
	case fDefaultResponse:
		ev.DefaultResponse = Text(x.strVal(sp))
		ev.HasDefaultResponse = sp.kind == kString
	case fReason:
		ev.Reason = Text(x.strVal(sp))
	case fTargetKind:
		ev.TargetKind = str()
	case fTargetURI:
		ev.TargetURI = str()
	case fPackagedContext:
		ev.PackagedContext = x.raw(sp)
	case fUrgencyForHandoff:
		ev.UrgencyForHandoff = str()
	}
}

func (x *decodeState) producer(sp span) {
	if sp.kind != kObject {
		return
	}
	p := &x.ev.Producer
	for _, m := range x.objMembers(sp) {
		s := x.strVal(m.val)
		switch string(x.name(m.key)) {
		case "agent_id":
			p.AgentID = s
		case "agent_version":
			p.AgentVersion = s
		case "agent_name":
			p.AgentName = Text(s)
		case "model":
			p.Model = s
		case "manifest_uri":
			p.ManifestURI = s
		}
	}
}

func (x *decodeState) localization(sp span) {
	if sp.kind != kObject {
		return
	}
	l := &x.ev.Localization
	for _, m := range x.objMembers(sp) {
		v := m.val
		switch string(x.name(m.key)) {
		case "primary_language":
			l.PrimaryLanguage = x.strVal(v)
		case "text_direction":
			l.TextDirection = x.strVal(v)
		case "available_languages":
			l.AvailableLanguages = x.strings(v)
		case "fallback_chain":
			l.FallbackChain = x.strings(v)
		case "script":
			l.Script, _ = x.str(v)
		case "calendar":
			l.Calendar, _ = x.str(v)
		}
	}
}

func (x *decodeState) progress(sp span) {
	if sp.kind != kObject {
		return
	}
	p := &x.ev.Progress
	for _, m := range x.objMembers(sp) {
		v := m.val
		switch string(x.name(m.key)) {
		case "percent":
			p.Percent, _, p.HasPercent = x.number(v)
		case "step":
			p.Step, _, _ = x.integer(v)
		case "total_steps":
			p.TotalSteps, _, _ = x.integer(v)
		case "description":
			p.Description = Text(x.strVal(v))
		}
	}
}

func (x *decodeState) choices(sp span) {
	if sp.kind != kArray {
		return
	}
	x.items(sp, func(item span) {
		if item.kind != kObject {
			return
		}
		var c Choice
		x.members(item, func(k []byte, v span) {
			switch string(k) {
			case "value":
				c.Value, _ = x.str(v)
			case "label":
				c.Label = Text(x.strVal(v))
			}
		})
		x.ev.Choices = append(x.ev.Choices, c)
	})
}

// validate checks the members checked (those met, or those fromTemplate
// scanned: the others are a template's bytes, which passed the same
// rules) against the type's rules, and the rules across members; it sets
// x.bad for a broken rule and x.unsure where only the schema validator
// can tell.
func (x *decodeState) validate(er *eventRules, checked []field) {
	if !x.met.hasAll(er.requiredSet) {
		x.bad = true
		return
	}
	for _, f := range checked {
		r := er.fields[f]
		if x.verdicts != nil && x.same[f] == sameYes && x.verdicts[f].r == r && r != nil {
			// The bytes its verdict found valid under r (checkField's
			// first test, without the call: most members of a stream).
			x.verdicts[f].misses = 0
			continue
		}
		sp := x.spans[f]
		if r == nil && er.closed {
			x.bad = true // a member of another type: not defined for this one
			return
		}
		if r == nil {
			continue
		}
		if f == fType {
			// Rules are chosen by the normalized type, which matches its const.
			if sp.kind != kString || x.ev.Type == "" {
				x.bad = true
			} else if x.verdicts != nil && sp.end-sp.start <= maxVerdict {
				// Its verdict: the same bytes are the same type, whose
				// rules (r among them) they choose again.
				x.retire(f)
				x.keep(&x.verdicts[f], r, sp)
			}
			continue
		}
		if !x.checkField(f, r, sp) {
			x.bad = true
			return
		}
	}
	if er.rejectDefault {
		irr, _ := x.boolean(x.span(fIrreversible))
		risk, _ := x.str(x.span(fRiskLevel))
		dd := x.span(fDefaultDecision)
		if irr && (risk == "medium" || risk == "high") && dd.seen && x.ev.DefaultDecision != DecisionReject {
			x.bad = true
		}
	}
}

// checkField is check for top-level member f, skipped when its value is
// the one last found valid under the same rule.
func (x *decodeState) checkField(f field, r *rule, sp span) bool {
	if x.verdicts == nil {
		return x.check(r, sp)
	}
	v := &x.verdicts[f]
	if v.rest > 0 {
		v.rest--
		return x.check(r, sp)
	}
	val := x.b[sp.start:sp.end]
	same := x.same[f]
	if same == sameUnknown && v.kind == sp.kind && string(v.val) == string(val) {
		same = sameYes
	}
	if v.r == r && same == sameYes {
		v.misses = 0
		return true
	}
	// A miss counts once the older values are all taken: until then each
	// is kept, as a stream of a few sessions or types fills them.
	if o := x.older[f]; o != nil && o[nOlder-1].r != nil {
		if v.misses++; v.misses >= missMax {
			v.misses, v.rest = missMax-1, restFor // one more miss after the rest: rest again
		}
	}
	unsure := x.unsure
	x.unsure = false
	ok := x.check(r, sp)
	if ok && !x.unsure && len(val) <= maxVerdict {
		x.retire(f)
		x.keep(v, r, sp)
	}
	x.unsure = x.unsure || unsure
	return ok
}

// retire moves f's verdict, about to be replaced, to the first of its
// older ones (made now if it has none), the last of which is dropped; the
// verdict keeps the dropped one's memory, to be filled again by keep.
func (x *decodeState) retire(f field) {
	v := &x.verdicts[f]
	if v.r == nil {
		return // nothing passed yet
	}
	o := x.older[f]
	if o == nil {
		o = new([nOlder]verdict)
		x.older[f] = o
	}
	last := o[nOlder-1]
	copy(o[1:], o[:nOlder-1])
	o[0] = *v
	v.tok, v.members = last.tok[:0], last.members[:0]
}

// keep makes the value at sp, found valid under r, v's.
func (x *decodeState) keep(v *verdict, r *rule, sp span) {
	start, end := sp.start, sp.end
	if sp.kind == kString {
		start, end = start-1, end+1 // its quotes
	}
	v.r, v.kind, v.tok = r, sp.kind, append(v.tok[:0], x.b[start:end]...)
	v.short, v.mask = [2]uint64{}, [2]uint64{}
	if len(v.tok) <= 16 {
		for k, c := range v.tok {
			v.short[k/8] |= uint64(c) << (8 * (k % 8))
			v.mask[k/8] |= 0xff << (8 * (k % 8))
		}
	}
	v.val = v.tok[sp.start-start : len(v.tok)-int(end-sp.end)]
	v.esc, v.high, v.longStr, v.depth, v.members = sp.esc, sp.high, int(sp.end-sp.start), 0, v.members[:0]
	if sp.kind != kObject && sp.kind != kArray {
		return
	}
	sc := scanner{b: v.val} // what the scan found in it, seldom needed
	var whole span
	sc.value(&whole)
	v.longStr, v.depth = sc.longStr, sc.maxDepth
	if sp.kind == kObject {
		for _, m := range x.objMembers(sp) {
			m.key.start, m.key.end = m.key.start-sp.start, m.key.end-sp.start
			m.val.start, m.val.end = m.val.start-sp.start, m.val.end-sp.start
			v.members = append(v.members, m)
		}
	}
}

// strangers judges the top-level members that no event type defines: on a
// core type each must be a language variant of one of its text members
// (spec 11.5.1); anything else belongs in extensions (spec 7.2).
func (x *decodeState) strangers(er *eventRules, ms []member) {
	if !er.closed {
		return
	}
	for _, m := range ms {
		name, _ := x.str(m.key)
		ok := false
		for _, p := range er.patterns {
			if p.match(name) {
				ok = x.check(p.rule, m.val)
				break
			}
		}
		if !ok {
			x.bad = true
			return
		}
	}
}

// check reports whether a value satisfies r (and r.and).
func (x *decodeState) check(r *rule, sp span) bool {
	if !x.check1(r, sp) {
		return false
	}
	return r.and == nil || x.check(r.and, sp)
}

func (x *decodeState) check1(r *rule, sp span) bool {
	if len(r.oneOf) > 0 {
		n := 0
		for _, alt := range r.oneOf {
			if x.check(alt, sp) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	switch r.typ {
	case tString:
		s, ok := x.str(sp)
		// The scanner saw every byte of a string without escapes: with
		// none of 0x80 or above, it is ASCII, and need not be read again.
		return ok && x.checkString(r, s, !sp.esc && !sp.high)
	case tInteger:
		v, exact, ok := x.integer(sp)
		if !ok {
			return false
		}
		if !exact {
			x.unsure = true
			return true
		}
		return inRange(r, float64(v))
	case tNumber:
		v, exact, ok := x.number(sp)
		if !ok {
			return false
		}
		if !exact {
			x.unsure = true
			return true
		}
		return inRange(r, v)
	case tBoolean:
		return sp.kind == kBool && x.checkConst(r, sp)
	case tObject:
		return sp.kind == kObject && x.checkObject(r, sp)
	case tArray:
		return sp.kind == kArray && x.checkArray(r, sp)
	case tAny:
		return x.checkConst(r, sp)
	}
	x.unsure = true
	return true
}

func inRange(r *rule, v float64) bool {
	return (r.min == nil || v >= *r.min) && (r.max == nil || v <= *r.max)
}

// checkConst checks a const or enum of a value of any kind.
func (x *decodeState) checkConst(r *rule, sp span) bool {
	switch c := r.konst.(type) {
	case string:
		s, ok := x.str(sp)
		if !ok || s != c {
			return false
		}
	case bool:
		v, ok := x.boolean(sp)
		if !ok || v != c {
			return false
		}
	}
	if r.enum != nil {
		s, ok := x.str(sp)
		return ok && inEnum(r.enum, s)
	}
	return true
}

func inEnum(enum []string, s string) bool {
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}

// checkString checks s against r. ascii says s is known to be ASCII; when
// false, s is looked at to tell.
func (x *decodeState) checkString(r *rule, s string, ascii bool) bool {
	n := len(s)
	if !ascii && !isASCII(s) {
		if !utf8.ValidString(s) {
			x.unsure = true // encoding/json would replace the bad bytes
		}
		n = utf8.RuneCountInString(s)
	}
	if r.minLen >= 0 && n < r.minLen || r.maxLen >= 0 && n > r.maxLen {
		return false
	}
	if c, ok := r.konst.(string); ok && s != c {
		return false
	}
	if r.enum != nil && !inEnum(r.enum, s) {
		return false
	}
	if r.match != nil && !r.match(s) {
		return false
	}
	switch r.format {
	case "date-time":
		if x.fastTimeOK && s == x.fastTimeOf {
			return true // what fastTime reads is a valid date-time
		}
		valid, sure := checkDateTime(s)
		if !sure {
			x.unsure = true
			return true
		}
		return valid
	case "uri":
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() {
			return false
		}
		if strings.Contains(u.Hostname(), ":") {
			x.unsure = true // IPv6 hosts: leave to the schema validator
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (x *decodeState) checkObject(r *rule, sp span) bool {
	if len(r.names) == 0 && r.reqMask == 0 && len(r.anyMasks) == 0 && !r.closed && r.values == nil && r.minProps <= 0 {
		return true // nothing is asked of its members (an extension's data): not read again
	}
	var seen uint64
	count, ok := 0, true
	for _, m := range x.objMembers(sp) {
		k, v := m.key, m.val
		count++
		// The member's rule by its position among the sorted names: no
		// map look-up, and the position is its bit.
		if i := r.index(x.b[k.start:k.end], k.esc); i >= 0 {
			bit := uint64(1) << i
			if seen&bit != 0 {
				x.unsure = true
			}
			seen |= bit
			ok = ok && x.check(r.list[i], v)
			continue
		}
		switch {
		case r.closed:
			ok = false
		case r.values != nil:
			ok = ok && x.check(r.values, v)
		}
	}
	if !ok || r.minProps >= 0 && count < r.minProps || seen&r.reqMask != r.reqMask {
		return false
	}
	if len(r.anyMasks) == 0 {
		return true
	}
	for _, m := range r.anyMasks {
		if m&(1<<63) != 0 {
			x.unsure = true // a name that is not a property: left to the schema validator
		}
		if seen&m == m {
			return true
		}
	}
	return false
}

// index is the position among r.names of a member's name (its bytes in
// the event, esc if they hold escapes), or -1 when it is not a property.
func (r *rule) index(key []byte, esc bool) int {
	if esc {
		key = []byte(unescape(key))
	}
	for i, n := range r.names {
		if n == string(key) {
			return i
		}
	}
	return -1
}

// propIndex is the bit of a known property (its index in sorted order), or
// 63 for an unknown one.
func (r *rule) propIndex(k string) int {
	for i, n := range r.names {
		if n == k {
			return i
		}
	}
	return 63
}
func (x *decodeState) checkArray(r *rule, sp span) bool {
	n, ok := 0, true
	var items []span // kept to decide uniqueItems
	x.items(sp, func(item span) {
		pr := r.items
		if n < len(r.prefix) {
			pr = r.prefix[n]
		}
		n++
		if pr != nil && !x.check(pr, item) {
			ok = false
		}
		if r.unique && ok {
			items = append(items, item)
		}
	})
	ok = ok && (r.minItems < 0 || n >= r.minItems) && (r.maxItems < 0 || n <= r.maxItems)
	if ok && r.unique {
		unique, sure := x.unique(items)
		if !sure {
			x.unsure = true
			return true
		}
		return unique
	}
	return ok
}

// NormalizeType turns a full-URI core type into the compact "aaep:" form;
// any other type is returned unchanged.
func NormalizeType(t string) string {
	const full = "https://aaep-protocol.org/types/"
	if strings.HasPrefix(t, full) && len(t) > len(full) {
		return "aaep:" + t[len(full):]
	}
	return t
}

// PeekedType returns PeekType(b) for b, the message that the Decoder's
// last call of Decode returned ev for, without scanning b again when it
// need not: the event's type, unless a member of b was repeated or had an
// escaped name (PeekType takes the first "type" member that is a string,
// by its name as written; the event, the last).
func (d *Decoder) PeekedType(b []byte, ev *Event) string {
	if ev != nil && ev == d.last && d.plain {
		return ev.Type
	}
	return PeekType(b)
}

// peekDepth is the nesting PeekType reads.
const peekDepth = 64

// PeekType returns the normalized "type" of a JSON object message without
// decoding the rest, or "" when there is none.
func PeekType(b []byte) string {
	sc := scanner{b: b, hardMax: peekDepth}
	if sc.next() != '{' {
		return ""
	}
	typ := ""
	sc.object(func(key span) {
		var v span
		sc.value(&v)
		if sc.err == nil && string(b[key.start:key.end]) == "type" && v.kind == kString && typ == "" {
			if v.esc {
				typ = unescape(b[v.start:v.end])
			} else {
				typ = typeString(b[v.start:v.end])
			}
			sc.err = errFound // stop: the rest of the message does not matter here
		}
	})
	return NormalizeType(typ)
}

// errFound stops PeekType's scan once the type is found; it is never
// returned.
var errFound = &SyntaxError{Msg: "found"}

// typeString is b as a string: the constant when b is one of CoreTypes,
// so that peeking the type of a usual event allocates nothing.
func typeString(b []byte) string {
	if bytes.HasPrefix(b, []byte("aaep:")) {
		for _, t := range CoreTypes {
			if string(b) == t {
				return t
			}
		}
	}
	return string(b)
}

// parseTimestamp parses an RFC 3339 date-time.
func parseTimestamp(s string) (time.Time, bool) {
	if t, ok := fastTime(s); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// checkDateTime decides the "date-time" format for the common shape
// YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM); sure is false for anything else
// (lower-case letters, leap seconds), which the schema validator decides.
func checkDateTime(s string) (valid, sure bool) {
	if _, ok := fastTime(s); ok {
		return true, true
	}
	if !shapeOK(s) {
		return false, false
	}
	return false, true
}

// shapeOK reports whether s has the common date-time shape, whatever its
// numbers, so that fastTime's verdict on it is final.
func shapeOK(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout)+1 {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' && !isDigit(s[i]) || layout[i] != 'd' && layout[i] != s[i] {
			return false
		}
	}
	if s[17:19] == "60" {
		return false // a leap second: left to the schema validator
	}
	rest := s[len(layout):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && isDigit(rest[1]) && isDigit(rest[2]) && rest[3] == ':' && isDigit(rest[4]) && isDigit(rest[5])
}

// fastTime parses the common date-time shape without allocating.
func fastTime(s string) (time.Time, bool) {
	whole, nsec, _, ok := fastSecond(s)
	return whole.Add(time.Duration(nsec)), ok
}

// fastSecond is fastTime in parts: the time without its fraction of a
// second, the fraction in nanoseconds, and the zone after it ("Z" or an
// offset).
func fastSecond(s string) (whole time.Time, nsec int, zone string, ok bool) {
	if !shapeOK(s) {
		return time.Time{}, 0, "", false
	}
	n := func(i, j int) int {
		v := 0
		for _, c := range s[i:j] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := n(0, 4), n(5, 7), n(8, 10)
	hour, minute, sec := n(11, 13), n(14, 16), n(17, 19)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, 0, "", false
	}
	nsec, zone, _ = fraction(s[19:]) // shapeOK checked it
	whole = time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if zone != "Z" {
		oh, om := n(len(s)-5, len(s)-3), n(len(s)-2, len(s))
		if oh > 23 || om > 59 {
			return time.Time{}, 0, "", false
		}
		off := time.Duration(oh)*time.Hour + time.Duration(om)*time.Minute
		if zone[0] == '+' {
			off = -off
		}
		whole = whole.Add(off)
	}
	return whole, nsec, zone, true
}

// fraction reads what follows a date-time's seconds: an optional fraction
// (a point and at least one digit; digits past the ninth are dropped) and
// the rest, the zone, unread. ok is false for a point without digits.
func fraction(rest string) (nsec int, zone string, ok bool) {
	if rest == "" || rest[0] != '.' {
		return 0, rest, true
	}
	k := 1
	for k < len(rest) && isDigit(rest[k]) {
		if k <= 9 {
			nsec = nsec*10 + int(rest[k]-'0')
		}
		k++
	}
	if k == 1 {
		return 0, "", false
	}
	for d := k - 1; d < 9; d++ {
		nsec *= 10
	}
	return nsec, rest[k:], true
}

// daysIn is the number of days in a month of the proleptic Gregorian
// calendar (as time.Date counts them).
func daysIn(year, month int) int {
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		return 29
	}
	return int("\x1f\x1c\x1f\x1e\x1f\x1e\x1f\x1f\x1e\x1f\x1e\x1f"[month-1])
}
