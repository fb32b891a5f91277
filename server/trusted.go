package server

import (
	"context"
	"fmt"
	"os"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/operations/embedded"
)

// The PICKEM_TRUSTED_DOCUMENTS values that name a manifest built into the binary (any
// other non-empty value is a manifest file's path).
const (
	// BuiltinTrustedDocuments is the union of the committed manifests that the frontend
	// clients' tooling writes from the frontend's documents (operations.Builtin).
	BuiltinTrustedDocuments = "builtin"
	// EmbeddedTrustedDocuments is the manifest `make lambda MANIFEST=path` built in
	// (package operations/embedded).
	EmbeddedTrustedDocuments = "embedded"
)

// LoadTrustedDocuments returns the documents that spec (PICKEM_TRUSTED_DOCUMENTS) lets
// run, by the hex SHA-256 of their text, for Config.TrustedDocuments: nil for "" (any
// document runs), operations.Builtin for BuiltinTrustedDocuments, the manifest built into
// the binary for EmbeddedTrustedDocuments (an error if it has none), else the manifest
// file at the path spec. Every manifest is read by operations.ParseManifest: an error
// names the manifest and its first bad entry.
func LoadTrustedDocuments(spec string) (map[string]string, error) {
	var (
		m   map[string]string
		err error
	)
	switch spec {
	case "":
		return nil, nil
	case BuiltinTrustedDocuments:
		m, err = operations.Builtin()
	case EmbeddedTrustedDocuments:
		b := embedded.Manifest()
		if b == nil {
			return nil, fmt.Errorf("server: trusted documents %q: this binary has no manifest built in: build it with make lambda MANIFEST=path", spec)
		}
		m, err = operations.ParseManifest("built into this binary", b)
	default:
		b, rerr := os.ReadFile(spec)
		if rerr != nil {
			return nil, fmt.Errorf("server: trusted documents: %w", rerr)
		}
		m, err = operations.ParseManifest(spec, b)
	}
	if err != nil {
		return nil, fmt.Errorf("server: trusted documents: %w", err)
	}
	return m, nil
}

// trustedDocuments lets only the manifest's documents run (callers in the admin group
// excepted: the admin command and the playground send their own). A client sends the
// document's text, or only its id, which the transport puts into
// extensions.persistedQuery.sha256Hash as a bare hex hash (see persistedID).
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

// MutateOperationParameters resolves an id to its document and refuses, with
// UNTRUSTED_DOCUMENT: an id not in the manifest, a document sent with an id that is not
// its hash, and (unless the caller is an admin) a document not in the manifest.
func (t trustedDocuments) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	hash, named := persistedHash(p)
	if p.Query == "" {
		if !named {
			return untrusted("send a document or the id of one of the app's documents")
		}
		doc, ok := t.byHash[hash]
		if !ok {
			return untrusted("this API runs only the app's own documents: %q is not one of them", shorten(hash, 64))
		}
		p.Query = doc
		return nil
	}
	sum := operations.Hash(p.Query)
	if named && hash != sum {
		return untrusted("the document id is not the SHA-256 of the document sent")
	}
	if auth.ErrorFromContext(ctx) == nil && auth.FromContext(ctx).IsAdmin() {
		return nil
	}
	if _, ok := t.byHash[sum]; !ok {
		return untrusted("this API runs only the app's own documents, sent exactly as the app's manifest holds them")
	}
	return nil
}

// persistedHash returns extensions.persistedQuery.sha256Hash, if the request has one.
func persistedHash(p *graphql.RawParams) (string, bool) {
	pq, _ := p.Extensions["persistedQuery"].(map[string]any)
	hash, ok := pq["sha256Hash"].(string)
	return hash, ok
}
