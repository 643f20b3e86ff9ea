// Package replay plays a capture as a connection: its received frames are
// handed to a subscriber client over a Conn, one burst at a time, on a Clock
// set to their recorded times; Steered paces them, pauses, steps, seeks and
// jumps to critical events and marks, steered by typed commands.
package replay
