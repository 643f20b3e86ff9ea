package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile"
)

// NotConforming says why a report makes no claim, naming the tests that
// stop it: "Not AAEP Level 2 conformant (Level 1 holds): P-2.3 failed."
func (r *Report) NotConforming() string {
	var stop []string
	for _, res := range r.Results {
		if res.Level <= r.Level && res.Status != Pass && res.Status != Warn {
			stop = append(stop, res.ID+" "+map[Status]string{Fail: "failed", Skip: "was skipped"}[res.Status])
		}
	}
	s := fmt.Sprintf("Not AAEP Level %d conformant", r.Level)
	if held := r.ConformingLevel(); held > 0 {
		s += fmt.Sprintf(" (Level %d holds)", held)
	}
	switch {
	case len(stop) > 0:
		s += ": " + strings.Join(stop, ", ") + "."
	case len(r.Results) == 0:
		s += ": no test ran."
	default:
		s += ": a level has no test that ran."
	}
	return s
}

// Files are the files a run writes besides its lines; an empty path is
// not written.
type Files struct {
	JSON, HTML string // the JSON and HTML reports
	// Receipt is signed by Key, issued at Now and valid for ValidFor.
	Receipt  string
	Key      *SigningKey
	Now      time.Time
	ValidFor time.Duration
}

// WriteFiles writes the reports and the receipt f asks for, through
// safefile (no symbolic link followed), telling said one sentence for each
// file written.
func (r *Report) WriteFiles(f Files, said func(string)) error {
	if f.JSON != "" {
		if err := writeFile(f.JSON, r.WriteJSON); err != nil {
			return err
		}
		said(fmt.Sprintf("Wrote the JSON report to %s.", f.JSON))
	}
	if f.HTML != "" {
		if err := writeFile(f.HTML, r.WriteHTML); err != nil {
			return err
		}
		said(fmt.Sprintf("Wrote the HTML report to %s.", f.HTML))
	}
	if f.Receipt != "" {
		rc, err := NewReceipt(r, f.Key, f.Now, f.ValidFor)
		if err != nil {
			return err
		}
		jws, err := rc.Sign(f.Key)
		if err != nil {
			return err
		}
		if err := writeFile(f.Receipt, func(w io.Writer) error {
			_, err := io.WriteString(w, jws+"\n")
			return err
		}); err != nil {
			return err
		}
		said(fmt.Sprintf("Wrote the receipt to %s, signed by key %s (%s), valid until %s.", f.Receipt, f.Key.KeyID(), f.Key.Alg(), rc.ExpiresAt.Format(time.DateOnly)))
	}
	return nil
}

// writeFile writes a file of ours through safefile (no symbolic link
// followed) and says which file failed.
func writeFile(path string, write func(io.Writer) error) error {
	out, err := safefile.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(out); err != nil {
		out.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckTrigger checks a trigger (ProducerOptions.Trigger) before a run:
// 'METHOD URL [BODY]', METHOD in capitals, an HTTP(S) URL and, when there
// is one, a JSON body. Its errors name the --trigger flag.
func CheckTrigger(s string) error {
	if s == "" {
		return nil
	}
	method, rest, _ := strings.Cut(s, " ")
	rawURL, body, _ := strings.Cut(rest, " ")
	if method == "" || strings.ToUpper(method) != method || strings.ContainsFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		return fmt.Errorf("--trigger %q: want 'METHOD URL [BODY]', METHOD in capitals such as POST", s)
	}
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--trigger %q: the URL must be http:// or https://", s)
	}
	if body != "" && !json.Valid([]byte(body)) {
		return fmt.Errorf("--trigger %q: the body must be JSON", s)
	}
	return nil
}

// Save writes the key pair: the private key (PEM) to path and the public
// key to path.pub, each a new file of mode 0600, never over an existing one.
func (k *SigningKey) Save(path string) error {
	priv, err := k.PrivatePEM()
	if err != nil {
		return err
	}
	pub, err := k.PublicPEM()
	if err != nil {
		return err
	}
	if err := createNew(path, priv); err != nil {
		return err
	}
	return createNew(path+".pub", pub)
}

// createNew writes b to a new file of mode 0600, never over an existing one.
func createNew(path string, b []byte) error {
	f, err := safefile.CreateNew(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
