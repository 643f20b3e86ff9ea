// Package policy decides prompts the user chose not to be asked about:
// rules from a policy file (--policy), "always" answers remembered per
// (agent, session, tool), and --auto-reply reject. Every such decision is
// made by a Gate, which checks the prompt's own facts each time it decides.
package policy
