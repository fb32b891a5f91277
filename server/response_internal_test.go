package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/dynamo/ddb"
)

// TestWriteResponseMatchesWriteJSON: writeResponse writes exactly what writeJSON
// (json.Marshal of the whole response) writes.
func TestWriteResponseMatchesWriteJSON(t *testing.T) {
	// Strings as gqlgen's marshallers write them, with every character json.Marshal
	// escapes in a RawMessage, and some it leaves alone.
	tricky, err := json.Marshal("<b>Tom & Jerry</b> \u2028\u2029 \"quoted\" \\ é 😀 \x01")
	if err != nil {
		t.Fatal(err)
	}
	data := `{"events":{"edges":[{"cursor":"abc","node":{"id":"2025-07-06-x","name":` + string(tricky) +
		`,"season":2025,"locked":false,"rank":null,"points":-3}}],"pageInfo":{"hasNextPage":true,"endCursor":null}}}`
	if !json.Valid([]byte(data)) {
		t.Fatal("test data is not JSON")
	}
	pathErr := &gqlerror.Error{Message: `bad <input> & "more"`, Path: ast.Path{ast.PathName("events"), ast.PathIndex(0)},
		Extensions: map[string]any{"code": "BAD_USER_INPUT"}}
	cost := &ddb.CostSnapshot{Calls: 2, Operations: map[string]int{"Query": 1, "GetItem": 1}}
	long := &gqlerror.Error{Message: `"` + strings.Repeat("x", 300) + `" is too long`}
	cases := map[string]*graphql.Response{
		"DataOnly":            {Data: json.RawMessage(data)},
		"NullData":            {Data: nil},
		"LiteralNull":         {Data: json.RawMessage("null")},
		"DataErrors":          {Data: json.RawMessage(data), Errors: gqlerror.List{pathErr}},
		"DataExtensions":      {Data: json.RawMessage(data), Extensions: map[string]any{"dynamodb": cost, "z": "<>", "a": 1}},
		"Everything":          {Data: json.RawMessage(`{"x":null}`), Errors: gqlerror.List{pathErr, pathErr}, Extensions: map[string]any{"dynamodb": cost}},
		"ClippedMessage":      {Data: json.RawMessage(`{"x":1}`), Errors: gqlerror.List{long}},
		"EmptyErrorsAndExt":   {Data: json.RawMessage(`{}`), Errors: gqlerror.List{}, Extensions: map[string]any{}},
		"EmptyDataIsInternal": {Data: json.RawMessage{}},
		"Incremental":         {Data: json.RawMessage(`{"a":1}`), Label: "l", Path: ast.Path{ast.PathName("a")}},
	}
	for name, resp := range cases {
		t.Run(name, func(t *testing.T) {
			want := httptest.NewRecorder()
			writeJSON(want, contentTypeJSON, http.StatusOK, clone(resp))
			got := httptest.NewRecorder()
			writeResponse(got, contentTypeJSON, http.StatusOK, clone(resp))
			if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) ||
				got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
				t.Fatalf("writeResponse: %d %s\n%s\nwriteJSON: %d %s\n%s", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
			}
		})
	}
}

// clone copies what the writers change (messages are clipped in place).
func clone(r *graphql.Response) *graphql.Response {
	c := *r
	if r.Errors != nil {
		c.Errors = make(gqlerror.List, len(r.Errors))
		for i, e := range r.Errors {
			ec := *e
			c.Errors[i] = &ec
		}
	}
	return &c
}

func BenchmarkWriteResponse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"standings":{"edges":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"cursor":"eyJrIjoic3RhbmRpbmdzIiwibyI6IjIwMjUiLCJpIjoidTAwMDAxIn0","node":{"rank":1,"user":{"id":"u00001","name":"Player 1"},"points":1000,"correct":100,"eventsPlayed":14}}`)
	}
	sb.WriteString(`],"pageInfo":{"hasNextPage":true,"endCursor":"x"}}}`)
	resp := &graphql.Response{Data: json.RawMessage(sb.String())}
	for name, write := range map[string]func(http.ResponseWriter, string, int, *graphql.Response){"writeJSON": writeJSON, "writeResponse": writeResponse} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			w := httptest.NewRecorder()
			for b.Loop() {
				w.Body.Reset()
				write(w, contentTypeJSON, http.StatusOK, resp)
			}
		})
	}
}

// TestNeedsHTMLEscape: data without a byte HTMLEscape changes is written as it is, and
// data with one (each of them, alone, at either end) is escaped as json.HTMLEscape does.
func TestNeedsHTMLEscape(t *testing.T) {
	plain := `{"a":"Tom and Jerry","b":"é 😀 \"q\" \\","n":1}`
	if needsHTMLEscape([]byte(plain)) {
		t.Fatalf("%s needs no escaping", plain)
	}
	for _, s := range []string{"<", ">", "&", "\u2028", "\u2029", "\u20ac"} {
		for _, data := range []string{`{"a":"` + s + `"}`, `"` + s + `"`} {
			if !needsHTMLEscape([]byte(data)) {
				t.Errorf("%q: not escaped", data)
			}
			var b bytes.Buffer
			if _, err := appendResponse(&b, &graphql.Response{Data: json.RawMessage(data)}); err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(struct {
				Data json.RawMessage `json:"data"`
			}{json.RawMessage(data)})
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%q: got %s, want %s", data, b.String(), want)
			}
		}
	}
}
