// Package dynamo is the Pick'Em store: the use cases the resolvers, the admin command and
// the servers call (Store), over one DynamoDB table. Its subpackages do the rest, and only
// what lies under dynamo/ knows the table:
//
//   - table: the layout — keys, items, their encodings; no call to DynamoDB;
//   - ddb: the SDK — client, retries, errors, cost, the calls on a table, the read cache;
//     no knowledge of keys or items;
//   - scoring: the scoring engine (ScoreEvent hands it a card read and checked here).
//
// Rules are decided by package domain (the lock, visibility, scoring arithmetic, ranks,
// scorability, the owner hand-over): the store calls it, reads consistently what a write
// depends on, and makes each write conditional on what was read.
package dynamo

import (
	"fmt"
	"time"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/leagues"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/dynamo/users"
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
	// known remembers shard counts (eventShards, seasonShards).
	known knownShards
	// pace keeps scoring within each partition's throughput (WithPartitionThroughput).
	pace *scoring.Pacer
	// scoring runs ScoreEvent's passes.
	scoring *scoring.Engine
	// leagues holds the league use cases.
	leagues *leagues.Leagues
	// accounts holds the use cases of players' accounts.
	accounts *users.Accounts
	// live is where the store publishes live messages (WithLive); nil: nowhere.
	live *live
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for lock checks and timestamps (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithCursorKeys sets the keys that sign page cursors: the first signs, every one verifies
// (to rotate, put a new key first and drop the old one once its cursors no longer matter).
// Each key should have at least table.CursorKeyMinLen random bytes. Without keys the store
// signs with a random key of its own, so its cursors only open pages on the same store:
// every instance serving one API must share its keys (in Lambda, PICKEM_CURSOR_KEYS).
func WithCursorKeys(keys ...[]byte) Option {
	return func(s *Store) { s.cursorKeys = append([][]byte(nil), keys...) }
}

// New returns a store over the table tableName on db. Every DynamoDB error that trying
// again later can cure (throttling, TransactionConflict, timeouts, resets, the request's
// deadline), once the client's own retries are spent, reaches the store's callers as
// UNAVAILABLE (ddb.NewTable).
func New(db ddb.API, tableName string, opts ...Option) *Store {
	s := &Store{db: ddb.NewTable(db, tableName), now: time.Now, scoringMargin: ScoringMargin, shards: 1, pace: scoring.NewPacer(scoring.PartitionWriteUnits, scoring.PartitionReadUnits)}
	for _, o := range opts {
		o(s)
	}
	s.cursors = table.NewCursors(s.cursorKeys)
	s.scoring = scoring.New(s.db, s.cache, s.pace, s.auditPut)
	s.leagues = leagues.New(s.db, s.now, s.cursors, s.auditPut)
	s.accounts = users.New(users.Config{DB: s.db, Cache: s.cache, Now: s.now, Leagues: s.leagues, Scoring: s.scoring,
		Audit: s.auditPut, EventRow: s.getEventRow, SeasonShards: s.seasonShardsFor})
	return s
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

// Table returns the table name.
func (s *Store) Table() string { return s.db.Name }

// WithPartitionThroughput sets the throughput of one partition, in write and read units a
// second, that scoring paces itself to (default scoring.PartitionWriteUnits and
// scoring.PartitionReadUnits):
// for a table whose partitions are known to take less, or tests that model such a table.
func WithPartitionThroughput(writeUnits, readUnits int) Option {
	if writeUnits < scoring.PaceBurstShare || readUnits < scoring.PaceBurstShare {
		panic(fmt.Sprintf("dynamo: WithPartitionThroughput(%d, %d): want at least %d units each", writeUnits, readUnits, scoring.PaceBurstShare))
	}
	return func(s *Store) { s.pace = scoring.NewPacer(writeUnits, readUnits) }
}
