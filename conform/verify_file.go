package conform

// This file checks a receipt file as aaep-conform verify does, short of a
// recheck: the keys trusted, the receipt, and the report it was made from.

import (
	"errors"
	"strings"
	"time"
)

// CheckOptions say how CheckReceiptFile checks a receipt.
type CheckOptions struct {
	KeyFile string // the one public key trusted (PEM or JWK) …
	KeysDir string // … or a directory of them, the receipt's key ID picking one
	// Report, if not empty, is a JSON report file that must hold the very
	// results the receipt was signed over.
	Report string
	// Strict refuses a receipt from a newer suite, or whose catalogue we
	// do not know, instead of noting it.
	Strict bool
	Now    time.Time
	Suite  Suite // ours
	// LeftOut, if not nil, is told of each file of KeysDir left out of the
	// trusted keys, and why.
	LeftOut func(error)
}

// CheckReceiptFile checks the receipt in file with the keys o trusts, as
// VerifyReceipt does, and with o.Report that the report matches it. The
// report says what it found: Valid is false when the receipt is refused
// (Reason says why), and ReportMismatch says why the report is not the
// receipt's. An error means it could not be checked: a key, the receipt or
// the report could not be read.
func CheckReceiptFile(file string, o CheckOptions) (*VerifyReport, error) {
	var keys []*PublicKey
	if o.KeyFile != "" {
		k, err := LoadPublicKey(o.KeyFile)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	} else {
		ks, problems, err := LoadTrustedKeys(o.KeysDir)
		if err != nil {
			return nil, err
		}
		for _, p := range problems {
			if o.LeftOut != nil {
				o.LeftOut(p)
			}
		}
		keys = ks
	}
	data, err := ReadReceipt(file)
	if err != nil {
		return nil, err
	}
	out := &VerifyReport{File: file}
	v, err := VerifyReceipt(data, VerifyOptions{Keys: keys, Now: o.Now, Suite: o.Suite})
	var refused *Refusal
	switch {
	case errors.As(err, &refused):
		out.Reason = refused.Reason
		return out, nil
	case err != nil:
		return nil, err
	}
	if o.Strict && len(v.Notes) > 0 {
		out.Reason = "--strict: " + strings.Join(v.Notes, " ")
		return out, nil
	}
	out.Valid, out.Receipt, out.Notes, out.Claim = true, v.Receipt, v.Notes, v.Receipt.Claim()
	out.KeyID, out.KeyFile = v.Key.KeyID(), v.Key.Source
	if o.Report != "" {
		b, err := ReadReport(o.Report)
		if err != nil {
			return nil, err
		}
		out.Report = o.Report
		if err := MatchReport(v.Receipt, b); err != nil {
			out.ReportMismatch = err.Error()
		}
	}
	return out, nil
}
