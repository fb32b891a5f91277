package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

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
// or with one eventually consistent BatchGetItem per 100 missing; absent tables are cached
// too. It also reads the items at extra (passed to fn) in the same BatchGetItems; with
// extra keys, every read is strongly consistent (extra decides something: profilePage).
func (s *Store) rankTables(ctx context.Context, refs []rankRef, extra []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) (map[rankRef]*domain.RankTable, error) {
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

// fillRanks sets the rank of every scored prediction in ps and of every standing from
// their rank tables (left nil where there is none), reading the items at extra in the same
// calls and handing each to fn, as rankTables does.
func (s *Store) fillRanks(ctx context.Context, ps []domain.Prediction, standings []domain.Standing, extra []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) error {
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
	tables, err := s.rankTables(ctx, refs, extra, fn)
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
