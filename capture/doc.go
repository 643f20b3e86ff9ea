// Package capture owns the .aaep capture format (reading, writing, redaction)
// and what is learnt from a capture: the sequencing check and the state-machine trace.
//
// A capture is JSON Lines: a header object, then one [t, dir, msg] record per
// line. Format version 2 holds several connections: its header names them
// (Header.Connections) and each record names its own, [t, dir, msg, id];
// the checks, the trace and the stats keep the connections apart. Readers
// also accept plain JSONL of events and gzip-compressed files.
package capture
