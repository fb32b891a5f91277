package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// cardReadAhead is how many matches the card is taken to have when the card and the top of
// its leaderboard are read with one Query and the store has not read the card before: a
// larger card costs that Query a second page, a smaller one a few rows read for nothing.
const cardReadAhead = 12

// GetEventWithLeaderboard returns an event with its card and the first page of its
// leaderboard, empty unless the event has one (domain.Event.LeaderboardVisible: SCORED,
// or BROADCAST after a complete live scoring pass). With one shard (or when the store does
// not know the event yet) the card and the top of the leaderboard are one Query of the
// event's index partition (readEventAndTop); with more, the card's Query and the shards'
// Queries at once (shardPage), one round trip. With the read cache on, the card and
// the page are kept apart (the card under GetEvent's entry) and each may be up to its TTL
// old; a cached card without a leaderboard costs nothing more. Without picks the page's
// rows are returned without their picks (Picks empty): the caller does not show them.
// Returns NOT_FOUND if there is no such event.
func (s *Store) GetEventWithLeaderboard(ctx context.Context, id string, first int, picks bool) (domain.Event, domain.Page[domain.Prediction], error) {
	var none domain.Page[domain.Prediction]
	eid, err := table.ParseEventID(id)
	if err != nil {
		return domain.Event{}, none, err
	}
	if v, ok := s.cache.Get(ddb.CardKey(string(eid))); ok {
		e := v.(domain.Event)
		if !e.LeaderboardVisible() {
			return e, none, nil
		}
		page, err := s.firstLeaderboardPage(ctx, eid, first, picks)
		return e, page, err
	}
	if shards, ok := s.known.get(eventShardsKey(eid)); !ok || shards == 1 {
		return s.readEventAndTop(ctx, eid, first, picks)
	}
	var e domain.Event
	var page domain.Page[domain.Prediction]
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		e, err = s.cachedEvent(gctx, eid)
		return err
	})
	g.Go(func() (err error) {
		page, err = s.firstLeaderboardPage(gctx, eid, first, picks)
		return err
	})
	if err := g.Wait(); err != nil {
		return domain.Event{}, none, err
	}
	if !e.LeaderboardVisible() {
		return e, none, nil
	}
	return e, page, nil
}

// readEventAndTop reads an event's card and the top first rows of its leaderboard with one
// Query of the event's index partition (GSI_SK from "CARD#" to the last score key): with one
// shard the scored predictions follow the card there. The read cache keeps the card, and
// the page when the event shows a leaderboard. An event of more shards has none of its rows
// there: its page is read from its shards after (once per process: the store remembers its
// shard count). When the index shows the card half updated, the card is read from the table.
func (s *Store) readEventAndTop(ctx context.Context, eid table.EventID, first int, picks bool) (domain.Event, domain.Page[domain.Prediction], error) {
	var none domain.Page[domain.Prediction]
	id := string(eid)
	gen := s.cache.Generation()
	ahead, ok := s.known.get(cardSizeKey(eid))
	if !ok {
		ahead = cardReadAhead
	}
	q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(table.EventPK(eid))).
		And(expression.Key(table.AttrGSISK).Between(expression.Value(table.CardFirst), expression.Value(table.ScoreLast))), 1+ahead+first+1, true)
	if err != nil {
		return domain.Event{}, none, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	p := &eventPartition{}
	var top []map[string]types.AttributeValue
	var cardBytes, topBytes *ddb.Sized // weighed only for the read cache (itemSize is not cheap)
	if s.cache != nil {
		cardBytes, topBytes = &ddb.Sized{}, &ddb.Sized{}
	}
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		if strings.HasPrefix(table.ItemString(item, table.AttrGSISK), table.ScoreFirst) {
			topBytes.Add(item)
			top = append(top, item)
			return len(top) <= first, nil
		}
		cardBytes.Add(item)
		return true, p.add(item)
	})
	if err != nil {
		return domain.Event{}, none, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	ev, current, err := p.toEvent(id)
	if !current {
		r, err := s.readCard(ctx, id)
		if err != nil || !r.ev.LeaderboardVisible() {
			return r.ev, none, err
		}
		page, err := s.firstLeaderboardPage(ctx, eid, first, picks)
		return r.ev, page, err
	}
	if err != nil {
		return ev, none, err
	}
	row := *p.event
	s.noteEvent(row, len(ev.Matches))
	s.cache.AddIfCurrent(gen, ddb.CardKey(string(eid)), ev, cardBytes.Size())
	if !ev.LeaderboardVisible() {
		return ev, none, nil
	}
	if row.Shards > 1 {
		page, err := s.firstLeaderboardPage(ctx, eid, first, picks)
		return ev, page, err
	}
	page, err := s.leaderboardPage(eid, row.Shards, top, first, domain.Ranker{})
	if err != nil {
		return ev, none, fmt.Errorf("dynamo: leaderboard %s: %w", id, err)
	}
	if !picks {
		for i := range page.Items {
			page.Items[i].Picks = []domain.Pick{}
		}
	}
	s.cache.AddIfCurrent(gen, ddb.LeaderboardKey(string(eid), first, picks), page, topBytes.Size())
	return ev, page, nil
}

