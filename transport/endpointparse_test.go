package transport_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parsers are the calls that read an endpoint's text: classifying it,
// parsing it as a URL, parsing it whole, dialling it by its text, or making
// credentials for its origin.
var parsers = []string{
	"url.Parse", "transport.BindingOf", "BindingOf", "transport.ParseEndpoint", "ParseEndpoint",
	"transport.CheckEndpoint", "CheckEndpoint", "transport.Dial", "Dial", "creds.New",
}

// endpointReaders lists, per package and function, the calls of parsers
// allowed there. An endpoint is parsed once, where it enters as text (an
// exported function taking a string), into a transport.Endpoint that is
// passed down; nothing below parses it again. Calls on other text (a
// manifest_uri, a receipt's URL) are listed with what they read.
var endpointReaders = []string{
	// transport: the one parse, and the entries that take text.
	"transport ParseEndpoint BindingOf",
	"transport ParseEndpoint url.Parse", // the endpoint, once
	"transport CheckEndpoint ParseEndpoint",
	"transport Dial ParseEndpoint",
	"transport DialSSE ParseEndpoint",
	"transport DialWebSocket ParseEndpoint",
	"transport Words BindingOf",
	"transport Shown BindingOf", // an endpoint as said to people: nothing is dialled with it
	"transport dialSSE creds.New",
	"transport dialWebSocket creds.New",
	"transport/grpcbind Dial transport.ParseEndpoint",
	"transport/grpcbind GetManifest transport.ParseEndpoint",
	// subscriber: where a user's endpoint text enters.
	"subscriber Start transport.ParseEndpoint",
	"subscriber New transport.ParseEndpoint",
	"subscriber newClient transport.BindingOf", // New's endpoint, when it does not parse
	"subscriber Add transport.ParseEndpoint",
	"subscriber EndpointName transport.ParseEndpoint",
	"subscriber Finder transport.ParseEndpoint",
	"subscriber finder creds.New",
	"subscriber Discover transport.ParseEndpoint",
	"subscriber InspectManifest transport.ParseEndpoint",
	// conform
	"conform TestProducer transport.ParseEndpoint",
	"conform CheckRecheckEndpoint transport.BindingOf",
	"conform redactURL url.Parse",    // the endpoint as a receipt names it, after the run
	"conform CheckTrigger url.Parse", // --trigger's URL: a web hook to call, not an endpoint
}

// TestEndpointParsedOnce fails when a function of transport, its gRPC
// binding, subscriber, producer or conform reads an endpoint's text where
// endpointReaders does not allow it: a second parse of an endpoint on its
// way to a connection. (Before: one subscriber.Start on http:// classified
// the endpoint 3 times and URL-parsed it twice before connecting.)
func TestEndpointParsedOnce(t *testing.T) {
	t.Parallel()
	var got []string
	for _, pkg := range []string{"transport", "transport/grpcbind", "subscriber", "producer", "conform"} {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if name := calleeName(call.Fun); slices.Contains(parsers, name) {
						got = append(got, pkg+" "+fn.Name.Name+" "+name)
					}
					return true
				})
			}
		}
	}
	for _, g := range got {
		if !slices.Contains(endpointReaders, g) {
			t.Errorf("%s: reads an endpoint's text again; parse it once (transport.ParseEndpoint) and pass the Endpoint down", g)
		}
	}
	for _, w := range endpointReaders {
		if !slices.Contains(got, w) {
			t.Errorf("%s: listed in endpointReaders and no longer there: take it off the list", w)
		}
	}
}

// calleeName is the name a call is made by: "f" or "pkg.f" (methods
// count as their selector, "x.f").
func calleeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	}
	return ""
}
