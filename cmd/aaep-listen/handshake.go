package main

import "github.com/aaep-term/aaep-term/transport"

// version is this build's version, sent in subscription requests.
const version = "0.1.0"

func layout(s string) transport.Layout {
	switch s {
	case "spec":
		return transport.LayoutSpec
	case "legacy":
		return transport.LayoutLegacy
	}
	return transport.LayoutAuto
}
