package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/pickem/api/graph"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/server"
)

// manifestDoc is one document of a committed manifest, with the id its client sends.
type manifestDoc struct{ id, text string }

// committedManifests returns the documents of operations/manifests/apollo.json (ids: bare
// hex) and codegen.json (ids: sha256:<hex>), by operation name, as the clients' tooling
// wrote them.
func committedManifests(t *testing.T) (apollo, codegen map[string]manifestDoc) {
	t.Helper()
	read := func(file string, into any) {
		b, err := os.ReadFile(filepath.Join("..", "operations", "manifests", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	var a struct {
		Operations []struct{ ID, Name, Body string }
	}
	read("apollo.json", &a)
	apollo = map[string]manifestDoc{}
	for _, op := range a.Operations {
		apollo[op.Name] = manifestDoc{op.ID, op.Body}
	}
	var flat map[string]string
	read("codegen.json", &flat)
	codegen = map[string]manifestDoc{}
	for id, text := range flat {
		q, err := parser.ParseQuery(&ast.Source{Input: text})
		if err != nil || len(q.Operations) != 1 {
			t.Fatalf("codegen.json %s: %v", id, err)
		}
		codegen[q.Operations[0].Name] = manifestDoc{id, text}
	}
	for _, name := range []string{"EventList", "Standings", "Register"} {
		if apollo[name].id == "" || codegen[name].id == "" || !strings.HasPrefix(codegen[name].id, operations.IDPrefix) {
			t.Fatalf("%s: apollo %q, codegen %q", name, apollo[name].id, codegen[name].id)
		}
	}
	return apollo, codegen
}

func persisted(id string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": id}}
}

// getQuery is a GET /graphql with the URL parameters kv (name, value, ...).
func (e *env) getQuery(t *testing.T, token string, kv ...string) *httptest.ResponseRecorder {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return e.do(t, http.MethodGet, "/graphql?"+q.Encode(), nil, h)
}

// answered fails unless w is a 200 with data and no error.
func answered(t *testing.T, w *httptest.ResponseRecorder) gqlResponse {
	t.Helper()
	var r gqlResponse
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || w.Code != http.StatusOK || len(r.Errors) > 0 || len(r.Data) < 5 {
		t.Fatalf("status %d: %.400s", w.Code, w.Body.String())
	}
	return r
}

func ext(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var publicAnswer = "public, max-age=" + strconv.Itoa(int(server.DefaultPublicMaxAge.Seconds()))

func TestLoadTrustedDocuments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("EmptyRunsAnyDocument", func(t *testing.T) {
		if m, err := server.LoadTrustedDocuments(""); m != nil || err != nil {
			t.Fatalf("%v, %v", m, err)
		}
	})
	// builtin is what Apollo's generator and Codegen's client preset wrote from
	// operations/, and every one of those documents is valid against the schema.
	t.Run("BuiltinIsBothClientsManifests", func(t *testing.T) {
		m, err := server.LoadTrustedDocuments(server.BuiltinTrustedDocuments)
		if err != nil {
			t.Fatal(err)
		}
		apollo, codegen := committedManifests(t)
		if len(m) != len(apollo)+len(codegen) {
			t.Errorf("%d documents, want %d + %d", len(m), len(apollo), len(codegen))
		}
		schema := graph.NewExecutableSchema(graph.Config{}).Schema()
		for hash, doc := range m {
			if _, errs := gqlparser.LoadQueryWithRules(schema, doc, nil); errs != nil {
				t.Errorf("%s: %v", hash, errs)
			}
		}
		for name, d := range apollo {
			if m[d.id] != d.text {
				t.Errorf("apollo.json's %s is not in builtin", name)
			}
		}
		for name, d := range codegen {
			if m[strings.TrimPrefix(d.id, operations.IDPrefix)] != d.text {
				t.Errorf("codegen.json's %s is not in builtin", name)
			}
		}
	})
	t.Run("EmbeddedNeedsABuildWithAManifest", func(t *testing.T) {
		_, err := server.LoadTrustedDocuments(server.EmbeddedTrustedDocuments)
		if err == nil || !strings.Contains(err.Error(), "MANIFEST=") {
			t.Fatalf("err = %v, want one saying how to build a manifest in", err)
		}
	})
	t.Run("FlatFile", func(t *testing.T) {
		doc := "query Q { me { id } }"
		m, err := server.LoadTrustedDocuments(write("flat.json", `{"sha256:`+operations.Hash(doc)+`": `+strconv.Quote(doc)+`}`))
		if err != nil || len(m) != 1 || m[operations.Hash(doc)] != doc {
			t.Fatalf("%v, %v", m, err)
		}
	})
	for _, tc := range []struct{ name, file, content, want string }{
		{"Missing", "nope.json", "", "nope.json"},
		{"WrongHash", "wrong.json", `{"` + strings.Repeat("0", 64) + `": "{ me { id } }"}`, "entry 1"},
		{"Empty", "empty.json", `{}`, "no documents"},
	} {
		t.Run("Refuses"+tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if tc.content != "" {
				p = write(tc.file, tc.content)
			}
			_, err := server.LoadTrustedDocuments(p)
			if err == nil || !strings.Contains(err.Error(), tc.file) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %s and %q", err, tc.file, tc.want)
			}
		})
	}
}

// TestTrustedDocuments: with the builtin manifest, a document runs when it is sent as
// Apollo's or Codegen's tooling wrote it, or named by any id a client sends; anything
// else is refused before it is parsed, except for admins.
func TestTrustedDocuments(t *testing.T) {
	t.Parallel()
	manifest, err := server.LoadTrustedDocuments(server.BuiltinTrustedDocuments)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *server.Config) { c.TrustedDocuments = manifest })
	apollo, codegen := committedManifests(t)
	player := e.token(t, "p-trusted", "Trusted")
	list := `{"first": 2}`
	bareHex := strings.TrimPrefix(codegen["EventList"].id, operations.IDPrefix)

	for name, send := range map[string]func(t *testing.T) *httptest.ResponseRecorder{
		"ApolloHashByPOST": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, "", map[string]any{"extensions": persisted(apollo["EventList"].id), "variables": map[string]any{"first": 2}})
		},
		"ApolloHashByGET": func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "extensions", ext(t, persisted(apollo["EventList"].id)), "variables", list)
		},
		"CodegenIDInPersistedQueryByPOST": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, "", map[string]any{"extensions": persisted(codegen["EventList"].id)})
		},
		"CodegenIDInPersistedQueryByGET": func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "extensions", ext(t, persisted(codegen["EventList"].id)), "variables", list)
		},
		"DocumentIDByPOST": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, "", map[string]any{"documentId": codegen["EventList"].id, "variables": map[string]any{"first": 2}})
		},
		"DocumentIDByGET": func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", codegen["EventList"].id, "variables", list)
		},
		"DocumentIDOfApollosDocument": func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", operations.IDPrefix+apollo["EventList"].id)
		},
		"DocIDBareHexByPOST": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, "", map[string]any{"doc_id": bareHex})
		},
		"ApolloTextWithItsHash": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": apollo["Standings"].text, "variables": map[string]any{"season": 2030},
				"extensions": persisted(apollo["Standings"].id)})
		},
		"CodegenTextWithItsDocumentID": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": codegen["Standings"].text, "variables": map[string]any{"season": 2030},
				"documentId": codegen["Standings"].id})
		},
		"TextAlone": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": codegen["Standings"].text, "variables": map[string]any{"season": 2030}})
		},
		"AdminsSendAnyDocument": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, e.admin(t), map[string]any{"query": "{ events(first: 1) { edges { cursor } } }"})
		},
		"AdminsByID": func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, e.admin(t), map[string]any{"documentId": codegen["EventList"].id})
		},
	} {
		t.Run("Runs"+name, func(t *testing.T) {
			r := answered(t, send(t))
			if !strings.Contains(string(r.Data), `"events"`) && !strings.Contains(string(r.Data), `"standings"`) {
				t.Fatalf("data %s", r.Data)
			}
		})
	}

	// Every document of both manifests gets past the manifest, sent whole by a signed-in
	// player (here to validation, without its variables).
	t.Run("EveryManifestDocumentIsTrusted", func(t *testing.T) {
		for _, m := range []map[string]manifestDoc{apollo, codegen} {
			for name, d := range m {
				_, resp := e.post(t, player, map[string]any{"query": d.text}, nil)
				for _, err := range resp.Errors {
					if err.Code() == server.CodeUntrustedDocument {
						t.Errorf("%s: %s", name, err.Message)
					}
				}
			}
		}
	})

	unknown := strings.Repeat("a", 64)
	for _, tc := range []struct {
		name   string
		send   func(t *testing.T) *httptest.ResponseRecorder
		status int
		code   string
	}{
		{"UnknownHash", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"extensions": persisted(unknown)})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"UnknownPrefixedHashByGET", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "extensions", ext(t, persisted(operations.IDPrefix+unknown)))
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"UnknownDocumentID", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", operations.IDPrefix+unknown)
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"UnknownDocID", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"doc_id": unknown})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"RawFileText", func(t *testing.T) *httptest.ResponseRecorder {
			// The file of operations/ is not what either client sends.
			return e.postJSON(t, player, map[string]any{"query": operations.EventList, "extensions": persisted(operations.Hash(operations.EventList))})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"TextNotItsHash", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": apollo["EventList"].text, "extensions": persisted(apollo["Standings"].id)})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"TextNotItsDocumentID", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": codegen["EventList"].text, "documentId": codegen["Standings"].id})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"TextNotItsHashFromAnAdmin", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, e.admin(t), map[string]any{"query": "{ me { id } }", "extensions": persisted(apollo["Me"].id)})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"UntrustedText", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": "{ events { edges { cursor } } }"})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"OneSpaceMore", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": apollo["EventList"].text + " "})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"NoDocumentNoID", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"variables": map[string]any{"first": 2}})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"HostileShape", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"query": strings.Repeat("{ me { id } }", 2000)})
		}, http.StatusBadRequest, server.CodeUntrustedDocument},
		{"DocumentIDWithoutPrefixByPOST", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"documentId": bareHex})
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"DocumentIDWithoutPrefixByGET", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", bareHex)
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"DocumentIDOfAnotherAlgorithm", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", "md5:"+bareHex[:32])
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"DocumentIDNotHex", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"documentId": operations.IDPrefix + strings.ToUpper(bareHex)})
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"DocumentIDNotAString", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"documentId": 42})
		}, http.StatusBadRequest, "BAD_REQUEST"},
		{"IDsNamingTwoDocuments", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"documentId": codegen["EventList"].id, "extensions": persisted(apollo["Standings"].id)})
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"PersistedQueryNotAnObject", func(t *testing.T) *httptest.ResponseRecorder {
			return e.postJSON(t, player, map[string]any{"extensions": map[string]any{"persistedQuery": apollo["EventList"].id}})
		}, http.StatusBadRequest, "BAD_USER_INPUT"},
		{"MutationByGET", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, player, "documentId", codegen["Register"].id, "variables", `{"name": "Get"}`)
		}, http.StatusMethodNotAllowed, "BAD_REQUEST"},
		{"QueryStringOverTheLimit", func(t *testing.T) *httptest.ResponseRecorder {
			return e.getQuery(t, "", "documentId", codegen["EventList"].id, "variables", `{"pad": "`+strings.Repeat("x", server.DefaultMaxQueryStringBytes)+`"}`)
		}, http.StatusRequestURITooLong, "BAD_USER_INPUT"},
	} {
		t.Run("Refuses"+tc.name, func(t *testing.T) {
			before := e.calls.Load()
			refused(t, e, before, tc.send(t), tc.status, tc.code)
		})
	}
	t.Run("LimitsStillApplyToAdmins", func(t *testing.T) {
		before := e.calls.Load()
		refused(t, e, before, e.postJSON(t, e.admin(t), map[string]any{"query": strings.Repeat("{ me { id } }", 200)}),
			http.StatusUnprocessableEntity, server.CodeLimitExceeded)
	})

	// A GET naming a trusted document by any id is public when signed out, as a
	// persistedQuery GET is, and private when signed in.
	for _, tc := range []struct {
		name  string
		param []string
	}{
		{"DocumentID", []string{"documentId", codegen["EventList"].id}},
		{"PrefixedPersistedQuery", []string{"extensions", ext(t, persisted(codegen["EventList"].id))}},
		{"BarePersistedQuery", []string{"extensions", ext(t, persisted(apollo["EventList"].id))}},
		{"DocID", []string{"doc_id", bareHex}},
	} {
		t.Run("CacheControl"+tc.name, func(t *testing.T) {
			w := e.getQuery(t, "", append(tc.param, "variables", list)...)
			answered(t, w)
			if got := w.Header().Get("Cache-Control"); got != publicAnswer {
				t.Errorf("signed out: Cache-Control %q, want %q", got, publicAnswer)
			}
			w = e.getQuery(t, player, append(tc.param, "variables", list)...)
			answered(t, w)
			if got := w.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("signed in: Cache-Control %q, want no-store", got)
			}
		})
	}
	t.Run("CacheControlDocumentIDByPOST", func(t *testing.T) {
		w := e.postJSON(t, "", map[string]any{"documentId": codegen["EventList"].id})
		answered(t, w)
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", got)
		}
	})
}

