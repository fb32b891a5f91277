package server

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/pickem/api/graph"
	"github.com/pickem/api/resolvers"
)

// TestQueryCacheWeight measures what a parsed, validated document keeps alive per byte of
// its source, and checks astBytesPerQueryByte is not below it.
func TestQueryCacheWeight(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}})
	for name, req := range legitimateDocuments(t) {
		const copies = 50
		docs := make([]*ast.QueryDocument, copies)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range docs {
			doc, err := parser.ParseQuery(&ast.Source{Input: req.Query + fmt.Sprintf("#%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			validator.ValidateWithRules(es.Schema(), doc, nil)
			docs[i] = doc
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perByte := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(copies*len(req.Query))
		runtime.KeepAlive(docs)
		t.Logf("%-18s %5d bytes: %.1f bytes kept per source byte", name, len(req.Query), perByte)
		if perByte > astBytesPerQueryByte {
			t.Errorf("%s keeps %.1f bytes per source byte, over the estimate %d", name, perByte, astBytesPerQueryByte)
		}
	}
}

func TestByteCacheBoundedInBytes(t *testing.T) {
	ctx := context.Background()
	c := newByteCache(10_000, func(k string, v string) int { return len(k) + len(v) })
	big := strings.Repeat("x", 3_000)
	for i := range 10 {
		c.Add(ctx, fmt.Sprint(i), big)
		if c.usedBytes() > 10_000 {
			t.Fatalf("after %d adds: %d bytes used", i+1, c.usedBytes())
		}
	}
	for i, want := range []bool{false, false, false, false, false, false, false, true, true, true} {
		if _, ok := c.Get(ctx, fmt.Sprint(i)); ok != want {
			t.Fatalf("entry %d cached = %v, want %v (least recently used go first)", i, ok, want)
		}
	}
	c.Get(ctx, "7") // 7 becomes the most recent: 8 goes next
	c.Add(ctx, "new", big)
	if _, ok := c.Get(ctx, "8"); ok {
		t.Fatal("the least recently used entry stayed")
	}
	if _, ok := c.Get(ctx, "7"); !ok {
		t.Fatal("a recently used entry went")
	}
	c.Add(ctx, "huge", strings.Repeat("x", 20_000))
	if _, ok := c.Get(ctx, "huge"); ok || c.usedBytes() > 10_000 {
		t.Fatal("an entry larger than the cache was stored")
	}
	c.Add(ctx, "7", "small") // replacing an entry releases its weight
	if c.usedBytes() != len("9")+len(big)+len("new")+len(big)+len("7small") {
		t.Fatalf("%d bytes used after replacing an entry", c.usedBytes())
	}
}
