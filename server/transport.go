package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/graph"
	"github.com/pickem/api/internal/cachehint"
	"github.com/pickem/api/operations"
)

// CodeBadRequest is the code of a request that is not a GraphQL request this API serves:
// wrong method or content type, a body that is not a JSON object, malformed GET
// parameters, a mutation over GET.
const CodeBadRequest domain.Code = "BAD_REQUEST"

// DefaultMaxQueryStringBytes bounds a GET request's query string (the GET counterpart of
// the body limit): the frontend's largest screen is under 1.5 KB URL-encoded, and API
// Gateway refuses a request line and headers over 10,240 bytes together, so a signed-in
// GET just over this limit still reaches the function and gets its coded 414.
const DefaultMaxQueryStringBytes = 4 << 10

// maxExcerpt is the most of a client's input that the transport's own messages quote.
const maxExcerpt = 32

// maxQuoted bounds each quoted part of any error message: the longest valid id (an event
// id has at most 100 characters) is quoted whole, anything longer is cut.
const maxQuoted = 100

// maxMessage bounds every error message the API writes (with maxQuoted, so that no message
// echoes more than an excerpt of the input).
const maxMessage = 1024

const (
	contentTypeJSON            = "application/json"
	contentTypeGraphQLResponse = "application/graphql-response+json"
)

// Transport is the API's GraphQL-over-HTTP transport: POST with a JSON body, GET with URL
// parameters (queries only). It answers every request that reaches /graphql: what it does
// not serve (other methods and content types, batches, malformed bodies and parameters) is
// refused with a JSON error carrying extensions.code and the status of statusFor.
//
// Responses are JSON: application/graphql-response+json when the client's Accept header
// names it first, application/json otherwise.
type Transport struct {
	// MaxQueryStringBytes bounds a GET query string: longer is 414 (default
	// DefaultMaxQueryStringBytes). Bodies are bounded by New's body limit.
	MaxQueryStringBytes int
	// PublicMaxAge is how long a shared cache (a CDN) and a browser may keep a public
	// answer (see cacheControl); 0 means DefaultPublicMaxAge, negative never public.
	PublicMaxAge time.Duration
}

var _ graphql.Transport = Transport{}

// Supports reports true: Transport answers every method, refusing what it does not serve.
func (Transport) Supports(*http.Request) bool { return true }

// requestError is a request refused before GraphQL sees it.
type requestError struct {
	status  int
	code    domain.Code
	message string
}

func badRequest(status int, format string, args ...any) *requestError {
	return &requestError{status: status, code: CodeBadRequest, message: fmt.Sprintf(format, args...)}
}

// Do serves one request.
func (t Transport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctype := responseContentType(r)
	if r.Method == http.MethodGet {
		w.Header().Add("Vary", "Authorization") // see cacheControl
	}
	var (
		params *graphql.RawParams
		rerr   *requestError
	)
	switch r.Method {
	case http.MethodPost:
		params, rerr = readPOST(r)
	case http.MethodGet:
		params, rerr = t.readGET(r)
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		rerr = badRequest(http.StatusMethodNotAllowed, "method %s is not allowed: use POST (or GET for queries)", excerpt(r.Method))
	}
	if rerr == nil && !validOperationName(params.OperationName) {
		rerr = badRequest(http.StatusBadRequest, "operationName must be a GraphQL name of at most %d characters", maxNameLen)
	}
	if rerr != nil {
		writeErrors(w, ctype, rerr.status, &gqlerror.Error{Message: rerr.message,
			Extensions: map[string]any{"code": string(rerr.code)}})
		return
	}
	ctx := r.Context()
	if ctx.Err() != nil {
		return // the client left: nothing to answer
	}
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}
	params.Headers = r.Header
	opCtx, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		writeJSON(w, ctype, statusFor(resp.Errors, ctype), resp)
		return
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "POST")
		writeErrors(w, ctype, http.StatusMethodNotAllowed, &gqlerror.Error{
			Message:    "GET runs queries only: send a " + string(opCtx.Operation.Operation) + " with POST",
			Extensions: map[string]any{"code": string(CodeBadRequest)}})
		return
	}
	if ctx.Err() != nil {
		return
	}
	ctx, hint := cachehint.New(ctx)
	responses, ctx := exec.DispatchOperation(ctx, opCtx)
	resp := responses(ctx)
	if resp == nil { // the client left during execution
		return
	}
	w.Header().Set("Cache-Control", t.cacheControl(r, params, resp, hint))
	writeResponse(w, ctype, http.StatusOK, resp) // response.go: data is not re-encoded
}

