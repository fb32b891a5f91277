// Command gqlpost is the post-generation step of `make generate`: after `go tool gqlgen
// generate` it rewrites gqlgen's executor (graph/generated.go) so that
//
//   - lists are marshalled in order on the request's goroutine (graph/inorder.go) instead
//     of one goroutine per element, and
//   - an object does its @defer bookkeeping (two allocations and its response path) only
//     when one of its fields is deferred, and not at all when none of its fields can be,
//   - a field bound to a plain struct field of scalar or enum type whose marshaller cannot
//     fail is marshalled directly instead of through graphql.ResolveField (about ten
//     allocations per field: field context, closures, boxing); field middleware does not
//     see such fields, and TestNoFieldMiddleware fails if any is added,
//   - a plain Int, Boolean, String or ID field uses graph/objects.go's intJSON, boolJSON,
//     stringJSON (from a pointer to the field) or their nullable forms, which write
//     gqlgen's bytes without allocating a closure,
//   - every object writes its fields through graph/objects.go's objectJSON (gqlgen's bytes
//     without FieldSet.MarshalGQL's map and per-field copies), and an object with no field
//     resolved concurrently or deferrable fills a graph.object (one allocation) instead of
//     a graphql.FieldSet,
//
// and it refuses (fails `make generate`, and so `make gencheck` and `make test`) when
//
//   - gqlgen's output is no longer the text it rewrites (an upgrade changed the
//     templates): see the constants in rewrite.go and the upgrade notes in bench/README.md;
//   - a field of a type that can appear in a list is a resolver not declared as doing no
//     I/O (listElementResolvers in guard.go): in-order lists would run it once per element,
//     one after the other.
//
// Usage: go run ./internal/gqlpost [-schema 'graph/*.graphqls'] [graph/generated.go]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vektah/gqlparser/v2"
	gqlast "github.com/vektah/gqlparser/v2/ast"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gqlpost:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gqlpost", flag.ContinueOnError)
	schemaGlob := fs.String("schema", "graph/*.graphqls", "the schema files (as in gqlgen.yml)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	file := "graph/generated.go"
	if fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	schema, err := loadSchema(*schemaGlob)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := checkListElementResolvers(schema, src, listElementResolvers); err != nil {
		return err
	}
	out, err := Rewrite(src)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return err
	}
	lists, guarded, dropped, leaves := count(out)
	fmt.Printf("gqlpost: %s: %d lists marshalled in order; @defer bookkeeping guarded in %d objects, dropped in %d without deferrable fields; %d plain scalar fields marshalled directly; %d objects filled as graph.object\n",
		file, lists, guarded, dropped, leaves, strings.Count(string(out), newObject))
	return nil
}

func loadSchema(glob string) (*gqlast.Schema, error) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no schema files match %q", glob)
	}
	var sources []*gqlast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, &gqlast.Source{Name: f, Input: string(b)})
	}
	schema, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		return nil, gerr
	}
	return schema, nil
}
