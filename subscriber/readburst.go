package subscriber

// readburst.go: the reading goroutine decodes a burst of frames on two
// goroutines, and puts them in the inbox in the order received.

import (
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// maxBurst is the most frames the reading goroutine takes at once from
// what the connection has received already (the transport's queue holds
// 64): the burst's frames and their decoding are all it holds.
const maxBurst = 64

// minSplit is the smallest burst whose second half is decoded by a helper
// goroutine: below it the hand-off costs more than the half saves.
const minSplit = 8

// burstReader is the reading goroutine's: its decoder, the burst it took
// and the helper that decodes half of a large burst beside it.
type burstReader struct {
	dec    protocol.Decoder
	frames []transport.Frame // the burst, in the order received
	out    []decoded         // the burst decoded, by position in frames
	helper *halfDecoder      // started at the first burst of minSplit
	split  int               // frames the helper decoded (for tests)
}

// halfDecoder decodes, on a goroutine of its own, the part of a burst it
// is handed, into the slots it is handed with it.
type halfDecoder struct {
	dec  protocol.Decoder
	work chan halfWork
	done chan struct{} // a token for every work decoded
}

type halfWork struct {
	frames []transport.Frame
	out    []decoded // len(frames)
}

func (h *halfDecoder) run() {
	for w := range h.work {
		for i, f := range w.frames {
			w.out[i] = decodeFrame(&h.dec, f)
		}
		h.done <- struct{}{}
	}
}

// stop lets the helper's goroutine end once it has decoded what it holds.
func (r *burstReader) stop() {
	if r.helper != nil {
		close(r.helper.work)
	}
}

// take returns first and the frames the connection has received after it,
// without waiting for any: what conn hands over at once (transport.Waiting)
// up to maxBurst.
func (r *burstReader) take(conn transport.Conn, first transport.Frame) []transport.Frame {
	b := append(r.frames[:0], first)
	if w, ok := conn.(transport.Waiting); ok {
		for len(b) < maxBurst {
			f, ok := w.TryRecv()
			if !ok {
				break
			}
			b = append(b, f)
		}
	}
	r.frames = b
	return b
}

// decodeEach decodes the frames in order and calls put with each, in the
// order received; false from put stops it and is returned. A burst of
// minSplit frames or more is cut in two: the helper decodes the second
// half while this goroutine decodes the first and puts it, and the second
// is put once the helper is done with all of it. The order is the burst's
// positions, whichever decoder is done first.
func (r *burstReader) decodeEach(frames []transport.Frame, put func(decoded) bool) bool {
	defer clear(frames) // the frames go with their decoding, not with the reader
	if len(frames) < minSplit {
		for _, f := range frames {
			if !put(decodeFrame(&r.dec, f)) {
				return false
			}
		}
		return true
	}
	h := r.start()
	half := len(frames) / 2
	out := r.out[half:len(frames)]
	h.work <- halfWork{frames: frames[half:], out: out}
	for _, f := range frames[:half] {
		if !put(decodeFrame(&r.dec, f)) {
			<-h.done // the helper is done with the frames before they are cleared
			return false
		}
	}
	<-h.done
	r.split += len(out)
	defer clear(out) // the events go with the inbox, not with the reader
	for _, d := range out {
		if !put(d) {
			return false
		}
	}
	return true
}

// start returns the helper, started at the first burst that needs it,
// with its own decoder of the same schemas.
func (r *burstReader) start() *halfDecoder {
	if r.helper != nil {
		return r.helper
	}
	if r.dec.Schemas == nil {
		// Compiled once for both decoders; when they do not compile,
		// each decoder says why for every frame, as one alone did.
		r.dec.Schemas, _ = protocol.NewSchemas()
	}
	r.out = make([]decoded, maxBurst)
	r.helper = &halfDecoder{dec: protocol.Decoder{Limits: r.dec.Limits, Schemas: r.dec.Schemas},
		work: make(chan halfWork, 1), done: make(chan struct{}, 1)}
	go r.helper.run()
	return r.helper
}

// decodeFrame is decode for any frame the connection hands over: a note of
// the connection is passed on as it is.
func decodeFrame(dec *protocol.Decoder, f transport.Frame) decoded {
	if n := f.Note; n != nil {
		return decoded{frame: f, note: &note{isStatus: !n.Problem, status: n.Status, text: n.Text, problem: n.Problem}}
	}
	return decode(dec, f)
}