// firstLeaderboardPage is the first page of first rows of an event's leaderboard, whatever
// the event's state (callers check it shows one): one Query per shard, or the read cache
// (which keeps the page with picks and the page without apart).
func (s *Store) firstLeaderboardPage(ctx context.Context, eid table.EventID, first int, picks bool) (domain.Page[domain.Prediction], error) {
	return ddb.Cached(ctx, s.cache, ddb.LeaderboardKey(string(eid), first, picks), func(ctx context.Context, z *ddb.Sized) (domain.Page[domain.Prediction], error) {
		shards, err := s.eventShards(ctx, eid)
		if err != nil {
			return domain.Page[domain.Prediction]{}, err
		}
		return s.leaderboardShards(ctx, eid, shards, first, nil, picks, z)
	})
}

// Leaderboard returns the page of an event's leaderboard after cursor after (the first page
// when after is empty, kept by the read cache as in GetEventWithLeaderboard): one Query per
// shard (shardPage); without picks, rows without them as in GetEventWithLeaderboard.
// It does not read the event: callers check it shows a leaderboard.
func (s *Store) Leaderboard(ctx context.Context, id string, first int, after string, picks bool) (domain.Page[domain.Prediction], error) {
	eid, err := table.ParseEventID(id)
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	if after == "" {
		return s.firstLeaderboardPage(ctx, eid, first, picks)
	}
	c, err := s.cursors.Decode(after, table.CursorLeaderboard, id)
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	return s.leaderboardShards(ctx, eid, c.Shards, first, &c, picks, nil)
}

// leaderboardPage ranks items (predictions in score-key order, after r's rows) into a page
// of at most first rows of the leaderboard of an event of shards shards.
func (s *Store) leaderboardPage(eid table.EventID, shards int, items []map[string]types.AttributeValue, first int, r domain.Ranker) (domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	for _, item := range items {
		var row table.PredictionRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return page, err
		}
		if row.Points == nil {
			continue
		}
		if len(page.Items) == first {
			page.HasNext = true
			break
		}
		p, err := row.ToDomain()
		if err != nil {
			return page, err
		}
		rank := r.Next(*p.Points)
		p.Rank = &rank
		page.Items = append(page.Items, p)
		page.Cursors = append(page.Cursors, s.cursors.Encode(table.Cursor{Kind: table.CursorLeaderboard, Owner: string(eid), ID: row.UserID,
			Points: r.Points, Index: r.Index, Rank: r.Rank, Shards: shards}))
	}
	return page, nil
}

// Standings returns a season's standings, highest points first (ties by user id), ranked.
// With the read cache on, the first page may be up to its TTL old.
func (s *Store) Standings(ctx context.Context, season, first int, after string) (domain.Page[domain.Standing], error) {
	if err := domain.ValidateSeason(season); err != nil {
		return domain.Page[domain.Standing]{}, err
	}
	if after != "" {
		return s.readStandingsPage(ctx, season, first, after, nil)
	}
	return ddb.Cached(ctx, s.cache, ddb.StandingsKey(season, first), func(ctx context.Context, z *ddb.Sized) (domain.Page[domain.Standing], error) {
		return s.readStandingsPage(ctx, season, first, "", z)
	})
}

func (s *Store) readStandingsPage(ctx context.Context, season, first int, after string, z *ddb.Sized) (domain.Page[domain.Standing], error) {
	if after != "" {
		c, err := s.cursors.Decode(after, table.CursorStandings, strconv.Itoa(season))
		if err != nil {
			return domain.Page[domain.Standing]{}, err
		}
		return s.standingsShards(ctx, season, c.Shards, first, &c, z)
	}
	if n, ok := s.known.get(seasonShardsKey(season)); ok && n > 1 {
		return s.standingsShards(ctx, season, n, first, nil, z)
	}
	// One shard, or not known yet: the season's item and the top of its standings are one
	// Query of its index partition (the item's sort key, "INFO", sorts first).
	q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(table.SeasonPK(season))).
		And(expression.Key(table.AttrGSISK).Between(expression.Value(table.SeasonInfo), expression.Value(table.ScoreLast))), first+2, true)
	if err != nil {
		return domain.Page[domain.Standing]{}, fmt.Errorf("dynamo: standings %d: %w", season, err)
	}
	var (
		info *table.SeasonRow
		top  []map[string]types.AttributeValue
	)
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		z.Add(item)
		if table.ItemType(item) == table.TypeSeason {
			info = &table.SeasonRow{}
			return true, attributevalue.UnmarshalMap(item, info)
		}
		top = append(top, item)
		return len(top) <= first, nil
	})
	if err != nil {
		return domain.Page[domain.Standing]{}, fmt.Errorf("dynamo: standings %d: %w", season, err)
	}
	if info != nil {
		s.known.put(seasonShardsKey(season), info.Shards)
		if info.Shards > 1 {
			return s.standingsShards(ctx, season, info.Shards, first, nil, z)
		}
	}
	// One shard (or no season item: no event of the season yet, and so no standing).
	return s.standingsPage(season, 1, top, first, domain.Ranker{})
}
