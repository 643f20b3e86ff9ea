package conform

import (
	"io"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/textout"
)

// VerifyReport is what checking a receipt found, as aaep-conform verify
// reports it: lines (WriteText), or one JSON document.
type VerifyReport struct {
	File    string   `json:"file"`
	Valid   bool     `json:"valid"`
	Reason  string   `json:"reason,omitempty"` // why it was refused
	KeyID   string   `json:"key_id,omitempty"`
	KeyFile string   `json:"key_file,omitempty"`
	Claim   string   `json:"claim,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Receipt *Receipt `json:"receipt,omitempty"`
	Recheck *Recheck `json:"recheck,omitempty"`
	// Report is the --report file; ReportMismatch says why it is not the
	// receipt's, empty when it is.
	Report         string `json:"report,omitempty"`
	ReportMismatch string `json:"report_mismatch,omitempty"`
}

// WriteText writes the verification as plain lines, each sanitized
// (textout): a receipt's names are whatever its maker wrote, and a valid
// signature cleans nothing.
func (r *VerifyReport) WriteText(w io.Writer) {
	printf := func(format string, a ...any) { textout.Fprintf(w, format, a...) }
	if !r.Valid {
		printf("Receipt %s: refused: %s.\n", r.File, r.Reason)
		return
	}
	rc := r.Receipt
	printf("Receipt %s: valid.\n", r.File)
	from := ""
	if r.KeyFile != "" {
		from = " from " + r.KeyFile
	}
	printf("Signed by the key you trust %s%s.\n", r.KeyID, from)
	where := rc.Implementation.Endpoint
	if where == "" {
		where = rc.Implementation.Command
	}
	printf("Tested: %s %s at %s.\n", rc.Role, rc.Implementation.Name(), where)
	printf("Suite: aaep-conform version %s, AAEP version %s, catalogue SHA-256 %s.\n", rc.Suite.Version, rc.Suite.AAEPVersion, rc.Suite.Catalogue)
	fast := ""
	if rc.Fast {
		fast = ", in fast mode"
	}
	printf("Run on %s at Level %v%s: %s\n", rc.TestedAt.Format(time.DateTime+" UTC"), rc.LevelTested, fast, rc.Summary)
	if r.Claim != "" {
		printf("Claim: %s.\n", r.Claim)
	} else {
		printf("No claim: not even Level 1 held.\n")
	}
	printf("Valid from %s until %s.\n", rc.IssuedAt.Format(time.DateOnly), rc.ExpiresAt.Format(time.DateOnly))
	for _, n := range r.Notes {
		printf("Note: %s\n", n)
	}
	switch {
	case r.Report != "" && r.ReportMismatch != "":
		printf("Report %s does not match the receipt: %s.\n", r.Report, r.ReportMismatch)
	case r.Report != "":
		printf("Report %s holds the results the receipt was signed over.\n", r.Report)
	}
	if rk := r.Recheck; rk != nil {
		tests := prose.Plural(len(rk.Checked), "test", "tests")
		printf("Recheck of %v %s against %s, listed in random order (seed %v):\n", len(rk.Checked), tests, rk.Endpoint, rk.Seed)
		differ := 0
		for _, e := range rk.Checked {
			word := "AGREES"
			if !e.Agrees {
				word = "DIFFERS"
				differ++
			}
			printf("%s %s: %s in the receipt, %s now: %s\n", word, e.ID, e.Receipt, e.Now, e.Detail)
		}
		if differ == 0 {
			printf("Recheck: the producer still does what the receipt says.\n")
		} else {
			printf("Recheck: %v of %v %s differ from the receipt.\n", differ, len(rk.Checked), tests)
		}
	}
}
