// template.go: decoding a message against the last one of its type.

package protocol

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// A template is an earlier message of a type, decoded on the member loop's
// path with no problem at all, and what that loop found in it: a stream's
// events mostly repeat the bytes of the last event of their type with a
// few values changed (the event's ID, sequence number and timestamp, a
// tool call's ID, the session). A message of the type is compared with it
// byte for byte (firstDiff, 32 bytes at a time); the members whose
// bytes are the template's are taken as the template's, shifted, without
// their names being read or their values compared or checked, and only a
// member whose value differs is scanned and checked (Decoder.fromTemplate).
//
// Why that is the member loop's result: JSON's grammar is context-free,
// and the parser's state after a member's value in the top-level object
// is the same whatever the value was. The bytes before the first
// difference are the template's, so they parse as the template's did;
// the difference must fall within one member's value (from after its
// colon to the byte after the value, which ends a number or literal),
// which is scanned afresh from where the template's began, so it is one
// JSON value, whatever it holds; the bytes after it are then compared
// with the template's after that member's value, and parse as they did
// there. So the new message has the template's members, in its order,
// with its names (none escaped: such a template is not kept), and the
// values of the members not scanned are the template's bytes. Those
// values passed their rules in the template's decode, and the rules are
// the same: the type's value may not differ (its bytes choose the rules),
// the Schemas and Limits are the template's (templates are dropped when
// either changes). The changed values are checked by validate as the
// member loop's are; the event's own rules across members (the required
// ones, a confirmation's default) are checked by validate as always.
// What the limits read is decided as the scan would decide it (see
// fromTemplate): the longest string and the deepest nesting begin as the
// template's, within the limits it met, and grow with the values
// scanned; the soft limits are decided after, as for any message; the
// hard limits are the template's, which it was under, or the scan's.
//
// Templates are patched in place with the values of the messages taken
// from them (patchFrom), or made again (keepTemplate), so that the next
// message of a type is compared with the last one.
type template struct {
	b       []byte // a copy of the message, the Decoder's own
	members []tplMember
	fields  []field  // the members' fields, in order
	met     fieldSet // the same, as a set
	// typeAt is where the type's value (its opening quote) is, and
	// typeEnd where it ends; typeTail is the 16 bytes before typeEnd.
	typeAt, typeEnd int
	typeTail        [2]uint64
	judge           judge // the type's (Schemas.judgeOf)
	typeIdx         int   // the type's index in members
	// long and depth are the longest string and the deepest nesting of
	// the message (the names' and every member's); no more than the
	// limits, which the template met, and depth no more than peekDepth.
	long, depth  int
	by           *Schemas
	misses, rest uint8 // as a verdict's (see verdict)
	// patch says that the message fromTemplate took last differs from
	// the template in values of the same lengths (of any kind: a
	// progress object's step changes, and a listener's flood has one in
	// every event): when it meets every rule surely and no limit, and
	// nests no deeper than peekDepth, it becomes the template in place
	// (patchFrom). stale counts the messages taken from it since that
	// could not patch it: at maxStale it is made again of one
	// (keepTemplate).
	patch bool
	stale uint8
	// patched says that a message patched t since it was made: its shape
	// repeats. twin is the other template of t's type, or nil (a twin's
	// stale counts the messages patching its twin too): a type
	// whose messages come in two shapes (a tool's name, its arguments
	// and the lengths of the values after them) keeps one of each, a
	// message tried against the one found first and, when one of its
	// values there has another length, against its twin (tryTemplate).
	// Twins are made and linked by keepTemplate, unlinked (unlink) when
	// either is dropped or made of another type's message.
	patched bool
	twin    *template
	// fill is what the event of the message t.b was filled with, for the
	// extensions, whose bytes a message taken from t repeats (see tplFill).
	fill tplFill
	// ev is the event of the message t was made of, its strings cut
	// from a frozen copy of it; fresh are the members whose fields are
	// not taken from it (see keepEvent), freshList the same in order.
	ev        Event
	fresh     fieldSet
	freshList []field
	// spanned are the indexes in members of those whose spans are read
	// when not scanned (the fresh ones', the extensions', those
	// validate reads across members: spanned).
	spanned []int32
	// memberAt is, for each byte of b and the end, the first member
	// whose value ends at it or after it (len(members) past the last):
	// a difference there is that member's, or between it and the one
	// before.
	memberAt []uint8
	leaves   copied // those of the members not fresh (see freshen)
}

