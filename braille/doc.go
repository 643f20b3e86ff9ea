// Package braille owns announcements on braille displays: a pure-Go BrlAPI client
// for BRLTTY and a Sink that flashes messages, pans long text and answers prompts.
package braille
