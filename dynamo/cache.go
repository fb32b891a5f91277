package dynamo

import (
	"time"

	"github.com/pickem/api/dynamo/ddb"
)

// The read cache (ddb.Cache) keeps the hot public reads for a short time; see package ddb
// for what it holds and which writes drop what.
const (
	// DefaultReadCacheTTL is how long a cached read is served: short enough that a card
	// edit, a result or a scoring run shows everywhere within it, long enough that
	// reserved concurrency / TTL stays far below a partition's 3,000 read units a second.
	DefaultReadCacheTTL = 2 * time.Second
	// DefaultReadCacheBytes bounds the cache (estimated from the items read): a card of
	// 30 matches is about 15 KB in DynamoDB, a 100-row page about 40 KB.
	DefaultReadCacheBytes = 16 << 20
)

// ReadCache configures the store's read cache (WithReadCache).
type ReadCache struct {
	// TTL is how long an entry is served (0: DefaultReadCacheTTL).
	TTL time.Duration
	// MaxBytes bounds the entries' estimated size (0: DefaultReadCacheBytes).
	MaxBytes int
	// Now is the cache's clock (nil: time.Now).
	Now func() time.Time
}

// WithReadCache turns the read cache on (it is off by default: a store without it reads
// DynamoDB on every call).
func WithReadCache(c ReadCache) Option {
	if c.TTL <= 0 {
		c.TTL = DefaultReadCacheTTL
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultReadCacheBytes
	}
	return func(s *Store) { s.cache = ddb.NewCache(c.TTL, c.MaxBytes, c.Now) }
}

// WithReadCacheTTL is WithReadCache with ttl and the default size, or no cache when ttl is
// 0 (PICKEM_READ_CACHE_TTL).
func WithReadCacheTTL(ttl time.Duration) Option {
	if ttl <= 0 {
		return func(*Store) {}
	}
	return WithReadCache(ReadCache{TTL: ttl})
}

// ReadCacheTTL returns the TTL of the store's read cache, 0 when it has none.
func (s *Store) ReadCacheTTL() time.Duration {
	return s.cache.TTL()
}