// DefaultPublicMaxAge is how long a CDN or a browser may keep a public answer: as long as
// the store's read cache keeps the reads behind it (dynamo.DefaultReadCacheTTL) would add
// little, and players see a result, a card edit or a lock within it.
const DefaultPublicMaxAge = 10 * time.Second

// noStore is the Cache-Control of every answer that is not public.
const noStore = "no-store"

// cacheControl is the Cache-Control of an executed operation's answer. An answer is public
// — "public, max-age=N": any cache may keep it N seconds and serve it to anyone — only when
// it is the same for everyone who sends the same URL:
//   - GET (a URL is the whole request; POSTs are never cached by shared caches anyway);
//   - a persisted query: the document is named by its id (extensions.persistedQuery,
//     documentId or doc_id: persistedID puts each into extensions.persistedQuery), so its
//     URL is short and one per document and variables;
//   - anonymous: no Authorization header and no identity (a signed-in player's answer may
//     hold their own picks; Vary: Authorization keeps a browser from serving a signed-out
//     answer to a signed-in request, and the CDN must key on Authorization too);
//   - a query (GET runs nothing else) whose answer has no error (an error may be
//     transient: UNAVAILABLE).
//
// Every other answer is "no-store". N is PublicMaxAge, lowered by what the resolvers asked
// (hint): an answer showing a live (BROADCAST) event gets at most cachehint.Live.
func (t Transport) cacheControl(r *http.Request, params *graphql.RawParams, resp *graphql.Response, hint *cachehint.Hint) string {
	maxAge := t.PublicMaxAge
	if maxAge == 0 {
		maxAge = DefaultPublicMaxAge
	}
	maxAge = hint.MaxAge(maxAge)
	_, persisted := params.Extensions["persistedQuery"]
	id := auth.FromContext(r.Context())
	if r.Method != http.MethodGet || maxAge < time.Second || !persisted || len(resp.Errors) > 0 ||
		r.Header.Get("Authorization") != "" || id.SignedIn() || auth.ErrorFromContext(r.Context()) != nil {
		return noStore
	}
	return "public, max-age=" + strconv.Itoa(int(maxAge/time.Second))
}

// maxNameLen bounds an operation name (the frontend's longest has 16 characters).
const maxNameLen = 128

// validOperationName reports whether s is empty or a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)
// of at most maxNameLen characters: gqlgen quotes it unescaped in "operation … not found".
func validOperationName(s string) bool {
	return len(s) <= maxNameLen && (s == "" || graph.IsName(s))
}

// postBody is the JSON body of a GraphQL POST.
type postBody struct {
	Query         *string        `json:"query"`
	OperationName *string        `json:"operationName"`
	Variables     map[string]any `json:"variables"`
	Extensions    map[string]any `json:"extensions"`
	DocumentID    string         `json:"documentId"`
	DocID         string         `json:"doc_id"`
}

func readPOST(r *http.Request) (*graphql.RawParams, *requestError) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != contentTypeJSON {
		return nil, badRequest(http.StatusUnsupportedMediaType,
			"Content-Type must be application/json, got %q", excerpt(r.Header.Get("Content-Type")))
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, bodyTooLarge(tooLarge.Limit)
		}
		return nil, badRequest(http.StatusBadRequest, "the request body could not be read")
	}
	return decodeBody(body)
}

