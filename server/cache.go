package server

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
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

// byteCache is an LRU graphql.Cache bounded by the estimated bytes of its entries rather
// than by their number: the query cache holds parsed documents whose size follows their
// source, so a count alone would let large documents take unbounded memory.
type byteCache[T any] struct {
	mu      sync.Mutex
	max     int
	used    int
	weight  func(key string, v T) int
	order   *list.List // front = most recently used
	entries map[string]*list.Element
}

type cacheEntry[T any] struct {
	key    string
	value  T
	weight int
}

var _ graphql.Cache[string] = (*byteCache[string])(nil)

func newByteCache[T any](maxBytes int, weight func(key string, v T) int) *byteCache[T] {
	return &byteCache[T]{max: maxBytes, weight: weight, order: list.New(), entries: map[string]*list.Element{}}
}

// Get returns the value of key and marks it recently used.
func (c *byteCache[T]) Get(_ context.Context, key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry[T]).value, true
	}
	var zero T
	return zero, false
}

// Add stores value under key, evicting the least recently used entries until the cache
// fits. An entry larger than the whole cache is not stored.
func (c *byteCache[T]) Add(_ context.Context, key string, value T) {
	w := c.weight(key, value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.used -= el.Value.(*cacheEntry[T]).weight
		c.order.Remove(el)
		delete(c.entries, key)
	}
	if w > c.max {
		return
	}
	for c.used+w > c.max {
		oldest := c.order.Back()
		e := oldest.Value.(*cacheEntry[T])
		c.order.Remove(oldest)
		delete(c.entries, e.key)
		c.used -= e.weight
	}
	c.entries[key] = c.order.PushFront(&cacheEntry[T]{key: key, value: value, weight: w})
	c.used += w
}

// usedBytes returns the estimated bytes held.
func (c *byteCache[T]) usedBytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// entryOverhead is the map, list and entry bookkeeping of one cache entry (estimated).
const entryOverhead = 256

func queryDocWeight[T any](key string, _ T) int {
	return entryOverhead + len(key)*(1+astBytesPerQueryByte)
}

func apqWeight(key, query string) int { return entryOverhead + len(key) + len(query) }
