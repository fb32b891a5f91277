// Command gqlpost is the post-generation step of `make generate`: after `go tool gqlgen
// generate` it makes graph/generated.go marshal every list of objects in order on the
// request's goroutine (graph/inorder.go's marshalSliceInOrder) where gqlgen starts a
// goroutine per element (docs/decisions/in-order-lists.md). It changes nothing else.
//
// It refuses, and so fails `make generate`, `make gencheck` and `make test`, when
//
//   - gqlgen's output no longer holds the exact call it rewrites (sliceCall in rewrite.go),
//     or holds none: an upgrade changed the templates or exec.worker_limit was set;
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
	out, lists, err := Rewrite(src)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return err
	}
	fmt.Printf("gqlpost: %s: %d lists marshalled in order\n", file, lists)
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
