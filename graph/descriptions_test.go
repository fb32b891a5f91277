package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// undescribed names every element of s's own definitions that has no description: types,
// fields and their arguments, input fields, enum values, directives and their arguments.
// Built-in scalars and directives and introspection (its types, and Query's __schema and
// __type) are GraphQL's, not the schema's, and are left out. Names are sorted.
func undescribed(s *ast.Schema) []string {
	var missing []string
	blank := func(desc string) bool { return strings.TrimSpace(desc) == "" }
	args := func(owner string, list ast.ArgumentDefinitionList) {
		for _, a := range list {
			if blank(a.Description) {
				missing = append(missing, "argument "+owner+"("+a.Name+")")
			}
		}
	}
	for name, def := range s.Types {
		if def.BuiltIn {
			continue
		}
		if blank(def.Description) {
			missing = append(missing, "type "+name)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			kind := "field "
			if def.Kind == ast.InputObject {
				kind = "input field "
			}
			if blank(f.Description) {
				missing = append(missing, kind+name+"."+f.Name)
			}
			args(name+"."+f.Name, f.Arguments)
		}
		for _, v := range def.EnumValues {
			if blank(v.Description) {
				missing = append(missing, "enum value "+name+"."+v.Name)
			}
		}
	}
	for name, d := range s.Directives {
		if d.Position != nil && d.Position.Src != nil && d.Position.Src.BuiltIn {
			continue
		}
		if blank(d.Description) {
			missing = append(missing, "directive @"+name)
		}
		args("@"+name, d.Arguments)
	}
	slices.Sort(missing)
	return missing
}

// TestSchemaDescribesEverything keeps the docs explorer complete: every type, field,
// argument, input field and enum value of graph/*.graphqls has a description.
func TestSchemaDescribesEverything(t *testing.T) {
	files, err := filepath.Glob("*.graphqls")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema in graph/: %v", err)
	}
	var srcs []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, &ast.Source{Name: f, Input: string(b)})
	}
	s, err := gqlparser.LoadSchema(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	if missing := undescribed(s); len(missing) > 0 {
		t.Errorf("graph/*.graphqls: elements without a description (%d; write one: what it is, units, "+
			"what null means, limits, who may read or call it, errors with their code):\n  %s",
			len(missing), strings.Join(missing, "\n  "))
	}
}

// TestUndescribedNamesEachKind checks that undescribed finds a missing description of each
// kind of element, and nothing in a schema that describes everything.
func TestUndescribedNamesEachKind(t *testing.T) {
	// described is a schema with every kind of element, each described; each case below
	// removes one description.
	const described = `
"A time."
scalar Time

"An order."
enum Order {
  "Newest first."
  NEWEST
}

"What to filter on."
input Filter {
  "Only this order."
  order: Order
}

"Marks a field."
directive @mark(
  "Why."
  reason: String
) on FIELD_DEFINITION

"Reads."
type Query {
  "Things."
  things(
    "At most this many."
    first: Int
  ): [Thing!]!
}

"A thing."
type Thing {
  "Its id."
  id: ID!
}

extend type Thing {
  "When it was made."
  at: Time
}
`
	tests := []struct {
		name   string
		remove string // a description to delete from described
		want   []string
	}{
		{"DescribesEverything", "", nil},
		{"Type", `"A thing."`, []string{"type Thing"}},
		{"Scalar", `"A time."`, []string{"type Time"}},
		{"Enum", `"An order."`, []string{"type Order"}},
		{"InputType", `"What to filter on."`, []string{"type Filter"}},
		{"Field", `"Its id."`, []string{"field Thing.id"}},
		{"FieldOfExtension", `"When it was made."`, []string{"field Thing.at"}},
		{"Argument", `"At most this many."`, []string{"argument Query.things(first)"}},
		{"InputField", `"Only this order."`, []string{"input field Filter.order"}},
		{"EnumValue", `"Newest first."`, []string{"enum value Order.NEWEST"}},
		{"Directive", `"Marks a field."`, []string{"directive @mark"}},
		{"DirectiveArgument", `"Why."`, []string{"argument @mark(reason)"}},
		{"BlankDescription", `"Its id."`, []string{"field Thing.id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sdl := described
			if tc.remove != "" {
				if strings.Count(sdl, tc.remove) != 1 {
					t.Fatalf("%s is not exactly once in the schema", tc.remove)
				}
				repl := ""
				if tc.name == "BlankDescription" {
					repl = `"  "`
				}
				sdl = strings.Replace(sdl, tc.remove, repl, 1)
			}
			s, err := gqlparser.LoadSchema(&ast.Source{Name: "inline.graphqls", Input: sdl})
			if err != nil {
				t.Fatal(err)
			}
			if got := undescribed(s); !slices.Equal(got, tc.want) {
				t.Errorf("undescribed = %q, want %q", got, tc.want)
			}
		})
	}
}
