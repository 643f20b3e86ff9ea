package main

import (
	"flag"

	"github.com/aaep-term/aaep-term/policy"
)

// This file wires who decides a prompt without asking — the --policy file,
// "always" answers, --auto-reply reject — and the --audit log.

// decideOptions are --policy and --audit.
type decideOptions struct {
	PolicyFile string
	AuditFile  string

	policy *policy.Policy // loaded from PolicyFile; nil without one
}

func addDecideFlags(fs *flag.FlagSet, o *decideOptions) {
	fs.StringVar(&o.PolicyFile, "policy", "", "decide confirmations by the rules in this JSON `FILE` (see docs/policy.md)")
	fs.StringVar(&o.AuditFile, "audit", "", "append every prompt and decision to this JSON Lines `FILE` (see docs/policy.md)")
}

// load reads the policy file, refusing one that is unsafe or unclear.
func (o *decideOptions) load() error {
	if o.PolicyFile == "" {
		return nil
	}
	p, err := policy.Load(o.PolicyFile)
	if err != nil {
		return err
	}
	o.policy = p
	return nil
}
