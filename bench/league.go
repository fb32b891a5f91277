package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

// Event roles in the league. Sizes are predictions per event.
const (
	roleFiller   = "filler"   // past, scored while loading (Scale.Background predictions, default 50)
	roleScored   = "scored"   // past; scored while loading (smallest size) or by screen 7
	roleFloor    = "floor"    // past, copy of a scored-by-screen-7 event for the bare scoring floor
	roleUpcoming = "upcoming" // open for picks, with predictions (screen 2)
	roleSubmit   = "submit"   // open for picks, no predictions (screen 6)
	roleOpen     = "open"     // open for picks (Scale.Background predictions, default 10)
)

// leagueEvent is one event of the league and what the loader puts in it.
type leagueEvent struct {
	role     string
	size     int // predictions: players p00000 … p(size-1)
	copy     int // which floor copy (0, 1)
	name     string
	id       string
	startsAt time.Time
	spec     []domain.MatchSpec
	matches  []domain.Match // as created (ids)
	results  bool           // results entered (past events)
	scored   bool           // scored while loading
}

func (e *leagueEvent) past() bool { return e.results }

// cardIndex is the index of e's card in cardSpec, e being the k-th event.
func (e *leagueEvent) cardIndex(k int) int {
	if e.role == roleUpcoming || e.role == roleScored || e.role == roleFloor {
		return sharedCard
	}
	return k
}

// league is the data set: one season of 20 events of 8–12 matches (14 past, 6 open),
// players with a user item and a season standing each, and predictions per event by role.
type league struct {
	season  int
	now     time.Time
	players int
	sizes   []int
	events  []*leagueEvent // oldest first
}

const (
	pastEvents = 14
	fillerSize = 50 // default predictions of a filler event
	openSize   = 10 // default predictions of an open event
	sharedCard = 2  // cardSpec(2): 10 matches
)

func playerID(i int) string   { return fmt.Sprintf("p%05d", i) }
func playerName(i int) string { return fmt.Sprintf("Player %05d", i) }

// newLeague lays out the league. sizes are the predictions-per-event sizes (ascending, the
// largest at most players); background, if not 0, is the number of predictions of every
// filler and open event (the events no screen measures); now is the clock of the store
// and the server.
func newLeague(now time.Time, players int, sizes []int, background int) *league {
	filler, openN := fillerSize, openSize
	if background > 0 {
		filler, openN = background, background
	}
	l := &league{season: now.Year(), now: now, players: players, sizes: sizes}
	small := sizes[0]
	// 14 past events, oldest first: fillers, the small scored event, then for every other
	// size the event screen 7 scores between two identical copies for the floor (one run
	// before the stack's, one after).
	var past []*leagueEvent
	for k := range pastEvents - 1 - 3*len(sizes[1:]) {
		past = append(past, &leagueEvent{role: roleFiller, size: filler, name: fmt.Sprintf("Fight Night %d", k+1), scored: true})
	}
	past = append(past, &leagueEvent{role: roleScored, size: small, name: fmt.Sprintf("Scored %05d", small), scored: true})
	for _, n := range sizes[1:] {
		// Names of one length: they are copied onto every prediction.
		past = append(past,
			&leagueEvent{role: roleFloor, size: n, name: fmt.Sprintf("FloorA %05d", n)},
			&leagueEvent{role: roleScored, size: n, name: fmt.Sprintf("Scored %05d", n)},
			&leagueEvent{role: roleFloor, size: n, copy: 1, name: fmt.Sprintf("FloorB %05d", n)},
		)
	}
	first := time.Date(l.season, 1, 4, 19, 0, 0, 0, time.UTC)
	for k, e := range past {
		e.startsAt = first.AddDate(0, 0, 12*k)
		e.results = true
	}
	// 6 open events, from 4 days after now.
	open := []*leagueEvent{
		{role: roleUpcoming, size: small, name: fmt.Sprintf("Upcoming %05d", small)},
		{role: roleSubmit, size: 0, name: "Submit Night"},
		{role: roleOpen, size: openN, name: "Open Night"},
	}
	for _, s := range sizes[1:] {
		open = append(open, &leagueEvent{role: roleUpcoming, size: s, name: fmt.Sprintf("Upcoming %05d", s)})
	}
	for len(open) < 6 {
		open = append(open, &leagueEvent{role: roleOpen, size: openN, name: fmt.Sprintf("Open Night %d", len(open))})
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 19, 0, 0, 0, time.UTC).AddDate(0, 0, 4)
	for k, e := range open {
		e.startsAt = day.AddDate(0, 0, 7*k)
	}
	l.events = append(past, open...)
	for k, e := range l.events {
		// Events compared across sizes (screens 2, 3, 7) share one card, so that their
		// items have the same sizes and only the number of predictions differs.
		e.spec = cardSpec(e.cardIndex(k))
		if !e.startsAt.After(now) && !e.results || e.startsAt.After(now) && e.results || e.startsAt.Year() != l.season {
			panic(fmt.Sprintf("bench: event %q at %s does not fit the league around %s", e.name, e.startsAt, now))
		}
	}
	return l
}

