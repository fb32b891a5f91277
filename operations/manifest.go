package operations

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// The committed trusted-documents manifests: what the frontend clients' own tooling
// (Apollo's persisted-query manifest generator, GraphQL Codegen's client preset) writes
// from the frontend's documents. `make manifests` regenerates them.
//
//go:embed manifests/*.json
var manifests embed.FS

// ApolloManifestFormat is the format field of Apollo's persisted-query manifest.
const ApolloManifestFormat = "apollo-persisted-query-manifest"

// IDPrefix marks a document id as a SHA-256 (GraphQL over HTTP's persisted documents;
// GraphQL Codegen's sha256 ids).
const IDPrefix = "sha256:"

// ParseID returns the hex SHA-256 that a document id names: the id itself or what follows
// IDPrefix. ok is false unless that is 64 lowercase hexadecimal digits.
func ParseID(id string) (hash string, ok bool) {
	hash = strings.TrimPrefix(id, IDPrefix)
	if len(hash) != 64 {
		return hash, false
	}
	for _, c := range []byte(hash) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return hash, false
		}
	}
	return hash, true
}

// Builtin returns the builtin trusted-documents manifest: the union of the committed
// manifests (manifests/*.json), each document under the hex SHA-256 of its text. It fails
// as ParseManifest does, naming the file.
func Builtin() (map[string]string, error) {
	names, err := fs.Glob(manifests, "manifests/*.json")
	if err != nil || len(names) == 0 {
		return nil, errors.New("operations: no manifest under operations/manifests")
	}
	all := map[string]string{}
	for _, name := range names {
		b, err := manifests.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("operations: %w", err)
		}
		m, err := ParseManifest(path.Join("operations", name), b)
		if err != nil {
			return nil, err
		}
		for hash, doc := range m {
			all[hash] = doc
		}
	}
	return all, nil
}

// ParseManifest reads a trusted-documents manifest and returns its documents by the hex
// SHA-256 of their text. name is what errors call the manifest (its file). A manifest is
// either
//   - Apollo's persisted-query manifest, {"format": "apollo-persisted-query-manifest",
//     "version": 1, "operations": [{"id", "name", "type", "body"}, …]}, or
//   - a flat JSON object {"<id>": "<document>", …},
//
// where every id is the lowercase hex SHA-256 of its document exactly as written in the
// manifest, bare or after "sha256:". A manifest that is not one of these, is empty, or has
// an entry whose id is not its document's hash is an error naming name and the first bad
// entry in file order.
func ParseManifest(name string, data []byte) (map[string]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("operations: manifest %s: want a JSON object, Apollo's persisted-query manifest or {\"<id>\": \"<document>\"}: %w", name, err)
	}
	var (
		m   map[string]string
		err error
	)
	if _, apollo := top["format"]; apollo {
		m, err = parseApollo(data)
	} else {
		m, err = parseFlat(data)
	}
	if err != nil {
		return nil, fmt.Errorf("operations: manifest %s: %w", name, err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("operations: manifest %s: no documents", name)
	}
	return m, nil
}

// apolloManifest is Apollo's persisted-query manifest, version 1.
type apolloManifest struct {
	Format     string            `json:"format"`
	Version    int               `json:"version"`
	Operations []apolloOperation `json:"operations"`
}

type apolloOperation struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Body string `json:"body"`
}

func parseApollo(data []byte) (map[string]string, error) {
	var a apolloManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("not an Apollo persisted-query manifest: %w", err)
	}
	if a.Format != ApolloManifestFormat || a.Version != 1 {
		return nil, fmt.Errorf("format %.40q version %d: want %s version 1", a.Format, a.Version, ApolloManifestFormat)
	}
	m := map[string]string{}
	for i, op := range a.Operations {
		where := fmt.Sprintf("operation %d (id %.80q, name %.80q)", i+1, op.ID, op.Name)
		switch {
		case op.Body == "":
			return nil, fmt.Errorf("%s: no body", where)
		case op.Type != "query" && op.Type != "mutation" && op.Type != "subscription":
			return nil, fmt.Errorf("%s: type %.20q: want query, mutation or subscription", where, op.Type)
		}
		hash, err := checkEntry(op.ID, op.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		m[hash] = op.Body
	}
	return m, nil
}

// parseFlat reads {"<id>": "<document>", …} entry by entry, in file order.
func parseFlat(data []byte) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{': ParseManifest decoded an object
		return nil, err
	}
	m := map[string]string{}
	for i := 1; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		id, _ := tok.(string) // an object's keys are strings
		where := fmt.Sprintf("entry %d (id %.80q)", i, id)
		var doc string
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("%s: want a document as a JSON string", where)
		}
		hash, err := checkEntry(id, doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		m[hash] = doc
	}
	return m, nil
}

// checkEntry returns the hex hash of an entry whose id is its document's SHA-256.
func checkEntry(id, doc string) (string, error) {
	hash, ok := ParseID(id)
	if !ok {
		return "", errors.New("the id is not a SHA-256: want 64 lowercase hex digits, bare or prefixed with sha256")
	}
	if strings.TrimSpace(doc) == "" {
		return "", errors.New("an empty document")
	}
	if Hash(doc) != hash {
		return "", fmt.Errorf("the id is not the SHA-256 of its document (that is %s)", Hash(doc))
	}
	return hash, nil
}
