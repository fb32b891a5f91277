package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	gqlast "github.com/vektah/gqlparser/v2/ast"
)

// listElementResolvers are the resolver fields allowed on object types that can appear
// inside a list, which is marshalled in order: a resolver there runs once per
// element, one element after the other, so it must do no I/O on a list element. Each
// entry says why it does none. Any other resolver on such a type fails `make generate`
// and `make test` (TestRepoGraph): serve it from the parent's read instead
// (copy what a row needs onto its item: no N+1), or, if it truly does no I/O, add it here.
var listElementResolvers = map[string]string{
	"Event.matches": "returns the card its parent read (model.Event); list rows have no card and a prediction's event is " +
		"marked Ref: both get BAD_USER_INPUT, no read",
	"Event.leaderboard": "reads only for an event read alone (event(id), createEvent, updateEvent); list rows (events) have " +
		"no card and a prediction's event is marked Ref: both get BAD_USER_INPUT before any read (server tests " +
		"MatchesOnListRowsIsAnError, TestEntityFieldsOnRowsAreRefused)",
	"League.standings": "reads only for a league read alone (league(id), the league mutations); list rows (User.leagues) are " +
		"marked ListRow and get BAD_USER_INPUT before any read (server test TestLeagueStandingsOnListRowsIsAnError)",
	"User.predictions": "reads only for a player read alone (user(id), me, register, renamePlayer); a player on a row " +
		"(Prediction.user, Standing.user, League.owner) is marked Row and gets BAD_USER_INPUT before any read (server test " +
		"TestEntityFieldsOnRowsAreRefused)",
	"User.leagues": "reads only for a player read alone (user(id), me, register, renamePlayer); a player on a row is marked " +
		"Row and gets BAD_USER_INPUT before any read (server test TestEntityFieldsOnRowsAreRefused)",
}

// checkListElementResolvers returns an error naming every resolver field of a type that
// can appear in a list (directly or nested under a list element) and is not in allowed,
// and every entry of allowed that is no longer such a field. Resolver fields are the
// methods of the <Type>Resolver interfaces in the generated executor; the schema says
// which types are list elements.
func checkListElementResolvers(schema *gqlast.Schema, generated []byte, allowed map[string]string) error {
	resolvers, err := resolverFields(schema, generated)
	if err != nil {
		return err
	}
	via := listElementTypes(schema)
	var problems []string
	seen := map[string]bool{}
	for _, f := range resolvers {
		typ, _, _ := strings.Cut(f, ".")
		path, inList := via[typ]
		if !inList {
			continue
		}
		seen[f] = true
		if _, ok := allowed[f]; !ok {
			problems = append(problems, fmt.Sprintf("%s is a resolver on a list element (%s): lists are marshalled in order, so it would run "+
				"once per element, one after the other. Serve it from the parent's read, or, if it does no I/O on a list element, "+
				"add it with the reason to listElementResolvers in internal/gqlpost/guard.go", f, path))
		}
	}
	for f := range allowed {
		if !seen[f] {
			problems = append(problems, fmt.Sprintf("%s is in listElementResolvers but is no longer a resolver on a list element: remove it", f))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("list-element resolvers:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// listElementTypes returns the object types that can appear inside a list: the element
// types of list fields and every object type reachable from them through fields, each
// with the first path found ("Query.events > EventConnection.edges[] > …"). Introspection
// types are left out.
func listElementTypes(schema *gqlast.Schema) map[string]string {
	via := map[string]string{}
	var queue []string
	mark := func(name, path string) {
		if _, ok := via[name]; ok {
			return
		}
		for _, t := range concreteTypes(schema, name) {
			if _, ok := via[t]; !ok {
				via[t] = path
				queue = append(queue, t)
			}
		}
	}
	names := make([]string, 0, len(schema.Types))
	for name := range schema.Types {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic paths
	for _, name := range names {
		def := schema.Types[name]
		if strings.HasPrefix(name, "__") || def.Kind != gqlast.Object {
			continue
		}
		for _, f := range def.Fields {
			if f.Type.Elem != nil && !strings.HasPrefix(f.Name, "__") {
				mark(f.Type.Name(), name+"."+f.Name+"[]")
			}
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, f := range schema.Types[t].Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			mark(f.Type.Name(), via[t]+" > "+t+"."+f.Name)
		}
	}
	return via
}

// concreteTypes returns the object types a named type can be: itself for an object, its
// possible types for an interface or union, none for scalars, enums and inputs.
func concreteTypes(schema *gqlast.Schema, name string) []string {
	def := schema.Types[name]
	if def == nil || strings.HasPrefix(name, "__") {
		return nil
	}
	switch def.Kind {
	case gqlast.Object:
		return []string{name}
	case gqlast.Interface, gqlast.Union:
		var out []string
		for _, p := range schema.GetPossibleTypes(def) {
			out = append(out, p.Name)
		}
		return out
	}
	return nil
}

// resolverFields returns "Type.field" for every method of the generated <Type>Resolver
// interfaces (root types among them, which are never list elements), matching method
// names to the schema's field names as gqlgen does (case-insensitively, underscores
// dropped).
func resolverFields(schema *gqlast.Schema, generated []byte) ([]string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), "generated.go", generated, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			iface, ok := ts.Type.(*ast.InterfaceType)
			typ, isResolver := strings.CutSuffix(ts.Name.Name, "Resolver")
			if !ok || !isResolver || typ == "" {
				continue
			}
			def := schema.Types[typ]
			if def == nil {
				return nil, fmt.Errorf("%s: no type %s in the schema", ts.Name.Name, typ)
			}
			for _, m := range iface.Methods.List {
				for _, name := range m.Names {
					field := schemaField(def, name.Name)
					if field == "" {
						return nil, fmt.Errorf("%s.%s: no such field on %s in the schema", ts.Name.Name, name.Name, typ)
					}
					out = append(out, typ+"."+field)
				}
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func schemaField(def *gqlast.Definition, goName string) string {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, f := range def.Fields {
		if norm(f.Name) == norm(goName) {
			return f.Name
		}
	}
	return ""
}
