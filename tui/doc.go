// Package tui is the opt-in Bubble Tea debug view of aaep-listen: event list,
// details, prompts, filter and keymap. Bubble Tea stays behind this package's own types.
package tui
