package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/pickem/api/internal/bytecache"
)

// Cache sizes, in bytes (estimated: see queryDocWeight).
const (
	DefaultQueryCacheBytes = 16 << 20
	DefaultAPQCacheBytes   = 4 << 20
)

// astBytesPerQueryByte is what a parsed and validated document keeps in memory per byte of
// its source: measured by TestQueryCacheWeight (about 25 on the frontend's screens and the
// introspection query); rounded up.
const astBytesPerQueryByte = 32

// byteCache is a graphql.Cache over bytecache: an LRU bounded by the estimated bytes of its
// entries rather than by their number, since the query cache holds parsed documents whose
// size follows their source.
type byteCache[T any] struct {
	c      *bytecache.Cache[T]
	weight func(key string, v T) int
}

var _ graphql.Cache[string] = (*byteCache[string])(nil)

func newByteCache[T any](maxBytes int, weight func(key string, v T) int) *byteCache[T] {
	return &byteCache[T]{c: bytecache.New[T](maxBytes, 0, nil), weight: weight}
}

// Get returns the value of key and marks it recently used.
func (c *byteCache[T]) Get(_ context.Context, key string) (T, bool) { return c.c.Get(key) }

// Add stores value under key, evicting the least recently used entries until the cache
// fits. An entry larger than the whole cache is not stored.
func (c *byteCache[T]) Add(_ context.Context, key string, value T) {
	c.c.Add(key, value, c.weight(key, value))
}

// usedBytes returns the estimated bytes held.
func (c *byteCache[T]) usedBytes() int { return c.c.Bytes() }

func queryDocWeight[T any](key string, _ T) int {
	return bytecache.EntryOverhead + len(key)*(1+astBytesPerQueryByte)
}

func apqWeight(key, query string) int { return bytecache.EntryOverhead + len(key) + len(query) }
