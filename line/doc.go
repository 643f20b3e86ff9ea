// Package line is the plain line mode: each announcement is one appended line
// of words, written once, with no escape sequences; commands are whole typed lines.
package line
