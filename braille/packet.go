// packet.go holds the BrlAPI v8 packet format: header, types, key codes and reading.

package braille

import (
	"encoding/binary"
	"fmt"
	"io"
)

// protocolVersion is the BrlAPI protocol this client speaks.
const protocolVersion = 8

// maxPacket is the largest payload BrlAPI allows.
const maxPacket = 4096

// Packet types, as BrlAPI spells them.
const (
	typeVersion   = 'v'
	typeAuth      = 'a'
	typeSize      = 's'
	typeEnterTty  = 't'
	typeLeaveTty  = 'L'
	typeWrite     = 'w'
	typeKey       = 'k'
	typeAck       = 'A'
	typeError     = 'e'
	typeException = 'E'
)

// Authentication methods offered by the server.
const (
	authNone    = 'N'
	authKeyFile = 'K'
)

// Write flags: which fields follow in a write packet.
const (
	writeRegion  = 0x02
	writeText    = 0x04
	writeCursor  = 0x20
	writeCharset = 0x40
)

// Key codes of BRLTTY commands (keys delivered as commands, not driver keys).
const (
	keyTypeCmd  = 0x20000000
	keyTypeMask = 0xE0000000
	keyBlock    = 0x1FFF0000
	keyArg      = 0x0000FFFF

	cmdLNUP   = 1
	cmdLNDN   = 2
	cmdFWINLT = 23
	cmdFWINRT = 24
	blkRoute  = 0x10000
)

// Key is a key pressed on the display, as a BRLTTY command.
type Key uint64

// Command returns the command (block or command number) and its argument, and
// whether the key is a command at all.
func (k Key) Command() (cmd, arg uint32, ok bool) {
	code := uint32(k) // the upper half holds flags
	if code&keyTypeMask != keyTypeCmd {
		return 0, 0, false
	}
	if blk := code & keyBlock; blk != 0 {
		return blk, code & keyArg, true
	}
	return code & keyArg, 0, true
}

// Route reports whether k is a routing key and which cell (0-based) it is over.
func (k Key) Route() (cell int, ok bool) {
	cmd, arg, ok := k.Command()
	if !ok || cmd != blkRoute {
		return 0, false
	}
	return int(arg), true
}

func (k Key) is(cmd uint32) bool {
	c, _, ok := k.Command()
	return ok && c == cmd
}

// packet is one BrlAPI packet.
type packet struct {
	Type    uint32
	Payload []byte
}

// readPacket reads one packet, refusing payloads over maxPacket.
func readPacket(r io.Reader) (packet, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return packet{}, err
	}
	size := binary.BigEndian.Uint32(h[0:4])
	typ := binary.BigEndian.Uint32(h[4:8])
	if size > maxPacket {
		return packet{}, fmt.Errorf("braille: packet of %d bytes exceeds %d", size, maxPacket)
	}
	p := packet{Type: typ, Payload: make([]byte, size)}
	if _, err := io.ReadFull(r, p.Payload); err != nil {
		return packet{}, fmt.Errorf("braille: short packet: %w", err)
	}
	return p, nil
}

// encodePacket frames payload as a packet of type typ.
func encodePacket(typ uint32, payload []byte) []byte {
	b := make([]byte, 8, 8+len(payload))
	binary.BigEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[4:8], typ)
	return append(b, payload...)
}

// errorCode reads the error number of an error packet, or -1.
func errorCode(p packet) int {
	if len(p.Payload) < 4 {
		return -1
	}
	return int(binary.BigEndian.Uint32(p.Payload))
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
