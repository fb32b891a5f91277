package ddb

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestCacheBoundedInBytes: entries are weighed by the items they were read from, and the
// cache keeps no more than its bound.
func TestCacheBoundedInBytes(t *testing.T) {
	t.Parallel()
	c := NewCache(time.Minute, 40_000, nil)
	for i := range 12 {
		_, err := Cached(t.Context(), c, fmt.Sprint("entry", i), func(_ context.Context, z *Sized) (string, error) {
			z.Bytes += 3_000
			return "v", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if b := c.lru.Bytes(); b > 40_000 {
			t.Fatalf("%d bytes held, bound 40000", b)
		}
	}
	if n := c.lru.Len(); n == 0 || n == 12 {
		t.Fatalf("%d entries held: the bound did not bite or nothing was kept", n)
	}
}

// TestCacheFillMarksOnlyObservedContexts: without an observer, a fill's context is the
// caller's own.
func TestCacheFillMarksOnlyObservedContexts(t *testing.T) {
	t.Parallel()
	if ctx := WithCacheFill(t.Context(), "card|x"); ctx.Value(cacheFillKey{}) != nil {
		t.Error("WithCacheFill without an observer marked the context")
	}
}
