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
// known form; Dial may still fail to reach it.
func CheckEndpoint(endpoint string) error {
	if endpoint == "" {
		return errors.New("transport: the endpoint is empty: " + endpointForms)
	}
	if endpoint == "-" {
		return nil
	}
	scheme, rest, hasScheme := strings.Cut(endpoint, ":")
	scheme = strings.ToLower(scheme)
	switch BindingOf(endpoint) {
	case BindingSSE, BindingWebSocket, BindingGRPC:
		u, err := url.Parse(endpoint)
		if err != nil {
			return fmt.Errorf("transport: %q is not a URL: %w", endpoint, err)
		}
		if u.Host == "" {
			return fmt.Errorf("transport: %q names no host: give one, as in %s://localhost:8080", endpoint, scheme)
		}
		return nil
	case BindingUnix:
		if strings.TrimPrefix(rest, "//") == "" {
			return fmt.Errorf("transport: %q names no socket: give unix:PATH or unix:ID", endpoint)
		}
		return nil
	case BindingStdio, BindingACP:
		if strings.TrimSpace(rest) == "" {
			return fmt.Errorf("transport: %q names no command to start", endpoint)
		}
		return nil
	}
	if !hasScheme || len(scheme) <= 1 { // a path, or a drive letter
		return checkFile(endpoint, endpoint)
	}
	if scheme == "file" {
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return fmt.Errorf("transport: %q names no file", endpoint)
		}
		if strings.HasPrefix(rest, "//") && !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "localhost/") {
			return nil // another host: Dial says why not
		}
		return checkFile(endpoint, strings.TrimPrefix(path, "localhost"))
	}
	if _, err := os.Stat(endpoint); err == nil {
		return checkFile(endpoint, endpoint) // a file whose name has a colon
	}
	if strings.HasPrefix(rest, "//") {
		return fmt.Errorf("transport: %q: unknown scheme %q: %s", endpoint, scheme+"://", endpointForms)
	}
	return fmt.Errorf("transport: no such file %q, and %q is no scheme: %s", endpoint, scheme+":", endpointForms)
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
