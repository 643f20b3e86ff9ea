// Command minimal is the smallest program against package subscriber: it
// prints what one producer says. TestMinimalProgramLinksNoGRPC builds it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aaep-term/aaep-term/subscriber"
)

func main() {
	ctx := context.Background()
	c, err := subscriber.Dial(ctx, os.Args[1], subscriber.Config{
		Identity: subscriber.Identity{ID: "minimal", Name: "minimal", Version: "1"},
	})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for {
		u, err := c.Next(ctx)
		if err != nil {
			return
		}
		fmt.Println(u.Text)
	}
}
