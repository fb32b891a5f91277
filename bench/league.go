package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/table"
)

// Event roles in a league. Sizes are predictions per event.
const (
	roleFiller    = "filler"    // past, scored while loading (Scale.Background predictions, default 50)
	roleScored    = "scored"    // past; scored while loading (smallest size) or by screen 7
	roleFloor     = "floor"     // past, copy of a scored-by-screen-7 event for the bare scoring floor
	roleBroadcast = "broadcast" // past (BROADCAST by date), no results (screen 2)
	roleUpcoming  = "upcoming"  // open for picks, with predictions (screen 2)
	roleSubmit    = "submit"    // open for picks, no predictions (screen 6)
	roleOpen      = "open"      // open for picks (Scale.Background predictions, default 10)
	// The events of the game's screens (2 and 3), using every game extra.
	roleGameScored = "game-scored" // past, scored while loading with its tie-breaker answer
	roleGameOpen   = "game-open"   // open for picks, with predictions
)

// leagueEvent is one event of a league and what the loader puts in it.
type leagueEvent struct {
	role     string
	size     int // predictions: players p00000 … p(size-1)
	copy     int // which floor copy (0, 1)
	name     string
	id       string
	startsAt time.Time
	spec     []domain.MatchSpec
	matches  []domain.Match // as created (ids)
	results  bool           // results entered
	scored   bool           // scored while loading
	ranked   bool           // scored by the store, which wrote its rank table
	// game: the event uses every game extra (gameSettings, method points on every other
	// match, results with a method, entries with methods, a joker and a guess, the
	// tie-breaker answer set with the results).
	game bool
}

// gameSettings are the settings of a game event: jokers, a perfect-card bonus of 25, a
// tie-breaker question; gameAnswer its answer.
func gameSettings() domain.EventSettings {
	q := "How many seconds will the main event last?"
	return domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: &q}
}

const gameAnswer = 600

// gameMethodPoints are the method points of match i of a game event's card (0: no method
// pick).
func gameMethodPoints(i int) int {
	if i%2 == 0 {
		return 5
	}
	return 0
}

// cardIndex is the index of e's card in cardSpec, e being the k-th event.
func (e *leagueEvent) cardIndex(k int) int {
	switch e.role {
	case roleUpcoming, roleScored, roleFloor, roleBroadcast, roleGameScored, roleGameOpen:
		return sharedCard
	}
	return k
}

// domainEvent is e as PredictionItem needs it.
func (e *leagueEvent) domainEvent() domain.Event {
	return domain.Event{ID: e.id, Name: e.name, StartsAt: e.startsAt}
}

// league is the data of one shard count: a season of past events of 8–12 matches (14 by
// default), 6 events open for picks (in the season of now, which may be a later one),
// standings of every player in the season, and predictions per event by role. Its events
// and its season are created by a store with WithScoreShards(shards). Leagues share the
// players.
type league struct {
	shards  int
	season  int
	now     time.Time
	players int
	sizes   []int
	events  []*leagueEvent // oldest first
}

const (
	pastEvents = 14 // by default
	fillerSize = 50 // default predictions of a filler event
	openSize   = 10 // default predictions of an open event
	sharedCard = 2  // cardSpec(2): 10 matches
)

// fillers is how many past events no screen measures a league of sizes has by default:
// the rest of 14 past events.
func fillers(sizes []int) int { return pastEvents - 2 - 3*len(sizes[1:]) }

func playerID(i int) string   { return fmt.Sprintf("p%05d", i) }
func playerName(i int) string { return fmt.Sprintf("Player %05d", i) }

