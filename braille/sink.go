// sink.go holds Sink: announcements as flash messages, panning, and prompts
// answered with routing keys.

package braille

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/rivo/uniseg"
)

// Config tunes a Sink.
type Config struct {
	// FlashTime is how long a message stays before the display goes back to
	// BRLTTY; panning restarts it. Zero means 5 seconds. Confirmations stay
	// until they are answered.
	FlashTime time.Duration
	// OnAnswer is called, from the sink's goroutine, when a routing key is
	// pressed over "accept" or "reject" of confirmation number prompt.
	OnAnswer func(prompt int, accept bool)
	// OnSureAccept, when set, makes accepting a confirmation that cannot be
	// undone (announce.TwoSteps) take two routing keys: "accept" shows the
	// second step, "#1 yes no Transfer …, which cannot be undone? …", and
	// the key over "yes" calls OnSureAccept (not OnAnswer); "no" goes back
	// to the prompt.
	OnSureAccept func(prompt int)
	// OnError is told when the display fails; nil ignores it.
	OnError func(error)
	// Redial connects to BRLTTY again after the connection was lost, as
	// when BRLTTY restarts; nil leaves the display off once it is lost.
	// What is on the display is shown again once it answers.
	Redial func(context.Context) (*Client, error)
	// RedialEvery is the wait between two tries; zero means 2 seconds.
	RedialEvery time.Duration
	// OnReconnect is told when the display is back; nil ignores it.
	OnReconnect func()
}

// Sink shows announcements on a braille display. It implements announce.Sink.
// Background announcements are not shown.
type Sink struct {
	c     *Client
	cfg   Config
	width int
	in    chan announce.Announcement
	stop  context.CancelFunc
	done  chan struct{}
	busy  atomic.Bool // a flash is shown or waits; set by run
}

// NewSink starts showing announcements on c's display. Close stops it.
func NewSink(ctx context.Context, c *Client, cfg Config) (*Sink, error) {
	cols, rows, err := c.DisplaySize(ctx)
	if err != nil {
		return nil, err
	}
	if cols*rows <= 0 {
		return nil, fmt.Errorf("braille: BRLTTY reports no display (size %d×%d)", cols, rows)
	}
	if cfg.FlashTime <= 0 {
		cfg.FlashTime = 5 * time.Second
	}
	if cfg.RedialEvery <= 0 {
		cfg.RedialEvery = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sink{c: c, cfg: cfg, width: cols, in: make(chan announce.Announcement, 64), stop: cancel, done: make(chan struct{})}
	go s.run(ctx)
	return s, nil
}

// Announce implements announce.Sink. It waits only when the sink is flooded
// and the announcement is critical; other announcements are then dropped.
func (s *Sink) Announce(an announce.Announcement) error {
	if an.Priority == announce.Background {
		return nil
	}
	if an.Priority == announce.Critical {
		select {
		case s.in <- an:
			return nil
		case <-s.done:
			return fmt.Errorf("braille: sink closed")
		}
	}
	select {
	case s.in <- an:
	default:
	}
	return nil
}

// Speaking reports whether a message (not a prompt waiting for its answer)
// is on the display or waiting for it, so a Pacer in front of the sink
// passes the next one on only when the display is free.
func (s *Sink) Speaking() bool { return s.busy.Load() }

// flashing reports whether a flash is shown or queued.
func flashing(current *message, queue []message) bool {
	if current != nil && !current.sticky {
		return true
	}
	for _, m := range queue {
		if !m.sticky {
			return true
		}
	}
	return false
}

// Close gives the display back to BRLTTY and stops the sink. It does not close the client.
func (s *Sink) Close() error {
	s.stop()
	<-s.done
	return nil
}

// message is one announcement laid out for the display.
type message struct {
	an      announce.Announcement // what it shows
	cells   []string              // one grapheme cluster per entry
	prompt  int                   // confirmation number, 0 when not a confirmation
	sticky  bool                  // stays until answered
	second  bool                  // the second step of an accept that cannot be undone
	related int                   // prompt number this message is about, for clearing
	accept  [2]int                // grapheme range of the word "accept"
	reject  [2]int
	pages   []int // first grapheme of each display window
}

// layout turns an announcement into a message for a display width cells wide.
func layout(an announce.Announcement, width int) message {
	return layoutWith(an, width, "accept", "reject")
}

// secondStep lays out the second step of accepting the confirmation of m,
// which cannot be undone: its words are yes and no.
func secondStep(m message, width int) message {
	an := m.an
	an.Text, _ = protocol.SplitTheirs(announce.SecondStep(an.Prompt, "Route yes to send, no to go back"))
	s := layoutWith(an, width, "yes", "no")
	s.second = true
	return s
}

// layoutWith is layout with a confirmation's two answer words.
func layoutWith(an announce.Announcement, width int, yes, no string) message {
	m := message{an: an}
	text := clean(protocol.Line(an.Text))
	if an.RTL || protocol.HasRTL(text) {
		text = "(rtl) " + text
	}
	if an.Prompt != nil {
		m.related = an.Prompt.Number
	}
	if an.Prompt != nil && an.Kind == "confirmation" && an.Priority == announce.Critical {
		// The answer words come first, so the first window always offers them.
		m.prompt, m.sticky = an.Prompt.Number, true
		head := "#" + strconv.Itoa(m.prompt) + " "
		n := len(head)
		m.accept = [2]int{n, n + len(yes)}
		m.reject = [2]int{n + len(yes) + 1, n + len(yes) + 1 + len(no)}
		text = head + yes + " " + no + " " + text
	}
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		m.cells = append(m.cells, g.Str())
	}
	// Windows never split a cluster; a cluster wider than the display gets a window alone.
	m.pages = []int{0}
	used := 0
	for i, c := range m.cells {
		w := len([]rune(c))
		if used > 0 && used+w > width {
			m.pages = append(m.pages, i)
			used = 0
		}
		used += w
	}
	return m
}

