package protocol

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// kind is the JSON kind of a scanned value.
type kind uint8

const (
	kNone kind = iota
	kString
	kNumber
	kBool
	kNull
	kObject
	kArray
)

func (k kind) String() string {
	return [...]string{"nothing", "string", "number", "boolean", "null", "object", "array"}[k]
}

// scanner is a strict RFC 8259 lexer over one message. It never allocates
// for well-formed input; the first syntax error stops it.
type scanner struct {
	b        []byte
	i        int
	err      *SyntaxError
	depth    int  // current nesting depth, the top-level value being 1
	maxDepth int  // deepest nesting seen
	hardMax  int  // nesting beyond this is a syntax error (stack safety)
	longStr  int  // bytes of the longest string seen
	scratch  span // where skipped values are recorded
}

// span is where a value lies in the input, with what the scan learned of it.
type span struct {
	start, end int32 // the value's bytes; for strings, without the quotes
	kind       kind
	esc        bool // string holds escapes
	high       bool // string holds bytes ≥ 0x80
	seen       bool
}

func (s *scanner) fail(msg string) {
	if s.err == nil {
		s.err = &SyntaxError{Offset: int64(s.i), Msg: msg}
	}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return // compact JSON: the first test decides
		}
		s.i++
	}
}

// next returns the next non-space byte without consuming it, or 0 at the end.
func (s *scanner) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// peek returns the byte at s.i, or 0 at the end. Compact JSON has no
// white space, so where a scan goes on to a member's name, colon or value,
// `if c := s.peek(); c <= ' ' { c = s.next() }` decides with one test
// (next itself does not fit the inliner's budget as a test and a call).
func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expected fails: c is not the next byte.
func (s *scanner) expected(c byte) {
	if s.i >= len(s.b) {
		s.fail("unexpected end of input, expected " + strconv.QuoteRune(rune(c)))
	} else {
		s.fail("expected " + strconv.QuoteRune(rune(c)) + ", found " + strconv.QuoteRune(rune(s.b[s.i])))
	}
}

// value scans any value and records it in sp.
func (s *scanner) value(sp *span) {
	c := s.peek()
	if c <= ' ' {
		c = s.next()
	}
	sp.start, sp.esc, sp.high, sp.seen = int32(s.i), false, false, true
	switch {
	case c == '"':
		s.str(sp)
		return
	case c == '{':
		sp.kind = kObject
		var key span
		for more := s.open(); more; more = s.more() {
			if !s.key(&key) {
				break
			}
			s.skip()
		}
	case c == '[':
		sp.kind = kArray
		s.array(func() { s.skip() })
	case c == 't':
		sp.kind = kBool
		s.lit("true")
	case c == 'f':
		sp.kind = kBool
		s.lit("false")
	case c == 'n':
		sp.kind = kNull
		s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		sp.kind = kNumber
		s.num()
	case c == 0:
		s.fail("unexpected end of input, expected a value")
	default:
		s.fail("unexpected " + strconv.QuoteRune(rune(c)) + ", expected a value")
	}
	sp.end = int32(s.i)
}

func (s *scanner) lit(word string) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		s.fail("invalid literal, expected " + word)
		return
	}
	s.i += len(word)
}

func (s *scanner) num() {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		s.fail("invalid number")
		return
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			s.fail("invalid number: no digits after the decimal point")
			return
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			s.fail("invalid number: no digits in the exponent")
			return
		}
	}
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// str scans a string whose opening quote is at s.i.
func (s *scanner) str(sp *span) {
	sp.kind, sp.esc, sp.high = kString, false, false
	b := s.b
	i := s.i + 1
	sp.start = int32(i)
	// Most strings are plain to their closing quote: plain's look, inline
	// (a call a string cost as much as its short look). i > 0 (the quote
	// is before it) lets the compiler see every read in bounds: it
	// checked two bounds a word.
	if i > 0 {
		for ; i <= len(b)-8; i += 8 {
			x := binary.LittleEndian.Uint64(b[i : i+8])
			q, bs := x^lanesQuote, x^lanesBack
			if special := ((q - lanes1) | (bs - lanes1) | (x - lanesSpace) | x) & lanesHigh; special != 0 {
				i += bits.TrailingZeros64(special) / 8
				if b[i] == '"' {
					s.endStr(sp, i)
					return
				}
				break
			}
		}
	}
	s.strRest(sp, i)
}

// endStr ends the string of sp at its closing quote, at j.
func (s *scanner) endStr(sp *span, j int) {
	sp.end = int32(j)
	if n := j - int(sp.start); n > s.longStr {
		s.longStr = n
	}
	s.i = j + 1
}

// strRest is str for a string with escapes, multi-byte sequences or an
// error, from i, the first byte of it that is not plain.
func (s *scanner) strRest(sp *span, i int) {
	b := s.b
	for i < len(b) {
		i = plain(b, i, sp.high)
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			s.endStr(sp, i)
			return
		case c == '\\':
			sp.esc = true
			i++
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(b) || unhex(b[i]) < 0 {
						s.i = i
						s.fail("invalid \\u escape in string")
						return
					}
					i++
				}
			default:
				s.i = i
				s.fail("invalid escape in string")
				return
			}
		case c < 0x20:
			s.i = i
			s.fail("control character in string")
			return
		case c >= 0x80:
			sp.high = true
			i++
		default:
			i++
		}
	}
	s.i = len(b)
	s.fail("unexpected end of input in string")
}

