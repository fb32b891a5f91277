// Package dynamo stores Pick'Em data in one DynamoDB table. It is the only package that
// knows keys, item layouts and the AWS SDK.
package dynamo

import (
	"time"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Store reads and writes Pick'Em data in one table.
type Store struct {
	// db is the store's table on its client.
	db  *ddb.Table
	now func() time.Time
	// scoringBudget bounds one ScoreEvent call (0: none); see WithScoringBudget.
	scoringBudget time.Duration
	cursorKeys    [][]byte
	cursors       *table.Cursors
	// scoringMargin is ScoringMargin (tests change it).
	scoringMargin time.Duration
	// cache is the read cache (WithReadCache); nil: none.
	cache *ddb.Cache
	// shards is how many shards the events and seasons this store creates get
	// (WithScoreShards; default 1).
	shards int
	// known remembers shard counts (shardcount.go).
	known knownShards
	// pace keeps scoring within each partition's throughput (pace.go).
	pace *pacer
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for lock checks and timestamps (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithCursorKeys sets the keys that sign page cursors: the first signs, every one verifies
// (to rotate, put a new key first and drop the old one once its cursors no longer matter).
// Each key should have at least table.CursorKeyMinLen random bytes. Without keys the store signs
// with a random key of its own, so its cursors only open pages on the same store: every
// instance serving one API must share its keys (in Lambda, PICKEM_CURSOR_KEYS).
func WithCursorKeys(keys ...[]byte) Option {
	return func(s *Store) { s.cursorKeys = append([][]byte(nil), keys...) }
}

// New returns a store over the table tableName on db. Every DynamoDB error that trying
// again later can cure (throttling, TransactionConflict, timeouts, resets, the request's
// deadline), once the client's own retries are spent, reaches the store's callers as
// UNAVAILABLE (ddb.NewTable).
func New(db ddb.API, tableName string, opts ...Option) *Store {
	s := &Store{db: ddb.NewTable(db, tableName), now: time.Now, scoringMargin: ScoringMargin, shards: 1, pace: newPacer(PartitionWriteUnits, PartitionReadUnits)}
	for _, o := range opts {
		o(s)
	}
	s.cursors = table.NewCursors(s.cursorKeys)
	return s
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

// Table returns the table name.
func (s *Store) Table() string { return s.db.Name }
