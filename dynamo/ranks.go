package dynamo

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

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

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

// ranksUpdate is the transaction item applying d to the shard histogram at key (table.EventRanksKey
// or table.SeasonRanksKey); ok is false when d changes nothing (no item needed). The item needs
// no condition: it commits exactly when the score writes of its transaction do.
func (s *Store) ranksUpdate(key map[string]types.AttributeValue, d rankDelta) (item types.TransactWriteItem, ok bool, err error) {
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
		TableName: aws.String(s.db.Name), Key: key, UpdateExpression: expr.Update(),
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

// summarizeRanks writes the rank tables of an event and of its season from their shard
// histograms (the event has eventShards shards, the season seasonShards): one consistent
// BatchGetItem of the histograms and the two tables, then one conditional PutItem per table
// not already built from those changes. A table records the sum of the shards' revs it was
// built from and is only written over one built from fewer changes, so two runs completing
// at once cannot leave the older sum. Scoring's completing call runs it.
func (s *Store) summarizeRanks(ctx context.Context, eid table.EventID, eventShards, season, seasonShards int) error {
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
	err := s.db.BatchGet(ctx, keys, true, func(item map[string]types.AttributeValue) error {
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
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(s.db.Name), Item: item, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		})
		if err != nil && !ddb.IsConditionFailed(err) { // failed: a table of more changes is there
			return fmt.Errorf("dynamo: summarize ranks %s: %w", eid, err)
		}
	}
	s.cache.ForgetRanks(string(eid), season)
	return nil
}

// rankRef names a rank table: an event's (event set) or a season's.
type rankRef struct {
	event  table.EventID
	season int
}

func (r rankRef) key() map[string]types.AttributeValue {
	if r.event != "" {
		return table.EventRankTableKey(string(r.event))
	}
	return table.SeasonRankTableKey(r.season)
}

func (r rankRef) cacheKey() string { return ddb.RankTableKey(string(r.event), r.season) }

// rankTables returns the rank tables of refs (nil where there is none), from the read cache
// or with one eventually consistent BatchGetItem per 100 missing. Absent tables are cached
// too.
func (s *Store) rankTables(ctx context.Context, refs []rankRef) (map[rankRef]*domain.RankTable, error) {
	return s.rankTablesWith(ctx, refs, nil, nil)
}

// rankTablesWith is rankTables also reading the items at extra (passed to fn) in the same
// BatchGetItems; with extra keys, every read is strongly consistent (extra decides
// something: visibility.go).
func (s *Store) rankTablesWith(ctx context.Context, refs []rankRef, extra []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) (map[rankRef]*domain.RankTable, error) {
	out := make(map[rankRef]*domain.RankTable, len(refs))
	var missing []rankRef
	for _, r := range refs {
		if _, done := out[r]; done {
			continue
		}
		if v, ok := s.cache.Get(r.cacheKey()); ok {
			out[r] = v.(*domain.RankTable)
			continue
		}
		out[r] = nil
		missing = append(missing, r)
	}
	if len(missing) == 0 && len(extra) == 0 {
		return out, nil
	}
	gen := s.cache.Generation()
	keys := make([]map[string]types.AttributeValue, len(missing), len(missing)+len(extra))
	byPK := map[string]rankRef{}
	for i, r := range missing {
		keys[i] = r.key()
		byPK[keys[i][table.AttrPK].(*types.AttributeValueMemberS).Value] = r
	}
	keys = append(keys, extra...)
	sizes := map[rankRef]int{}
	err := s.db.BatchGet(ctx, keys, len(extra) > 0, func(item map[string]types.AttributeValue) error {
		pk, _ := item[table.AttrPK].(*types.AttributeValueMemberS)
		r, ok := byPK[pk.Value]
		if !ok && fn != nil && table.ItemType(item) != table.TypeRankTable {
			return fn(item)
		}
		b, _ := item["table"].(*types.AttributeValueMemberB)
		if !ok || b == nil {
			return fmt.Errorf("unexpected rank table item")
		}
		t, err := table.DecodeRankTable(b.Value)
		if err != nil {
			return err
		}
		out[r], sizes[r] = t, len(b.Value)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dynamo: rank tables: %w", err)
	}
	for _, r := range missing {
		// Decoded, a table holds two ints (16 bytes) per entry where its item holds about
		// 3 to 6 bytes: twice the usual weight per item byte.
		s.cache.AddIfCurrent(gen, r.cacheKey(), out[r], 2*sizes[r])
	}
	return out, nil
}

// fillPredictionRanks sets the rank of every scored prediction in ps from its event's rank
// table (left nil where the event has none).
func (s *Store) fillPredictionRanks(ctx context.Context, ps []domain.Prediction, standings []domain.Standing) error {
	return s.fillRanksWith(ctx, ps, standings, nil, nil)
}

// fillRanksWith is fillPredictionRanks also reading the items at extra, as rankTablesWith.
func (s *Store) fillRanksWith(ctx context.Context, ps []domain.Prediction, standings []domain.Standing, extra []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) error {
	var refs []rankRef
	for _, p := range ps {
		if p.Points != nil {
			refs = append(refs, rankRef{event: table.EventID(p.EventID)})
		}
	}
	for _, st := range standings {
		refs = append(refs, rankRef{season: st.Season})
	}
	if len(refs) == 0 && len(extra) == 0 {
		return nil
	}
	tables, err := s.rankTablesWith(ctx, refs, extra, fn)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if t := tables[rankRef{event: table.EventID(p.EventID)}]; t != nil && p.Points != nil {
			r := t.Rank(*p.Points)
			ps[i].Rank = &r
		}
	}
	for i, st := range standings {
		if t := tables[rankRef{season: st.Season}]; t != nil {
			r := t.Rank(st.Points)
			standings[i].Rank = &r
		}
	}
	return nil
}
