package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/pickem/api/server"
)

// refused checks a response the handler wrote without running anything: the status, a
// JSON body whose every error carries code, no message longer than an excerpt, and no
// DynamoDB call since before.
func refused(t *testing.T, e *env, before int64, w *httptest.ResponseRecorder, status int, code string) gqlResponse {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %.300s", w.Code, status, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/") || !strings.Contains(ct, "json") {
		t.Fatalf("Content-Type %q", ct)
	}
	var r gqlResponse
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("body is not JSON: %.300s", w.Body.String())
	}
	if len(r.Errors) == 0 {
		t.Fatalf("no errors: %.300s", w.Body.String())
	}
	for _, err := range r.Errors {
		if err.Code() != code {
			t.Fatalf("extensions.code = %q, want %q: %.300s", err.Code(), code, w.Body.String())
		}
		if len(err.Message) > 300 {
			t.Fatalf("message of %d bytes: %.300s", len(err.Message), err.Message)
		}
	}
	if e != nil {
		if n := e.calls.Load() - before; n != 0 {
			t.Fatalf("%d DynamoDB calls", n)
		}
	}
	return r
}

// TestHostileRow3LongQueryString: a GET query string over the limit is 414, like a body
// over the limit is 413.
func TestHostileRow3LongQueryString(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	q := "{ events { edges { cursor } } }" + strings.Repeat(" ", 900<<10)
	before := e.calls.Load()
	w := e.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape(q), nil, nil)
	refused(t, e, before, w, http.StatusRequestURITooLong, "BAD_USER_INPUT")

	t.Run("JustOverTheLimit", func(t *testing.T) {
		raw := "query=" + strings.Repeat("%20", server.DefaultMaxQueryStringBytes/3)
		w := e.do(t, http.MethodGet, "/graphql?"+raw, nil, nil)
		refused(t, e, before, w, http.StatusRequestURITooLong, "BAD_USER_INPUT")
	})
	t.Run("ConfiguredLimit", func(t *testing.T) {
		small := newEnv(t, func(c *server.Config) { c.MaxQueryStringBytes = 64 })
		before := small.calls.Load()
		w := small.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape("{ events { edges { node { id name startsAt } } } }"), nil, nil)
		refused(t, small, before, w, http.StatusRequestURITooLong, "BAD_USER_INPUT")
		w = small.do(t, http.MethodGet, "/graphql?query="+url.QueryEscape("{ me { id } }"), nil, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("a short GET: status %d %s", w.Code, w.Body)
		}
	})
}

