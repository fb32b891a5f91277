package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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
	return pkKey(eventsPK, eventSK(eventID(event)))
}

// EventIndexPartition is an event's index partition: its card, and its predictions when
// it has one shard.
func EventIndexPartition(event string) string { return eventPK(eventID(event)) }

// EventShardPartitions are the index partitions of the predictions of an event of shards
// shards.
func EventShardPartitions(event string, shards int) []string {
	return eventShardPKs(eventID(event), shards)
}

// SeasonShardPartitions are the index partitions of the standings of a season of shards
// shards.
func SeasonShardPartitions(season, shards int) []string { return seasonShardPKs(season, shards) }

// SeasonIndexPartition is a season's index partition: its item, and its standings when it
// has one shard.
func SeasonIndexPartition(season int) string { return seasonPK(season) }

// UserPartition is a player's partition: profile, standings, predictions, memberships.
func UserPartition(user string) string { return userPK(userID(user)) }

// UserKey is the key of a player's profile item.
func UserKey(user string) map[string]types.AttributeValue {
	return pkKey(userPK(userID(user)), userSK)
}

// PredictionKey is the key of user's prediction for event.
func PredictionKey(user, event string) map[string]types.AttributeValue {
	return pkKey(userPK(userID(user)), eventSK(eventID(event)))
}

// StandingKey is the key of user's standing in season.
func StandingKey(user string, season int) map[string]types.AttributeValue {
	return pkKey(userPK(userID(user)), standingSK(season))
}

// EventRankTableKey and SeasonRankTableKey are the keys of the rank tables that ranks
// outside a page are read from.
func EventRankTableKey(event string) map[string]types.AttributeValue {
	return eventRankTableKey(eventID(event))
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
func LeaguePartition(league string) string { return leaguePK(leagueID(league)) }

// UserItem is a registered player's profile, as Register writes it.
func UserItem(user, name string, created time.Time) (map[string]types.AttributeValue, error) {
	return attributevalue.MarshalMap(userRow{keys: keys{PK: userPK(userID(user)), SK: userSK}, Type: typeUser, ID: user,
		Name: name, NameVersion: 1, CreatedAt: formatTime(created)})
}

// StandingItem is a player's standing in a season of shards shards, as scoring writes it.
func StandingItem(user, name string, season, shards, points, correct, eventsPlayed int) (map[string]types.AttributeValue, error) {
	uid := userID(user)
	sk, err := scoreSK(points, uid)
	if err != nil {
		return nil, err
	}
	return attributevalue.MarshalMap(standingRow{keys: keys{PK: userPK(uid), SK: standingSK(season)},
		indexKeys: indexKeys{GSIPK: seasonShardPK(season, shardOf(uid, shards), shards), GSISK: sk}, Type: typeStanding,
		UserID: user, UserName: name, UserNameVersion: 1, Season: season, Points: points, Correct: correct,
		EventsPlayed: eventsPlayed, Version: 1})
}

// PredictionItem is a player's unscored prediction for ev, an event of shards shards, as
// SubmitPrediction writes it (picks in card order). A prediction written this way is not
// counted on its lock copy: CountPredictions does that.
func PredictionItem(ev domain.Event, shards int, user, name string, picks []domain.Pick, updated time.Time) (map[string]types.AttributeValue, error) {
	uid, eid := userID(user), eventID(ev.ID)
	row := predictionRow{
		keys:      keys{PK: userPK(uid), SK: eventSK(eid)},
		indexKeys: indexKeys{GSIPK: eventShardPK(eid, shardOf(uid, shards), shards), GSISK: pendingSK(uid)},
		Type:      typePrediction, UserID: user, UserName: name, UserNameVersion: 1,
		EventID: ev.ID, EventName: ev.Name, EventStartsAt: formatTime(ev.StartsAt), Season: ev.Season(),
		UpdatedAt: formatTime(updated), Version: 1,
	}
	for _, p := range picks {
		row.Picks = append(row.Picks, pickRow{MatchID: p.MatchID, Team: p.Team})
	}
	return attributevalue.MarshalMap(row)
}

// CountPredictions adds the predictions of users, written with PredictionItem, to event's
// prediction counts, as their first submits would have: one update per lock copy
// concerned.
func (s *Store) CountPredictions(ctx context.Context, event string, users []string) error {
	row, err := s.getEventRow(ctx, eventID(event))
	if err != nil {
		return err
	}
	perCopy := map[int]int{}
	for _, u := range users {
		perCopy[lockCopy(userID(u), row.LockCopies)]++
	}
	for c, n := range perCopy {
		var tx txItems
		tx.add(s.txUpdateIf(pkKey(lockPK(eventID(event), c), lockSK), expression.Add(expression.Name("predictions"), expression.Value(n)),
			expression.AttributeExists(expression.Name(attrPK))))
		if tx.err != nil {
			return tx.err
		}
		if err := s.transact(ctx, tx.items); err != nil {
			return fmt.Errorf("dynamo: count predictions of %s: %w", event, err)
		}
	}
	return nil
}

// ScoringWrites returns the writes scoring makes for one prediction against ev's card: the
// prediction's update and, when its player's season standing moves, the standing's update
// (or put of a first standing). prediction and standing (nil: none) are the items as read;
// the event has eventShards shards, its season seasonShards. A scoring transaction adds its
// checkpoint, histograms and name checks to these: a benchmark's floor writes only these.
func ScoringWrites(table string, ev domain.Event, eventShards, seasonShards int, prediction, standing map[string]types.AttributeValue) ([]types.TransactWriteItem, error) {
	var row predictionRow
	if err := attributevalue.UnmarshalMap(prediction, &row); err != nil {
		return nil, err
	}
	j := newScoreJob(row, itemSize(prediction), ev)
	if standing != nil {
		j.standing = &standingRow{}
		if err := attributevalue.UnmarshalMap(standing, j.standing); err != nil {
			return nil, err
		}
	}
	r := &scoringRun{s: &Store{table: table}, ev: ev, shards: eventShards, seasonShards: seasonShards}
	pred, st, _, err := r.scoreWrites(j)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return []types.TransactWriteItem{pred}, nil
	}
	return []types.TransactWriteItem{pred, *st}, nil
}
