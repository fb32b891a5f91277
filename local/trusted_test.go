package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/pickem/api/operations"
)

// TestLocalServerHonoursTrustedDocuments: with PICKEM_TRUSTED_DOCUMENTS=builtin the local
// server runs the builtin documents, by id or text, refuses any other with
// UNTRUSTED_DOCUMENT, and runs any document for an admin (the playground's case).
func TestLocalServerHonoursTrustedDocuments(t *testing.T) {
	s := startLocal(t, t.TempDir(), shared(t, "PICKEM_TRUSTED_DOCUMENTS", "builtin"), "-seed=false")
	defer s.stop(t)
	hash, text := builtinDocument(t, "EventList")

	t.Run("BuiltinDocumentByDocumentID", func(t *testing.T) {
		resp, err := client.Get(s.base + "/graphql?" + url.Values{"documentId": {operations.IDPrefix + hash}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"events"`) || strings.Contains(string(b), `"errors"`) {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
	})
	t.Run("BuiltinDocumentByText", func(t *testing.T) {
		var d struct{ Events json.RawMessage }
		gql(t, s.base, s.playerTok, text, nil, &d)
		if len(d.Events) == 0 {
			t.Fatal("no events field")
		}
	})
	t.Run("UnknownDocumentRefused", func(t *testing.T) {
		_, errs := gqlErrors(t, s.base, s.playerTok, "{ events { edges { cursor } } }", nil, nil)
		if len(errs) != 1 || !strings.Contains(string(errs[0]), `"code":"UNTRUSTED_DOCUMENT"`) {
			t.Fatalf("errors %s", errs)
		}
	})
	t.Run("AdminRunsAnyDocument", func(t *testing.T) {
		var d struct{ Events json.RawMessage }
		gql(t, s.base, s.adminTok, "{ events { edges { cursor } } }", nil, &d)
	})
}

// TestLocalServerRefusesABadManifest: a manifest that does not load stops the server at
// start, with an error naming the file.
func TestLocalServerRefusesABadManifest(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for name, spec := range map[string]string{
		"Missing": filepath.Join(t.TempDir(), "manifest.json"),
		// The test binary is built without a manifest.
		"EmbeddedWithoutOne": "embedded",
	} {
		t.Run(name, func(t *testing.T) {
			env := shared(t, "PICKEM_TRUSTED_DOCUMENTS", spec)
			err := run(ctx, []string{"-data", t.TempDir(), "-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), "trusted documents") {
				t.Fatalf("run returned %v", err)
			}
		})
	}
}

// builtinDocument returns a builtin document of the operation name, with its hex hash.
func builtinDocument(t *testing.T, name string) (hash, text string) {
	t.Helper()
	m, err := operations.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for h, doc := range m {
		q, err := parser.ParseQuery(&ast.Source{Input: doc})
		if err == nil && len(q.Operations) == 1 && q.Operations[0].Name == name {
			return h, doc
		}
	}
	t.Fatalf("no builtin document of %s", name)
	return "", ""
}
