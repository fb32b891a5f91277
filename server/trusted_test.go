package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pickem/api/operations"
	"github.com/pickem/api/server"
)

// TestBuiltinTrustedDocumentsAreTheFrontends: the builtin manifest holds every frontend
// document of package operations and none of the admin command's.
func TestBuiltinTrustedDocumentsAreTheFrontends(t *testing.T) {
	t.Parallel()
	m, err := server.LoadTrustedDocuments(server.BuiltinTrustedDocuments)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range operations.Names() {
		doc := operations.Text(name)
		if _, in := m[operations.Hash(doc)]; in == operations.IsAdmin(name) {
			t.Errorf("%s: in the manifest = %v", name, in)
		}
	}
	if len(m) != len(operations.Frontend()) {
		t.Errorf("%d documents, want %d", len(m), len(operations.Frontend()))
	}
}

func TestLoadTrustedDocumentsRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, spec := range map[string]string{
		"Missing":   filepath.Join(dir, "nope.json"),
		"NotJSON":   write("bad.json", "{"),
		"Empty":     write("empty.json", "{}"),
		"WrongHash": write("wrong.json", `{"`+strings.Repeat("0", 64)+`": "{ me { id } }"}`),
		"Array":     write("array.json", `["{ me { id } }"]`),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := server.LoadTrustedDocuments(spec); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	t.Run("File", func(t *testing.T) {
		b, _ := json.Marshal(operations.TrustedManifest())
		m, err := server.LoadTrustedDocuments(write("ok.json", string(b)))
		if err != nil || len(m) != len(operations.Frontend()) {
			t.Fatalf("%d documents, %v", len(m), err)
		}
	})
}

// TestTrustedDocuments: with a manifest, only its documents run, sent whole or by hash;
// anything else is UNTRUSTED_DOCUMENT before it is parsed, except for admins.
func TestTrustedDocuments(t *testing.T) {
	t.Parallel()
	manifest, err := server.LoadTrustedDocuments(server.BuiltinTrustedDocuments)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *server.Config) { c.TrustedDocuments = manifest })
	hashOf := map[string]string{}
	for h, doc := range manifest {
		hashOf[doc] = h
	}
	persisted := func(hash string) map[string]any {
		return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
	}
	t.Run("FrontendDocumentsRun", func(t *testing.T) {
		for doc, vars := range map[string]map[string]any{
			operations.EventList: {"first": 5}, operations.Standings: {"season": 2030, "first": 5}, operations.Profile: {"id": "p-nobody"},
		} {
			resp := e.request(t, "", doc, vars)
			noErrors(t, resp.Errors)
		}
	})
	// Every frontend document gets past the manifest (here to validation, without its
	// variables), sent whole by a signed-in player.
	t.Run("EveryFrontendDocumentIsTrusted", func(t *testing.T) {
		tok := e.token(t, "p-trusted", "Trusted")
		for name, doc := range operations.Frontend() {
			_, resp := e.post(t, tok, map[string]any{"query": doc}, nil)
			for _, err := range resp.Errors {
				if err.Extensions["code"] == server.CodeUntrustedDocument {
					t.Errorf("%s: %s", name, err.Message)
				}
			}
		}
	})
	t.Run("ByHash", func(t *testing.T) {
		_, resp := e.post(t, "", map[string]any{"extensions": persisted(hashOf[operations.EventList]), "variables": map[string]any{"first": 2}}, nil)
		noErrors(t, resp.Errors)
		if !strings.Contains(string(resp.Data), `"events"`) {
			t.Fatalf("data %s", resp.Data)
		}
	})
	t.Run("ByHashOverGET", func(t *testing.T) {
		ext, _ := json.Marshal(persisted(hashOf[operations.Standings]))
		w := e.do(t, http.MethodGet, "/graphql?extensions="+url.QueryEscape(string(ext))+"&variables="+url.QueryEscape(`{"season": 2030}`), nil, nil)
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"errors"`) {
			t.Fatalf("status %d %s", w.Code, w.Body)
		}
	})
	for name, body := range map[string]map[string]any{
		"AdHocDocument":    {"query": "{ events { edges { cursor } } }"},
		"OneSpaceMore":     {"query": operations.EventList + " ", "variables": map[string]any{"first": 2}},
		"UnknownHash":      {"extensions": persisted(strings.Repeat("a", 64))},
		"HashOfAnotherDoc": {"query": operations.EventList, "extensions": persisted(hashOf[operations.Standings])},
		"NoDocumentNoHash": {"variables": map[string]any{"first": 2}},
		"HostileShape":     {"query": strings.Repeat("{ me { id } }", 2000)},
	} {
		t.Run("Refuses"+name, func(t *testing.T) {
			before := e.calls.Load()
			refused(t, e, before, e.postJSON(t, e.token(t, "p-trusted", "Trusted"), body), http.StatusBadRequest, server.CodeUntrustedDocument)
		})
	}
	t.Run("AdminsSendAnyDocument", func(t *testing.T) {
		resp := e.request(t, e.admin(t), "{ events(first: 1) { edges { cursor } } }", nil)
		noErrors(t, resp.Errors)
	})
	t.Run("LimitsStillApplyToAdmins", func(t *testing.T) {
		before := e.calls.Load()
		refused(t, e, before, e.postJSON(t, e.admin(t), map[string]any{"query": strings.Repeat("{ me { id } }", 200)}),
			http.StatusUnprocessableEntity, server.CodeLimitExceeded)
	})
}
