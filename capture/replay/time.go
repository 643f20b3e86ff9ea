// time.go: when the records of a capture happened, and which of them were
// received together.

package replay

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/capture"
)

// BurstGap is the longest time between two received frames of one burst:
// frames that came within it of the one before (a producer sending
// history, a flood) were waiting together for the live client, which
// handled them as one burst. A capture keeps receive times, not bursts;
// this reads them back from the times, the same way every run.
const BurstGap = time.Millisecond

// Together reports whether a frame received at b, after one received at a,
// belongs to the same burst.
func Together(a, b time.Time) bool { return b.Sub(a) <= BurstGap }

// Start is the recorded time the capture of rd started: its header's, else
// the first moment of 2000 (UTC).
func Start(rd *capture.Reader) time.Time {
	var base time.Time
	if h := rd.Header(); h != nil {
		base, _ = time.Parse(time.RFC3339Nano, h.StartedAt)
	}
	if base.IsZero() {
		base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return base
}

// Problems are the problems met reading rd so far (a gzip file cut short,
// lines skipped).
func Problems(rd *capture.Reader) []capture.Diagnostic {
	d, _ := rd.Diagnostics()
	return d
}

// RecordTime is when a record happened: its receive time after base, else
// the event's timestamp, else last.
func RecordTime(rec capture.Record, base, last time.Time) time.Time {
	if rec.HasT {
		return base.Add(time.Duration(rec.T * float64(time.Second)))
	}
	if ts := eventTime(rec.Msg); !ts.IsZero() {
		return ts
	}
	return last
}

func eventTime(msg []byte) time.Time {
	var m struct {
		Timestamp time.Time `json:"timestamp"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return time.Time{}
	}
	return m.Timestamp
}

// isFrame reports whether r is a frame the client received.
func isFrame(r capture.Record) bool { return r.Dir == capture.In && !r.Note && !r.IsText() }

// clock writes d as minutes and seconds with tenths: 1:30.0.
func clock(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	tenths := d.Round(100*time.Millisecond) / (100 * time.Millisecond)
	return fmt.Sprintf("%s%d:%02d.%d", neg, tenths/600, tenths/10%60, tenths%10)
}