// relayQuery is a document as relay-compiler prints it.
const relayQuery = `query EventsPageQuery(
  $first: Int
) {
  events(first: $first) {
    edges {
      node {
        id
        name
      }
    }
  }
}
`

// TestTrustedDocumentsRelayFlatManifest: a flat manifest with bare hex ids, as
// relay-compiler's persistConfig writes it with SHA-256, and its documents named by
// doc_id, as Relay's network-layer examples send them.
func TestTrustedDocumentsRelayFlatManifest(t *testing.T) {
	t.Parallel()
	id := operations.Hash(relayQuery)
	b, err := json.Marshal(map[string]string{id: relayQuery})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "persisted_queries.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	manifest, err := server.LoadTrustedDocuments(file)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *server.Config) { c.TrustedDocuments = manifest })
	_, codegen := committedManifests(t)
	player := e.token(t, "p-relay", "Relay")

	t.Run("DocIDByPOST", func(t *testing.T) {
		answered(t, e.postJSON(t, player, map[string]any{"doc_id": id, "variables": map[string]any{"first": 3}}))
	})
	t.Run("DocIDByGET", func(t *testing.T) {
		w := e.getQuery(t, "", "doc_id", id, "variables", `{"first": 3}`)
		answered(t, w)
		if got := w.Header().Get("Cache-Control"); got != publicAnswer {
			t.Errorf("Cache-Control %q, want %q", got, publicAnswer)
		}
	})
	t.Run("PrefixedDocIDByGET", func(t *testing.T) {
		answered(t, e.getQuery(t, "", "doc_id", operations.IDPrefix+id))
	})
	t.Run("RefusesUnknownDocID", func(t *testing.T) {
		before := e.calls.Load()
		refused(t, e, before, e.postJSON(t, player, map[string]any{"doc_id": strings.Repeat("b", 64)}), http.StatusBadRequest, server.CodeUntrustedDocument)
	})
	t.Run("RefusesAnMD5DocID", func(t *testing.T) { // relay-compiler's default algorithm
		before := e.calls.Load()
		refused(t, e, before, e.getQuery(t, "", "doc_id", id[:32]), http.StatusBadRequest, server.CodeUntrustedDocument)
	})
	t.Run("RefusesABuiltinDocument", func(t *testing.T) { // the manifest is this one alone
		before := e.calls.Load()
		refused(t, e, before, e.postJSON(t, player, map[string]any{"documentId": codegen["EventList"].id}), http.StatusBadRequest, server.CodeUntrustedDocument)
	})
}

