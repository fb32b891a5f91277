package operations_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/pickem/api/operations"
)

const (
	docA = "query A { me { id } }"
	docB = "query B { events { edges { cursor } } }"
	docC = "mutation C { register(name: \"C\") { id } }"
)

var (
	hashA = operations.Hash(docA)
	hashB = operations.Hash(docB)
	zeros = strings.Repeat("0", 64)
)

// js quotes s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// apollo is an Apollo persisted-query manifest of the operations given as JSON objects.
func apollo(ops ...string) string {
	return `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [` + strings.Join(ops, ",") + `]}`
}

func op(id, name, typ, body string) string {
	return `{"id": ` + js(id) + `, "name": ` + js(name) + `, "type": ` + js(typ) + `, "body": ` + js(body) + `}`
}

func TestParseManifestReadsBothFormats(t *testing.T) {
	t.Parallel()
	want := map[string]string{hashA: docA, hashB: docB}
	for name, manifest := range map[string]string{
		"Apollo":               apollo(op(hashA, "A", "query", docA), op(hashB, "B", "query", docB)),
		"ApolloPrefixedIDs":    apollo(op("sha256:"+hashA, "A", "query", docA), op(hashB, "B", "query", docB)),
		"FlatBareIDs":          `{` + js(hashA) + `: ` + js(docA) + `, ` + js(hashB) + `: ` + js(docB) + `}`,
		"FlatPrefixedIDs":      `{` + js("sha256:"+hashA) + `: ` + js(docA) + `, ` + js("sha256:"+hashB) + `: ` + js(docB) + `}`,
		"FlatOneDocumentTwice": `{` + js(hashA) + `: ` + js(docA) + `, ` + js("sha256:"+hashA) + `: ` + js(docA) + `, ` + js(hashB) + `: ` + js(docB) + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := operations.ParseManifest("m.json", []byte(manifest))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || got[hashA] != docA || got[hashB] != docB {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

// TestParseManifestRefuses: every refusal names the manifest and, where there is one, its
// first bad entry in file order (and never a later one).
func TestParseManifestRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, manifest string
		want           []string // in the error
		notWant        string
	}{
		{"NotJSON", `{"`, []string{"m.json", "want a JSON object"}, ""},
		{"Array", `["` + docA + `"]`, []string{"m.json", "want a JSON object"}, ""},
		{"TrailingData", `{"` + hashA + `": ` + js(docA) + `} {}`, []string{"m.json"}, ""},
		{"EmptyFlat", `{}`, []string{"m.json", "no documents"}, ""},
		{"EmptyApollo", apollo(), []string{"m.json", "no documents"}, ""},
		{"UnknownFormat", `{"format": "relay", "version": 1, "operations": []}`, []string{"m.json", `format "relay"`}, ""},
		{"UnknownVersion", strings.Replace(apollo(op(hashA, "A", "query", docA)), `"version": 1`, `"version": 2`, 1), []string{"m.json", "version 2"}, ""},
		{"UnknownField", strings.Replace(apollo(op(hashA, "A", "query", docA)), `"version": 1`, `"version": 1, "extra": true`, 1), []string{"m.json", "extra"}, ""},
		{"ApolloWithoutBody", apollo(op(hashA, "A", "query", docA), op(hashB, "B", "query", ""), op(zeros, "Z", "query", docC)),
			[]string{"m.json", "operation 2", hashB, `"B"`, "no body"}, "operation 3"},
		{"ApolloBadType", apollo(op(hashA, "A", "fragment", docA)), []string{"m.json", "operation 1", "fragment"}, ""},
		{"ApolloWrongHash", apollo(op(hashA, "A", "query", docA), op(hashA, "B", "query", docB), op(zeros, "C", "mutation", docC)),
			[]string{"m.json", "operation 2", `name "B"`, "not the SHA-256 of its document"}, "operation 3"},
		{"FlatWrongHash", `{` + js(hashA) + `: ` + js(docA) + `, ` + js("sha256:"+zeros) + `: ` + js(docB) + `, ` + js(zeros) + `: ` + js(docC) + `}`,
			[]string{"m.json", "entry 2", "sha256:" + zeros, "not the SHA-256 of its document"}, "entry 3"},
		{"FlatTextNotAsWritten", `{` + js(hashA) + `: ` + js(docA+"\n") + `}`, []string{"m.json", "entry 1", "not the SHA-256"}, ""},
		{"FlatDuplicateIDOtherText", `{` + js(hashA) + `: ` + js(docA) + `, ` + js(hashA) + `: ` + js(docB) + `}`,
			[]string{"m.json", "entry 2", "not the SHA-256"}, ""},
		{"FlatUppercaseHex", `{` + js(strings.ToUpper(hashA)) + `: ` + js(docA) + `}`, []string{"m.json", "entry 1", "64 lowercase hex"}, ""},
		{"FlatOtherAlgorithm", `{` + js("md5:"+hashA) + `: ` + js(docA) + `}`, []string{"m.json", "entry 1", "64 lowercase hex"}, ""},
		{"FlatNotAString", `{` + js(hashA) + `: ` + js(docA) + `, ` + js(hashB) + `: {"body": ` + js(docB) + `}}`,
			[]string{"m.json", "entry 2", "JSON string"}, ""},
		{"FlatEmptyDocument", `{` + js(operations.Hash("")) + `: ""}`, []string{"m.json", "entry 1", "empty document"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := operations.ParseManifest("m.json", []byte(tc.manifest))
			if err == nil {
				t.Fatalf("accepted: %v", m)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.notWant != "" && strings.Contains(err.Error(), tc.notWant) {
				t.Errorf("error %q names a later entry (%s)", err, tc.notWant)
			}
		})
	}
}

func TestParseID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id, hash string
		ok       bool
	}{
		{hashA, hashA, true},
		{"sha256:" + hashA, hashA, true},
		{"sha256:sha256:" + hashA, "sha256:" + hashA, false},
		{strings.ToUpper(hashA), strings.ToUpper(hashA), false},
		{hashA[:63], hashA[:63], false},
		{"", "", false},
		{"md5:" + hashA, "md5:" + hashA, false},
	} {
		hash, ok := operations.ParseID(tc.id)
		if hash != tc.hash || ok != tc.ok {
			t.Errorf("ParseID(%q) = %q, %v; want %q, %v", tc.id, hash, ok, tc.hash, tc.ok)
		}
	}
}

