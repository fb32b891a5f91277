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
// The rows are ranked and placed under the event's counted tie-breaker answer (see
// EventLeaderboard). Returns NOT_FOUND if there is no such event.
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
		page, err := s.firstLeaderboardPage(ctx, e, first, picks)
		return e, page, err
	}
	if shards, ok := s.known.get(eventShardsKey(eid)); !ok || shards == 1 {
		return s.readEventAndTop(ctx, eid, first, picks)
	}
	// The card and the page at once; the page is placed once the card (its answer) is in.
	var (
		e      domain.Event
		lp     leaderboardPage
		evRead = make(chan struct{})
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		defer close(evRead)
		e, err = s.cachedEvent(gctx, eid)
		return err
	})
	g.Go(func() (err error) {
		lp, err = s.cachedFirstPage(gctx, eid, first, picks, func() *int {
			<-evRead
			return e.CountedAnswer()
		})
		return err
	})
	if err := g.Wait(); err != nil {
		return domain.Event{}, none, err
	}
	if !e.LeaderboardVisible() {
		return e, none, nil
	}
	return e, s.placed(eid, lp, e.CountedAnswer()), nil
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
		page, err := s.firstLeaderboardPage(ctx, r.ev, first, picks)
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
		page, err := s.firstLeaderboardPage(ctx, ev, first, picks)
		return ev, page, err
	}
	lp, err := s.leaderboardPage(eid, row.Shards, top, first, domain.Placer{Answer: ev.CountedAnswer()})
	if err != nil {
		return ev, none, fmt.Errorf("dynamo: leaderboard %s: %w", id, err)
	}
	if !picks { // one Query reads the card and the rows whole: the picks are dropped here
		for i := range lp.page.Items {
			lp.page.Items[i].Picks = []domain.Pick{}
		}
	}
	s.cache.AddIfCurrent(gen, ddb.LeaderboardKey(string(eid), first, picks), lp, topBytes.Size())
	return ev, lp.page, nil
}

// firstLeaderboardPage is the first page of first rows of ev's leaderboard, whatever the
// event's state (callers check it shows one), placed under its counted answer: one Query per
// shard, or the read cache (cachedFirstPage).
func (s *Store) firstLeaderboardPage(ctx context.Context, ev domain.Event, first int, picks bool) (domain.Page[domain.Prediction], error) {
	eid := table.EventID(ev.ID)
	answer := ev.CountedAnswer()
	lp, err := s.cachedFirstPage(ctx, eid, first, picks, func() *int { return answer })
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	return s.placed(eid, lp, answer), nil
}

// cachedFirstPage is the first page of first rows of an event's leaderboard, from the read
// cache (which keeps the page with picks and the page without apart) or one Query per shard,
// placed under the answer answer returns (the counted answer of the event as the caller has
// it; called once the rows are read). A reader whose event has another answer places the
// rows again (placed): a page is never shown in an order its event no longer has.
func (s *Store) cachedFirstPage(ctx context.Context, eid table.EventID, first int, picks bool, answer func() *int) (leaderboardPage, error) {
	return ddb.Cached(ctx, s.cache, ddb.LeaderboardKey(string(eid), first, picks), func(ctx context.Context, z *ddb.Sized) (leaderboardPage, error) {
		shards, err := s.eventShards(ctx, eid)
		if err != nil {
			return leaderboardPage{}, err
		}
		items, err := s.leaderboardItems(ctx, eid, shards, first, "", picks, z)
		if err != nil {
			return leaderboardPage{}, err
		}
		return s.leaderboardPage(eid, shards, items, first, domain.Placer{Answer: answer()})
	})
}