// SWAR constants: a byte repeated in every lane of a uint64.
const (
	lanes1     = 0x0101010101010101
	lanesHigh  = 0x8080808080808080
	lanesQuote = '"' * lanes1
	lanesBack  = '\\' * lanes1
	lanesSpace = ' ' * lanes1
)

// plain returns the index of the first byte of b at or after i that needs
// attention in a string: a quote, backslash or control character, and,
// unless highSeen, a byte of a multi-byte UTF-8 sequence (whose presence
// the caller records); len(b) if there is none. It reads eight bytes at a
// time; in each word the lowest flagged lane is exact (a borrow only
// flags lanes above a true match), so it jumps straight to it.
//
// Its loops are bounded by len(b)-8, so the compiler sees every
// eight-byte read in bounds and checks none; and until a multi-byte
// sequence is seen (so on nearly every string) it flags a byte with its
// top bit set as it is: below the first flagged lane every byte is then
// under 0x80, so the other tests need no masking of their own top bits
// (the &^ terms of the second loop). A word costs 21 instructions, not 37.
func plain(b []byte, i int, highSeen bool) int {
	if i < 0 || i >= len(b) {
		return i
	}
	if !highSeen {
		for ; i <= len(b)-8; i += 8 {
			x := binary.LittleEndian.Uint64(b[i : i+8])
			q, bs := x^lanesQuote, x^lanesBack
			if special := ((q - lanes1) | (bs - lanes1) | (x - lanesSpace) | x) & lanesHigh; special != 0 {
				return i + bits.TrailingZeros64(special)/8
			}
		}
	} else {
		for ; i <= len(b)-8; i += 8 {
			x := binary.LittleEndian.Uint64(b[i : i+8])
			q, bs := x^lanesQuote, x^lanesBack
			if special := ((q-lanes1)&^q | (bs-lanes1)&^bs | (x-lanesSpace)&^x) & lanesHigh; special != 0 {
				return i + bits.TrailingZeros64(special)/8
			}
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 && !highSeen {
			return i
		}
	}
	return i
}

// skip scans one value and forgets it. Its span is the scanner's scratch
// field, so skipping does not allocate.
func (s *scanner) skip() {
	s.value(&s.scratch)
}

// object scans an object at s.i, calling member with each member's key;
// member must scan the value (s.value or s.skip).
func (s *scanner) object(member func(key span)) {
	var key span
	for more := s.open(); more; more = s.more() {
		if !s.key(&key) {
			return
		}
		member(key)
	}
}

// open begins an object at s.i; false means it is empty (and ended) or
// the scan failed. The loop that reads it without a callback:
//
//	for more := s.open(); more; more = s.more() {
//		if !s.key(&k) { break }
//		… scan the value …
//	}
func (s *scanner) open() bool {
	if !s.enter() {
		return false
	}
	s.i++ // '{'
	if s.next() == '}' {
		s.i++
		s.depth--
		return false
	}
	return s.err == nil
}

// key scans a member's name and its colon; false means the scan failed.
func (s *scanner) key(key *span) bool {
	if s.peek() != '"' && s.next() != '"' {
		s.fail("expected a member name")
		return false
	}
	s.str(key)
	if s.err != nil {
		return false
	}
	if s.peek() != ':' && s.next() != ':' {
		s.expected(':')
		return false
	}
	s.i++
	return true
}

// more ends a member: true when another follows, false at the end of
// the object or when the scan failed.
func (s *scanner) more() bool {
	if s.err != nil {
		return false
	}
	c := s.peek()
	if c <= ' ' {
		c = s.next()
	}
	switch c {
	case ',':
		s.i++
		return s.err == nil
	case '}':
		s.i++
		s.depth--
		return false
	default:
		s.fail("expected ',' or '}' after an object member")
		return false
	}
}

// array scans an array at s.i, calling item for each item; item must scan
// it (s.value or s.skip).
func (s *scanner) array(item func()) {
	if !s.enter() {
		return
	}
	s.i++ // '['
	if s.next() == ']' {
		s.i++
		s.depth--
		return
	}
	for s.err == nil {
		item()
		if s.err != nil {
			return
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return
		default:
			s.fail("expected ',' or ']' after an array item")
			return
		}
	}
}

func (s *scanner) enter() bool {
	s.depth++
	if s.depth > s.maxDepth {
		s.maxDepth = s.depth
	}
	if s.hardMax > 0 && s.depth > s.hardMax {
		s.fail("nested too deeply")
		return false
	}
	return true
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// unescape decodes the content of a JSON string that holds escapes, the way
// encoding/json does (lone surrogates become U+FFFD). The content must have
// been accepted by scanner.str.
func unescape(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		i++
		switch b[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(b[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				dec := utf8.RuneError
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if d := utf16.DecodeRune(r, hex4(b[i+3:])); d != utf8.RuneError {
						dec = d
						i += 6
					}
				}
				r = dec
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, b[i])
		}
		i++
	}
	return string(out)
}

func hex4(b []byte) rune {
	var r rune
	for k := 0; k < 4; k++ {
		r = r<<4 | unhex(b[k])
	}
	return r
}
