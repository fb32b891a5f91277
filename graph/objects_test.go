package graph

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestObjectJSONWritesWhatFieldSetWrites: objectJSON's and object's bytes equal graphql.FieldSet's for
// the same fields and values: repeated aliases (the first kept), more fields than are
// compared pairwise, and an alias that is not a name (quoted by gqlgen's rules).
func TestObjectJSONWritesWhatFieldSetWrites(t *testing.T) {
	many := make([]string, maxScannedFields+5)
	for i := range many {
		many[i] = fmt.Sprintf("f%d", i%(maxScannedFields+2)) // the last three repeat
	}
	for name, aliases := range map[string][]string{
		"none":     {},
		"one":      {"id"},
		"plain":    {"id", "name", "__typename", "_x9"},
		"repeated": {"id", "name", "id", "rank", "name"},
		"many":     many,
		"notName":  {"a\"b", "tab\there", "9lives", "ünï", ""},
	} {
		t.Run(name, func(t *testing.T) {
			fields := make([]graphql.CollectedField, len(aliases))
			for i, a := range aliases {
				fields[i] = graphql.CollectedField{Field: &ast.Field{Alias: a, Name: "f"}}
			}
			set := graphql.NewFieldSet(fields)
			for i := range fields {
				set.Values[i] = graphql.MarshalInt(i)
			}
			var want, got bytes.Buffer
			set.MarshalGQL(&want)
			objectJSON{fields: fields, values: set.Values}.MarshalGQL(&got)
			if got.String() != want.String() {
				t.Fatalf("objectJSON wrote %s\nFieldSet wrote   %s", got.String(), want.String())
			}
			o := newObject(fields) // inline values up to inlineFields, a slice beyond
			copy(o.Values, set.Values)
			got.Reset()
			o.MarshalGQL(&got)
			if got.String() != want.String() {
				t.Fatalf("object wrote   %s\nFieldSet wrote %s", got.String(), want.String())
			}
		})
	}
}

// TestLeavesWriteWhatGqlgenWrites: intJSON, boolJSON and their nullable forms write the bytes
// of graphql.MarshalInt and graphql.MarshalBoolean, and null for nil.
func TestLeavesWriteWhatGqlgenWrites(t *testing.T) {
	marshal := func(m graphql.Marshaler) string {
		var b bytes.Buffer
		m.MarshalGQL(&b)
		return b.String()
	}
	for _, v := range []int{0, 1, -1, 42, 99, 100, 255, 256, 1_000_000, math.MaxInt, math.MinInt} {
		if got, want := marshal(intJSON(v)), marshal(graphql.MarshalInt(v)); got != want {
			t.Errorf("intJSON(%d) = %s, want %s", v, got, want)
		}
		if got, want := marshal(optionalInt(&v)), marshal(graphql.MarshalInt(v)); got != want {
			t.Errorf("optionalInt(&%d) = %s, want %s", v, got, want)
		}
	}
	for _, v := range []bool{true, false} {
		if got, want := marshal(boolJSON(v)), marshal(graphql.MarshalBoolean(v)); got != want {
			t.Errorf("boolJSON(%v) = %s, want %s", v, got, want)
		}
		if got, want := marshal(optionalBool(&v)), marshal(graphql.MarshalBoolean(v)); got != want {
			t.Errorf("optionalBool(&%v) = %s, want %s", v, got, want)
		}
	}
	if optionalInt(nil) != graphql.Null || optionalBool(nil) != graphql.Null {
		t.Error("optionalInt(nil) or optionalBool(nil) is not graphql.Null")
	}
}

// TestLeavesDoNotAllocate: the point of intJSON and boolJSON — a small int or a bool boxed as
// a graphql.Marshaler allocates nothing (graphql.MarshalInt allocates its closure).
func TestLeavesDoNotAllocate(t *testing.T) {
	var sink graphql.Marshaler
	n := 7
	b := true
	if a := testing.AllocsPerRun(100, func() { sink = intJSON(n); sink = boolJSON(b); sink = optionalInt(&n) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
	_ = sink
}

// TestStringJSONWritesWhatGqlgenWrites: stringJSON and optionalString write the bytes of
// graphql.MarshalString for every ASCII character alone and in text, multi-byte and invalid
// UTF-8, and null for nil; they box without allocating.
func TestStringJSONWritesWhatGqlgenWrites(t *testing.T) {
	marshal := func(m graphql.Marshaler) string {
		var b bytes.Buffer
		m.MarshalGQL(&b)
		return b.String()
	}
	cases := []string{"", "plain", `quote " backslash \ slash /`, "tab\tcr\rnl\n", "<script>&amp;</script>",
		"ünïcödé ✓ 🤼", "\u2028\u2029", "bad \xff\xfe utf-8", "\x00\x1f\x7f end"}
	for c := range 0x80 {
		cases = append(cases, string(rune(c)), "a"+string(rune(c))+"b")
	}
	for _, s := range cases {
		want := marshal(graphql.MarshalString(s))
		if got := marshal((*stringJSON)(&s)); got != want {
			t.Errorf("stringJSON(%q) = %s, want %s", s, got, want)
		}
		if got := marshal(optionalString(&s)); got != want {
			t.Errorf("optionalString(%q) = %s, want %s", s, got, want)
		}
	}
	if optionalString(nil) != graphql.Null {
		t.Error("optionalString(nil) is not graphql.Null")
	}
	type row struct{ Name string }
	r := &row{Name: "x"}
	var sink graphql.Marshaler
	if a := testing.AllocsPerRun(100, func() { sink = (*stringJSON)(&r.Name) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
	_ = sink
}
