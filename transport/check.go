// check.go: telling, before any connection, whether an endpoint names something.

package transport

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// endpointForms lists what an endpoint may be, for error messages.
const endpointForms = "give an http://, https://, ws://, wss://, grpc:// or grpcs:// URL, " +
	"unix:PATH, exec:COMMAND, acp:COMMAND, file:PATH, the path of an existing file, or - for standard input"

// CheckEndpoint reports, without connecting or reading anything, why
// endpoint names nothing Dial can reach: a URL with no host, an unknown
// scheme, a file that does not exist. It returns nil for an endpoint of a
// known form; Dial may still fail to reach it. It is ParseEndpoint's error.
func CheckEndpoint(endpoint string) error {
	_, err := ParseEndpoint(endpoint)
	return err
}

// ParseEndpoint parses an endpoint as a user names it (see Dial for the
// forms), without connecting or reading anything but a file's metadata: a
// URL with no host, an unknown scheme, a command that does not split or a
// file that does not exist is an error. The Endpoint it returns is passed
// down as it is; nothing parses the text again.
func ParseEndpoint(endpoint string) (Endpoint, error) {
	ep := Endpoint{raw: endpoint, Binding: BindingOf(endpoint)}
	if endpoint == "" {
		return Endpoint{}, errors.New("transport: the endpoint is empty: " + endpointForms)
	}
	if endpoint == "-" {
		ep.Path = "-"
		return ep, nil
	}
	scheme, rest, hasScheme := strings.Cut(endpoint, ":")
	scheme = strings.ToLower(scheme)
	switch ep.Binding {
	case BindingSSE, BindingWebSocket, BindingGRPC:
		u, err := url.Parse(endpoint)
		if err != nil {
			return Endpoint{}, fmt.Errorf("transport: %q is not a URL: %w", endpoint, err)
		}
		if u.Host == "" {
			return Endpoint{}, fmt.Errorf("transport: %q names no host: give one, as in %s://localhost:8080", endpoint, scheme)
		}
		u.Scheme = scheme
		u.Fragment, u.RawFragment = "", ""
		ep.URL = u
		return ep, nil
	case BindingUnix:
		if ep.Path = strings.TrimPrefix(rest, "//"); ep.Path == "" {
			return Endpoint{}, fmt.Errorf("transport: %q names no socket: give unix:PATH or unix:ID", endpoint)
		}
		return ep, nil
	case BindingStdio, BindingACP:
		if strings.TrimSpace(rest) == "" {
			return Endpoint{}, fmt.Errorf("transport: %q names no command to start", endpoint)
		}
		argv, err := SplitCommand(rest)
		if err != nil {
			return Endpoint{}, err
		}
		ep.Argv = argv
		return ep, nil
	}
	if !hasScheme || len(scheme) <= 1 { // a path, or a drive letter
		return fileEndpoint(ep, endpoint)
	}
	if scheme == "file" {
		path := rest
		if p, ok := strings.CutPrefix(rest, "//"); ok {
			// file:///abs/path, or file://localhost/abs/path
			path = p
			if i := strings.IndexByte(p, '/'); i > 0 {
				if host := p[:i]; host != "localhost" {
					return Endpoint{}, fmt.Errorf("transport: %q names a file on another host (%s)", endpoint, host)
				}
				path = p[i:]
			} else if i < 0 && p != "" {
				return Endpoint{}, fmt.Errorf("transport: %q names a file on another host (%s)", endpoint, p)
			}
		}
		if path == "" {
			return Endpoint{}, fmt.Errorf("transport: %q names no file", endpoint)
		}
		return fileEndpoint(ep, path)
	}
	if _, err := os.Stat(endpoint); err == nil {
		return fileEndpoint(ep, endpoint) // a file whose name has a colon
	}
	if strings.HasPrefix(rest, "//") {
		return Endpoint{}, fmt.Errorf("transport: %q: unknown scheme %q: %s", endpoint, scheme+"://", endpointForms)
	}
	return Endpoint{}, fmt.Errorf("transport: no such file %q, and %q is no scheme: %s", endpoint, scheme+":", endpointForms)
}

// fileEndpoint is ep reading the file at path, when there is one.
func fileEndpoint(ep Endpoint, path string) (Endpoint, error) {
	if err := checkFile(ep.raw, path); err != nil {
		return Endpoint{}, err
	}
	ep.Path = path
	return ep, nil
}

// checkFile reports why path, named by endpoint, is not a file to read.
func checkFile(endpoint, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("transport: no such file %q (for a producer, %s)", path, endpointForms)
	case err != nil:
		return fmt.Errorf("transport: %q: %w", endpoint, err)
	case st.IsDir():
		return fmt.Errorf("transport: %q is a directory, not a file of events", path)
	}
	return nil
}
