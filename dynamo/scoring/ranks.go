package scoring

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Ranks outside a leaderboard page. A player's rank in an event (or a season) is 1 + the
// number of players with more points — ties share a rank, as on the pages (1, 2, 2, 4).
// Counting the rows above a player in the index would read up to every row of the list (a
// million at the top of a big event), so scoring keeps score histograms instead:
//
//   - Shard histograms (table.TypeRanks, at table.EventRanksKey and table.SeasonRanksKey):
//     for shard s of an event's predictions or of a season's standings, how many of the
//     shard's players have each points total (attributes p<points>), and rev, how many
//     times it changed. Scoring updates them in the transactions that write the
//     scores — a batch holds the players of one shard, so one ADD per histogram per
//     transaction (rankDelta) — so they always agree with the scores; a shard's histogram is
//     written by its shard's batches only, never a hot item.
//   - Rank tables (table.TypeRankTable, at table.EventRankTableKey and SeasonRankTableKey):
//     the shard histograms summed, as a compact sorted table (points, players), written when
//     a scoring run completes (SummarizeRanks). Reads use these: one small item per event or
//     season, kept by the read cache like the other public reads.
//
// So a rank is that of the last completed scoring run: after a correction, ranks move when
// the run that applies it completes; a season's ranks when the run of any of its events
// does. An event or season without a rank table (no scoring run of it has completed) shows
// no rank (null).

// rankDelta is what a batch of scoring writes does to one shard histogram: points →
// change in the number of players with those points.
type rankDelta map[int]int

// move records one player going from old to new points (nil: not counted, i.e. not scored
// before, or no longer).
func (d rankDelta) move(old, new *int) {
	if old != nil && new != nil && *old == *new {
		return
	}
	if old != nil {
		d[*old]--
	}
	if new != nil {
		d[*new]++
	}
}

// ranksUpdate is the transaction item applying d to the shard histogram at key
// (table.EventRanksKey or table.SeasonRanksKey); ok is false when d changes nothing (no
// item needed). The item needs no condition: it commits exactly when the score writes of
// its transaction do.
func (e *Engine) ranksUpdate(key map[string]types.AttributeValue, d rankDelta) (item types.TransactWriteItem, ok bool, err error) {
	upd := expression.Set(expression.Name(table.AttrType), expression.Value(table.TypeRanks)).
		Add(expression.Name("rev"), expression.Value(1))
	for _, points := range slices.Sorted(maps.Keys(d)) {
		if n := d[points]; n != 0 {
			upd = upd.Add(expression.Name(table.HistogramAttr(points)), expression.Value(n))
			ok = true
		}
	}
	if !ok {
		return item, false, nil
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return item, false, fmt.Errorf("dynamo: rank histogram update: %w", err)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(e.db.Name), Key: key, UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, true, nil
}

// histogram is shard histograms summed: points → players.
type histogram map[int]int

// addItem adds a shard histogram item's counts and returns its rev.
func (h histogram) addItem(item map[string]types.AttributeValue) (int, error) {
	rev := 0
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			continue
		}
		count, err := strconv.Atoi(n.Value)
		if err != nil {
			return 0, fmt.Errorf("rank histogram attribute %s: %w", name, err)
		}
		if name == "rev" {
			rev = count
		} else if points, ok := table.HistogramPoints(name); ok {
			h[points] += count
		}
	}
	return rev, nil
}

// SummarizeRanks writes the rank tables of an event and of its season from their shard
// histograms (the event has eventShards shards, the season seasonShards): one consistent
// BatchGetItem of the histograms and the two tables, then one conditional PutItem per table
// not already built from those changes. A table records the sum of the shards' revs it was
// built from and is only written over one built from fewer changes, so two runs completing
// at once cannot leave the older sum. Scoring's completing call runs it.
func (e *Engine) SummarizeRanks(ctx context.Context, eid table.EventID, eventShards, season, seasonShards int) error {
	type list struct {
		table    map[string]types.AttributeValue
		hist     histogram
		rev      int
		found    bool
		tableRev int // of the rank table as read (0: none)
	}
	event := &list{table: table.EventRankTableKey(string(eid)), hist: histogram{}}
	seasonList := &list{table: table.SeasonRankTableKey(season), hist: histogram{}}
	// The rank tables are read with the histograms (at most 2 × MaxShards + 2 keys, one
	// request): a table already built from these changes is not written again, so a
	// scoring call that confirms a scored event writes nothing.
	keys := []map[string]types.AttributeValue{event.table, seasonList.table}
	owner := map[string]*list{}
	for sh := range eventShards {
		keys = append(keys, table.EventRanksKey(eid, sh))
		owner[table.ShardPK(eid, sh)] = event
	}
	for sh := range seasonShards {
		keys = append(keys, table.SeasonRanksKey(season, sh))
		owner[table.SeasonShardItemPK(season, sh)] = seasonList
	}
	tables := map[string]*list{table.ItemString(event.table, table.AttrPK): event, table.ItemString(seasonList.table, table.AttrPK): seasonList}
	err := e.db.BatchGet(ctx, keys, true, func(item map[string]types.AttributeValue) error {
		pk := table.ItemString(item, table.AttrPK)
		if table.ItemType(item) == table.TypeRankTable {
			l := tables[pk]
			if l == nil {
				return fmt.Errorf("unexpected item %s", pk)
			}
			rev, _ := item["rev"].(*types.AttributeValueMemberN)
			if rev != nil {
				n, err := strconv.Atoi(rev.Value)
				if err != nil {
					return fmt.Errorf("rank table %s rev: %w", pk, err)
				}
				l.tableRev = n
			}
			return nil
		}
		l := owner[pk]
		if l == nil {
			return fmt.Errorf("unexpected item %s", pk)
		}
		rev, err := l.hist.addItem(item)
		l.rev += rev
		l.found = true
		return err
	})
	if err != nil {
		return fmt.Errorf("dynamo: summarize ranks %s: %w", eid, err)
	}
	for _, l := range []*list{event, seasonList} {
		if !l.found || l.tableRev >= l.rev {
			continue // nothing to sum, or the table holds these changes (or more) already
		}
		item := map[string]types.AttributeValue{
			table.AttrPK: l.table[table.AttrPK], table.AttrSK: l.table[table.AttrSK], table.AttrType: table.StringValue(table.TypeRankTable),
			// Never nil: a table emptied by deleted accounts is still a table (an empty B).
			"table": &types.AttributeValueMemberB{Value: append([]byte{}, table.EncodeRankTable(l.hist)...)},
			"rev":   &types.AttributeValueMemberN{Value: strconv.Itoa(l.rev)},
		}
		cond := expression.Name("rev").AttributeNotExists().Or(expression.Name("rev").LessThan(expression.Value(l.rev)))
		expr, err := expression.NewBuilder().WithCondition(cond).Build()
		if err != nil {
			return fmt.Errorf("dynamo: summarize ranks %s: %w", eid, err)
		}
		_, err = e.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(e.db.Name), Item: item, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		})
		if err != nil && !ddb.IsConditionFailed(err) { // failed: a table of more changes is there
			return fmt.Errorf("dynamo: summarize ranks %s: %w", eid, err)
		}
	}
	e.cache.ForgetRanks(string(eid), season)
	return nil
}
