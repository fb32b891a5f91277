package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// seasonsPerProfile is how many standings items a profile's first read expects before the
// predictions start; more only cost another page.
const seasonsPerProfile = 4

// ListEvents returns events newest first, of one season or (season nil) all seasons.
// One Query per page of DynamoDB results; it stops as soon as it has first+1 events.
func (s *Store) ListEvents(ctx context.Context, season *int, first int, after string) (domain.Page[domain.Event], error) {
	var page domain.Page[domain.Event]
	prefix, owner := table.EventKeyPrefix, "all"
	if season != nil {
		if err := domain.ValidateSeason(*season); err != nil {
			return page, err
		}
		prefix, owner = table.SeasonEventsPrefix(*season), strconv.Itoa(*season)
	}
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventsPartition)).
		And(expression.Key(table.AttrSK).BeginsWith(prefix)), first+1, false)
	if err != nil {
		return page, fmt.Errorf("dynamo: list events: %w", err)
	}
	if after != "" {
		c, err := s.cursors.Decode(after, table.CursorEvents, owner)
		if err != nil {
			return page, err
		}
		if !strings.HasPrefix(table.EventSK(table.EventID(c.ID)), prefix) { // forged: outside the season
			return page, domain.BadInput("invalid cursor for this list")
		}
		q.ExclusiveStartKey = table.Key(table.EventsPartition, table.EventSK(table.EventID(c.ID)))
	}
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		if len(page.Items) == first {
			page.HasNext = true
			return false, nil
		}
		var row table.EventRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return false, err
		}
		e, err := row.ToDomain()
		if err != nil {
			return false, err
		}
		page.Items = append(page.Items, e)
		page.Cursors = append(page.Cursors, s.cursors.Encode(table.Cursor{Kind: table.CursorEvents, Owner: owner, ID: e.ID}))
		return true, nil
	})
	if err != nil {
		return domain.Page[domain.Event]{}, fmt.Errorf("dynamo: list events: %w", err)
	}
	return page, nil
}

// eventPartition collects what one read of an event's card (its GSI partition's CARD#
// range) found.
type eventPartition struct {
	event   *table.EventRow
	matches []table.MatchRow
}

func (p *eventPartition) add(item map[string]types.AttributeValue) error {
	switch table.ItemType(item) {
	case table.TypeEvent:
		var row table.EventRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		p.event = &row
	case table.TypeMatch:
		var row table.MatchRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		p.matches = append(p.matches, row)
	}
	return nil
}

// readCardRange reads an event's card with q, to its end.
func (s *Store) readCardRange(ctx context.Context, q *dynamodb.QueryInput, z *ddb.Sized) (*eventPartition, error) {
	p := &eventPartition{}
	err := s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		z.Add(item)
		return true, p.add(item)
	})
	return p, err
}

// toEvent returns the event with its card in card order (the GSI sorts it), or NOT_FOUND.
// current is false when the index showed rows of two moments: an event row whose table.CardHash
// does not match the match rows read with it (the index gets a transaction's writes item
// by item), or match rows without their event row.
func (p *eventPartition) toEvent(id string) (ev domain.Event, current bool, err error) {
	if p.event == nil {
		return domain.Event{}, len(p.matches) == 0, domain.Errorf(domain.CodeNotFound, "event %q not found", id)
	}
	return table.CardOf(*p.event, p.matches)
}

// GetEvent returns an event with its card: one Query of the card's key range in the
// index, whose cost does not depend on the number of players. When that read shows the
// event row and the matches of two different moments (the index lags behind the table),
// the card is read again from the table with consistent reads (readCard): a card is never
// returned half old, half new. With the read cache on, the card may be up to its TTL old.
// Returns NOT_FOUND if there is no such event.
func (s *Store) GetEvent(ctx context.Context, id string) (domain.Event, error) {
	eid, err := table.ParseEventID(id)
	if err != nil {
		return domain.Event{}, err
	}
	return s.cachedEvent(ctx, eid)
}

// cachedEvent is GetEvent of a parsed id.
func (s *Store) cachedEvent(ctx context.Context, eid table.EventID) (domain.Event, error) {
	return ddb.Cached(ctx, s.cache, ddb.CardKey(string(eid)), func(ctx context.Context, z *ddb.Sized) (domain.Event, error) {
		return s.readEvent(ctx, eid, z)
	})
}

// readEvent is GetEvent without the cache.
func (s *Store) readEvent(ctx context.Context, eid table.EventID, z *ddb.Sized) (domain.Event, error) {
	ev, _, err := s.readEventRow(ctx, eid, z)
	return ev, err
}

