package ddb

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/singleflight"

	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/bytecache"
)

// The read cache: the hot public reads, kept in the process for a short time so that a
// rush of players on one event or season costs each DynamoDB partition at most one read
// per entry per TTL per process (in Lambda, per function instance: reserved concurrency ×
// 1/TTL bounds it whatever the request rate). What it holds is the same for every caller:
//
//	key                         what                                      filled by
//	card|<eid>                  an event with its card                    GetEvent, GetEventWithLeaderboard
//	lb|<eid>|<first>[|rows]     a leaderboard's first page of first rows  GetEventWithLeaderboard, EventLeaderboard
//	                            (|rows: without their picks)
//	st|<season>|<first>         a season's first standings page           Standings
//	rk|e|<eid>, rk|s|<season>   an event's or a season's rank table       ranks on predictions and profiles
//
// Nothing private is cached (a player's own prediction and profile are read every time;
// only the public rank tables their ranks come from are kept), nor pages after the first
// (their cursors spread them). The card and a leaderboard's first page are apart, so a
// card read for a submit or an edit of the card does not touch the page, and the page
// (one Query per shard) is read only for an event that shows a leaderboard. An entry is
// served for the TTL after it was read, so an answer is at most TTL older than the table —
// plus the index's own lag, which reads have anyway. Writes never decide anything from the
// cache: mutations read what they check themselves (see README, "Consistency").
//
// A store's own writes drop, before they return, every entry they can change, so that the
// process that made a change shows it at once; other processes show it within the TTL. The
// invalidation matrix (dynamo's TestReadCacheShowsOwnWrites checks each pair):
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
// storing what it read (Cache.gen): a read that started before a write never leaves its
// result in the cache after that write.

// BytesPerItemByte is what the decoded form of a read is taken to keep in memory per byte
// of the DynamoDB items it came from (Go strings, slices, pointers, page cursors): measured
// by dynamo's TestReadCacheWeight, rounded up.
const BytesPerItemByte = 4

// Cache is the store's cache of public reads; a nil *Cache caches nothing.
type Cache struct {
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

// NewCache returns a cache serving each entry for ttl, of at most maxBytes (estimated),
// on the clock now (nil: time.Now).
func NewCache(ttl time.Duration, maxBytes int, now func() time.Time) *Cache {
	return &Cache{lru: bytecache.New[any](maxBytes, ttl, now)}
}

// TTL is how long the cache serves an entry, 0 for no cache.
func (c *Cache) TTL() time.Duration {
	if c == nil {
		return 0
	}
	return c.lru.TTL()
}

// Sized counts the bytes of the DynamoDB items a fill read, to weigh its entry. Its
// methods do nothing on a nil *Sized (a read whose result is not kept).
type Sized struct{ Bytes int }

// Add adds item's size.
func (z *Sized) Add(item map[string]types.AttributeValue) {
	if z != nil {
		z.Bytes += table.ItemSize(item)
	}
}

// Size is the bytes added (0 for a nil *Sized, which weighs nothing).
func (z *Sized) Size() int {
	if z == nil {
		return 0
	}
	return z.Bytes
}

// Cached returns the entry under key, or runs fill (once per process for concurrent
// misses) and keeps what it returns for the TTL. Errors are not kept. fill reports the
// bytes of the items it read through its *Sized (nil when nothing is kept).
//
// A fill shared by concurrent misses runs with the context of the first, without its
// cancellation (the SDK's attempt timeouts bound it): one caller leaving does not fail the
// others. Its DynamoDB calls are counted in that first request's cost.
func Cached[T any](ctx context.Context, c *Cache, key string, fill func(context.Context, *Sized) (T, error)) (T, error) {
	ctx = WithCacheFill(ctx, key) // an observed fill's calls say which entry they fill
	if c == nil {
		return fill(ctx, nil)
	}
	if v, ok := c.lru.Get(key); ok {
		return v.(T), nil
	}
	gen := c.Generation()
	ch := c.fills.DoChan(key+"@"+strconv.FormatUint(gen, 10), func() (any, error) {
		z := &Sized{}
		v, err := fill(context.WithoutCancel(ctx), z)
		if err != nil {
			return nil, err
		}
		c.AddIfCurrent(gen, key, v, z.Bytes)
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

// CardKey is the key of an event with its card.
func CardKey(event string) string { return "card|" + event }

// LeaderboardKey is the key of the first page of first rows of an event's leaderboard,
// with or without the rows' picks.
func LeaderboardKey(event string, first int, picks bool) string {
	k := "lb|" + event + "|" + strconv.Itoa(first)
	if !picks {
		k += "|rows"
	}
	return k
}

// StandingsKey is the key of the first page of first rows of a season's standings.
func StandingsKey(season, first int) string {
	return "st|" + strconv.Itoa(season) + "|" + strconv.Itoa(first)
}

// RankTableKey is the key of an event's rank table (event set) or a season's.
func RankTableKey(event string, season int) string {
	if event != "" {
		return "rk|e|" + event
	}
	return "rk|s|" + strconv.Itoa(season)
}

// Get returns the entry under key (none without a cache).
func (c *Cache) Get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	return c.lru.Get(key)
}

// Generation is the cache's generation: what a fill started now passes to AddIfCurrent.
func (c *Cache) Generation() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// AddIfCurrent keeps v under key unless entries were dropped since generation gen began
// (v may then predate the write that dropped them); itemBytes weighs it (as in Cached).
func (c *Cache) AddIfCurrent(gen uint64, key string, v any, itemBytes int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.lru.Add(key, v, bytecache.EntryOverhead+len(key)+BytesPerItemByte*itemBytes)
	}
}

// remove drops the entries whose key match reports true, and keeps every fill in flight
// from storing what it read.
func (c *Cache) remove(match func(key string) bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.lru.Remove(match)
}

// ForgetEvent drops what the cache holds of an event (its card and leaderboard pages):
// the store changed it.
func (c *Cache) ForgetEvent(event string) {
	card, lb := CardKey(event), "lb|"+event+"|"
	c.remove(func(k string) bool { return k == card || strings.HasPrefix(k, lb) })
}

// ForgetSeason drops what the cache holds of a season's standings: the store changed them.
func (c *Cache) ForgetSeason(season int) {
	st := "st|" + strconv.Itoa(season) + "|"
	c.remove(func(k string) bool { return strings.HasPrefix(k, st) })
}

// ForgetRanks drops the cached rank tables of an event and its season.
func (c *Cache) ForgetRanks(event string, season int) {
	ev, se := RankTableKey(event, 0), RankTableKey("", season)
	c.remove(func(k string) bool { return k == ev || k == se })
}

// ForgetPlayerPages drops every leaderboard and standings page, and with ranks every rank
// table: a player's name or rows changed, and they may be on any of them. Renames and
// account deletions are rare; finding the pages that hold one player would cost more.
func (c *Cache) ForgetPlayerPages(ranks bool) {
	c.remove(func(k string) bool {
		return strings.HasPrefix(k, "lb|") || strings.HasPrefix(k, "st|") || (ranks && strings.HasPrefix(k, "rk|"))
	})
}
