package announce

import (
	"container/list"
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
// agent, session and output_id.
type streams struct {
	max, maxBytes int
	m             map[streamKey]*list.Element // of *stream
	lru           list.List                   // of *stream, least recently fed first
}

// streamKey names an output: two agents may use the same session and
// output IDs, and their text is never joined.
type streamKey struct{ agent, session, output string }

type stream struct {
	key     streamKey
	buf     strings.Builder
	agent   string
	session string
	lang    string
	rtl     bool
}

// pending is held text flushed without an event to attach it to.
type pending struct {
	agent, agentID, session, text, lang string
	rtl                                 bool
}

func newStreams(max, maxBytes int) *streams {
	return &streams{max: max, maxBytes: maxBytes, m: make(map[streamKey]*list.Element)}
}

// add appends the chunk of ev and returns the text now ready to be read:
// complete sentences, or everything held when the producer marks a boundary
// (sentence, paragraph, completion) or the output is complete. When a new
// output pushes the least recently fed one out of the bound, that one's
// held text is returned as evicted, to be read rather than lost.
func (s *streams) add(ev *protocol.Event) (ready []string, evicted *pending) {
	k := streamKey{ev.Producer.AgentID, ev.SessionID, ev.OutputID}
	var st *stream
	if e := s.m[k]; e != nil {
		st = e.Value.(*stream)
		s.lru.MoveToBack(e)
	} else {
		if len(s.m) >= s.max {
			evicted = s.evictOldest()
		}
		st = &stream{key: k, agent: agentName(ev), session: ev.SessionID, lang: ev.Localization.PrimaryLanguage,
			rtl: ev.Localization.TextDirection == "rtl"}
		if ev.Language != "" {
			st.lang = ev.Language
		}
		s.m[k] = s.lru.PushBack(st)
	}
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
			s.forget(k)
		}
		return nonEmpty(text), evicted
	}
	held := st.buf.String()
	cut := sentenceEnd(held)
	if cut == 0 && len(held) > s.maxBytes {
		cut = lastSpace(held, s.maxBytes)
	}
	if cut == 0 {
		return nil, evicted
	}
	text, rest := strings.TrimSpace(held[:cut]), held[cut:]
	st.buf.Reset()
	st.buf.WriteString(strings.TrimLeftFunc(rest, unicode.IsSpace))
	return nonEmpty(text), evicted
}

// flushSession returns the text held for every output of agent's session,
// oldest first, and forgets it.
func (s *streams) flushSession(agent, session string) []string {
	var out []string
	for e := s.lru.Front(); e != nil; {
		next := e.Next()
		if st := e.Value.(*stream); st.key.agent == agent && st.session == session {
			out = append(out, nonEmpty(strings.TrimSpace(st.buf.String()))...)
			s.forget(st.key)
		}
		e = next
	}
	return out
}

// flushAll returns everything held, least recently fed output first, and forgets it.
func (s *streams) flushAll() []pending {
	var out []pending
	for s.lru.Len() > 0 {
		if p := s.evictOldest(); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// evictOldest forgets the least recently fed output and returns its held
// text, or nil when it held none.
func (s *streams) evictOldest() *pending {
	e := s.lru.Front()
	if e == nil {
		return nil
	}
	st := e.Value.(*stream)
	s.forget(st.key)
	t := strings.TrimSpace(st.buf.String())
	if t == "" {
		return nil
	}
	return &pending{agent: st.agent, agentID: st.key.agent, session: st.session, text: t, lang: st.lang, rtl: st.rtl}
}

func (s *streams) forget(k streamKey) {
	if e := s.m[k]; e != nil {
		s.lru.Remove(e)
		delete(s.m, k)
	}
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
	limit = graphemeCut(s, limit)
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
