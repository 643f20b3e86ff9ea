package acp_test

import (
	"os"
	"testing"

	"github.com/aaep-term/aaep-term/internal/acptest"
)

func TestMain(m *testing.M) {
	if s := os.Getenv(acptest.Env); s != "" {
		os.Exit(acptest.Main(s, os.Stdin, os.Stdout)) // this binary as a scripted ACP agent
	}
	os.Exit(m.Run())
}