// tplFill is what populate filled an event's extensions with from a
// template's message (one with t.b's bytes, at t.b's places): a message
// taken from the template whose extensions' bytes are the template's (not
// scanned) fills them with the same values, their strings cut at the
// member's new place (rebase). Only values are kept, never the slice the
// event returned shares with its caller.
type tplFill struct {
	// base and n are the address and length of the message these were
	// cut from: a string within them is cut again from the new message;
	// another (unescaped: allocated, while that message was alive) is
	// kept as it is.
	base uintptr
	n    int
	// extAt is where the extensions' value began in that message.
	extAt int32
	// ext is a copy of the event's extensions (not its slice, which the
	// caller holds), the template's own, and hasExt whether the event's
	// were not nil.
	ext    []Extension
	hasExt bool
}

// keepFill remembers in t.fill what ev, just filled from b (of t.b's
// bytes, at its places), holds of the extensions.
//
// A template patched (patchFrom) keeps its fill, its strings cut from
// the message it was made of: a patch changes values that are no object,
// at their places, so the extensions' value is still t.b's, at the same
// place (unless it is the value changed: the fill is then made again).
// fill's strings keep that message's memory, as an event does.
func (t *template) keepFill(ev *Event, b []byte, spans *[nField]span) {
	fl := &t.fill
	fl.base, fl.n = uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b)
	fl.extAt = spans[fExtensions].start
	fl.ext, fl.hasExt = append(fl.ext[:0], ev.Extensions...), ev.Extensions != nil
}

// rebaseBytes is rebase for a value as sent, which is always cut from the
// message (json).
func (fl *tplFill) rebaseBytes(v []byte, b []byte, delta int) []byte {
	if at, ok := fl.moved(unsafe.Pointer(unsafe.SliceData(v)), len(v), delta); ok {
		return b[at : at+len(v)] // its capacity to b's end, as json's
	}
	return v
}

// moved reports where n bytes at p, when they lie in fill's message, are
// in the new message, delta bytes further.
func (fl *tplFill) moved(p unsafe.Pointer, n, delta int) (int, bool) {
	off := uintptr(p) - fl.base
	if n == 0 || off >= uintptr(fl.n) {
		return 0, false
	}
	return int(off) + delta, true
}

// extensionsFromTpl fills the event's extensions from the template's
// event, their value (at sp) being the template's bytes, kept in the
// event's own room as extensions keeps them.
func (x *decodeState) extensionsFromTpl(sp span) {
	fl := &x.tpl.fill
	if !fl.hasExt {
		return // none, or not an object: nil, as extensions leaves them
	}
	delta := int(sp.start - fl.extAt)
	ext := x.box.ext[:0]
	for _, e := range fl.ext {
		ext = append(ext, Extension{Name: fl.rebase(e.Name, x.src, delta), Data: fl.rebaseBytes(e.Data, x.b, delta)})
	}
	x.ev.Extensions = ext
}

// rebase is s, which fill's message held, cut from src (the new message)
// delta bytes further; s itself when it was not cut from that message.
func (fl *tplFill) rebase(s, src string, delta int) string {
	if at, ok := fl.moved(unsafe.Pointer(unsafe.StringData(s)), len(s), delta); ok {
		return src[at : at+len(s)]
	}
	return s
}

// tplMember is a top-level member of a template.
type tplMember struct {
	f field
	// rs is where its value may begin (after the colon, before any white
	// space), ve where it ends (after a string's closing quote): a
	// difference from rs to ve, included, is this value's.
	rs, ve int32
	sp     span // its value, as the member loop found it
}

// Bounds on what templates keep: a Decoder keeps at most nTemplates of
// messages of up to maxTemplateBytes (a listener keeps a Decoder for each
// agent).
const (
	nTemplates       = 8
	maxTemplateBytes = 4 << 10
	maxStale         = 16
)

