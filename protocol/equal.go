package protocol

import "unicode/utf8"

// maxUniqueItems bounds the items the decoder compares for uniqueItems
// itself, pairwise; longer arrays (allowed only where a schema sets no
// maxItems) are left to the schema validator.
const maxUniqueItems = 256

// unique reports whether the items of an array are pairwise unequal as
// JSON Schema defines equality. sure is false when the decoder cannot tell
// on its own (see equal); the schema validator then decides.
func (x *decodeState) unique(items []span) (ok, sure bool) {
	if len(items) > maxUniqueItems {
		return false, false
	}
	// The members of object items are listed once, not at each comparison.
	members := make([][]namedSpan, len(items))
	for i, it := range items {
		if it.kind == kObject {
			ms, ok := x.memberSpans(it)
			if !ok {
				return false, false
			}
			members[i] = ms
		}
	}
	for i := 1; i < len(items); i++ {
		for j := 0; j < i; j++ {
			var eq, sure bool
			if items[i].kind == kObject && items[j].kind == kObject {
				eq, sure = x.equalMembers(members[i], members[j], 0)
			} else {
				eq, sure = x.equal(items[i], items[j], 0)
			}
			if !sure {
				return false, false
			}
			if eq {
				return false, true
			}
		}
	}
	return true, true
}

// equal reports whether two values are equal as JSON Schema defines it:
// the same kind; strings equal once unescaped; numbers equal as numbers;
// arrays item by item; objects with the same members in any order. sure
// is false where the decoder's answer could differ from the schema
// validator's: numbers other than plain integers (1.0 equals 1), strings
// that are not valid UTF-8 (the validator reads them with the bad bytes
// replaced), objects with a member named twice, and nesting beyond the
// limit.
func (x *decodeState) equal(a, b span, depth int) (eq, sure bool) {
	if depth > 8 {
		return false, false
	}
	if a.kind != b.kind {
		return false, true
	}
	switch a.kind {
	case kString:
		sa, _ := x.str(a)
		sb, _ := x.str(b)
		if !utf8.ValidString(sa) || !utf8.ValidString(sb) {
			return false, false
		}
		return sa == sb, true
	case kNumber:
		va, ea, _ := x.integer(a)
		vb, eb, _ := x.integer(b)
		if !ea || !eb {
			return false, false
		}
		return va == vb, true
	case kBool:
		return x.b[a.start] == x.b[b.start], true
	case kNull:
		return true, true
	case kArray:
		ia, ib := x.itemSpans(a), x.itemSpans(b)
		if len(ia) != len(ib) {
			return false, true
		}
		for k := range ia {
			if eq, sure := x.equal(ia[k], ib[k], depth+1); !sure || !eq {
				return false, sure
			}
		}
		return true, true
	case kObject:
		ma, okA := x.memberSpans(a)
		mb, okB := x.memberSpans(b)
		if !okA || !okB {
			return false, false
		}
		return x.equalMembers(ma, mb, depth)
	}
	return false, false
}

// equalMembers reports whether two objects, given by their members (each
// name once), are equal: the same names, with equal values.
func (x *decodeState) equalMembers(ma, mb []namedSpan, depth int) (eq, sure bool) {
	if len(ma) != len(mb) {
		return false, true
	}
	for _, m := range ma {
		found := false
		for _, n := range mb {
			if m.key == n.key {
				found = true
				eq, sure := x.equal(m.val, n.val, depth+1)
				if !sure || !eq {
					return false, sure
				}
				break
			}
		}
		if !found {
			return false, true
		}
	}
	return true, true
}

// itemSpans returns the items of an array value.
func (x *decodeState) itemSpans(sp span) []span {
	var out []span
	x.items(sp, func(item span) { out = append(out, item) })
	return out
}

// namedSpan is an object member with its name unescaped.
type namedSpan struct {
	key string
	val span
}

// memberSpans returns the members of an object value, names unescaped;
// ok is false when a name occurs twice.
func (x *decodeState) memberSpans(sp span) (out []namedSpan, ok bool) {
	ok = true
	x.members(sp, func(k []byte, v span) {
		for _, m := range out {
			if m.key == string(k) {
				ok = false
			}
		}
		out = append(out, namedSpan{string(k), v})
	})
	return out, ok
}
