// Package userdir finds the one directory aaep-term keeps a user's files
// in: the reply-signing key, announce.json, the TUI key map and the
// trusted manifest keys. Every command and library that reads or writes
// one of them asks Dir, so they all agree on every system.
package userdir

import (
	"errors"
	"path/filepath"
	"runtime"
)

// Name is the directory's name inside the user's config directory.
const Name = "aaep-term"

// Dir returns <user config dir>/aaep-term, following os.UserConfigDir's
// rules for the system it runs on: $XDG_CONFIG_HOME (absolute) or
// $HOME/.config on Unix, $HOME/Library/Application Support on macOS,
// %AppData% on Windows. It reads the environment only through getenv, so
// a caller (or a test) can point it anywhere; with os.Getenv it answers as
// os.UserConfigDir does.
func Dir(getenv func(string) string) (string, error) {
	return dirFor(runtime.GOOS, getenv)
}

// dirFor is Dir on the system goos.
func dirFor(goos string, getenv func(string) string) (string, error) {
	var dir string
	switch goos {
	case "windows":
		if dir = getenv("AppData"); dir == "" {
			return "", errors.New("find the config directory: %AppData% is not set")
		}
	case "darwin", "ios":
		if dir = getenv("HOME"); dir == "" {
			return "", errors.New("find the config directory: $HOME is not set")
		}
		dir += "/Library/Application Support"
	case "plan9":
		if dir = getenv("home"); dir == "" {
			return "", errors.New("find the config directory: $home is not set")
		}
		dir += "/lib"
	default: // Unix
		dir = getenv("XDG_CONFIG_HOME")
		switch {
		case dir == "":
			if dir = getenv("HOME"); dir == "" {
				return "", errors.New("find the config directory: neither $XDG_CONFIG_HOME nor $HOME is set")
			}
			dir += "/.config"
		case !filepath.IsAbs(dir):
			return "", errors.New("find the config directory: $XDG_CONFIG_HOME is a relative path")
		}
	}
	return filepath.Join(dir, Name), nil
}

// File returns the path of name in Dir.
func File(getenv func(string) string, name string) (string, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