// templateFor returns the template of b's type, found where its type was
// in the template, or nil. Only the 16 bytes that end the type are
// compared here (most types differ there); the whole message is compared
// by fromTemplate, which tells a template of another type (that then
// counts no miss).
func (d *Decoder) templateFor(b []byte) *template {
	for _, t := range d.templates {
		if t == nil {
			return nil
		}
		if e := t.typeEnd; t.rest == 0 && e <= len(b) && e >= 16 && t.by == d.Schemas {
			w := (*[16]byte)(b[e-16 : e])
			if binary.LittleEndian.Uint64(w[:8]) == t.typeTail[0] && binary.LittleEndian.Uint64(w[8:]) == t.typeTail[1] {
				return t
			}
		}
	}
	return nil
}

// tryTemplate decodes the members of sc's message from the template of
// its type, when there is one and the message is it with values changed
// (fromTemplate; spansOf is the template d.spans holds); d.taken is that
// template, or nil. Apart from Decode, its locals are not live across the
// member loop.
func (d *Decoder) tryTemplate(sc *scanner, spansOf *template) bool {
	d.taken = nil
	if d.allSlow || d.noTemplates {
		return false
	}
	t := d.templateFor(sc.b)
	if t == nil {
		return false
	}
	if ok, bailed := d.fromTemplate(t, sc, spansOf == t, true); !ok {
		// bailed: a value of another length than t's, and t has a
		// twin to try, which is found first from then on when it is
		// the message's. The spans and members d holds are no longer
		// the twin's, even when the last message was taken from it:
		// the try of t wrote over them.
		tw := t.twin
		if !bailed || !d.fromTemplateOnly(tw, sc) {
			return false
		}
		d.swapTemplates(t, tw)
		t = tw
	}
	d.taken = t
	return true
}

// fromTemplateOnly is fromTemplate with no bailing out to a twin, and
// nothing taken as set of d's spans.
func (d *Decoder) fromTemplateOnly(t *template, sc *scanner) bool {
	ok, _ := d.fromTemplate(t, sc, false, false)
	return ok
}

// twinFor is t's twin when a message may be tried against it (it does not
// rest, and it is of the Schemas d decodes with), or nil.
func (d *Decoder) twinFor(t *template) *template {
	if tw := t.twin; tw != nil && tw.rest == 0 && tw.by == d.Schemas {
		return tw
	}
	return nil
}

// swapTemplates swaps the places of t and u in d.templates (twins: the
// one a message was taken from last is found first).
func (d *Decoder) swapTemplates(t, u *template) {
	i, j := slices.Index(d.templates[:], t), slices.Index(d.templates[:], u)
	if i >= 0 && j >= 0 {
		d.templates[i], d.templates[j] = u, t
	}
}

// unlink makes t no one's twin.
func (t *template) unlink() {
	if t.twin != nil {
		t.twin.twin = nil
		t.twin = nil
	}
}

// dropTemplate removes t from d.templates, the others moving up.
func (d *Decoder) dropTemplate(t *template) {
	if k := slices.Index(d.templates[:], t); k >= 0 {
		t.unlink()
		copy(d.templates[k:], d.templates[k+1:])
		d.templates[nTemplates-1] = nil
	}
}

