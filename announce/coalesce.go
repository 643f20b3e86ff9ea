package announce

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// Bounds of the streamed-output buffers, so memory stays flat however many
// outputs a producer leaves unfinished.
const (
	maxStreams     = 1024     // outputs buffered at once; the oldest is flushed beyond
	maxStreamBytes = 4 * 1024 // text held for one output before it is read anyway
)

// streams coalesces agent.output.streaming chunks into whole sentences, per
// session and output_id.
type streams struct {
	max, maxBytes int
	tick          uint64
	m             map[streamKey]*stream
}

type streamKey struct{ session, output string }

type stream struct {
	buf     strings.Builder
	last    uint64 // tick of the last chunk, for eviction
	agent   string
	session string
	lang    string
	rtl     bool
}

// pending is held text flushed without an event to attach it to.
type pending struct {
	agent, session, text, lang string
	rtl                        bool
}

func newStreams(max, maxBytes int) *streams {
	return &streams{max: max, maxBytes: maxBytes, m: make(map[streamKey]*stream)}
}

// add appends the chunk of ev and returns the text now ready to be read:
// complete sentences, or everything held when the producer marks a boundary
// (sentence, paragraph, completion) or the output is complete.
func (s *streams) add(ev *protocol.Event) []string {
	k := streamKey{ev.SessionID, ev.OutputID}
	st := s.m[k]
	if st == nil {
		if len(s.m) >= s.max {
			s.evictOldest()
		}
		st = &stream{agent: agentName(ev), session: ev.SessionID, lang: ev.Localization.PrimaryLanguage,
			rtl: ev.Localization.TextDirection == "rtl"}
		if ev.Language != "" {
			st.lang = ev.Language
		}
		s.m[k] = st
	}
	s.tick++
	st.last = s.tick
	st.buf.WriteString(ev.Chunk.String())

	boundary := ev.Complete
	switch ev.CoalesceHint {
	case "sentence", "paragraph", "completion":
		boundary = true
	}
	if boundary {
		text := strings.TrimSpace(st.buf.String())
		st.buf.Reset()
		if ev.Complete {
			delete(s.m, k)
		}
		return nonEmpty(text)
	}
	held := st.buf.String()
	cut := sentenceEnd(held)
	if cut == 0 && len(held) > s.maxBytes {
		cut = lastSpace(held, s.maxBytes)
	}
	if cut == 0 {
		return nil
	}
	ready, rest := strings.TrimSpace(held[:cut]), held[cut:]
	st.buf.Reset()
	st.buf.WriteString(strings.TrimLeftFunc(rest, unicode.IsSpace))
	return nonEmpty(ready)
}

// flushSession returns the text held for every output of the session and forgets it.
func (s *streams) flushSession(session string) []string {
	var out []string
	for k, st := range s.m {
		if k.session == session {
			out = append(out, nonEmpty(strings.TrimSpace(st.buf.String()))...)
			delete(s.m, k)
		}
	}
	return out
}

// flushAll returns everything held, oldest output first, and forgets it.
func (s *streams) flushAll() []pending {
	var out []pending
	for len(s.m) > 0 {
		k, st := s.oldest()
		if t := strings.TrimSpace(st.buf.String()); t != "" {
			out = append(out, pending{agent: st.agent, session: st.session, text: t, lang: st.lang, rtl: st.rtl})
		}
		delete(s.m, k)
	}
	return out
}

func (s *streams) evictOldest() {
	k, _ := s.oldest()
	delete(s.m, k)
}

func (s *streams) oldest() (streamKey, *stream) {
	var (
		ok  streamKey
		ost *stream
	)
	for k, st := range s.m {
		if ost == nil || st.last < ost.last {
			ok, ost = k, st
		}
	}
	return ok, ost
}

// sentenceEnd returns the index just after the last sentence terminator that
// is followed by white space, or 0 when s holds no complete sentence. A
// terminator at the very end is not trusted: "5." may continue as "5.00".
func sentenceEnd(s string) int {
	end := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !isTerminator(r) {
			continue
		}
		// Closing quotes and brackets belong to the sentence.
		for i < len(s) {
			q, qs := utf8.DecodeRuneInString(s[i:])
			if !strings.ContainsRune(`"')]»”’`, q) {
				break
			}
			i += qs
		}
		if i < len(s) {
			if next, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(next) {
				end = i
			}
		}
	}
	return end
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '！', '？', '؟', '۔', '।':
		return true
	}
	return false
}

func lastSpace(s string, limit int) int {
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	if i := strings.LastIndexFunc(s[:limit], unicode.IsSpace); i > 0 {
		return i
	}
	return limit
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
