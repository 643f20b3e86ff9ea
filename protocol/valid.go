package protocol

// maxValidDepth is the nesting encoding/json accepts; Valid accepts as much.
const maxValidDepth = 10000

// Valid reports whether b is one JSON value, white space around it
// allowed: what encoding/json.Valid reports, found by the decoder's
// scanner, which reads strings eight bytes at a time and does not allocate.
// A reader that only needs to know a line is JSON (a capture's records)
// uses it; Decode scans for itself.
func Valid(b []byte) bool {
	sc := scanner{b: b, hardMax: maxValidDepth}
	sc.skip()
	sc.ws()
	return sc.err == nil && sc.i == len(b)
}
