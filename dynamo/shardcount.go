package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// WithScoreShards sets how many shards (see package table) the events and seasons this
// store creates get: 1 (the default) to MaxShards. Existing events and seasons keep their
// own.
func WithScoreShards(n int) Option {
	if n < 1 || n > table.MaxShards {
		panic(fmt.Sprintf("dynamo: WithScoreShards(%d): want 1 to %d", n, table.MaxShards))
	}
	return func(s *Store) { s.shards = n }
}

// knownShards remembers the shard counts of the events and seasons the store has read, and
// the size of the cards it has read. A shard count never changes once written, so its
// entry never goes stale; a card size is only a hint (cardReadAhead).
type knownShards struct {
	mu sync.Mutex
	m  map[string]int
}

// maxKnownShards bounds knownShards; when full it starts over.
const maxKnownShards = 100_000

func (k *knownShards) get(key string) (int, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n, ok := k.m[key]
	return n, ok
}

func (k *knownShards) put(key string, n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m) >= maxKnownShards {
		k.m = map[string]int{}
	}
	k.m[key] = n
}

func eventShardsKey(e table.EventID) string { return "e|" + string(e) }
func seasonShardsKey(season int) string     { return "s|" + strconv.Itoa(season) }
func cardSizeKey(e table.EventID) string    { return "c|" + string(e) }
func (s *Store) noteEvent(row table.EventRow, matches int) {
	s.known.put(eventShardsKey(table.EventID(row.ID)), row.Shards)
	s.known.put(cardSizeKey(table.EventID(row.ID)), matches)
}

// eventShards returns event e's shard count: remembered, or read from its row (one
// eventually consistent GetItem: the count never changes). NOT_FOUND if there is no such
// event.
func (s *Store) eventShards(ctx context.Context, e table.EventID) (int, error) {
	if n, ok := s.known.get(eventShardsKey(e)); ok {
		return n, nil
	}
	row, err := ddb.Get[table.EventRow](ctx, s.db, table.Key(table.EventsPartition, table.EventSK(e)), false)
	if err != nil {
		return 0, fmt.Errorf("dynamo: get event %s: %w", e, err)
	}
	if row == nil {
		return 0, domain.Errorf(domain.CodeNotFound, "event %q not found", e)
	}
	s.known.put(eventShardsKey(e), row.Shards)
	return row.Shards, nil
}

// seasonShards returns a season's shard count: remembered, or read from its item (one
// GetItem, consistent if consistent: the count never changes, but an item just created may
// not show in an eventually consistent read). 0 when the season has no item: no event of
// it was ever created.
func (s *Store) seasonShards(ctx context.Context, season int, consistent bool) (int, error) {
	if n, ok := s.known.get(seasonShardsKey(season)); ok {
		return n, nil
	}
	row, err := ddb.Get[table.SeasonRow](ctx, s.db, table.SeasonKey(season), consistent)
	if err != nil {
		return 0, fmt.Errorf("dynamo: get season %d: %w", season, err)
	}
	if row == nil {
		return 0, nil
	}
	s.known.put(seasonShardsKey(season), row.Shards)
	return row.Shards, nil
}

// ensureSeason records a season's shard count, the store's setting, unless it has one:
// one conditional PutItem (a season keeps the count its first event gave it).
func (s *Store) ensureSeason(ctx context.Context, season int) error {
	if _, ok := s.known.get(seasonShardsKey(season)); ok {
		return nil
	}
	put, err := s.db.Put(table.NewSeasonRow(season, s.shards), table.NotExists())
	if err != nil {
		return fmt.Errorf("dynamo: create season %d: %w", season, err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: put.Put.TableName, Item: put.Put.Item,
		ConditionExpression: put.Put.ConditionExpression, ExpressionAttributeNames: put.Put.ExpressionAttributeNames,
	})
	if err != nil && !ddb.IsConditionFailed(err) {
		return fmt.Errorf("dynamo: create season %d: %w", season, err)
	}
	return nil
}
