package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/99designs/gqlgen/graphql"
)

// writeResponse writes the response of an executed operation: the same bytes as
// writeJSON (json.Marshal of the whole response), without re-encoding data.
//
// gqlgen's executor hands over data already encoded as compact JSON. json.Marshal would
// scan it again, byte by byte, to validate and compact it, and copy it twice: about a
// twentieth of the CPU of a 100-row page (bench/README.md). Here data is copied once,
// with only the escaping json.Marshal applies to a json.RawMessage (<, >, & and U+2028,
// U+2029 as \u escapes: json.HTMLEscape); errors and extensions, which are small, still go
// through json.Marshal, and the fields come in the order of graphql.Response's JSON tags.
// The answers of every benchmark screen are pinned byte for byte
// (bench/gqlexec/testdata/answers) and response_internal_test.go compares both writers
// on responses with errors, extensions and every escaped character.
//
// The executor's data is trusted to be valid JSON (gqlgen's marshallers write it): unlike
// json.Marshal, writeResponse does not validate it. Incremental-delivery fields (label,
// path, hasNext) are left to writeJSON.
func writeResponse(w http.ResponseWriter, ctype string, status int, resp *graphql.Response) {
	if resp.Label != "" || resp.Path != nil || resp.HasNext != nil {
		writeJSON(w, ctype, status, resp)
		return
	}
	b, err := appendResponse(responseBuffers.Get().(*bytes.Buffer), resp)
	if err != nil {
		responseBuffers.Put(b)
		writeJSON(w, ctype, status, resp) // writes the INTERNAL error as before
		return
	}
	w.Header().Set("Content-Type", ctype)
	setContentLength(w, b.Len())
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
	if b.Cap() <= maxPooledResponse {
		responseBuffers.Put(b)
	}
}

// setContentLength declares the length of a body written whole: net/http then sends it
// as is instead of in chunks (an answer over 2 KB without a length is chunked), one
// write fewer for the server and no chunk framing for the client to parse.
func setContentLength(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Length", strconv.Itoa(n))
}

// maxPooledResponse bounds the buffers kept for reuse, so that one large answer does not
// pin its buffer for the life of the process.
const maxPooledResponse = 256 << 10

var responseBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// needsHTMLEscape reports whether data holds a byte json.HTMLEscape changes: <, > or &,
// or 0xE2, the first byte of U+2028 and U+2029 (and of other characters, which
// HTMLEscape then copies unchanged). Most answers hold none, and bytes.IndexByte scans
// for one far faster than HTMLEscape's loop copies byte by byte.
func needsHTMLEscape(data []byte) bool {
	return bytes.IndexByte(data, '<') >= 0 || bytes.IndexByte(data, '>') >= 0 ||
		bytes.IndexByte(data, '&') >= 0 || bytes.IndexByte(data, 0xE2) >= 0
}

// appendResponse encodes resp (without incremental-delivery fields) into b, reset first.
func appendResponse(b *bytes.Buffer, resp *graphql.Response) (*bytes.Buffer, error) {
	b.Reset()
	for _, e := range resp.Errors {
		e.Message = clipMessage(e.Message)
	}
	b.WriteByte('{')
	if len(resp.Errors) > 0 {
		errs, err := json.Marshal(resp.Errors)
		if err != nil {
			return b, err
		}
		b.WriteString(`"errors":`)
		b.Write(errs)
		b.WriteByte(',')
	}
	b.WriteString(`"data":`)
	switch {
	case resp.Data == nil:
		b.WriteString("null")
	case len(resp.Data) == 0:
		return b, errors.New("server: empty data") // json.Marshal fails on it too
	case needsHTMLEscape(resp.Data):
		json.HTMLEscape(b, resp.Data)
	default:
		b.Write(resp.Data)
	}
	if len(resp.Extensions) > 0 {
		ext, err := json.Marshal(resp.Extensions)
		if err != nil {
			return b, err
		}
		b.WriteString(`,"extensions":`)
		b.Write(ext)
	}
	b.WriteByte('}')
	return b, nil
}
