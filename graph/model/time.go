// Package model holds GraphQL-only types: the Time scalar, connections and inputs
// (generated into models_gen.go), and the resolver-owned views Event and User (views.go:
// plain fields for what needs no resolver, first pages read with their parent). Other
// entities are bound to package domain.
package model

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/pickem/api/domain"
)

// Time is the GraphQL Time scalar.
type Time = time.Time

// MarshalTime writes t as RFC 3339 in UTC ("Z"). It never returns graphql.Null and never
// fails.
func MarshalTime(t time.Time) graphql.Marshaler { return timeJSON(t) }

// timeJSON is a Time as MarshalTime writes it: the same bytes as
// strconv.Quote(t.UTC().Format(time.RFC3339)) (RFC 3339 is printable ASCII, so quoting only
// adds the quotes), formatted into a buffer on the stack: one allocation (the box) instead of
// three (a closure, the formatted string, the quoted one).
type timeJSON time.Time

func (t timeJSON) MarshalGQL(w io.Writer) {
	var b [40]byte
	out := append(b[:0], '"')
	out = time.Time(t).UTC().AppendFormat(out, time.RFC3339)
	out = append(out, '"')
	if bw, ok := w.(*bytes.Buffer); ok { // gqlgen marshals the response into a bytes.Buffer
		bw.Write(out)
		return
	}
	_, _ = w.Write(append([]byte(nil), out...)) // a copy: b stays on the stack
}

// UnmarshalTime reads a strict RFC 3339 string with an explicit offset; anything else is
// BAD_USER_INPUT.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		if n, isNum := v.(json.Number); isNum {
			s = string(n)
		} else {
			return time.Time{}, domain.BadInput("Time must be an RFC 3339 string such as 2026-03-01T23:00:00Z")
		}
	}
	t, err := domain.ParseTime(s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