// TestHostileRow4TransportErrors: what the transport does not serve is refused with
// BAD_REQUEST and the right status, never a bare message.
func TestHostileRow4TransportErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jsonBody := `{"query":"{ events { edges { cursor } } }"}`
	anyQuery := "/graphql?query=" + url.QueryEscape("{ events { edges { cursor } } }")
	for name, c := range map[string]struct {
		method, path, body, ctype string
		status                    int
		allow                     string
	}{
		"TextPlain":              {http.MethodPost, "/graphql", jsonBody, "text/plain", http.StatusUnsupportedMediaType, ""},
		"NoContentType":          {http.MethodPost, "/graphql", jsonBody, "", http.StatusUnsupportedMediaType, ""},
		"FormEncoded":            {http.MethodPost, "/graphql", "query=%7B+me+%7B+id+%7D+%7D", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType, ""},
		"Multipart":              {http.MethodPost, "/graphql", "--x\r\n\r\n--x--", "multipart/form-data; boundary=x", http.StatusUnsupportedMediaType, ""},
		"GraphQLContentType":     {http.MethodPost, "/graphql", "{ me { id } }", "application/graphql", http.StatusUnsupportedMediaType, ""},
		"PUT":                    {http.MethodPut, "/graphql", jsonBody, "application/json", http.StatusMethodNotAllowed, "GET, POST, OPTIONS"},
		"DELETE":                 {http.MethodDelete, anyQuery, "", "", http.StatusMethodNotAllowed, "GET, POST, OPTIONS"},
		"PATCH":                  {http.MethodPatch, "/graphql", jsonBody, "application/json", http.StatusMethodNotAllowed, "GET, POST, OPTIONS"},
		"HEAD":                   {http.MethodHead, anyQuery, "", "", http.StatusMethodNotAllowed, "GET, POST, OPTIONS"},
		"MutationOverGET":        {http.MethodGet, "/graphql?query=" + url.QueryEscape(`mutation { register(name: "x") { id } }`), "", "", http.StatusMethodNotAllowed, "POST"},
		"BadGETVariables":        {http.MethodGet, anyQuery + "&variables=" + url.QueryEscape(`{"first": `), "", "", http.StatusBadRequest, ""},
		"GETVariablesNotObject":  {http.MethodGet, anyQuery + "&variables=" + url.QueryEscape(`[1,2]`), "", "", http.StatusBadRequest, ""},
		"BadGETExtensions":       {http.MethodGet, anyQuery + "&extensions=" + url.QueryEscape(`{{`), "", "", http.StatusBadRequest, ""},
		"MalformedQueryString":   {http.MethodGet, "/graphql?query=%zz", "", "", http.StatusBadRequest, ""},
		"Batch":                  {http.MethodPost, "/graphql", "[" + jsonBody + "," + jsonBody + "]", "application/json", http.StatusBadRequest, ""},
		"BodyNotObject":          {http.MethodPost, "/graphql", `"{ me { id } }"`, "application/json", http.StatusBadRequest, ""},
		"QueryNotString":         {http.MethodPost, "/graphql", `{"query": 42}`, "application/json", http.StatusBadRequest, ""},
		"VariablesNotObject":     {http.MethodPost, "/graphql", `{"query": "{ me { id } }", "variables": [1]}`, "application/json", http.StatusBadRequest, ""},
		"TrailingData":           {http.MethodPost, "/graphql", jsonBody + `{"query": "{ me { id } }"}`, "application/json", http.StatusBadRequest, ""},
		"EmptyBody":              {http.MethodPost, "/graphql", "", "application/json", http.StatusBadRequest, ""},
		"LongOperationName":      {http.MethodPost, "/graphql", `{"query": "query Q { me { id } }", "operationName": "` + strings.Repeat("Q", 200) + `"}`, "application/json", http.StatusBadRequest, ""},
		"OperationNameNotAName":  {http.MethodPost, "/graphql", `{"query": "query Q { me { id } }", "operationName": "Q R"}`, "application/json", http.StatusBadRequest, ""},
		"GETOperationNameBad":    {http.MethodGet, anyQuery + "&operationName=" + url.QueryEscape("1Q"), "", "", http.StatusBadRequest, ""},
		"HealthzPOST":            {http.MethodPost, "/healthz", "", "", http.StatusMethodNotAllowed, "GET, HEAD"},
		"UnknownPath":            {http.MethodGet, "/graphq1", "", "", http.StatusNotFound, ""},
		"RootWithoutPlayground":  {http.MethodGet, "/", "", "", http.StatusNotFound, ""},
		"PostToRootNoPlayground": {http.MethodPost, "/", jsonBody, "application/json", http.StatusNotFound, ""},
	} {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			if c.ctype != "" {
				h.Set("Content-Type", c.ctype)
			}
			before := e.calls.Load()
			w := e.do(t, c.method, c.path, strings.NewReader(c.body), h)
			code := "BAD_REQUEST"
			if c.status == http.StatusNotFound {
				code = "NOT_FOUND"
			}
			if c.method == http.MethodHead {
				// No body on HEAD: the status and headers are the answer.
				if w.Code != c.status || w.Header().Get("Allow") != c.allow {
					t.Fatalf("HEAD: status %d Allow %q", w.Code, w.Header().Get("Allow"))
				}
				return
			}
			refused(t, e, before, w, c.status, code)
			if got := w.Header().Get("Allow"); got != c.allow {
				t.Fatalf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
	t.Run("OptionsWithoutPreflight", func(t *testing.T) {
		w := e.do(t, http.MethodOptions, "/graphql", nil, nil)
		if w.Code != http.StatusNoContent || w.Header().Get("Allow") == "" {
			t.Fatalf("status %d, Allow %q", w.Code, w.Header().Get("Allow"))
		}
	})
	t.Run("ContentTypeWithCharset", func(t *testing.T) {
		w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ me { id } }"}`),
			http.Header{"Content-Type": {"application/json; charset=utf-8"}})
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
	t.Run("ParseAndValidationErrorsAre422", func(t *testing.T) {
		w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ events { "}`), http.Header{"Content-Type": {"application/json"}})
		refused(t, e, e.calls.Load(), w, http.StatusUnprocessableEntity, "GRAPHQL_PARSE_FAILED")
		w = e.do(t, http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ nope }"}`),
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/graphql-response+json"}})
		refused(t, e, e.calls.Load(), w, http.StatusBadRequest, "GRAPHQL_VALIDATION_FAILED")
		if ct := w.Header().Get("Content-Type"); ct != "application/graphql-response+json" {
			t.Fatalf("Content-Type %q", ct)
		}
	})
}

// TestHostileRow5NoEcho: an error never quotes more than a short excerpt of the input.
func TestHostileRow5NoEcho(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	secret := strings.Repeat("SECRET", 50<<10/6)
	for name, c := range map[string]struct {
		body, code string
		status     int
	}{
		"InvalidJSON50KB":   {`{"query": "{ me { id } }", "variables": {"x": "` + secret + `"`, "BAD_REQUEST", http.StatusBadRequest},
		"GarbageJSON50KB":   {secret, "BAD_REQUEST", http.StatusBadRequest},
		"LongFieldName":     {`{"query": "{ ` + secret + ` }"}`, "GRAPHQL_VALIDATION_FAILED", http.StatusUnprocessableEntity},
		"LongStringToken":   {`{"query": "{ \"` + secret + `\" }"}`, "GRAPHQL_PARSE_FAILED", http.StatusUnprocessableEntity},
		"LongIntLiteral":    {`{"query": "{ events(first: ` + strings.Repeat("9", 50<<10) + `) { edges { cursor } } }"}`, "GRAPHQL_VALIDATION_FAILED", http.StatusUnprocessableEntity},
		"LongFloatLiteral":  {`{"query": "{ events(first: 1.` + strings.Repeat("5", 50<<10) + `) { edges { cursor } } }"}`, "GRAPHQL_VALIDATION_FAILED", http.StatusUnprocessableEntity},
		"LongOperationName": {`{"query": "query Q { me { id } }", "operationName": "` + secret + `"}`, "BAD_REQUEST", http.StatusBadRequest},
		"LongArgumentValue": {`{"query": "{ event(id: \"` + secret + `\") { id } }"}`, "", http.StatusOK},
		"LongVariableValue": {`{"query": "query($n: Int) { events(first: $n) { edges { cursor } } }", "variables": {"n": "` + secret + `"}}`, "BAD_USER_INPUT", http.StatusBadRequest},
	} {
		t.Run(name, func(t *testing.T) {
			before := e.calls.Load()
			w := e.do(t, http.MethodPost, "/graphql", strings.NewReader(c.body), http.Header{"Content-Type": {"application/json"}})
			if n := strings.Count(w.Body.String(), "SECRET"); n > 100/len("SECRET") {
				t.Fatalf("the response quotes the input %d times: %.300s", n, w.Body.String())
			}
			if w.Body.Len() > 1024 {
				t.Fatalf("a %d-byte error response: %.300s", w.Body.Len(), w.Body.String())
			}
			if c.code != "" {
				refused(t, e, before, w, c.status, c.code)
			}
		})
	}
}