// TestBuiltinIsTheUnionOfTheCommittedManifests: builtin is exactly the documents of
// manifests/apollo.json and manifests/codegen.json, each of which holds one operation per
// frontend document (by operation name) and none of the admin command's.
func TestBuiltinIsTheUnionOfTheCommittedManifests(t *testing.T) {
	t.Parallel()
	builtin, err := operations.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var frontend []string
	for _, doc := range operations.Frontend() {
		frontend = append(frontend, operationName(t, doc))
	}
	slices.Sort(frontend)
	union := map[string]string{}
	for _, file := range []string{"manifests/apollo.json", "manifests/codegen.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := operations.ParseManifest(file, b)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for hash, doc := range m {
			union[hash] = doc
			names = append(names, operationName(t, doc))
		}
		slices.Sort(names)
		if !slices.Equal(names, frontend) {
			t.Errorf("%s holds %v, want the frontend's %v: make manifests", file, names, frontend)
		}
	}
	if !maps.Equal(builtin, union) {
		t.Errorf("builtin has %d documents, the two manifests %d", len(builtin), len(union))
	}
}

// operationName is the name of doc's one operation.
func operationName(t *testing.T, doc string) string {
	t.Helper()
	q, err := parser.ParseQuery(&ast.Source{Input: doc})
	if err != nil || len(q.Operations) != 1 {
		t.Fatalf("%v: %.80q", err, doc)
	}
	return q.Operations[0].Name
}