// follow makes the template d.taken follow b, taken from it, which met
// every rule surely and no limit (judged by j), its longest string long
// and its nesting depth (as fromTemplate found them): patched in place,
// or made again after maxStale messages it could not be patched with.
func (d *Decoder) follow(b []byte, j judge, ev *Event, long, depth int) {
	t := d.taken
	switch {
	case d.nChanged == 0:
		d.spansOf = t
	case t.patch && depth <= peekDepth:
		d.patchFrom(t, b, long, depth)
		if u := t.twin; u != nil {
			// u's stale counts the messages of its type since one
			// patched it: a shape gone (a value grown by a digit)
			// does not keep its place.
			if u.stale++; u.stale >= maxStale {
				d.dropTemplate(u)
			}
		}
		// Values of the same lengths changed, at their places: the
		// template's event takes the fields of those that hold nothing
		// of the message (numbers, flags, times, a progress object with
		// no description: holdsNothing); the others' are filled afresh
		// from now on (the event's strings are a frozen copy's). The
		// extensions' fill is made again when they changed.
		fresher := false
		for _, f := range d.changed[:d.nChanged] {
			switch {
			case t.fresh.has(f):
			case scalarFields.has(f) || holdsNothing(ev, f):
				copyMember(&t.ev, ev, f)
			default:
				t.fresh.add(f)
				fresher = true
			}
		}
		if fresher {
			t.freshen()
		}
		if d.scanned.has(fExtensions) {
			t.keepFill(ev, b, &d.spans)
		}
		d.spansOf = t
	case t.twin == nil && t.patched && d.templates[nTemplates-1] == nil:
		// t's shape repeats, and b is of another: b is made t's twin,
		// found first (the next message is likelier b's shape). Only
		// in a free place: a twin never pushes out another type's
		// template (d.templates' free places are its last).
		d.spanAll(t) // keepTemplate reads every member's
		if d.spansOf = d.keepTemplate(b, j, ev, t); d.spansOf != nil && t.twin == d.spansOf {
			d.swapTemplates(t, d.spansOf)
		}
	default:
		if t.stale++; t.stale < maxStale {
			break
		}
		if u := t.twin; u != nil {
			// Twins whose messages patch neither: t goes, and its
			// twin stays alone until a message patches it again (so a
			// type whose values change length in most messages is
			// not tried twice for long).
			d.dropTemplate(t)
			u.patched = false
			break
		}
		d.spanAll(t) // keepTemplate reads every member's
		d.spansOf = d.keepTemplate(b, j, ev, nil)
	}
}

// fromTemplate decodes the members of b, as the member loop would, from
// t (see template): it fills d.spans and d.seen (unless spansSet: they
// are t's, the spans set again only where they moved), d.met, d.same (of
// the values scanned: validate reads no other), d.changed (the members
// scanned) and d.memo with the objects scanned (those not scanned are
// not looked into: the event takes their fields from the template's,
// fillFromTemplate), and sc's longest string and deepest nesting, and
// reports whether b is t with values changed. When it is not, it leaves what it filled for the
// member loop to fill again, and sc as it found it. With bail, when t has
// a twin to try (twinFor), it stops at the first value of another length
// than t's, reporting bailed (and no miss of t's): the message may be the
// twin's.
//
// The longest string and the deepest nesting begin as the template's
// whole message's, not as those of the members not scanned: the template
// met the limits, and its nesting is no more than peekDepth, so a limit
// is exceeded, or PeekedType must scan again, only for a value scanned
// now that is longer or deeper than anything in the template, whose
// length or depth is then what the member loop finds too.
func (d *Decoder) fromTemplate(t *template, sc *scanner, spansSet, bail bool) (ok, bailed bool) {
	b, tb := sc.b, t.b
	ms, memberAt := t.members, t.memberAt[:len(tb)+1]
	moved := false // a member's value of another length
	delta := 0     // where b is, less where t is
	at := 0        // how far t is taken
	k := 0         // the next member of t
	i0 := sc.i
	if spansSet {
		d.seen = d.seen[:len(t.fields)] // the last call's: t.fields
	} else {
		d.seen = append(d.seen[:0], t.fields...)
	}
	d.met = t.met
	d.nChanged = 0
	d.scanned = fieldSet{}
	patch, miss := true, true
	sc.depth, sc.maxDepth, sc.longStr = 1, t.depth, t.long
	for {
		j := at + delta
		if j < 0 || j > len(b) {
			break
		}
		diff := at + firstDiff(tb[at:], b[j:])
		// The members wholly before the difference are the template's
		// (their spans set at the end, those read: spanned); k is the
		// first member not wholly before it.
		k = max(k, int(memberAt[diff])) // not back to a member scanned
		if diff == len(tb) && len(b)-j == len(tb)-at {
			if moved || !spansSet {
				d.spanned(t)
			}
			t.misses = 0
			t.patch = patch
			d.templated++
			sc.i, sc.depth = len(b), 0
			return true, false // the same bytes to the end
		}
		// The difference must be within the value of member k.
		if k == t.typeIdx {
			miss = false // another type's template: no miss of its own
			break
		}
		if k == len(ms) || diff < int(ms[k].rs) {
			break
		}
		m := &ms[k]
		f := m.f
		d.changed[d.nChanged], d.changedAt[d.nChanged] = f, int32(k)
		d.nChanged++
		d.scanned.add(f)
		sc.i = int(m.rs) + delta
		c := sc.peek()
		if c <= ' ' {
			c = sc.next()
		}
		if d.compare(f, sc, c); d.same[f] != sameYes {
			d.scanValue(f, sc, c)
		}
		if sc.err != nil {
			break
		}
		at, delta = int(m.ve), sc.i-int(m.ve)
		if delta != 0 {
			if bail && d.twinFor(t) != nil {
				bailed, miss = true, false
				break
			}
			moved, patch = true, false
		}
		d.deltaAfter[d.nChanged-1] = int32(delta)
		k++
	}
	// Not the template's: the member loop begins again.
	d.met = fieldSet{}
	d.seen = d.seen[:0]
	d.memo.reset()
	*sc = scanner{b: b, i: i0, hardMax: sc.hardMax}
	if !miss {
		return false, bailed
	}
	if t.misses++; t.misses >= missMax {
		t.misses, t.rest = missMax-1, restFor
	}
	return false, false
}