// decodeBody parses a POST body: one JSON object with a string query or a document id
// (see persistedID), optional operationName, variables and extensions.
func decodeBody(body []byte) (*graphql.RawParams, *requestError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, badRequest(http.StatusBadRequest, "batched requests are not supported: send one JSON object per request")
	}
	var b postBody
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&b); err != nil {
		return nil, badRequest(http.StatusBadRequest, "the request body is not a GraphQL request: %s", jsonProblem(body, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest(http.StatusBadRequest, "the request body has data after its JSON object near %q",
			excerptAt(body, int(dec.InputOffset())))
	}
	p := &graphql.RawParams{Variables: b.Variables, Extensions: b.Extensions}
	if b.Query != nil {
		p.Query = *b.Query
	}
	if b.OperationName != nil {
		p.OperationName = *b.OperationName
	}
	if rerr := persistedID(p, b.DocumentID, b.DocID); rerr != nil {
		return nil, rerr
	}
	return p, nil
}

// persistedID puts the id of the document a request names, if any, into
// extensions.persistedQuery.sha256Hash as a bare hex SHA-256: the one place where trusted
// documents and automatic persisted queries read it. A client names a document by
//   - extensions.persistedQuery.sha256Hash: bare hex (Apollo) or "sha256:<hex>" (the
//     client setups of GraphQL Codegen's docs);
//   - documentID (documentId): "sha256:<hex>", GraphQL over HTTP's persisted documents;
//     anything else is BAD_USER_INPUT;
//   - docID (doc_id): bare hex or "sha256:<hex>" (Relay's network-layer examples).
//
// Ids naming different documents are BAD_USER_INPUT. Any other id that is no SHA-256 is
// kept (without a sha256: prefix): no manifest holds it.
func persistedID(p *graphql.RawParams, documentID, docID string) *requestError {
	var pq map[string]any
	if v, ok := p.Extensions["persistedQuery"]; ok {
		if pq, ok = v.(map[string]any); !ok {
			return &requestError{status: http.StatusBadRequest, code: domain.CodeBadUserInput,
				message: "extensions.persistedQuery must be an object: {\"version\": 1, \"sha256Hash\": \"<hex>\"}"}
		}
	}
	hash := ""
	if h, ok := pq["sha256Hash"].(string); ok {
		hash, _ = operations.ParseID(h)
	}
	if documentID != "" {
		h, ok := operations.ParseID(documentID)
		if !ok || !strings.HasPrefix(documentID, operations.IDPrefix) {
			return &requestError{status: http.StatusBadRequest, code: domain.CodeBadUserInput,
				message: fmt.Sprintf("documentId %q is not sha256:<64 lowercase hex digits>, the SHA-256 of a document", excerpt(documentID))}
		}
		if hash != "" && hash != h {
			return &requestError{status: http.StatusBadRequest, code: domain.CodeBadUserInput,
				message: "documentId and extensions.persistedQuery name different documents"}
		}
		hash = h
	}
	if docID != "" {
		h, _ := operations.ParseID(docID)
		if hash != "" && hash != h {
			return &requestError{status: http.StatusBadRequest, code: domain.CodeBadUserInput,
				message: "doc_id and another id of the request name different documents"}
		}
		hash = h
	}
	if hash == "" {
		return nil
	}
	if pq == nil {
		pq = map[string]any{"version": 1}
		if p.Extensions == nil {
			p.Extensions = map[string]any{}
		}
		p.Extensions["persistedQuery"] = pq
	}
	pq["sha256Hash"] = hash
	return nil
}

// jsonProblem describes a JSON decoding error with at most an excerpt of the body.
func jsonProblem(body []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at byte %d near %q", syntax.Offset, excerptAt(body, int(syntax.Offset)-1))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("want a JSON object, got a JSON %s", typ.Value)
		}
		return fmt.Sprintf("%s must not be a JSON %s", typ.Field, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too early"
	}
	return "invalid JSON"
}

func (t Transport) readGET(r *http.Request) (*graphql.RawParams, *requestError) {
	limit := t.MaxQueryStringBytes
	if limit <= 0 {
		limit = DefaultMaxQueryStringBytes
	}
	if len(r.URL.RawQuery) > limit {
		return nil, &requestError{status: http.StatusRequestURITooLong, code: domain.CodeBadUserInput,
			message: fmt.Sprintf("the query string exceeds %d bytes: send large documents with POST", limit)}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest(http.StatusBadRequest, "the query string is malformed")
	}
	p := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName")}
	for name, dst := range map[string]*map[string]any{"variables": &p.Variables, "extensions": &p.Extensions} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(dst); err != nil {
			return nil, badRequest(http.StatusBadRequest, "the %s parameter is not a JSON object: %s", name, jsonProblem([]byte(v), err))
		}
	}
	if rerr := persistedID(p, q.Get("documentId"), q.Get("doc_id")); rerr != nil {
		return nil, rerr
	}
	return p, nil
}