// Windows returns what the sink shows for an on a display width cells
// wide: the text of each display window, in order.
func Windows(an announce.Announcement, width int) []string {
	m := layout(an, width)
	w := make([]string, len(m.pages))
	for p := range m.pages {
		w[p], _ = m.window(p)
	}
	return w
}

// window returns the text of page p and the first grapheme it shows.
func (m message) window(p int) (string, int) {
	start := m.pages[p]
	end := len(m.cells)
	if p+1 < len(m.pages) {
		end = m.pages[p+1]
	}
	return strings.Join(m.cells[start:end], ""), start
}

// graphemeAt returns the grapheme under cell on page p, or -1.
func (m message) graphemeAt(p, cell int) int {
	_, start := m.window(p)
	end := len(m.cells)
	if p+1 < len(m.pages) {
		end = m.pages[p+1]
	}
	for i := start; i < end; i++ {
		w := len([]rune(m.cells[i]))
		if cell < w {
			return i
		}
		cell -= w
	}
	return -1
}

// clean makes text fit for one line of braille: no controls, no direction
// marks (BRLTTY would show them as junk), single spaces.
func clean(text string) string {
	var b strings.Builder
	space := false
	for _, r := range text {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		case r >= 0x200E && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// run owns the display: it shows one message at a time, handles keys and
// leaves tty mode when there is nothing to show.
func (s *Sink) run(ctx context.Context) {
	defer close(s.done)
	var (
		queue   []message
		current *message
		page    int
		inTTY   bool
		timer   = time.NewTimer(time.Hour)
		lost    bool         // the connection is gone; waiting to redial
		ticker  *time.Ticker // ticks while lost
		owned   *Client      // a client the sink dialed itself, closed at the end
	)
	timer.Stop()
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
		if owned != nil {
			owned.Close()
		}
	}()
	report := func(err error) {
		if err != nil && s.cfg.OnError != nil {
			s.cfg.OnError(err)
		}
	}
	show := func() {
		if lost {
			// Shown again once the display is back, and only then timed: a
			// flash's timer left running would end whatever is current when
			// it fires, a prompt that replaced the flash too.
			timer.Stop()
			return
		}
		if current == nil {
			timer.Stop()
			if inTTY {
				report(s.c.LeaveTTYMode(ctx))
				inTTY = false
			}
			return
		}
		if !inTTY {
			if err := s.c.EnterTTYMode(ctx); err != nil {
				report(err)
				return
			}
			inTTY = true
		}
		text, _ := current.window(page)
		report(s.c.Write(ctx, text, s.width, 0))
		timer.Reset(s.cfg.FlashTime)
		if current.sticky {
			timer.Stop()
		}
	}
	next := func() {
		current, page = nil, 0
		if len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			current = &m
		}
		show()
	}
	// forget removes prompt n everywhere, once it was answered or expired.
	forget := func(n int) {
		kept := queue[:0]
		for _, m := range queue {
			if m.prompt != n {
				kept = append(kept, m)
			}
		}
		queue = kept
		if current != nil && current.prompt == n {
			next()
		}
	}
	for {
		s.busy.Store(flashing(current, queue))
		select {
		case <-ctx.Done():
			if inTTY {
				lctx, cancel := context.WithTimeout(context.Background(), time.Second)
				s.c.LeaveTTYMode(lctx)
				cancel()
			}
			return
		case <-done(s.c, lost):
			report(s.c.connErr())
			if s.cfg.Redial == nil {
				// Nothing can be shown any more; keep taking announcements so the
				// announcer never waits on a display that is gone.
				for {
					select {
					case <-s.in:
					case <-ctx.Done():
						return
					}
				}
			}
			// Keep taking announcements, and prompts, while BRLTTY is away.
			lost, inTTY = true, false
			ticker = time.NewTicker(s.cfg.RedialEvery)
		case <-tick(ticker):
			dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			c, err := s.cfg.Redial(dctx)
			if err == nil {
				// Back only with a display, as NewSink asks: a BRLTTY still
				// starting answers before its braille driver is up, and
				// what is written then is lost when the driver starts.
				cols, rows, serr := c.DisplaySize(dctx)
				if serr == nil && cols*rows <= 0 {
					serr = fmt.Errorf("braille: BRLTTY reports no display yet (size %d×%d)", cols, rows)
				}
				if serr != nil {
					c.Close()
					err = serr
				} else {
					s.width = cols
				}
			}
			cancel()
			if err != nil {
				continue
			}
			if owned != nil {
				owned.Close()
			}
			ticker.Stop()
			s.c, owned, lost, ticker = c, c, false, nil
			// The display may be another size now: lay everything out again.
			for i := range queue {
				queue[i] = layout(queue[i].an, s.width)
			}
			if current != nil {
				m := layout(current.an, s.width)
				current, page = &m, 0
			}
			show()
			if s.cfg.OnReconnect != nil {
				s.cfg.OnReconnect()
			}
		case an := <-s.in:
			m := layout(an, s.width)
			if m.prompt == 0 && m.related != 0 && an.Kind != "clarification" {
				forget(m.related) // answered, cancelled, stale or expired elsewhere
			}
			switch {
			case current == nil:
				current, page = &m, 0
				show()
			case an.Priority == announce.Critical && !current.sticky:
				// A critical message replaces a flash at once.
				current, page = &m, 0
				show()
			case an.Priority == announce.Critical:
				i := 0
				for i < len(queue) && queue[i].sticky {
					i++
				}
				queue = append(queue[:i], append([]message{m}, queue[i:]...)...)
			default:
				if len(queue) >= 32 && !queue[len(queue)-1].sticky {
					queue = queue[1:]
				}
				queue = append(queue, m)
			}
		case <-timer.C:
			next()
		case k := <-keys(s.c, lost):
			if current == nil {
				continue
			}
			switch {
			case k.is(cmdFWINRT):
				if page+1 < len(current.pages) {
					page++
					show()
				} else if !current.sticky {
					next()
				}
			case k.is(cmdFWINLT):
				if page > 0 {
					page--
					show()
				}
			default:
				if cell, ok := k.Route(); ok && current.prompt != 0 {
					g := current.graphemeAt(page, cell)
					accept := g >= current.accept[0] && g < current.accept[1]
					reject := g >= current.reject[0] && g < current.reject[1]
					if (accept || reject) && s.cfg.OnAnswer != nil {
						n := current.prompt
						switch {
						case current.second && accept:
							s.cfg.OnSureAccept(n)
							forget(n)
						case current.second: // no: back to the prompt
							m := layout(current.an, s.width)
							current, page = &m, 0
							show()
						case accept && s.cfg.OnSureAccept != nil && current.an.Prompt != nil && announce.TwoSteps(current.an.Prompt.Event):
							m := secondStep(*current, s.width)
							current, page = &m, 0
							show()
						default:
							s.cfg.OnAnswer(n, accept)
							forget(n)
						}
					}
					continue
				}
				if !current.sticky {
					next() // any other key dismisses a flash
				}
			}
		}
	}
}

// done is c's Done channel, or nil (never ready) while the connection is lost.
func done(c *Client, lost bool) <-chan struct{} {
	if lost {
		return nil
	}
	return c.Done()
}

// keys is c's key channel, or nil while the connection is lost.
func keys(c *Client, lost bool) <-chan Key {
	if lost {
		return nil
	}
	return c.Keys()
}

// tick is t's channel, or nil without a ticker.
func tick(t *time.Ticker) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}
