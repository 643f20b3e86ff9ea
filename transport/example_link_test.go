package transport_test

import (
	"fmt"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// What the user hears when a WebSocket producer closes the connection.
func ExampleCloseWords() {
	for _, code := range []int{protocol.CloseSubscriptionEnded, protocol.CloseAuthFailed, protocol.CloseViolation, 1001} {
		fmt.Printf("%d: %s\n", code, transport.CloseWords(code))
	}
	// Output:
	// 4000: the subscription was closed cleanly
	// 4002: authentication failed: check the token
	// 4004: the producer ended the subscription because it saw a protocol violation
	// 1001: the producer is going away (shutting down or restarting)
}

// How an exec: endpoint's command line is cut into words.
func ExampleSplitCommand() {
	argv, err := transport.SplitCommand(`python3 -m my_agent --name "Ada's helper" --log\ file`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range argv {
		fmt.Printf("[%s] ", w)
	}
	fmt.Println()
	// Output: [python3] [-m] [my_agent] [--name] [Ada's helper] [--log file]
}
