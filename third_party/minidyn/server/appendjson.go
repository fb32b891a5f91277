package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/truora/minidyn/types"
)

// A Query's answer written without reflection or copies (pickem patch; see PATCH.md at the
// module root): encoding/json spent most of a Query's time walking AttributeValues by
// reflection, and converting the engine's items into them a good part of the rest.
// appendJSON writes exactly the bytes json.Encoder (EscapeHTML off, as ServeHTTP sets it)
// writes for the QueryOutput the answer converts into, trailing newline excluded;
// appendjson_test.go compares the two.

// rawJSON is an answer already written as JSON: ServeHTTP sends it as it is.
type rawJSON []byte

// queryAnswer is a Query's answer as the engine found it: Query converts it into a
// QueryOutput, ServeHTTP writes it as QueryOutput's JSON without converting it.
type queryAnswer struct {
	items []map[string]*types.Item
	count int32
	last  map[string]*types.Item
}

func (a *queryAnswer) output() *QueryOutput {
	return &QueryOutput{
		Items:            mapTypesSliceToAttributeValue(a.items),
		Count:            a.count,
		LastEvaluatedKey: mapTypesMapToAttributeValue(a.last),
	}
}

func (a *queryAnswer) appendJSON(b []byte) (rawJSON, error) {
	return appendPage(b, a.items, a.count, a.last), nil
}

func appendPage(b []byte, items []map[string]*types.Item, count int32, last map[string]*types.Item) []byte {
	b = append(b, '{')
	n := 0

	if len(items) > 0 {
		b = appendItems(appendKey(b, &n, "Items"), items)
	}

	if count != 0 {
		b = strconv.AppendInt(appendKey(b, &n, "Count"), int64(count), 10)
	}

	if len(last) > 0 {
		b = appendAttributes(appendKey(b, &n, "LastEvaluatedKey"), last)
	}

	return append(b, '}')
}

// appendKey writes an object's next key (a name that needs no escaping), after a comma
// unless it is the first (*n counts them).
func appendKey(b []byte, n *int, name string) []byte {
	if *n > 0 {
		b = append(b, ',')
	}

	*n++
	b = append(b, '"')
	b = append(b, name...)

	return append(b, '"', ':')
}

func appendItems(b []byte, items []map[string]*types.Item) []byte {
	if items == nil {
		return append(b, "null"...)
	}

	b = append(b, '[')
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}

		b = appendAttributes(b, item)
	}

	return append(b, ']')
}

// appendAttributes writes a map of attribute values as encoding/json does: keys sorted,
// null for a nil map or a nil value.
func appendAttributes(b []byte, m map[string]*types.Item) []byte {
	if m == nil {
		return append(b, "null"...)
	}

	var buf [24]string

	b = append(b, '{')
	for i, k := range sortedKeys(m, buf[:]) {
		if i > 0 {
			b = append(b, ',')
		}

		b = append(appendString(b, k), ':')
		b = appendValue(b, m[k])
	}

	return append(b, '}')
}

// appendValue writes v's fields in declaration order, leaving out what omitempty leaves out.
func appendValue(b []byte, v *types.Item) []byte {
	if v == nil {
		return append(b, "null"...)
	}

	b = append(b, '{')
	n := 0

	if len(v.B) > 0 {
		b = appendBytes(appendKey(b, &n, "B"), v.B)
	}

	if v.BOOL != nil {
		b = strconv.AppendBool(appendKey(b, &n, "BOOL"), *v.BOOL)
	}

	if len(v.BS) > 0 {
		b = append(appendKey(b, &n, "BS"), '[')
		for i, x := range v.BS {
			if i > 0 {
				b = append(b, ',')
			}

			if x == nil {
				b = append(b, "null"...)
			} else {
				b = appendBytes(b, x)
			}
		}

		b = append(b, ']')
	}

	if len(v.L) > 0 {
		b = append(appendKey(b, &n, "L"), '[')
		for i, x := range v.L {
			if i > 0 {
				b = append(b, ',')
			}

			b = appendValue(b, x)
		}

		b = append(b, ']')
	}

	if len(v.M) > 0 {
		b = appendAttributes(appendKey(b, &n, "M"), v.M)
	}

	if v.N != nil {
		b = appendString(appendKey(b, &n, "N"), *v.N)
	}

	if len(v.NS) > 0 {
		b = appendStrings(appendKey(b, &n, "NS"), v.NS)
	}

	if v.NULL != nil {
		b = strconv.AppendBool(appendKey(b, &n, "NULL"), *v.NULL)
	}

	if v.S != nil {
		b = appendString(appendKey(b, &n, "S"), *v.S)
	}

	if len(v.SS) > 0 {
		b = appendStrings(appendKey(b, &n, "SS"), v.SS)
	}

	return append(b, '}')
}

func appendStrings(b []byte, ss []*string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}

		if s == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, *s)
		}
	}

	return append(b, ']')
}

// appendBytes writes p as encoding/json writes a []byte: a base64 (standard) string.
func appendBytes(b []byte, p []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p)

	return append(b, '"')
}

// appendString writes s as a JSON string. A string of printable ASCII without `"` or `\`
// is written as it is; any other goes through encoding/json, whose escaping (control
// characters, invalid UTF-8, U+2028 and U+2029) is then the encoder's by construction.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := marshalNoHTMLEscape(s) // a string always encodes

			return append(b, q...)
		}
	}

	b = append(b, '"')
	b = append(b, s...)

	return append(b, '"')
}

// marshalNoHTMLEscape is json.Marshal with EscapeHTML off, as ServeHTTP's encoder.
func marshalNoHTMLEscape(v any) ([]byte, error) {
	var buf bytes.Buffer

	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)

	if err := enc.Encode(v); err != nil {
		return nil, err
	}

	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sortedKeys returns m's keys in order, in buf when they fit.
func sortedKeys(m map[string]*types.Item, buf []string) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}

	slices.Sort(keys)

	return keys
}
