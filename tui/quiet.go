package tui

// Linked in before Bubble Tea initializes: see the package's comment.
import _ "github.com/aaep-term/aaep-term/tui/internal/quiet"
