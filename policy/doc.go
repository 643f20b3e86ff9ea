// Package policy decides prompts the user chose not to be asked about: rules
// from a policy file (--policy) and "always" answers remembered per session.
package policy
