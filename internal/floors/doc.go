// Package floors holds no code: its test reads every package's imports and
// fails when one imports a package on its own floor or above (the floor
// table is in floors_test.go and in docs/design-notes.md).
package floors