// readEventRow is readEvent that also returns the event's row (its shard and lock-copy
// counts, which never change).
func (s *Store) readEventRow(ctx context.Context, eid table.EventID, z *ddb.Sized) (domain.Event, table.EventRow, error) {
	id := string(eid)
	q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(table.EventPK(eid))).
		And(expression.Key(table.AttrGSISK).Between(expression.Value(table.CardFirst), expression.Value(table.CardLast))), 0, true)
	if err != nil {
		return domain.Event{}, table.EventRow{}, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	p, err := s.readCardRange(ctx, q, z)
	if err != nil {
		return domain.Event{}, table.EventRow{}, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	ev, current, err := p.toEvent(id)
	if !current {
		r, err := s.readCard(ctx, id)
		return r.ev, r.row, err
	}
	if err != nil {
		return ev, table.EventRow{}, err
	}
	s.noteEvent(*p.event, len(ev.Matches))
	return ev, *p.event, nil
}

// cardReadAhead is how many matches the card is taken to have when the card and the top of
// its leaderboard are read with one Query and the store has not read the card before: a
// larger card costs that Query a second page, a smaller one a few rows read for nothing.
const cardReadAhead = 12

// GetEventWithLeaderboard returns an event with its card and the first page of its
// leaderboard, empty unless the event has one (domain.Event.LeaderboardVisible: SCORED,
// or BROADCAST after a complete live scoring pass). With one shard (or when the store does
// not know the event yet) the card and the top of the leaderboard are one Query of the
// event's index partition (readEventAndTop); with more, the card's Query and the shards'
// Queries at once (shardmerge.go), one round trip. With the read cache on, the card and
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
	cardBytes, topBytes := &ddb.Sized{}, &ddb.Sized{}
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
	s.cache.AddIfCurrent(gen, ddb.CardKey(string(eid)), ev, cardBytes.Bytes)
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
	s.cache.AddIfCurrent(gen, ddb.LeaderboardKey(string(eid), first, picks), page, topBytes.Bytes)
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
// shard (shardmerge.go); without picks, rows without them as in GetEventWithLeaderboard.
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

// GetPrediction returns a user's prediction for an event (one consistent GetItem), or
// NOT_FOUND. With withRank, a scored prediction carries its rank in the event when the
// event has a rank table (ranks.go; one more read, or none from the read cache).
func (s *Store) GetPrediction(ctx context.Context, user, event string, withRank bool) (domain.Prediction, error) {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return domain.Prediction{}, err
	}
	eid, err := table.ParseEventID(event)
	if err != nil {
		return domain.Prediction{}, err
	}
	row, err := ddb.Get[table.PredictionRow](ctx, s.db, table.Key(table.UserPK(uid), table.EventSK(eid)), true)
	if err != nil {
		return domain.Prediction{}, fmt.Errorf("dynamo: get prediction %s/%s: %w", user, event, err)
	}
	if row == nil {
		return domain.Prediction{}, domain.Errorf(domain.CodeNotFound, "no prediction of user %q for event %q", user, event)
	}
	p, err := row.ToDomain()
	if err != nil || !withRank {
		return p, err
	}
	ps := []domain.Prediction{p}
	if err := s.fillPredictionRanks(ctx, ps, nil); err != nil {
		return domain.Prediction{}, fmt.Errorf("dynamo: get prediction %s/%s: %w", user, event, err)
	}
	return ps[0], nil
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

// GetUser returns a user with their standings (newest season first) and the first page of
// their predictions (newest event first) from one descending Query of their partition.
// Predictions of events still open for picks are left out unless own (the caller is the
// user): others see them once the event has locked (profilePage: the rows of events
// dated today or later are read in the rank tables' BatchGetItem). Standings and scored
// predictions carry their ranks where their season or event has a rank table (ranks.go: one
// BatchGetItem of the tables not in the read cache). Returns NOT_FOUND if the user never
// registered nor played.
func (s *Store) GetUser(ctx context.Context, id string, first int, own bool) (domain.User, domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	uid, err := table.ParseUserID(id)
	if err != nil {
		return domain.User{}, page, err
	}
	// SK ≥ "EVENT#": the profile, standings and predictions, never the league rows
	// ("@…", keys.go) that sort below them.
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))).
		And(expression.Key(table.AttrSK).GreaterThanEqual(expression.Value(table.EventKeyPrefix))), 1+seasonsPerProfile+first+1, false)
	if err != nil {
		return domain.User{}, page, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	user := domain.User{ID: id, Standings: []domain.Standing{}}
	found := false
	pp := newProfilePage(s, id, first, own)
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		switch table.ItemType(item) {
		case table.TypeUser:
			var row table.UserRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			user.Name, found = row.Name, true
		case table.TypeStanding:
			var row table.StandingRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			user.Standings = append(user.Standings, row.ToDomain())
		case table.TypePrediction:
			return pp.add(item)
		}
		return true, nil
	})
	if err != nil {
		return domain.User{}, domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	if !found {
		return domain.User{}, domain.Page[domain.Prediction]{}, domain.Errorf(domain.CodeNotFound, "user %q not found", id)
	}
	if page, err = pp.resolve(ctx, user.Standings); err != nil {
		return domain.User{}, domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	return user, page, nil
}

// UserPredictions returns the page of a user's predictions (newest event first) after
// cursor after, ranked as in GetUser. Predictions of events still open for picks are left
// out unless own, as in GetUser.
func (s *Store) UserPredictions(ctx context.Context, id string, first int, after string, own bool) (domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	uid, err := table.ParseUserID(id)
	if err != nil {
		return page, err
	}
	c, err := s.cursors.Decode(after, table.CursorPredictions, id)
	if err != nil {
		return page, err
	}
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))).
		And(expression.Key(table.AttrSK).BeginsWith(table.EventKeyPrefix)), first+1, false)
	if err != nil {
		return page, fmt.Errorf("dynamo: user predictions %s: %w", id, err)
	}
	q.ExclusiveStartKey = table.Key(table.UserPK(uid), table.EventSK(table.EventID(c.ID)))
	pp := newProfilePage(s, id, first, own)
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		return pp.add(item)
	})
	if err == nil {
		page, err = pp.resolve(ctx, nil)
	}
	if err != nil {
		return domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: user predictions %s: %w", id, err)
	}
	return page, nil
}
