package console

// playsteer.go: the Player is the replay engine's replay.Player, for
// steered play (replay.Steered): its methods are the engine's hooks.

import "github.com/aaep-term/aaep-term/capture/replay"

var _ replay.Player = (*Player)(nil)
