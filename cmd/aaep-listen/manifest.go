package main

// manifest.go: the manifest flags (--require-signed-manifest,
// --trusted-keys, --manifest-key); the client checks the manifest.

import (
	"cmp"
	"flag"
	"fmt"

	"github.com/aaep-term/aaep-term/internal/userdir"
	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// trustedKeys is the default --trusted-keys, in the config directory.
const trustedKeys = "trusted-keys"

// manifestOptions are the manifest flags and what the run learned.
type manifestOptions struct {
	Require bool   // --require-signed-manifest
	KeysDir string // --trusted-keys; "" means the default under the config dir
	KeyFile string // --manifest-key: the one pinned JWK

	keys *manifest.Keys
}

func addManifestFlags(fs *flag.FlagSet, o *manifestOptions) {
	fs.BoolVar(&o.Require, "require-signed-manifest", false, "ask for a signed producer manifest and close the subscription unless it verifies with a trusted key")
	addManifestKeyFlags(fs, o)
}

// addManifestKeyFlags defines --trusted-keys and --manifest-key.
func addManifestKeyFlags(fs *flag.FlagSet, o *manifestOptions) {
	fs.StringVar(&o.KeysDir, "trusted-keys", "", "`DIR` of public JWK files (*.jwk, *.json) trusted to sign manifests, by kid (default: "+userdir.Name+"/"+trustedKeys+" in your config directory)")
	fs.StringVar(&o.KeyFile, "manifest-key", "", "the one public JWK `FILE` a manifest must be signed with (pins the key; --trusted-keys is then ignored)")
}

// load reads the trusted keys, from the config directory getenv leads to
// when --trusted-keys is not given.
func (m *manifestOptions) load(getenv func(string) string) error {
	dir := m.KeysDir
	if dir == "" {
		dir, _ = userdir.File(getenv, trustedKeys) // "" when there is no config directory: no keys
	}
	keys, err := manifest.LoadKeys(dir, m.KeyFile)
	if err != nil {
		return err
	}
	m.keys = keys
	return nil
}

// checkManifestFlags refuses --require-signed-manifest where nothing can be
// checked.
func checkManifestFlags(o *options) error {
	if o.Manifest.Require && !o.Demo && !transport.BindingOf(o.Endpoint).Answers() {
		return fmt.Errorf("--require-signed-manifest needs a live producer, not a file")
	}
	return nil
}

// manifestConfig is the client's manifest check, from the flags. The
// demo's producers are served by this process: their manifest's answer is
// sure to come, so the check waits for it however busy the machine, and
// the demo says the same lines every run (TestDemoOrderIsStable).
func (o *options) manifestConfig() subscriber.ManifestConfig {
	m := o.Manifest
	return subscriber.ManifestConfig{
		Require: m.Require, Keys: m.keys, KeysWhere: cmp.Or(m.KeysDir, userdir.Name+"/"+trustedKeys+" in your config directory"),
		HTTPClient: o.TLS.Client, TLSConfig: o.TLS.Config, Token: o.Token, Header: o.Header, Now: o.Now,
		Hints: listenHints, Unbounded: o.Demo,
	}
}