// TestDocumentIDWithAutomaticPersistedQueries: without trusted documents, an id a client
// sends in any form is an automatic persisted query's hash: unknown until the client
// sends the document with it, then enough on its own.
func TestDocumentIDWithAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const doc = `query Ids { events(first: 4) { edges { node { id } } } }`
	id := operations.IDPrefix + operations.Hash(doc)

	t.Run("UnknownDocumentID", func(t *testing.T) {
		w := e.getQuery(t, "", "documentId", id)
		var r gqlResponse
		if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || w.Code != http.StatusOK {
			t.Fatalf("status %d %s", w.Code, w.Body)
		}
		wantCode(t, r.Errors, "PERSISTED_QUERY_NOT_FOUND")
	})
	t.Run("DocumentIDWithoutPrefix", func(t *testing.T) {
		refused(t, e, e.calls.Load(), e.getQuery(t, "", "documentId", operations.Hash(doc)), http.StatusBadRequest, "BAD_USER_INPUT")
	})
	t.Run("TextNotItsDocumentID", func(t *testing.T) {
		refused(t, e, e.calls.Load(), e.postJSON(t, "", map[string]any{"query": doc + " ", "documentId": id}),
			http.StatusBadRequest, "BAD_USER_INPUT")
	})
	t.Run("RunsOnceRegistered", func(t *testing.T) {
		answered(t, e.postJSON(t, "", map[string]any{"query": doc, "documentId": id}))
		for name, w := range map[string]*httptest.ResponseRecorder{
			"DocumentIDByGET":           e.getQuery(t, "", "documentId", id),
			"DocIDByPOST":               e.postJSON(t, "", map[string]any{"doc_id": operations.Hash(doc)}),
			"PrefixedPersistedQueryGET": e.getQuery(t, "", "extensions", ext(t, persisted(id))),
		} {
			answered(t, w)
			if name != "DocIDByPOST" && w.Header().Get("Cache-Control") != publicAnswer {
				t.Errorf("%s: Cache-Control %q", name, w.Header().Get("Cache-Control"))
			}
		}
	})
}