// bodyTooLarge is the refusal of a body over the limit (413).
func bodyTooLarge(limit int64) *requestError {
	return &requestError{status: http.StatusRequestEntityTooLarge, code: domain.CodeBadUserInput,
		message: fmt.Sprintf("request body exceeds %d bytes", limit)}
}

// statusFor is the HTTP status of a response refused before execution, from the code of
// its first error: 422 for a document that does not parse, validate or fit the limits
// (400 when the client asked for application/graphql-response+json, as the GraphQL over
// HTTP spec says), 400 for bad input and untrusted documents, 200 for the rest
// (PERSISTED_QUERY_NOT_FOUND is an answer APQ clients expect with 200).
func statusFor(errs gqlerror.List, ctype string) int {
	code := ""
	if len(errs) > 0 {
		code, _ = errs[0].Extensions["code"].(string)
	}
	switch code {
	case "GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", CodeLimitExceeded:
		if ctype == contentTypeGraphQLResponse {
			return http.StatusBadRequest
		}
		return http.StatusUnprocessableEntity
	case string(domain.CodeBadUserInput), string(CodeBadRequest), CodeUntrustedDocument:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// responseContentType is application/graphql-response+json if the Accept header names it
// before application/json (or any wildcard), else application/json.
func responseContentType(r *http.Request) string {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case contentTypeGraphQLResponse:
			return contentTypeGraphQLResponse
		case contentTypeJSON, "*/*", "application/*":
			return contentTypeJSON
		}
	}
	return contentTypeJSON
}

// writeErrors writes a response made of errors only.
func writeErrors(w http.ResponseWriter, ctype string, status int, errs ...*gqlerror.Error) {
	writeJSON(w, ctype, status, &graphql.Response{Errors: errs})
}

// writeJSON writes resp with status. Every message is clipped (clipMessage).
func writeJSON(w http.ResponseWriter, ctype string, status int, resp *graphql.Response) {
	for _, e := range resp.Errors {
		e.Message = clipMessage(e.Message)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"errors":[{"message":"internal error","extensions":{"code":"INTERNAL"}}]}`)
	}
	w.Header().Set("Content-Type", ctype)
	if w.Header().Get("Cache-Control") == "" || len(resp.Errors) > 0 {
		w.Header().Set("Cache-Control", noStore) // errors are never kept
	}
	setContentLength(w, len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeRequestError writes a request-level refusal outside the GraphQL handler (body
// limit, unknown paths).
func writeRequestError(w http.ResponseWriter, r *http.Request, e *requestError) {
	writeErrors(w, responseContentType(r), e.status, &gqlerror.Error{Message: e.message,
		Extensions: map[string]any{"code": string(e.code)}})
}

// excerpt returns at most maxExcerpt bytes of s (whole runes), marked when cut.
func excerpt(s string) string { return shorten(s, maxExcerpt) }

// excerptAt returns an excerpt of body around offset.
func excerptAt(body []byte, offset int) string {
	start := max(0, min(offset, len(body))-maxExcerpt/2)
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	return excerpt(string(body[start:]))
}

// clipMessage bounds what an error message can quote of the input: every double-quoted
// part (gqlparser quotes names, tokens and values) and every run without spaces (values it
// prints bare) is cut to maxQuoted bytes, and the whole message to maxMessage bytes.
func clipMessage(msg string) string {
	if len(msg) <= maxQuoted {
		return msg
	}
	var b strings.Builder
	for len(msg) > 0 {
		if msg[0] == '"' {
			if end := strings.IndexByte(msg[1:], '"'); end >= 0 {
				b.WriteByte('"')
				b.WriteString(shorten(msg[1:1+end], maxQuoted))
				b.WriteByte('"')
				msg = msg[1+end+1:]
				continue
			}
		}
		if msg[0] == ' ' || msg[0] == '\n' {
			b.WriteByte(msg[0])
			msg = msg[1:]
			continue
		}
		word := strings.IndexAny(msg[1:], " \n\"")
		if word < 0 {
			word = len(msg) - 1
		}
		b.WriteString(shorten(msg[:1+word], maxQuoted))
		msg = msg[1+word:]
	}
	return shorten(b.String(), maxMessage)
}

// shorten cuts s to at most n bytes on a rune boundary, adding "…" when it cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
