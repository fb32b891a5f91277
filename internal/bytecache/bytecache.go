// Package bytecache is an LRU cache bounded by the estimated bytes of its entries rather
// than by their number, with an optional time to live. The server's query caches (parsed
// documents, whose size follows their source) and the store's read cache (DynamoDB items,
// whose size follows what players wrote) both need a bound in bytes: a count alone would
// let large entries take unbounded memory.
package bytecache

import (
	"container/list"
	"sync"
	"time"
)

// Cache maps string keys to values of type V. It is safe for concurrent use. The zero
// value is not usable: call New.
type Cache[V any] struct {
	mu      sync.Mutex
	max     int
	used    int
	ttl     time.Duration
	now     func() time.Time
	order   *list.List // front = most recently used
	entries map[string]*list.Element
}

type entry[V any] struct {
	key     string
	value   V
	weight  int
	expires time.Time // zero: never
}

// New returns a cache holding at most maxBytes of entries (as weighed by Add's caller).
// With ttl > 0 an entry is served for ttl after it was added, then dropped; now is the
// clock (nil: time.Now).
func New[V any](maxBytes int, ttl time.Duration, now func() time.Time) *Cache[V] {
	if now == nil {
		now = time.Now
	}
	return &Cache[V]{max: maxBytes, ttl: ttl, now: now, order: list.New(), entries: map[string]*list.Element{}}
}

// TTL returns how long an entry is served after it was added (0: until evicted).
func (c *Cache[V]) TTL() time.Duration { return c.ttl }

// Get returns the value of key and marks it recently used. An expired entry is removed
// and reported absent.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.entries[key]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[V])
	if !e.expires.IsZero() && !c.now().Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Add stores value under key with its weight in bytes (which should include the key and
// the bookkeeping, see EntryOverhead), evicting the least recently used entries until the
// cache fits. An entry heavier than the whole cache is not stored (and an older value
// under key is dropped).
func (c *Cache[V]) Add(key string, value V, weight int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	if weight > c.max {
		return
	}
	for c.used+weight > c.max {
		c.remove(c.order.Back())
	}
	e := &entry[V]{key: key, value: value, weight: weight}
	if c.ttl > 0 {
		e.expires = c.now().Add(c.ttl)
	}
	c.entries[key] = c.order.PushFront(e)
	c.used += weight
}

// Remove drops the entries whose key match reports true.
func (c *Cache[V]) Remove(match func(key string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.entries {
		if match(k) {
			c.remove(el)
		}
	}
}

func (c *Cache[V]) remove(el *list.Element) {
	e := el.Value.(*entry[V])
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.used -= e.weight
}

// Bytes returns the weight of the entries held (expired ones included until touched).
func (c *Cache[V]) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Len returns the number of entries held (expired ones included until touched).
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// EntryOverhead is the map, list and entry bookkeeping of one entry (estimated): add it to
// an entry's weight.
const EntryOverhead = 256
