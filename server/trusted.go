package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/operations"
)

// BuiltinTrustedDocuments is the PICKEM_TRUSTED_DOCUMENTS value that selects the manifest
// compiled into the binary: operations.TrustedManifest, the frontend's documents.
const BuiltinTrustedDocuments = "builtin"

// LoadTrustedDocuments reads a trusted-documents manifest: a JSON object mapping the hex
// SHA-256 of each document's exact text to the text. spec is BuiltinTrustedDocuments or a
// file path. Every hash is checked.
func LoadTrustedDocuments(spec string) (map[string]string, error) {
	if spec == BuiltinTrustedDocuments {
		return operations.TrustedManifest(), nil
	}
	b, err := os.ReadFile(spec)
	if err != nil {
		return nil, fmt.Errorf("server: trusted documents: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("server: trusted documents %s: want a JSON object of hash: document: %w", spec, err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("server: trusted documents %s: the manifest is empty", spec)
	}
	for hash, doc := range m {
		if operations.Hash(doc) != hash {
			return nil, fmt.Errorf("server: trusted documents %s: %.16s… is not the SHA-256 of its document", spec, hash)
		}
	}
	return m, nil
}

// trustedDocuments lets only the manifest's documents run (callers in the admin group
// excepted: the admin command sends its own). A client sends either the document or only
// its hash, as Apollo's persisted queries do:
// {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "<hex>"}}}.
type trustedDocuments struct {
	byHash map[string]string
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = trustedDocuments{}

func (trustedDocuments) ExtensionName() string                   { return "PickemTrustedDocuments" }
func (trustedDocuments) Validate(graphql.ExecutableSchema) error { return nil }

func untrusted(format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...),
		Extensions: map[string]any{"code": CodeUntrustedDocument}}
}

// MutateOperationParameters resolves a hash to its document and refuses any document that
// is not in the manifest.
func (t trustedDocuments) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if auth.ErrorFromContext(ctx) == nil && auth.FromContext(ctx).IsAdmin() {
		return nil
	}
	hash := ""
	if pq, ok := p.Extensions["persistedQuery"].(map[string]any); ok {
		hash, _ = pq["sha256Hash"].(string)
	}
	if p.Query == "" {
		doc, ok := t.byHash[hash]
		if !ok {
			return untrusted("this API runs only the app's own documents: %q is not one of them", shorten(hash, 64))
		}
		p.Query = doc
		return nil
	}
	sum := operations.Hash(p.Query)
	if _, ok := t.byHash[sum]; !ok {
		return untrusted("this API runs only the app's own documents, sent exactly as the app sends them")
	}
	if hash != "" && hash != sum {
		return untrusted("persistedQuery.sha256Hash is not the hash of the document sent")
	}
	return nil
}
