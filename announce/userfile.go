package announce

import (
	"errors"
	"io/fs"
	"os"

	"github.com/aaep-term/aaep-term/internal/userdir"
)

// SettingsFile is the name of the announcement settings file in the user's
// config directory (internal/userdir).
const SettingsFile = "announce.json"

// LoadUserSettings reads the settings file at path or, when path is "",
// SettingsFile in the config directory getenv leads to, when there is one
// (no file there is no error: the zero Settings). A nil getenv has no
// config directory.
func LoadUserSettings(path string, getenv func(string) string) (Settings, error) {
	if path == "" {
		if getenv == nil {
			return Settings{}, nil
		}
		var err error
		if path, err = userdir.File(getenv, SettingsFile); err != nil {
			return Settings{}, nil // no config directory, so no default file
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return Settings{}, nil
		}
	}
	return LoadSettings(path)
}