// newLeague lays out the league of shards shards in season (a year up to now's) for sc:
// its players, its sizes (predictions per event measured, ascending, the largest at most
// players), its background (if not 0, the predictions of every event no screen measures)
// and its past fillers; now is the clock of the store and the server.
func newLeague(now time.Time, season, shards int, sc Scale, game bool) *league {
	filler, openN := fillerSize, openSize
	if sc.Background > 0 {
		filler, openN = sc.Background, sc.Background
	}
	sizes := sc.Sizes
	l := &league{shards: shards, season: season, now: now, players: sc.Players, sizes: sizes}
	small := sizes[0]
	// Names carry the shard count (event ids derive from names), and have one length
	// among the events compared across sizes: they are copied onto every prediction.
	tag := fmt.Sprintf("k%02d", shards)
	// Past events, oldest first: fillers, the BROADCAST event, the small scored event, then
	// for every other size the event screen 7 scores between two identical copies for the
	// floor (one run before the stack's, one after).
	n := fillers(sizes)
	if sc.PastFillers > 0 {
		n = sc.PastFillers
	}
	var past []*leagueEvent
	for k := range n {
		past = append(past, &leagueEvent{role: roleFiller, size: filler, name: fmt.Sprintf("Fight Night %d %s", k+1, tag), scored: true, results: true})
	}
	past = append(past,
		&leagueEvent{role: roleBroadcast, size: small, name: fmt.Sprintf("Live %05d %s", small, tag)},
		&leagueEvent{role: roleScored, size: small, name: fmt.Sprintf("Scored %05d %s", small, tag), scored: true, results: true},
		&leagueEvent{role: roleGameScored, size: small, name: fmt.Sprintf("Gamed %05d %s", small, tag), scored: true, results: true, game: true})
	for _, n := range sizes[1:] {
		past = append(past,
			&leagueEvent{role: roleFloor, size: n, name: fmt.Sprintf("FloorA %05d %s", n, tag), results: true, game: game},
			&leagueEvent{role: roleScored, size: n, name: fmt.Sprintf("Scored %05d %s", n, tag), results: true, game: game},
			&leagueEvent{role: roleFloor, size: n, copy: 1, name: fmt.Sprintf("FloorB %05d %s", n, tag), results: true, game: game},
		)
	}
	first := time.Date(season, 1, 4, 19, 0, 0, 0, time.UTC)
	for k, e := range past {
		e.startsAt = first.AddDate(0, 0, 12*k)
	}
	// 6 open events, from 4 days after now.
	open := []*leagueEvent{
		{role: roleUpcoming, size: small, name: fmt.Sprintf("Upcoming %05d %s", small, tag)},
		{role: roleGameOpen, size: small, name: fmt.Sprintf("Gameday %05d %s", small, tag), game: true},
		{role: roleSubmit, size: 0, name: "Submit Night " + tag},
		{role: roleOpen, size: openN, name: "Open Night " + tag},
	}
	for _, s := range sizes[1:] {
		open = append(open, &leagueEvent{role: roleUpcoming, size: s, name: fmt.Sprintf("Upcoming %05d %s", s, tag)})
	}
	for len(open) < 6 {
		open = append(open, &leagueEvent{role: roleOpen, size: openN, name: fmt.Sprintf("Open Night %d %s", len(open), tag)})
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 19, 0, 0, 0, time.UTC).AddDate(0, 0, 4)
	for k, e := range open {
		e.startsAt = day.AddDate(0, 0, 7*k)
	}
	l.events = append(past, open...)
	for k, e := range l.events {
		// Events compared across sizes and states (screens 2, 3, 7) share one card, so
		// that their items have the same sizes and only the number of predictions differs.
		e.spec = cardSpec(e.cardIndex(k))
		if e.game {
			for i := range e.spec {
				e.spec[i].MethodPoints = gameMethodPoints(i)
			}
		}
		isPast := !e.startsAt.After(now)
		open := e.role == roleUpcoming || e.role == roleSubmit || e.role == roleOpen || e.role == roleGameOpen
		if isPast == open || isPast && e.startsAt.Year() != season {
			panic(fmt.Sprintf("bench: event %q at %s does not fit the league of season %d around %s", e.name, e.startsAt, season, now))
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

// index is the position of ev in the league (its card number).
func (l *league) index(ev *leagueEvent) int {
	for k, e := range l.events {
		if e == ev {
			return k
		}
	}
	return -1
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

// entry is player p's entry for e, the k-th event: a pick of every match, and on a game
// event a method on the matches that offer one, a joker and (for most players) a guess.
func (e *leagueEvent) entry(k, p int) domain.Entry {
	ps := make([]domain.Pick, len(e.matches))
	methods := domain.VictoryMethods()
	for i, m := range e.matches {
		ps[i] = domain.Pick{MatchID: m.ID, Team: pick(p, i, e.cardIndex(k), len(m.Teams))}
		if e.game && m.MethodPoints > 0 {
			ps[i].Method = &methods[(p+i)%len(methods)]
		}
	}
	en := domain.Entry{Picks: ps}
	if e.game {
		en.Joker = &e.matches[p%len(e.matches)].ID
		if p%10 != 0 {
			guess := (p * 37) % 1200
			en.Tiebreaker = &guess
		}
	}
	return en
}

// load writes the leagues into e's table: the events and cards of each league through a
// store creating its shard count (CreateEvent, SetResult), the first league's first, so
// that its season is the one the open events of later leagues fall in; users (once),
// standings and predictions as the store writes them (table.UserItem, StandingItem,
// PredictionItem) with concurrent BatchWriteItem calls; the predictions counted
// (CountPredictions); then the events meant to be scored already are scored.
func load(ctx context.Context, e *env, leagues []*league) (LoadInfo, error) {
	began := time.Now()
	info := LoadInfo{Players: leagues[0].players}
	if err := e.direct.store.EnsureTable(ctx); err != nil {
		return info, err
	}
	for _, l := range leagues {
		info.Events += len(l.events)
		info.Predictions += l.predictions()
		if err := l.createEvents(ctx, e.creator(l.shards)); err != nil {
			return info, err
		}
	}

	items := make(chan map[string]types.AttributeValue, 256)
	var calls, written atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(items)
		send := func(item map[string]types.AttributeValue, err error) error {
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
		created := e.now.AddDate(-2, 0, 0)
		for p := range leagues[0].players {
			if err := send(table.UserItem(playerID(p), playerName(p), created)); err != nil {
				return err
			}
			for _, l := range leagues {
				pts := (p * 37) % 500
				if err := send(table.StandingItem(playerID(p), playerName(p), l.season, l.shards, pts, pts/10, 10)); err != nil {
					return err
				}
			}
		}
		for _, l := range leagues {
			for k, ev := range l.events {
				updated := ev.startsAt.Add(-48 * time.Hour)
				if updated.After(l.now) {
					updated = l.now.Add(-time.Hour)
				}
				for p := range ev.size {
					if err := send(table.PredictionItem(ev.domainEvent(), l.shards, playerID(p), playerName(p), ev.entry(k, p), updated)); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	for range 8 {
		g.Go(func() error {
			n, c, err := batchWrite(gctx, e.direct.db, e.table, items)
			written.Add(int64(n))
			calls.Add(int64(c))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return info, fmt.Errorf("bench: load items: %w", err)
	}
	info.Items, info.BatchWrites = int(written.Load()), int(calls.Load())

	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, l := range leagues {
		for _, ev := range l.events {
			if ev.size == 0 {
				continue
			}
			g.Go(func() error {
				users := make([]string, ev.size)
				for p := range users {
					users[p] = playerID(p)
				}
				return e.direct.store.CountPredictions(gctx, ev.id, users)
			})
		}
	}
	if err := g.Wait(); err != nil {
		return info, fmt.Errorf("bench: count predictions: %w", err)
	}

	scoreBegan := time.Now()
	for _, l := range leagues {
		for _, ev := range l.events {
			if !ev.scored {
				continue
			}
			// One call without a time budget scores the event; complete means every
			// prediction is scored (the shards' checkpoints count them).
			for n := 1; ; n++ {
				rep, err := e.direct.store.ScoreEvent(ctx, ev.id, false)
				if err != nil {
					return info, fmt.Errorf("bench: score %s: %w", ev.name, err)
				}
				if rep.Complete {
					ev.ranked = true
					break
				}
				if n == 100 {
					return info, fmt.Errorf("bench: score %s: not complete after %d calls", ev.name, n)
				}
			}
		}
	}
	info.ScoreSeconds = time.Since(scoreBegan).Seconds()
	info.Seconds = time.Since(began).Seconds()
	return info, nil
}

// createEvents creates l's events and enters the results of past ones through store.
func (l *league) createEvents(ctx context.Context, store *dynamo.Store) error {
	create := func(ctx context.Context, k int, ev *leagueEvent) error {
		spec := domain.EventSpec{Name: ev.name, StartsAt: ev.startsAt, Matches: ev.spec}
		if ev.game {
			spec.Settings = gameSettings()
		}
		created, err := store.CreateEvent(ctx, spec)
		if err != nil {
			return fmt.Errorf("bench: create %s: %w", ev.name, err)
		}
		ev.id, ev.matches = created.ID, created.Matches
		if !ev.results {
			return nil
		}
		for i, m := range created.Matches {
			r := result(ev.cardIndex(k), i, len(m.Teams))
			if ev.game && m.MethodPoints > 0 && r.Outcome == domain.OutcomeWin {
				r.Method = &domain.VictoryMethods()[i%len(domain.VictoryMethods())]
			}
			if ev.matches[i], err = store.SetResult(ctx, ev.id, m.ID, &r); err != nil {
				return fmt.Errorf("bench: result %s/%d: %w", ev.name, i, err)
			}
		}
		if ev.game {
			answer := gameAnswer
			if _, err := store.SetTiebreakerAnswer(ctx, ev.id, &answer); err != nil {
				return fmt.Errorf("bench: tie-breaker answer %s: %w", ev.name, err)
			}
		}
		return nil
	}
	// The season's item is created with its first event: before any other.
	if err := create(ctx, 0, l.events[0]); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for k, ev := range l.events[1:] {
		g.Go(func() error { return create(gctx, k+1, ev) })
	}
	return g.Wait()
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
