// Package transport carries AAEP frames between a producer and this subscriber:
// one Conn per binding (SSE with its HTTP back channel, NDJSON files), with reconnects.
package transport
