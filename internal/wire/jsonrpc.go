// jsonrpc.go: the JSON-RPC 2.0 envelope of the stdio binding.

package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Methods of the stdio binding.
const (
	MethodEvent       = "aaep.event"       // producer → subscriber, notification
	MethodSubscribe   = "aaep.subscribe"   // subscriber → producer, request
	MethodRenegotiate = "aaep.renegotiate" // subscriber → producer, request
	MethodReply       = "aaep.reply"       // subscriber → producer, notification
	MethodClose       = "aaep.close"       // either way, notification
	MethodPing        = "aaep.ping"        // either way, request
)

// JSON-RPC error codes used here.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	// CodeRejected is this binding's code for a refused subscription or
	// renegotiation; the error's data holds the subscription.rejected
	// message.
	CodeRejected = -32001
)

// Message is one JSON-RPC 2.0 request, notification or response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"` // absent in notifications
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is the error member of a response.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// IsRequest reports whether m is a request (a method and an id).
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a notification (a method, no id).
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers a request (a result or an error).
func (m *Message) IsResponse() bool { return m.Method == "" }

// Parse decodes one JSON-RPC 2.0 message and checks its shape: version
// "2.0"; a method, or else exactly one of result and error; an id that is a
// string, a number or null; params, when present, an object or an array.
func Parse(b []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("wire: not a JSON-RPC message: %w", err)
	}
	if m.JSONRPC != "2.0" {
		return nil, errors.New(`wire: not a JSON-RPC 2.0 message: "jsonrpc" is not "2.0"`)
	}
	if m.ID != nil {
		switch c := firstByte(m.ID); {
		case c == '"', c == '-', c >= '0' && c <= '9', bytes.Equal(m.ID, []byte("null")):
		default:
			return nil, errors.New(`wire: the JSON-RPC "id" must be a string, a number or null`)
		}
	}
	if m.Method != "" {
		if m.Result != nil || m.Error != nil {
			return nil, errors.New("wire: a JSON-RPC request carries a result or an error")
		}
		if m.Params != nil {
			if c := firstByte(m.Params); c != '{' && c != '[' {
				return nil, errors.New(`wire: JSON-RPC "params" must be an object or an array`)
			}
		}
		return &m, nil
	}
	if (m.Result == nil) == (m.Error == nil) {
		return nil, errors.New("wire: a JSON-RPC message has neither a method nor exactly one of result and error")
	}
	return &m, nil
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// Request encodes a request; id nil makes it a notification. params must be
// JSON (an AAEP message, for this binding).
func Request(id json.RawMessage, method string, params []byte) []byte {
	return marshal(Message{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// Result encodes a successful response to request id.
func Result(id json.RawMessage, result []byte) []byte {
	return marshal(Message{JSONRPC: "2.0", ID: nullID(id), Result: result})
}

// Fail encodes an error response to request id (null when unknown).
func Fail(id json.RawMessage, code int, message string, data []byte) []byte {
	return marshal(Message{JSONRPC: "2.0", ID: nullID(id), Error: &Error{Code: code, Message: message, Data: data}})
}

func nullID(id json.RawMessage) json.RawMessage {
	if id == nil {
		return json.RawMessage("null")
	}
	return id
}

func marshal(m Message) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		// Only invalid JSON in params, result or data gets here.
		b, _ = json.Marshal(Message{JSONRPC: "2.0", ID: nullID(m.ID), Error: &Error{Code: -32603, Message: "invalid JSON inside the message: " + err.Error()}})
	}
	return b
}