// EventLeaderboard returns the page of ev's leaderboard after cursor after (the first page
// when after is empty, kept by the read cache as in GetEventWithLeaderboard): one Query per
// shard (shardPage); without picks, rows without them as in GetEventWithLeaderboard. ev is
// the event as the caller read it (GetEvent): its counted tie-breaker answer
// (domain.Event.CountedAnswer) orders and places the rows (domain.Placer: rank by points,
// place by points and the tie-breaker, Prediction.Place set on every row), and the page
// is read in the order of the score keys, which is that order once the pass that counts the
// answer completed. It reads nothing of the event itself: callers check it shows a
// leaderboard. Returns BAD_USER_INPUT for a cursor not of this leaderboard, or of an order it
// no longer has (made before its answer counted, or under another answer).
func (s *Store) EventLeaderboard(ctx context.Context, ev domain.Event, first int, after string, picks bool) (domain.Page[domain.Prediction], error) {
	eid, err := table.ParseEventID(ev.ID)
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	if after == "" {
		return s.firstLeaderboardPage(ctx, ev, first, picks)
	}
	c, err := s.cursors.Decode(after, table.CursorLeaderboard, ev.ID)
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	if !sameAnswer(c.Answer, ev.CountedAnswer()) {
		return domain.Page[domain.Prediction]{}, errStaleOrder
	}
	position, err := c.ScoreKey()
	if err != nil {
		return domain.Page[domain.Prediction]{}, table.ErrBadCursor
	}
	items, err := s.leaderboardItems(ctx, eid, c.Shards, first, position, picks, nil)
	if err != nil {
		return domain.Page[domain.Prediction]{}, err
	}
	lp, err := s.leaderboardPage(eid, c.Shards, items, first, c.Placer())
	if err != nil {
		return domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: leaderboard %s: %w", eid, err)
	}
	return lp.page, nil
}

// errStaleOrder is the answer to a leaderboard cursor made under another order than the
// event's now.
var errStaleOrder = domain.BadInput("the order of this leaderboard changed since the cursor was made (its tie-breaker answer counts now, or changed): read it again from the first page")

// sameAnswer reports whether a and b are the same counted answer (both nil: none).
func sameAnswer(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// leaderboardPage is a page of a leaderboard with what placing its rows again takes.
type leaderboardPage struct {
	page domain.Page[domain.Prediction] // ranked and placed under answer
	// answer is the counted answer the page is placed under (nil: none, place = rank).
	answer *int
	// tiebreaks are the tie-break components of the rows' keys, shards the event's shard
	// count: a first page is placed again from them and its rows.
	tiebreaks []string
	shards    int
}

// leaderboardPage decodes items (predictions in score-key order, after pl's rows) into a
// page of at most first rows of the leaderboard of an event of shards shards, ranked and
// placed by pl.
func (s *Store) leaderboardPage(eid table.EventID, shards int, items []map[string]types.AttributeValue, first int, pl domain.Placer) (leaderboardPage, error) {
	lp := leaderboardPage{shards: shards}
	var rows []domain.Prediction
	for _, item := range items {
		var row table.PredictionRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return lp, err
		}
		if row.Points == nil {
			continue
		}
		if len(rows) == first {
			lp.page.HasNext = true
			break
		}
		p, err := row.ToDomain()
		if err != nil {
			return lp, err
		}
		_, tiebreak, _, err := table.ParseScoreSK(row.GSISK)
		if err != nil {
			return lp, err
		}
		rows = append(rows, p)
		lp.tiebreaks = append(lp.tiebreaks, tiebreak)
	}
	s.place(eid, &lp, rows, pl)
	return lp, nil
}

// place ranks and places rows (lp's, in score-key order), going on from pl, into lp's page
// with a cursor per row; rows are left as they are (a cached page's rows are shared).
func (s *Store) place(eid table.EventID, lp *leaderboardPage, rows []domain.Prediction, pl domain.Placer) {
	lp.answer = pl.Answer
	lp.page.Items = make([]domain.Prediction, len(rows))
	lp.page.Cursors = make([]string, len(rows))
	for i, p := range rows {
		rank, place := pl.Next(*p.Points, p.Tiebreaker)
		p.Rank, p.Place = &rank, &place
		lp.page.Items[i] = p
		lp.page.Cursors[i] = s.cursors.Encode(table.Cursor{Kind: table.CursorLeaderboard, Owner: string(eid), ID: p.User.ID,
			Points: *p.Points, Index: pl.Ranker.Index, Rank: rank, Shards: lp.shards,
			Tiebreak: lp.tiebreaks[i], Answer: pl.Answer, Place: place, Guess: guessUnder(pl.Answer, p.Tiebreaker)})
	}
}

// placed is the first page lp under answer, the event's counted answer: lp's page when it
// is placed under it, else its rows placed again.
func (s *Store) placed(eid table.EventID, lp leaderboardPage, answer *int) domain.Page[domain.Prediction] {
	if sameAnswer(lp.answer, answer) {
		return lp.page
	}
	s.place(eid, &lp, lp.page.Items, domain.Placer{Answer: answer})
	return lp.page
}

// guessUnder is what a cursor keeps of a row's guess: the guess under a counted answer
// (the next page's first place depends on it), nothing otherwise.
func guessUnder(answer, guess *int) *int {
	if answer == nil {
		return nil
	}
	return guess
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
