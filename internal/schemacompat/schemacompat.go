// Package schemacompat finds the changes between two GraphQL schemas that break existing
// clients: the rules of graphql-js's findBreakingChanges, on gqlparser's AST. `make test`
// compares graph/*.graphqls with the last released schema, graph/released/schema.graphqls
// (see schemacompat_test.go).
package schemacompat

import (
	"fmt"
	"slices"
	"sort"

	"github.com/vektah/gqlparser/v2/ast"
)

// Breaking returns a sentence for every change from old to new that can break a client
// written against old, sorted. Additions (types, optional arguments and input fields,
// fields, enum values, union members) and deprecations are not breaking.
func Breaking(old, new *ast.Schema) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	for name, ot := range old.Types {
		if ot.BuiltIn {
			continue
		}
		nt, ok := new.Types[name]
		if !ok {
			add("type %s was removed", name)
			continue
		}
		if ot.Kind != nt.Kind {
			add("type %s changed from %s to %s", name, ot.Kind, nt.Kind)
			continue
		}
		switch ot.Kind {
		case ast.Object, ast.Interface:
			fields(ot, nt, add)
			for _, iface := range ot.Interfaces {
				if !slices.Contains(nt.Interfaces, iface) {
					add("%s no longer implements %s", name, iface)
				}
			}
		case ast.InputObject:
			inputFields(ot, nt, add)
		case ast.Enum:
			for _, v := range ot.EnumValues {
				if nt.EnumValues.ForName(v.Name) == nil {
					add("enum value %s.%s was removed", name, v.Name)
				}
			}
		case ast.Union:
			for _, m := range ot.Types {
				if !slices.Contains(nt.Types, m) {
					add("%s was removed from union %s", m, name)
				}
			}
		}
	}
	for name, od := range old.Directives {
		if builtInDirectives[name] {
			continue
		}
		nd, ok := new.Directives[name]
		if !ok {
			add("directive @%s was removed", name)
			continue
		}
		args(fmt.Sprintf("directive @%s", name), od.Arguments, nd.Arguments, add)
		for _, loc := range od.Locations {
			if !slices.Contains(nd.Locations, loc) {
				add("directive @%s can no longer be used on %s", name, loc)
			}
		}
	}
	sort.Strings(out)
	return out
}

var builtInDirectives = map[string]bool{"skip": true, "include": true, "deprecated": true, "specifiedBy": true, "oneOf": true, "defer": true}

func fields(ot, nt *ast.Definition, add func(string, ...any)) {
	for _, of := range ot.Fields {
		if len(of.Name) > 1 && of.Name[:2] == "__" {
			continue
		}
		nf := nt.Fields.ForName(of.Name)
		where := ot.Name + "." + of.Name
		if nf == nil {
			add("field %s was removed", where)
			continue
		}
		if !safeOutput(of.Type, nf.Type) {
			add("field %s changed type from %s to %s", where, of.Type, nf.Type)
		}
		args("field "+where, of.Arguments, nf.Arguments, add)
	}
}

func args(where string, old, new ast.ArgumentDefinitionList, add func(string, ...any)) {
	for _, oa := range old {
		na := new.ForName(oa.Name)
		if na == nil {
			add("argument %s of %s was removed", oa.Name, where)
			continue
		}
		if !safeInput(oa.Type, na.Type) {
			add("argument %s of %s changed type from %s to %s", oa.Name, where, oa.Type, na.Type)
		}
	}
	for _, na := range new {
		if old.ForName(na.Name) == nil && na.Type.NonNull && na.DefaultValue == nil {
			add("required argument %s was added to %s", na.Name, where)
		}
	}
}

func inputFields(ot, nt *ast.Definition, add func(string, ...any)) {
	for _, of := range ot.Fields {
		nf := nt.Fields.ForName(of.Name)
		where := ot.Name + "." + of.Name
		if nf == nil {
			add("input field %s was removed", where)
			continue
		}
		if !safeInput(of.Type, nf.Type) {
			add("input field %s changed type from %s to %s", where, of.Type, nf.Type)
		}
	}
	for _, nf := range nt.Fields {
		if ot.Fields.ForName(nf.Name) == nil && nf.Type.NonNull && nf.DefaultValue == nil {
			add("required input field %s.%s was added", nt.Name, nf.Name)
		}
	}
}

// safeOutput reports whether a field of type old may become new: what clients read must
// stay readable (a nullable field may become non-null, not the reverse).
func safeOutput(old, new *ast.Type) bool {
	if new.NonNull && !old.NonNull {
		return safeOutput(old, nonNullOf(new))
	}
	if old.NonNull != new.NonNull {
		return false
	}
	if old.Elem != nil || new.Elem != nil {
		return old.Elem != nil && new.Elem != nil && safeOutput(old.Elem, new.Elem)
	}
	return old.NamedType == new.NamedType
}

// safeInput reports whether an argument or input field of type old may become new: what
// clients send must stay acceptable (a non-null input may become nullable, not the reverse).
func safeInput(old, new *ast.Type) bool {
	if old.NonNull && !new.NonNull {
		return safeInput(nonNullOf(old), new)
	}
	if old.NonNull != new.NonNull {
		return false
	}
	if old.Elem != nil || new.Elem != nil {
		return old.Elem != nil && new.Elem != nil && safeInput(old.Elem, new.Elem)
	}
	return old.NamedType == new.NamedType
}

// nonNullOf returns t without its outer non-null.
func nonNullOf(t *ast.Type) *ast.Type {
	c := *t
	c.NonNull = false
	return &c
}