// event returns the event of role and size (the first floor copy for roleFloor).
func (l *league) event(role string, size int) *leagueEvent { return l.eventCopy(role, size, 0) }

// eventCopy returns the event of role and size, copy n.
func (l *league) eventCopy(role string, size, n int) *leagueEvent {
	for _, e := range l.events {
		if e.role == role && e.size == size && e.copy == n {
			return e
		}
	}
	panic(fmt.Sprintf("bench: no %s event of size %d (copy %d)", role, size, n))
}

func (l *league) predictions() int {
	n := 0
	for _, e := range l.events {
		n += e.size
	}
	return n
}

// cardSpec is the card of the k-th event: 8–12 matches of 2–4 teams, tag teams with
// names, championships on some.
func cardSpec(k int) []domain.MatchSpec {
	n := 8 + k%5
	ms := make([]domain.MatchSpec, n)
	for i := range ms {
		teams := 2
		switch {
		case i%6 == 5:
			teams = 4
		case i%4 == 3:
			teams = 3
		}
		m := domain.MatchSpec{Name: fmt.Sprintf("Match %d", i+1), Points: 5 * (1 + i%5), Preshow: i == 0}
		if i == n-1 || i%4 == 0 {
			m.Name = "Championship Match"
			m.Championships = []string{fmt.Sprintf("Title %d", i%3+1)}
		}
		for t := range teams {
			team := domain.Team{Members: []string{fmt.Sprintf("Wrestler %d-%d-%d", k, i, t)}, Champion: t == 0 && len(m.Championships) > 0}
			if i%3 == 1 {
				name := fmt.Sprintf("Team %d-%d-%d", k, i, t)
				team.Name = &name
				team.Members = append(team.Members, fmt.Sprintf("Partner %d-%d-%d", k, i, t))
			}
			m.Teams = append(m.Teams, team)
		}
		ms[i] = m
	}
	return ms
}

// result is the result of match i of event k: mostly wins, a draw now and then.
func result(k, i, teams int) domain.MatchResult {
	if i%9 == 4 {
		return domain.MatchResult{Outcome: domain.OutcomeDraw}
	}
	w := (i*5 + k) % teams
	return domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &w}
}

// pick is player p's team for match i of event k: spread so that scores vary.
func pick(p, i, k, teams int) int {
	x := uint32(p)*2654435761 ^ uint32(i)*40503 ^ uint32(k)*97
	x ^= x >> 13
	return int(x % uint32(teams))
}

// predictionFor is player p's unscored prediction for e, as the store writes it.
func (l *league) predictionFor(e *leagueEvent, k, p int, updated time.Time) predictionItem {
	uid := playerID(p)
	it := predictionItem{
		PK: userPK(uid), SK: eventSK(e.id), GSIPK: eventShardPK(e.id, scoreShard(uid)), GSISK: pendingSK(uid),
		Type: "prediction", UserID: uid, UserName: playerName(p), UserNameVersion: 1,
		EventID: e.id, EventName: e.name, EventStartsAt: e.startsAt.UTC().Format(timeLayout), Season: l.season,
		UpdatedAt: updated.UTC().Format(timeLayout), Version: 1, Counted: true,
	}
	for i, m := range e.matches {
		it.Picks = append(it.Picks, pickItem{MatchID: m.ID, Team: pick(p, i, e.cardIndex(k), len(m.Teams))})
	}
	return it
}

// loadStats says what loading cost.
type loadStats struct {
	Items        int     `json:"items"`
	BatchWrites  int     `json:"batchWriteCalls"`
	Seconds      float64 `json:"seconds"`
	ScoreSeconds float64 `json:"scoreSeconds"` // scoring the small events while loading
}

