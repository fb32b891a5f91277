package graph

import (
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// objectJSON is what every object marshaller returns after `make generate`
// (internal/gqlpost) instead of its *graphql.FieldSet, once the set is dispatched: the same
// fields and values, written as graphql.FieldSet.MarshalGQL writes them (the fields in order,
// an alias already written skipped, each alias quoted as gqlgen quotes strings), without the
// map of written aliases and the copy of every field that FieldSet.MarshalGQL allocates per
// object.
type objectJSON struct {
	fields []graphql.CollectedField
	values []graphql.Marshaler
}

// object is the field set of an object none of whose fields is resolved concurrently or
// can be deferred (internal/gqlpost makes generated.go use it there instead of
// graphql.NewFieldSet): the values and the count of invalid ones that generated code fills
// in, written as objectJSON. Up to inlineFields values live in the object itself, so an
// object costs one allocation instead of graphql.FieldSet's three (the set, its values,
// the box of the result).
type object struct {
	fields   []graphql.CollectedField
	Values   []graphql.Marshaler
	Invalids uint32
	inline   [inlineFields]graphql.Marshaler
}

// inlineFields covers every object of the schema as the frontend selects it (Pick: 3,
// Standing: 5, Prediction: 5–7).
const inlineFields = 8

func newObject(fields []graphql.CollectedField) *object {
	o := &object{fields: fields}
	if len(fields) <= inlineFields {
		o.Values = o.inline[:len(fields)]
	} else {
		o.Values = make([]graphql.Marshaler, len(fields))
	}
	return o
}

func (o *object) MarshalGQL(w io.Writer) {
	objectJSON{fields: o.fields, values: o.Values}.MarshalGQL(w)
}

// maxScannedFields is the most fields whose aliases are compared pairwise to skip a repeated
// one; objects with more (only a document that aliases one field many times) use a map, as
// gqlgen does.
const maxScannedFields = 16

func (o objectJSON) MarshalGQL(w io.Writer) {
	var written map[string]struct{}
	if len(o.fields) > maxScannedFields {
		written = make(map[string]struct{}, len(o.fields))
	}
	io.WriteString(w, "{")
	first := true
	for i := range o.fields {
		alias := o.fields[i].Alias
		if o.repeated(i, written) {
			continue
		}
		if !first {
			io.WriteString(w, ",")
		}
		first = false
		writeKey(w, alias)
		o.values[i].MarshalGQL(w)
	}
	io.WriteString(w, "}")
}

// repeated reports whether field i's alias was written before (and, with a map, notes it).
func (o objectJSON) repeated(i int, written map[string]struct{}) bool {
	alias := o.fields[i].Alias
	if written != nil {
		if _, ok := written[alias]; ok {
			return true
		}
		written[alias] = struct{}{}
		return false
	}
	for j := range i {
		if o.fields[j].Alias == alias {
			return true
		}
	}
	return false
}

// writeKey writes alias quoted and a colon. An alias is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*),
// which gqlgen's string quoting leaves as it is; anything else goes through it.
func writeKey(w io.Writer, alias string) {
	if IsName(alias) {
		io.WriteString(w, `"`)
		io.WriteString(w, alias)
		io.WriteString(w, `":`)
		return
	}
	graphql.MarshalString(alias).MarshalGQL(w)
	io.WriteString(w, ":")
}

// IsName reports whether s is a GraphQL name: [_A-Za-z][_0-9A-Za-z]*.
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// intJSON and boolJSON marshal a plain Int or Boolean field (internal/gqlpost's leaf fast
// path) to the bytes graphql.MarshalInt and graphql.MarshalBoolean write. Unlike those, which
// return a closure over the value, they box without allocating: Go keeps the boxes of
// integers below 256 and of booleans preallocated.
type (
	intJSON  int
	boolJSON bool
)

func (i intJSON) MarshalGQL(w io.Writer) { io.WriteString(w, strconv.FormatInt(int64(i), 10)) }

func (b boolJSON) MarshalGQL(w io.Writer) {
	if b {
		io.WriteString(w, "true")
	} else {
		io.WriteString(w, "false")
	}
}

// stringJSON marshals a plain String or ID field (internal/gqlpost's leaf fast path) to the
// bytes graphql.MarshalString writes, from a pointer to the field: a pointer boxes without
// allocating, where MarshalString allocates a closure over the string. The field is read
// when the response is written, after every resolver has returned; resolvers hand over
// values they no longer change.
type stringJSON string

func (s *stringJSON) MarshalGQL(w io.Writer) { writeQuoted(w, string(*s)) }

// optionalString is stringJSON of a nullable field: null for nil.
func optionalString(v *string) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	return (*stringJSON)(v)
}

// writeQuoted writes s as a JSON string exactly as gqlgen's graphql.MarshalString does
// (its writeQuotedString is not exported): control characters, quote and backslash escaped,
// everything else, invalid UTF-8 included, as it is. TestStringJSONWritesWhatGqlgenWrites
// compares the two.
func writeQuoted(w io.Writer, s string) {
	const hex = "0123456789ABCDEF" // upper case, as gqlgen writes it
	start := 0
	io.WriteString(w, `"`)
	for i, c := range s {
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		io.WriteString(w, s[start:i])
		switch c {
		case '\t':
			io.WriteString(w, `\t`)
		case '\r':
			io.WriteString(w, `\r`)
		case '\n':
			io.WriteString(w, `\n`)
		case '\\':
			io.WriteString(w, `\\`)
		case '"':
			io.WriteString(w, `\"`)
		default:
			io.WriteString(w, `\u00`)
			io.WriteString(w, hex[c>>4:c>>4+1])
			io.WriteString(w, hex[c&0xf:c&0xf+1])
		}
		start = i + 1
	}
	io.WriteString(w, s[start:])
	io.WriteString(w, `"`)
}

// optionalInt and optionalBool are intJSON and boolJSON of a nullable field: null for nil.
func optionalInt(v *int) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	return intJSON(*v)
}

func optionalBool(v *bool) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	return boolJSON(*v)
}
