package dynamo

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pickem/api/dynamo/table"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/singleflight"

	"github.com/pickem/api/internal/bytecache"
)

// The read cache: the hot public reads, kept in the process for a short time so that a
// rush of players on one event or season costs each DynamoDB partition at most one read
// per entry per TTL per process (in Lambda, per function instance: reserved concurrency ×
// 1/TTL bounds it whatever the request rate). What it holds is the same for every caller:
//
//	key                         what                                      filled by
//	card|<eid>                  an event with its card                    GetEvent, GetEventWithLeaderboard
//	lb|<eid>|<first>[|rows]     a leaderboard's first page of first rows  GetEventWithLeaderboard, Leaderboard
//	                            (|rows: without their picks)
//	st|<season>|<first>         a season's first standings page           Standings
//	rk|e|<eid>, rk|s|<season>   an event's or a season's rank table       ranks on predictions and profiles (ranks.go)
//
// Nothing private is cached (a player's own prediction and profile are read every time;
// only the public rank tables their ranks come from are kept), nor pages after the first
// (their cursors spread them). The card and a leaderboard's first page are apart, so a
// card read for a submit or an edit of the card does not touch the page, and the page
// (one Query per shard) is read only for an event that shows a leaderboard. An entry is served for the TTL
// after it was read, so an answer is at most TTL older than the table — plus the index's
// own lag, which reads have anyway. Writes never decide anything from the cache: mutations
// read what they check themselves (see README, "Consistency").
//
// A store's own writes drop, before they return, every entry they can change, so that the
// process that made a change shows it at once; other processes show it within the TTL. The
// invalidation matrix (TestReadCacheShowsOwnWrites checks each pair):
//
//	write                                   card  leaderboard  standings  rank tables
//	submitPrediction                        -     -            -          -
//	register, renamePlayer                  -     all          all        -
//	deleteMe                                -     all          all        all
//	createEvent                             -     -            -          -
//	updateEvent                             its   its          -          -
//	addMatch, updateMatch, removeMatch,
//	reorderMatches, setResult               its   its          -          -
//	scoreEvent                              its   its          its season its event, its season
//	league changes, league moderation       -     -            -          -
//
// ("its": the entries of the event or season written; "all": every entry of the kind — a
// player's name or rows may be on any page.) A drop also keeps every fill in flight from
// storing what it read (readCache.gen): a read that started before a write never leaves
// its result in the cache after that write.
const (
	// DefaultReadCacheTTL is how long a cached read is served: short enough that a card
	// edit, a result or a scoring run shows everywhere within it, long enough that
	// reserved concurrency / TTL stays far below a partition's 3,000 read units a second.
	DefaultReadCacheTTL = 2 * time.Second
	// DefaultReadCacheBytes bounds the cache (estimated, see goBytesPerItemByte): a card of
	// 30 matches is about 15 KB in DynamoDB, a 100-row page about 40 KB.
	DefaultReadCacheBytes = 16 << 20
)

// goBytesPerItemByte is what the decoded form of a read keeps in memory per byte of the
// DynamoDB items it came from (Go strings, slices, pointers, page cursors): measured by
// TestReadCacheWeight, rounded up.
const goBytesPerItemByte = 4

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
	return func(s *Store) { s.cache = &readCache{lru: bytecache.New[any](c.MaxBytes, c.TTL, c.Now)} }
}

// WithReadCacheTTL is WithReadCache with ttl and the default size, or no cache when ttl is
// 0 (PICKEM_READ_CACHE_TTL).
func WithReadCacheTTL(ttl time.Duration) Option {
	if ttl <= 0 {
		return func(*Store) {}
	}
	return WithReadCache(ReadCache{TTL: ttl})
}

// readCache is the store's cache of public reads; a nil *readCache caches nothing.
type readCache struct {
	lru *bytecache.Cache[any]
	// fills makes concurrent misses of one key in this process share one read; a fill is
	// keyed by the key and the generation it started in.
	fills singleflight.Group

	// mu orders drops against stores: a drop moves gen on and removes entries at once, and
	// a fill stores what it read only if gen has not moved since it started, so a read
	// that started before a write never stores what it read after that write's drop.
	mu  sync.Mutex
	gen uint64
}