// load writes the league into e's table: events with their cards through the store
// (CreateEvent, SetResult), users, standings and predictions raw with concurrent
// BatchWriteItem calls, then scores the events meant to be scored already.
func (l *league) load(ctx context.Context, e *env) (loadStats, error) {
	var st loadStats
	began := time.Now()
	if err := e.store.EnsureTable(ctx); err != nil {
		return st, err
	}
	// Events and cards through the store, so their items are exactly the store's.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for k, ev := range l.events {
		g.Go(func() error {
			created, err := e.store.CreateEvent(gctx, domain.EventSpec{Name: ev.name, StartsAt: ev.startsAt, Matches: ev.spec})
			if err != nil {
				return fmt.Errorf("create %s: %w", ev.name, err)
			}
			ev.id, ev.matches = created.ID, created.Matches
			if !ev.results {
				return nil
			}
			for i, m := range created.Matches {
				r := result(ev.cardIndex(k), i, len(m.Teams))
				if ev.matches[i], err = e.store.SetResult(gctx, ev.id, m.ID, &r); err != nil {
					return fmt.Errorf("result %s/%d: %w", ev.name, i, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return st, fmt.Errorf("bench: load events: %w", err)
	}

	// Users, standings and predictions raw.
	items := make(chan map[string]types.AttributeValue, 256)
	var calls, written atomic.Int64
	g, gctx = errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(items)
		send := func(v any) error {
			item, err := attributevalue.MarshalMap(v)
			if err != nil {
				return err
			}
			select {
			case items <- item:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		created := l.now.AddDate(0, -6, 0).UTC().Format(timeLayout)
		for p := range l.players {
			uid := playerID(p)
			if err := send(userItem{PK: userPK(uid), SK: userSK, Type: "user", ID: uid, Name: playerName(p), NameVersion: 1, CreatedAt: created}); err != nil {
				return err
			}
			pts := (p * 37) % 500
			if err := send(standingItem{PK: userPK(uid), SK: seasonSK(l.season), GSIPK: seasonShardPK(l.season, scoreShard(uid)), GSISK: scoreSK(pts, uid),
				Type: "standing", UserID: uid, UserName: playerName(p), UserNameVersion: 1, Season: l.season,
				Points: pts, Correct: pts / 10, EventsPlayed: 10, Version: 1}); err != nil {
				return err
			}
		}
		for k, ev := range l.events {
			updated := ev.startsAt.Add(-48 * time.Hour)
			if updated.After(l.now) {
				updated = l.now.Add(-time.Hour)
			}
			for p := range ev.size {
				if err := send(l.predictionFor(ev, k, p, updated)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for range 8 {
		g.Go(func() error {
			n, c, err := batchWrite(gctx, e.db, e.table, items)
			written.Add(int64(n))
			calls.Add(int64(c))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return st, fmt.Errorf("bench: load items: %w", err)
	}
	st.Items, st.BatchWrites = int(written.Load()), int(calls.Load())
	// Every prediction counted on its player's lock copy, as a first submit does.
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, ev := range l.events {
		counts := map[int]int{}
		for p := range ev.size {
			counts[lockCopy(playerID(p))]++
		}
		for c, n := range counts {
			g.Go(func() error {
				_, err := e.db.UpdateItem(gctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(lockPK(ev.id, c)), attrSK: sv(lockSK)},
					UpdateExpression:          aws.String("ADD predictions :n"),
					ConditionExpression:       aws.String("attribute_exists(PK)"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: fmt.Sprint(n)}},
				})
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return st, fmt.Errorf("bench: count predictions: %w", err)
	}

	// Events meant to be scored already (small ones) are scored for real.
	scoreBegan := time.Now()
	for _, ev := range l.events {
		if !ev.scored {
			continue
		}
		// Scoring is budgeted per call (the admin command calls again until complete): on
		// a slow engine one call may not finish the event. Complete means every
		// prediction is scored (the shards' checkpoints count them); the calls' reports
		// may count fewer on a slow engine (a transaction that committed after its
		// attempt timed out is found done by the retry, not written again), and the
		// screens check what was scored (screen 3's leaderboard).
		for calls := 1; ; calls++ {
			rep, err := e.store.ScoreEvent(ctx, ev.id, false)
			if err != nil {
				return st, fmt.Errorf("bench: score %s: %w", ev.name, err)
			}
			if rep.Complete {
				break
			}
			if calls == 100 {
				return st, fmt.Errorf("bench: score %s: not complete after %d calls", ev.name, calls)
			}
		}
	}
	st.ScoreSeconds = time.Since(scoreBegan).Seconds()
	st.Seconds = time.Since(began).Seconds()
	return st, nil
}

// batchWrite writes the items it receives in BatchWriteItem calls of 25, retrying
// unprocessed items, until items is closed. It returns the items written and the calls.
func batchWrite(ctx context.Context, db *dynamodb.Client, table string, items <-chan map[string]types.AttributeValue) (int, int, error) {
	written, calls := 0, 0
	buf := make([]types.WriteRequest, 0, 25)
	flush := func() error {
		req := map[string][]types.WriteRequest{table: buf}
		for attempt := 0; len(req[table]) > 0; attempt++ {
			if attempt > 0 {
				time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
			}
			if attempt == 20 {
				return fmt.Errorf("batch write: %d items still unprocessed", len(req[table]))
			}
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			calls++
			if err != nil {
				return fmt.Errorf("batch write: %w", err)
			}
			written += len(req[table]) - len(out.UnprocessedItems[table])
			req = out.UnprocessedItems
		}
		buf = buf[:0]
		return nil
	}
	for item := range items {
		buf = append(buf, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		if len(buf) == 25 {
			if err := flush(); err != nil {
				return written, calls, err
			}
		}
	}
	if len(buf) > 0 {
		if err := flush(); err != nil {
			return written, calls, err
		}
	}
	return written, calls, ctx.Err()
}
