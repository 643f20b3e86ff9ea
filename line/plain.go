// plain.go: the text that is one line as it is, found in one pass.

package line

import "encoding/binary"

// Lanes of eight bytes read as one little-endian word.
const (
	lanes1     = 0x0101010101010101
	lanesSpace = 0x2020202020202020
	lanesHigh  = 0x8080808080808080
)

// plainLine reports whether s is printable ASCII (space to '~') without two
// spaces in a row: text that protocol.Line leaves as it is (nothing to
// sanitize, no blank to fold), and that holds no right-to-left letter. The
// writer appends such text without calling protocol.Line and hasRTL, which
// read it twice more: most lines of a flood are. It reads eight bytes at a
// time; false is only ever a reason to ask protocol.Line.
func plainLine(s string) bool {
	prev := uint64(0) // the last lane of the word before, as a space mark
	i := 0
	// Two words a turn: one test of both for printable ASCII, one of
	// their spaces (in each, and from the word before to each).
	for ; i+16 <= len(s); i += 16 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		y := binary.LittleEndian.Uint64([]byte(s[i+8 : i+16]))
		if (x|(x-lanesSpace)|(x+lanes1)|y|(y-lanesSpace)|(y+lanes1))&lanesHigh != 0 {
			return false
		}
		zx, zy := x^lanesSpace, y^lanesSpace
		mx := (zx - lanes1) &^ zx & lanesHigh
		my := (zy - lanes1) &^ zy & lanesHigh
		if mx&(mx>>8)|my&(my>>8)|(prev&mx|mx>>56&my)&0x80 != 0 {
			return false
		}
		prev = my >> 56
	}
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		// Printable ASCII: no top bit, none below a space, none that
		// 0x7f becomes 0x80 by adding one.
		if (x|(x-lanesSpace)|(x+lanes1))&lanesHigh != 0 {
			return false
		}
		// The spaces, as the top bit of their lanes: every space is
		// marked; a '!' right after a space may be marked too (a borrow),
		// which only sends the text to protocol.Line.
		z := x ^ lanesSpace
		m := (z - lanes1) &^ z & lanesHigh
		if m&(m>>8) != 0 || prev&m&0x80 != 0 {
			return false
		}
		prev = m >> 56
	}
	if i < len(s) && i >= 8 {
		// The last eight bytes, overlapping the word before: the lanes
		// read again were fine, and so was the pair of the first of
		// them and the byte before it, read by the loop.
		i = len(s) - 8
		x := binary.LittleEndian.Uint64([]byte(s[i:]))
		if (x|(x-lanesSpace)|(x+lanes1))&lanesHigh != 0 {
			return false
		}
		z := x ^ lanesSpace
		m := (z - lanes1) &^ z & lanesHigh
		return m&(m>>8) == 0
	}
	space := prev != 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && space {
			return false
		}
		space = c == ' '
	}
	return true
}
