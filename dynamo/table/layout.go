package table

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// The table's layout for benchmarks and tools that make the store's calls bare (a
// benchmark's floor) or load data in bulk: keys, sort-key bounds and items exactly as the
// store builds them (keys.go, rows.go), so that nothing outside this package spells a key.
// None of it validates ids: callers pass ids the store would accept.

// Key attribute names.
const (
	AttrPK    = attrPK
	AttrSK    = attrSK
	AttrGSIPK = attrGSIPK
	AttrGSISK = attrGSISK
)

// Sort-key bounds: an event's card in its index partition is GSI_SK from CardFirst to
// CardLast; scored rows (predictions in an event's shards, standings in a season's) from
// ScoreFirst to ScoreLast; a season's item sorts first in its index partition, at
// SeasonInfo. Events are the partition EventsPartition, sort keys EventKeyPrefix + id.
const (
	CardFirst       = prefixCard
	CardLast        = cardUpper
	ScoreFirst      = prefixScore
	ScoreLast       = scoreUpper
	SeasonInfo      = seasonInfo
	EventsPartition = eventsPK
	EventKeyPrefix  = prefixEvent
)

// EventItemKey is the key of an event's item.
func EventItemKey(event string) map[string]types.AttributeValue {
	return Key(eventsPK, EventSK(EventID(event)))
}

// EventIndexPartition is an event's index partition: its card, and its predictions when
// it has one shard.
func EventIndexPartition(event string) string { return EventPK(EventID(event)) }

// EventShardPartitions are the index partitions of the predictions of an event of shards
// shards.
func EventShardPartitions(event string, shards int) []string {
	return EventShardPKs(EventID(event), shards)
}

// SeasonShardPartitions are the index partitions of the standings of a season of shards
// shards.
func SeasonShardPartitions(season, shards int) []string { return SeasonShardPKs(season, shards) }

// SeasonIndexPartition is a season's index partition: its item, and its standings when it
// has one shard.
func SeasonIndexPartition(season int) string { return SeasonPK(season) }

// UserPartition is a player's partition: profile, standings, predictions, memberships.
func UserPartition(user string) string { return UserPK(UserID(user)) }

// UserKey is the key of a player's profile item.
func UserKey(user string) map[string]types.AttributeValue {
	return Key(UserPK(UserID(user)), UserSK)
}

// PredictionKey is the key of user's prediction for event.
func PredictionKey(user, event string) map[string]types.AttributeValue {
	return Key(UserPK(UserID(user)), EventSK(EventID(event)))
}

// StandingKey is the key of user's standing in season.
func StandingKey(user string, season int) map[string]types.AttributeValue {
	return Key(UserPK(UserID(user)), StandingSK(season))
}

// EventRankTableKey and SeasonRankTableKey are the keys of the rank tables that ranks
// outside a page are read from.
func EventRankTableKey(event string) map[string]types.AttributeValue {
	return eventRankTableKey(EventID(event))
}
func SeasonRankTableKey(season int) map[string]types.AttributeValue {
	return seasonRankTableKey(season)
}

// LeaderboardRowAttrs are the attributes a leaderboard row is read with when its picks are
// not shown (a ranked page of an event of more than one shard).
func LeaderboardRowAttrs() []string { return slices.Clone(leaderboardRowAttrs) }

// ItemSize is an item's size as DynamoDB bills it (internal/capacity).
func ItemSize(item map[string]types.AttributeValue) int { return itemSize(item) }

// LeaguePartition is a league's partition: the league item and its member rows.
func LeaguePartition(league string) string { return LeaguePK(LeagueID(league)) }

// UserItem is a registered player's profile, as Register writes it.
func UserItem(user, name string, created time.Time) (map[string]types.AttributeValue, error) {
	return attributevalue.MarshalMap(UserRow{Keys: Keys{PK: UserPK(UserID(user)), SK: UserSK}, Type: TypeUser, ID: user,
		Name: name, NameVersion: 1, CreatedAt: FormatTime(created)})
}

// StandingItem is a player's standing in a season of shards shards, as scoring writes it.
func StandingItem(user, name string, season, shards, points, correct, eventsPlayed int) (map[string]types.AttributeValue, error) {
	uid := UserID(user)
	sk, err := ScoreSK(points, uid)
	if err != nil {
		return nil, err
	}
	return attributevalue.MarshalMap(StandingRow{Keys: Keys{PK: UserPK(uid), SK: StandingSK(season)},
		IndexKeys: IndexKeys{GSIPK: SeasonShardPK(season, uid.Shard(shards), shards), GSISK: sk}, Type: TypeStanding,
		UserID: user, UserName: name, UserNameVersion: 1, Season: season, Points: points, Correct: correct,
		EventsPlayed: eventsPlayed, Version: 1})
}

// PredictionItem is a player's unscored prediction with entry for ev, an event of shards
// shards, as SubmitPrediction writes it (picks in card order, methods, joker, guess). A
// prediction written this way is not counted on its lock copy: CountPredictions does that.
func PredictionItem(ev domain.Event, shards int, user, name string, entry domain.Entry, updated time.Time) (map[string]types.AttributeValue, error) {
	uid, eid := UserID(user), EventID(ev.ID)
	row := PredictionRow{
		Keys:      Keys{PK: UserPK(uid), SK: EventSK(eid)},
		IndexKeys: IndexKeys{GSIPK: EventShardPK(eid, uid.Shard(shards), shards), GSISK: PendingSK(uid)},
		Type:      TypePrediction, UserID: user, UserName: name, UserNameVersion: 1,
		EventID: ev.ID, EventName: ev.Name, EventStartsAt: FormatTime(ev.StartsAt), Season: ev.Season(),
		UpdatedAt: FormatTime(updated), Version: 1,
	}
	return attributevalue.MarshalMap(row.WithEntry(entry))
}

// KeyShards says how many shards the trailing "#NN" of a key of the sharded layout (see the
// package doc) counts over, for a table whose events and seasons all have shards shards
// (the recordings of bench/scale are made so): LockCopies(shards) for a lock copy's
// partition, shards for an event's or a season's other shard partitions (index partitions,
// scoring checkpoints, score histograms); 0 for a key that is not sharded. The model in
// bench/scale spreads recorded requests over the shards by shifting these numbers.
func KeyShards(pk, sk string, shards int) int {
	base, n, ok := shardSuffix(pk)
	if !ok {
		return 0
	}
	k := 0
	if rest, ok := strings.CutPrefix(base, prefixEvent); ok {
		if _, err := ParseEventID(rest); err == nil {
			k = shards
			if sk == LockSK {
				k = LockCopies(shards)
			}
		}
	} else if rest, ok := strings.CutPrefix(base, SeasonKeyPrefix); ok && len(rest) == 4 && allDigits(rest) {
		k = shards
	}
	if n >= k {
		return 0
	}
	return k
}

// shardSuffix splits a trailing "#NN" (two digits or more) off key.
func shardSuffix(key string) (string, int, bool) {
	i := strings.LastIndexByte(key, '#')
	if i < 0 || len(key)-i < 3 || !allDigits(key[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.Atoi(key[i+1:])
	return key[:i], n, err == nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