// spanned sets the spans of the members of t that fromTemplate took
// from it (not scanned) and that are read (t.spanned: populate's, the
// extensions', validate's across members), at their places in the
// message: each moved by the changes in length of the values scanned
// before it (d.deltaAfter).
func (d *Decoder) spanned(t *template) {
	d.setSpans(t, t.spanned, false)
}

// spanAll is spanned for every member of t, for keepTemplate, which reads
// every member's span.
func (d *Decoder) spanAll(t *template) {
	d.setSpans(t, nil, true)
}

// setSpans sets the spans of the members ks (indexes in t.members, in
// order), or of every member (all), not scanned.
func (d *Decoder) setSpans(t *template, ks []int32, all bool) {
	ci, delta := 0, int32(0)
	n := len(ks)
	if all {
		n = len(t.members)
	}
	for i := range n {
		k := int32(i)
		if !all {
			k = ks[i]
		}
		for ci < d.nChanged && d.changedAt[ci] <= k {
			delta = d.deltaAfter[ci]
			ci++
		}
		m := &t.members[k]
		if d.scanned.has(m.f) {
			continue // scanned: its span is the scan's
		}
		sp := m.sp
		sp.start += delta
		sp.end += delta
		d.spans[m.f] = sp
	}
}

// patchFrom makes b, which fromTemplate took from t, differing in the
// values of d.changedAt of the same lengths (t.patch), and which then met
// every rule surely and no limit, t: b, of t's length, is copied over it
// (one copy costs less than a few small ones), and the members changed
// take their new spans. long and depth are b's longest string and nesting
// as fromTemplate found them (from t's on, and no more than the limits b
// met, depth no more than peekDepth: follow): t.long and t.depth stay
// the longest string and deepest nesting of any message t was, which
// fromTemplate's argument needs (a value not scanned is within them).
func (d *Decoder) patchFrom(t *template, b []byte, long, depth int) {
	copy(t.b, b)
	for _, k := range d.changedAt[:d.nChanged] {
		m := &t.members[k]
		m.sp = d.spans[m.f]
	}
	t.long, t.depth = max(t.long, long), max(t.depth, depth)
	t.stale, t.patched = 0, true
}