// ReadCacheTTL returns the TTL of the store's read cache, 0 when it has none.
func (s *Store) ReadCacheTTL() time.Duration {
	if s.cache == nil {
		return 0
	}
	return s.cache.lru.TTL()
}

// sized counts the bytes of the DynamoDB items a fill read, to weigh its entry.
type sized struct{ bytes int }

func (z *sized) add(item map[string]types.AttributeValue) {
	if z != nil {
		z.bytes += table.ItemSize(item)
	}
}

// cachedRead returns the entry under key, or runs fill (once per process for concurrent
// misses) and keeps what it returns for the TTL. Errors are not kept. fill reports the
// bytes of the items it read through its *sized (nil when nothing is kept).
//
// A fill shared by concurrent misses runs with the context of the first, without its
// cancellation (the SDK's attempt timeouts bound it): one caller leaving does not fail the
// others. Its DynamoDB calls are counted in that first request's cost.
func cachedRead[T any](ctx context.Context, s *Store, key string, fill func(context.Context, *sized) (T, error)) (T, error) {
	ctx = withCacheFill(ctx, key) // a recorded fill's calls say which entry they fill
	if s.cache == nil {
		return fill(ctx, nil)
	}
	if v, ok := s.cache.lru.Get(key); ok {
		return v.(T), nil
	}
	gen := s.cache.generation()
	ch := s.cache.fills.DoChan(key+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		z := &sized{}
		v, err := fill(context.WithoutCancel(ctx), z)
		if err != nil {
			return nil, err
		}
		s.cache.addIfCurrent(gen, key, v, z.bytes)
		return v, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			var zero T
			return zero, r.Err
		}
		return r.Val.(T), nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Cache keys (see the table above).
func cardCacheKey(e table.EventID) string { return "card|" + string(e) }
func leaderboardCacheKey(e table.EventID, first int, picks bool) string {
	k := "lb|" + string(e) + "|" + strconv.Itoa(first)
	if !picks {
		k += "|rows"
	}
	return k
}
func standingsCacheKey(season, first int) string {
	return "st|" + strconv.Itoa(season) + "|" + strconv.Itoa(first)
}

// get returns the entry under key (none without a cache).
func (c *readCache) get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	return c.lru.Get(key)
}

// generation is the cache's generation: what a fill started now passes to addIfCurrent.
func (c *readCache) generation() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// addIfCurrent keeps v under key unless entries were dropped since generation gen began
// (v may then predate the write that dropped them); itemBytes weighs it (as in cachedRead).
func (c *readCache) addIfCurrent(gen uint64, key string, v any, itemBytes int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.lru.Add(key, v, bytecache.EntryOverhead+len(key)+goBytesPerItemByte*itemBytes)
	}
}

// remove drops the entries whose key match reports true, and keeps every fill in flight
// from storing what it read.
func (c *readCache) remove(match func(key string) bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.lru.Remove(match)
}

// forgetEvent drops what the cache holds of an event (its card and leaderboard pages):
// the store changed it.
func (s *Store) forgetEvent(e table.EventID) {
	card, lb := cardCacheKey(e), "lb|"+string(e)+"|"
	s.cache.remove(func(k string) bool { return k == card || strings.HasPrefix(k, lb) })
}

// forgetSeason drops what the cache holds of a season's standings: the store changed them.
func (s *Store) forgetSeason(season int) {
	st := "st|" + strconv.Itoa(season) + "|"
	s.cache.remove(func(k string) bool { return strings.HasPrefix(k, st) })
}

// forgetPlayerPages drops every leaderboard and standings page, and with ranks every rank
// table: a player's name or rows changed, and they may be on any of them. Renames and
// account deletions are rare; finding the pages that hold one player would cost more.
func (s *Store) forgetPlayerPages(ranks bool) {
	s.cache.remove(func(k string) bool {
		return strings.HasPrefix(k, "lb|") || strings.HasPrefix(k, "st|") || (ranks && strings.HasPrefix(k, "rk|"))
	})
}
