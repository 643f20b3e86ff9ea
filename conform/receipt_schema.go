package conform

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schemas of the JSON report and the receipt payload; the same files
// are published in docs/schemas (TestSchemasPublished holds them equal).
//
//go:embed schemas/*.schema.json
var schemaFiles embed.FS

const schemaBase = "https://aaep-term.github.io/schemas/"

// Schema file names.
const (
	ReportSchemaFile  = "conform-report.schema.json"
	ReceiptSchemaFile = "conform-receipt.schema.json"
)

var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	names := []string{ReceiptSchemaFile, ReportSchemaFile}
	for _, n := range names {
		b, err := schemaFiles.ReadFile("schemas/" + n)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if err := c.AddResource(schemaBase+n, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, n := range names {
		s, err := c.Compile(schemaBase + n)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", n, err)
		}
		out[n] = s
	}
	return out, nil
})

// SchemaFile is the text of one of the package's schemas (ReportSchemaFile
// or ReceiptSchemaFile).
func SchemaFile(name string) ([]byte, error) { return schemaFiles.ReadFile("schemas/" + name) }

// Validate checks JSON doc against the schema named (ReportSchemaFile or
// ReceiptSchemaFile).
func Validate(name string, doc []byte) error {
	schemas, err := compiled()
	if err != nil {
		return fmt.Errorf("conform: schemas: %w", err)
	}
	s, ok := schemas[name]
	if !ok {
		return fmt.Errorf("conform: no schema %q", name)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return err
	}
	return nil
}