// keepTemplate makes b, which the member loop decoded with no problem (no
// member repeated, escaped or undefined, every rule surely met, no limit
// exceeded), the template of its type, judged by j, unless its type's
// template rests; or, with twinOf (a template of b's type with no twin),
// a second template of the type, twinOf's twin. It returns the template
// made, or nil.
func (d *Decoder) keepTemplate(b []byte, j judge, ev *Event, twinOf *template) *template {
	if len(b) > maxTemplateBytes || !d.met.has(fType) {
		return nil
	}
	tsp := d.spans[fType]
	typeAt, typeEnd := int(tsp.start)-1, int(tsp.end)+1
	if tsp.kind != kString || typeEnd < 16 {
		return nil
	}
	typ := b[typeAt:typeEnd]
	slot := -1
	for k, t := range d.templates {
		if t == nil {
			slot = k
			break
		}
		if twinOf == nil && string(t.b[t.typeAt:t.typeEnd]) == string(typ) {
			if t.rest > 0 {
				t.rest--
				return nil
			}
			slot = k
			break
		}
	}
	if slot < 0 {
		// Full: the oldest goes, the others move up.
		last := d.templates[0]
		if last == twinOf {
			twinOf = nil // the oldest: b is made its type's only template
		}
		last.unlink()
		copy(d.templates[:], d.templates[1:])
		d.templates[nTemplates-1] = last
		slot = nTemplates - 1
	}
	t := d.templates[slot]
	if t == nil {
		t = new(template)
		d.templates[slot] = t
	}
	t.b = append(t.b[:0], b...)
	t.members, t.stale, t.patched = t.members[:0], 0, false
	t.typeAt, t.typeEnd = typeAt, typeEnd
	w := (*[16]byte)(b[typeEnd-16 : typeEnd])
	t.typeTail = [2]uint64{binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])}
	t.judge = j
	t.typeIdx, t.by = -1, d.Schemas
	// What the scan finds in each member, scanned again (once a
	// template): its names, its values' regions, strings and nesting.
	sc := scanner{b: t.b}
	var key span
	ok := true
	for more := sc.open(); more; more = sc.more() {
		if !sc.key(&key) {
			break
		}
		k := len(t.members)
		if k >= len(d.seen) {
			ok = false
			break
		}
		f := d.seen[k]
		sp := d.spans[f]
		m := tplMember{f: f, rs: int32(sc.i), sp: sp}
		var v span
		if sc.next() == '{' {
			v = span{start: int32(sc.i), kind: kObject, seen: true}
			sc.object(func(span) {
				var val span
				sc.value(&val)
			})
			v.end = int32(sc.i)
		} else {
			sc.value(&v)
		}
		m.ve = int32(sc.i)
		// The member loop's span, or no template (it cannot differ).
		if v != sp {
			ok = false
			break
		}
		if f == fType {
			t.typeIdx = k
		}
		t.members = append(t.members, m)
	}
	t.fields, t.met = append(t.fields[:0], d.seen...), d.met
	t.memberAt = slices.Grow(t.memberAt[:0], len(b)+1)[:len(b)+1]
	lo := 0
	for k, m := range t.members {
		fillBytes(t.memberAt[lo:m.ve+1], uint8(k))
		lo = int(m.ve) + 1
	}
	fillBytes(t.memberAt[lo:], uint8(len(t.members)))
	// The scan's longest string counts the names too, its nesting the
	// event (1).
	t.long, t.depth = sc.longStr, max(sc.maxDepth, 1)
	if !ok || sc.err != nil || len(t.members) != len(d.seen) || t.typeIdx < 0 || t.depth > peekDepth {
		// No template of this message: the others move up.
		d.dropped++
		t.unlink()
		copy(d.templates[slot:], d.templates[slot+1:])
		d.templates[nTemplates-1] = nil
		return nil
	}
	t.keepFill(ev, b, &d.spans)
	t.keepEvent(ev, b)
	if twinOf != nil {
		t.twin, twinOf.twin = twinOf, t
	}
	d.made++
	return t
}

// fillBytes sets every byte of s to c, eight at a time.
func fillBytes(s []byte, c uint8) {
	w := uint64(c) * 0x0101010101010101
	for len(s) >= 8 {
		binary.LittleEndian.PutUint64(s, w)
		s = s[8:]
	}
	for i := range s {
		s[i] = c
	}
}

// dropTemplates forgets the templates (the Limits changed).
func (d *Decoder) dropTemplates() {
	d.templates = [nTemplates]*template{}
}
