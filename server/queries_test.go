package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/resolvers"
	"github.com/pickem/api/server"
)

// allCode fails unless errs is non-empty and every error has code.
func allCode(t *testing.T, errs []gqlErr, code string) {
	t.Helper()
	b, _ := json.Marshal(errs)
	if len(errs) == 0 {
		t.Fatalf("want errors with code %s, got none", code)
	}
	for _, e := range errs {
		if e.Code() != code {
			t.Fatalf("want every extensions.code = %s: %s", code, b)
		}
	}
}

// forgedCursors are cursors no list ever handed out.
func forgedCursors() map[string]string {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return map[string]string{
		"NotBase64":     "%%%not-base64%%%",
		"NotJSON":       enc("hello"),
		"WrongKind":     enc(`{"k":"standings","o":"all","i":"p-ace","n":1,"r":1}`),
		"KeyInjection":  enc(`{"k":"events","o":"all","i":"2030-01-01-x#USER#p-ace"}`),
		"NegativeRank":  enc(`{"k":"leaderboard","o":"x","i":"p-ace","p":-5,"n":1,"r":1}`),
		"RankOverIndex": enc(`{"k":"standings","o":"2030","i":"p-ace","p":5,"n":1,"r":9}`),
		"TooLong":       enc(`{"k":"events","o":"all","i":"` + string(make([]byte, 600)) + `"}`),
	}
}

const eventsOp = `query($first: Int, $after: String, $season: Int) {
  events(first: $first, after: $after, season: $season) {
    edges { cursor node { id name startsAt season state locked } }
    pageInfo { hasNextPage endCursor } } }`

type eventsData struct{ Events tConn[tEvent] }

func eventNames(c tConn[tEvent]) []string {
	var out []string
	for _, e := range c.Edges {
		out = append(out, e.Node.Name)
	}
	return out
}

func TestQueryEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	day := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Created out of order on purpose; the clock is 2030-06-15T12:00Z.
	e.createEvent(t, "Dynasty", day("2030-04-21T23:00:00Z"))
	e.createEvent(t, "Revolution", day("2029-03-03T23:00:00Z"))
	e.createEvent(t, "Worlds End", day("2030-12-28T23:00:00Z"))
	e.createEvent(t, "All In", day("2029-08-25T17:00:00Z"))
	e.createEvent(t, "Double or Nothing", day("2030-05-26T23:00:00Z"))
	all := []string{"Worlds End", "Double or Nothing", "Dynasty", "All In", "Revolution"}

	t.Run("NewestFirst", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", eventsOp, nil)
		if got := eventNames(d.Events); !slices.Equal(got, all) {
			t.Fatalf("events = %v, want %v", got, all)
		}
		if d.Events.PageInfo.HasNextPage {
			t.Fatal("hasNextPage = true on the only page")
		}
		first := d.Events.Edges[0].Node
		if first.ID != "2030-12-28-worlds-end" || first.StartsAt != "2030-12-28T23:00:00Z" || first.Season != 2030 {
			t.Fatalf("first row = %+v", first)
		}
	})
	t.Run("StateWorkedOutOnRead", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", eventsOp, nil)
		states := map[string]string{}
		for _, n := range nodes(&d.Events) {
			states[n.Name] = n.State
			if n.Locked != (n.State != "UPCOMING") {
				t.Fatalf("%s: locked = %v with state %s", n.Name, n.Locked, n.State)
			}
		}
		if states["Worlds End"] != "UPCOMING" || states["Dynasty"] != "BROADCAST" {
			t.Fatalf("states = %v", states)
		}
	})
	t.Run("PagesFollowEndCursor", func(t *testing.T) {
		var got []string
		var after any
		pages := 0
		for {
			d := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"first": 2, "after": after})
			pages++
			got = append(got, eventNames(d.Events)...)
			if !d.Events.PageInfo.HasNextPage {
				break
			}
			if d.Events.PageInfo.EndCursor == nil || *d.Events.PageInfo.EndCursor != d.Events.Edges[len(d.Events.Edges)-1].Cursor {
				t.Fatalf("endCursor %v is not the last edge's cursor", deref(d.Events.PageInfo.EndCursor))
			}
			after = *d.Events.PageInfo.EndCursor
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
		}
		if pages != 3 || !slices.Equal(got, all) {
			t.Fatalf("%d pages: %v, want 3 pages: %v", pages, got, all)
		}
	})
	t.Run("ExactPageHasNoNextPage", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"first": 5})
		if len(d.Events.Edges) != 5 || d.Events.PageInfo.HasNextPage {
			t.Fatalf("first 5 of 5: %d rows, hasNextPage %v", len(d.Events.Edges), d.Events.PageInfo.HasNextPage)
		}
	})
	t.Run("SeasonFilter", func(t *testing.T) {
		for season, want := range map[int][]string{
			2029: {"All In", "Revolution"},
			2030: {"Worlds End", "Double or Nothing", "Dynasty"},
			2031: nil,
		} {
			d := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"season": season})
			if got := eventNames(d.Events); !slices.Equal(got, want) {
				t.Fatalf("season %d: %v, want %v", season, got, want)
			}
		}
	})
	t.Run("SeasonFilterPages", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"season": 2030, "first": 2})
		if !d.Events.PageInfo.HasNextPage {
			t.Fatal("hasNextPage = false")
		}
		d2 := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"season": 2030, "first": 2, "after": *d.Events.PageInfo.EndCursor})
		if got := eventNames(d2.Events); !slices.Equal(got, []string{"Dynasty"}) || d2.Events.PageInfo.HasNextPage {
			t.Fatalf("page 2 = %v (next %v)", got, d2.Events.PageInfo.HasNextPage)
		}
	})
	t.Run("NullFirstIsDefault", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", `{ events(first: null) { edges { node { id } } } }`, nil)
		if len(d.Events.Edges) != 5 {
			t.Fatalf("%d rows", len(d.Events.Edges))
		}
	})
	t.Run("FirstOutOfRange", func(t *testing.T) {
		for _, first := range []int{0, -1, 101} {
			if code := codeOf(t, e, "", eventsOp, map[string]any{"first": first}); code != "BAD_USER_INPUT" {
				t.Fatalf("first %d: code %s", first, code)
			}
		}
		mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"first": 100})
	})
	t.Run("BadSeason", func(t *testing.T) {
		if code := codeOf(t, e, "", eventsOp, map[string]any{"season": 99}); code != "BAD_USER_INPUT" {
			t.Fatalf("code %s", code)
		}
	})
	t.Run("MatchesOnListRowsIsAnError", func(t *testing.T) {
		// Lists are marshalled in order (internal/gqlpost): these resolvers on list rows
		// must refuse without reading. The only DynamoDB call is the list's Query.
		for _, q := range []string{
			`{ events(first: 2) { edges { node { id matches { id } } } } }`,
			`{ events(first: 2) { edges { node { id leaderboard { edges { cursor } } } } } }`,
		} {
			resp := e.request(t, "", q, nil)
			allCode(t, resp.Errors, "BAD_USER_INPUT")
			if c := costOf(t, resp); c.Calls != 1 || c.Operations["Query"] != 1 {
				t.Fatalf("%s: %d calls %v, want the list's one Query", q, c.Calls, c.Operations)
			}
		}
	})
	t.Run("CursorOfAnotherFilter", func(t *testing.T) {
		d := mustGQL[eventsData](t, e, "", eventsOp, map[string]any{"season": 2030, "first": 1})
		cur := *d.Events.PageInfo.EndCursor
		for name, vars := range map[string]map[string]any{
			"AllSeasons":  {"after": cur},
			"OtherSeason": {"after": cur, "season": 2029},
		} {
			if code := codeOf(t, e, "", eventsOp, vars); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
	})
	t.Run("ForgedCursor", func(t *testing.T) {
		for name, cur := range forgedCursors() {
			if code := codeOf(t, e, "", eventsOp, map[string]any{"after": cur}); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
	})
}

// picksSpy records whether each leaderboard read asked for the rows' picks.
type picksSpy struct {
	resolvers.Store
	mu    sync.Mutex
	picks []bool
}

func (s *picksSpy) wrap(cfg *server.Config) { s.Store, cfg.Store = cfg.Store, s }

func (s *picksSpy) GetEventWithLeaderboard(ctx context.Context, id string, first int, picks bool) (domain.Event, domain.Page[domain.Prediction], error) {
	s.note(picks)
	return s.Store.GetEventWithLeaderboard(ctx, id, first, picks)
}

func (s *picksSpy) EventLeaderboard(ctx context.Context, ev domain.Event, first int, after string, picks bool) (domain.Page[domain.Prediction], error) {
	s.note(picks)
	return s.Store.EventLeaderboard(ctx, ev, first, after, picks)
}

func (s *picksSpy) note(picks bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.picks = append(s.picks, picks)
}

// reads returns what the reads since the last call asked for.
func (s *picksSpy) reads() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.picks
	s.picks = nil
	return r
}

func TestQueryEvent(t *testing.T) {
	t.Parallel()
	spy := &picksSpy{}
	e := newEnv(t, spy.wrap)
	f := newScoredFixture(t, e, "Full Gear")
	upcoming := e.createEvent(t, "Worlds End", e.clock.Now().Add(48*time.Hour), threeMatchCard()...)

	t.Run("CardInCardOrder", func(t *testing.T) {
		ev := e.event(t, "", upcoming.ID)
		if ev == nil {
			t.Fatal("event is null")
		}
		var names []string
		for i, m := range ev.Matches {
			if m.Position != i+1 || m.ID != upcoming.Matches[i].ID {
				t.Fatalf("match %d: position %d id %s, want %d %s", i, m.Position, m.ID, i+1, upcoming.Matches[i].ID)
			}
			names = append(names, m.Name)
		}
		if want := []string{"Main Event", "Women's Title", "Opener"}; !slices.Equal(names, want) {
			t.Fatalf("card %v, want %v", names, want)
		}
		if ev.State != "UPCOMING" || ev.Locked {
			t.Fatalf("state %s locked %v", ev.State, ev.Locked)
		}
		m := ev.Matches[0]
		if len(m.Teams) != 2 || m.Teams[0].Members[0] != "Hangman Page" || m.Teams[0].Name != nil || m.Result != nil {
			t.Fatalf("match = %+v", m)
		}
	})
	t.Run("LeaderboardEmptyUntilScored", func(t *testing.T) {
		// Picks exist and, once locked with results, the event is still not SCORED.
		for _, id := range f.players {
			e.submit(t, f.tokens[id], upcoming, 0, 0, 0)
		}
		ev := e.event(t, "", upcoming.ID)
		if ev.Leaderboard == nil || len(ev.Leaderboard.Edges) != 0 || ev.Leaderboard.PageInfo.HasNextPage {
			t.Fatalf("upcoming leaderboard = %+v", ev.Leaderboard)
		}
		saved := e.clock.Now()
		defer e.clock.Set(saved)
		start, _ := time.Parse(time.RFC3339, upcoming.StartsAt)
		e.clock.Set(start.Add(time.Minute))
		e.setWinners(t, upcoming, 0, 0, 0)
		ev = e.event(t, "", upcoming.ID)
		if ev.State != "BROADCAST" || len(ev.Leaderboard.Edges) != 0 {
			t.Fatalf("locked with results: state %s, %d leaderboard rows", ev.State, len(ev.Leaderboard.Edges))
		}
		// Clear the results again so that later subtests see an open card.
		for _, m := range upcoming.Matches {
			mustGQL[json.RawMessage](t, e, e.admin(t), setResultOp, map[string]any{"e": upcoming.ID, "m": m.ID, "r": nil})
		}
	})
	t.Run("LeaderboardRanksWithTies", func(t *testing.T) {
		ev := e.event(t, "", f.ev.ID)
		if ev.State != "SCORED" || !ev.Locked {
			t.Fatalf("state %s locked %v", ev.State, ev.Locked)
		}
		rows := nodes(ev.Leaderboard)
		var users []string
		var ranks, points []int
		for _, p := range rows {
			users = append(users, p.User.ID)
			ranks = append(ranks, *p.Rank)
			points = append(points, *p.Points)
		}
		if !slices.Equal(users, f.players) || !slices.Equal(ranks, []int{1, 2, 2, 4}) || !slices.Equal(points, []int{20, 15, 15, 5}) {
			t.Fatalf("leaderboard users %v ranks %v points %v", users, ranks, points)
		}
		if rows[0].User.Name != "Ace" || rows[0].Event.Name != "Full Gear" || *rows[0].Correct != 3 {
			t.Fatalf("first row = %+v", rows[0])
		}
		for _, p := range rows[1].Picks { // Bea: right, right, wrong
			want := p.MatchID != f.ev.Matches[2].ID
			if p.Correct == nil || *p.Correct != want {
				t.Fatalf("Bea's pick %s correct = %v, want %v", p.MatchID, deref(p.Correct), want)
			}
		}
	})
	t.Run("LeaderboardRowsWithAndWithoutPicks", func(t *testing.T) {
		// The rows are read without picks unless a leaderboard of the selection shows them
		// (here through a fragment on one alias): each alias gets what it asks for, and the
		// rows, points and ranks are the same either way, on a first and a later page.
		type board struct {
			Edges []struct {
				Cursor string
				Node   struct {
					User   struct{ ID string }
					Points int
					Rank   int
					Picks  []struct{ MatchID string }
				}
			}
		}
		const both = `query($id: ID!) { event(id: $id) {
			lean: leaderboard(first: 4) { edges { cursor node { user { id } points rank } } }
			full: leaderboard(first: 4) { edges { cursor node { user { id } points rank ...P } } } } }
			fragment P on Prediction { picks { matchId } }`
		const leanOnly = `query($id: ID!, $after: String) { event(id: $id) { leaderboard(first: 2, after: $after) { edges { cursor node { user { id } points rank } } } } }`
		spy.reads()
		d := mustGQL[struct{ Event struct{ Lean, Full board } }](t, e, "", both, map[string]any{"id": f.ev.ID})
		if got := spy.reads(); !slices.Equal(got, []bool{true}) {
			t.Fatalf("leaderboard reads asked for picks %v, want one read with them", got)
		}
		lean, full := d.Event.Lean.Edges, d.Event.Full.Edges
		if len(full) != 4 || len(lean) != 4 {
			t.Fatalf("%d rows with picks, %d without", len(full), len(lean))
		}
		for i := range full {
			if len(full[i].Node.Picks) != 3 || len(lean[i].Node.Picks) != 0 {
				t.Fatalf("row %d: %d picks with, %d without", i, len(full[i].Node.Picks), len(lean[i].Node.Picks))
			}
			full[i].Node.Picks = nil
			if !reflect.DeepEqual(full[i], lean[i]) {
				t.Fatalf("row %d: %+v with picks, %+v without", i, full[i], lean[i])
			}
		}
		first := mustGQL[struct{ Event struct{ Leaderboard board } }](t, e, "", leanOnly, map[string]any{"id": f.ev.ID})
		after := mustGQL[struct{ Event struct{ Leaderboard board } }](t, e, "", leanOnly, map[string]any{"id": f.ev.ID, "after": first.Event.Leaderboard.Edges[1].Cursor})
		if got := spy.reads(); !slices.Equal(got, []bool{false, false}) {
			t.Fatalf("leaderboard reads without picks selected asked for picks %v, want two reads without", got)
		}
		got := append(first.Event.Leaderboard.Edges, after.Event.Leaderboard.Edges...)
		if len(got) != 4 {
			t.Fatalf("%d rows in two pages without picks", len(got))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], lean[i]) {
				t.Fatalf("row %d of the pages without picks: %+v, want %+v", i, got[i], lean[i])
			}
		}
	})
	t.Run("LeaderboardPage2ViaAfter", func(t *testing.T) {
		d := mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 2})
		lb := d.Event.Leaderboard
		if len(lb.Edges) != 2 || !lb.PageInfo.HasNextPage || *lb.Edges[1].Node.Rank != 2 {
			t.Fatalf("page 1 = %+v", lb)
		}
		d = mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 2, "after": *lb.PageInfo.EndCursor})
		lb = d.Event.Leaderboard
		if len(lb.Edges) != 2 || lb.PageInfo.HasNextPage {
			t.Fatalf("page 2: %d rows, hasNext %v", len(lb.Edges), lb.PageInfo.HasNextPage)
		}
		if lb.Edges[0].Node.User.ID != "p-cal" || *lb.Edges[0].Node.Rank != 2 || *lb.Edges[1].Node.Rank != 4 {
			t.Fatalf("page 2 = %s rank %d, %s rank %d", lb.Edges[0].Node.User.ID, *lb.Edges[0].Node.Rank,
				lb.Edges[1].Node.User.ID, *lb.Edges[1].Node.Rank)
		}
		// The card still comes with a later leaderboard page.
		if len(d.Event.Matches) != 3 {
			t.Fatalf("%d matches with page 2", len(d.Event.Matches))
		}
	})
	t.Run("LeaderboardOneRowPerPage", func(t *testing.T) {
		var ranks []int
		var after any
		for i := 0; i < 6; i++ {
			d := mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 1, "after": after})
			for _, p := range nodes(d.Event.Leaderboard) {
				ranks = append(ranks, *p.Rank)
			}
			if !d.Event.Leaderboard.PageInfo.HasNextPage {
				break
			}
			after = *d.Event.Leaderboard.PageInfo.EndCursor
		}
		if !slices.Equal(ranks, []int{1, 2, 2, 4}) {
			t.Fatalf("ranks across pages of one = %v", ranks)
		}
	})
	t.Run("LeaderboardFirstOutOfRange", func(t *testing.T) {
		for _, first := range []int{0, 101} {
			_, errs := gql[json.RawMessage](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": first})
			allCode(t, errs, "BAD_USER_INPUT")
		}
	})
	t.Run("LeaderboardForgedCursor", func(t *testing.T) {
		curs := forgedCursors()
		// A real cursor of another event's leaderboard is foreign too.
		other := newScoredFixture(t, e, "Full Gear Zero Hour")
		d := mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": other.ev.ID, "first": 1})
		curs["OtherEvent"] = *d.Event.Leaderboard.PageInfo.EndCursor
		for name, cur := range curs {
			_, errs := gql[json.RawMessage](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "after": cur})
			if len(errs) == 0 {
				t.Fatalf("%s: no error", name)
			}
			allCode(t, errs, "BAD_USER_INPUT")
		}
	})
	t.Run("MissingIsNull", func(t *testing.T) {
		d, errs := gql[map[string]any](t, e, "", eventOp, map[string]any{"id": "2030-01-01-no-such-event"})
		noErrors(t, errs)
		if v, ok := d["event"]; !ok || v != nil {
			t.Fatalf("event = %v (present %v), want null", v, ok)
		}
	})
	t.Run("MalformedID", func(t *testing.T) {
		for _, id := range []string{"", "nope", "2030-06-15-Caps", "2030-06-15-x#CARD", "2030-13-45-bad-date", "2030-06-15-"} {
			if code := codeOf(t, e, "", `query($id: ID!) { event(id: $id) { id } }`, map[string]any{"id": id}); code != "BAD_USER_INPUT" {
				t.Fatalf("id %q: code %s", id, code)
			}
		}
	})
}

const predictionOp = `query($e: ID!, $u: ID) { prediction(eventId: $e, userId: $u) { ...P } }
` + predictionFields

type predictionData struct{ Prediction *tPrediction }

func TestQueryPrediction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "Revolution")
	open := e.createEvent(t, "Dynasty", e.clock.Now().Add(24*time.Hour), threeMatchCard()...)
	ace, bea := f.tokens["p-ace"], f.tokens["p-bea"]
	e.submit(t, ace, open, 1, -1, 0)
	submitted := e.clock.Now().UTC().Format(time.RFC3339)

	get := func(t *testing.T, token, event string, user any) (*tPrediction, []gqlErr) {
		t.Helper()
		d, errs := gql[predictionData](t, e, token, predictionOp, map[string]any{"e": event, "u": user})
		return d.Prediction, errs
	}
	t.Run("OwnUnscored", func(t *testing.T) {
		p, errs := get(t, ace, open.ID, nil)
		noErrors(t, errs)
		if p == nil || p.User.ID != "p-ace" || p.Points != nil || p.Correct != nil || p.Rank != nil || len(p.Picks) != 2 {
			t.Fatalf("prediction = %+v", p)
		}
		if p.Picks[0].MatchID != open.Matches[0].ID || p.Picks[0].Team != 1 || p.Picks[0].Correct != nil ||
			p.Picks[1].MatchID != open.Matches[2].ID || p.Picks[1].Team != 0 {
			t.Fatalf("picks = %+v", p.Picks)
		}
		if p.Event.Name != "Dynasty" || p.Event.StartsAt != open.StartsAt || p.EventID != open.ID || p.UpdatedAt != submitted {
			t.Fatalf("event ref %+v updatedAt %s", p.Event, p.UpdatedAt)
		}
	})
	t.Run("OwnByExplicitUserID", func(t *testing.T) {
		p, errs := get(t, ace, open.ID, "p-ace")
		noErrors(t, errs)
		if p == nil || p.Points != nil {
			t.Fatalf("prediction = %+v", p)
		}
	})
	t.Run("OwnScored", func(t *testing.T) {
		p, errs := get(t, bea, f.ev.ID, nil)
		noErrors(t, errs)
		if p == nil || *p.Points != 15 || *p.Correct != 2 || p.Rank == nil || *p.Rank != 2 { // 20, 15, 15, 5: tied second
			t.Fatalf("prediction = %+v", p)
		}
	})
	t.Run("SignedOutWithoutUserIsNull", func(t *testing.T) {
		p, errs := get(t, "", f.ev.ID, nil)
		noErrors(t, errs)
		if p != nil {
			t.Fatalf("prediction = %+v, want null", p)
		}
	})
	t.Run("AnothersUnscoredIsForbidden", func(t *testing.T) {
		_, errs := get(t, bea, open.ID, "p-ace")
		wantCode(t, errs, "FORBIDDEN")
		_, errs = get(t, "", open.ID, "p-ace")
		wantCode(t, errs, "FORBIDDEN")
	})
	t.Run("AnothersScoredIsVisible", func(t *testing.T) {
		for name, token := range map[string]string{"SignedIn": bea, "SignedOut": ""} {
			p, errs := get(t, token, f.ev.ID, "p-ace")
			noErrors(t, errs)
			if p == nil || p.User.ID != "p-ace" || *p.Points != 20 || len(p.Picks) != 3 {
				t.Fatalf("%s: prediction = %+v", name, p)
			}
			for _, pk := range p.Picks {
				if pk.Correct == nil || !*pk.Correct {
					t.Fatalf("%s: Ace's pick %+v should be correct", name, pk)
				}
			}
		}
	})
	t.Run("MissingIsNull", func(t *testing.T) {
		for name, c := range map[string]struct {
			token, event string
			user         any
		}{
			"Own":          {bea, open.ID, nil},
			"Anothers":     {ace, open.ID, "p-bea"},
			"UnknownUser":  {ace, f.ev.ID, "nobody"},
			"UnknownEvent": {ace, "2030-01-01-nothing", nil},
		} {
			p, errs := get(t, c.token, c.event, c.user)
			noErrors(t, errs)
			if p != nil {
				t.Fatalf("%s: prediction = %+v, want null", name, p)
			}
		}
	})
	t.Run("MalformedIDs", func(t *testing.T) {
		for name, c := range map[string]struct {
			event string
			user  any
		}{
			"EventID": {"EVENT#x", nil},
			"UserID":  {f.ev.ID, "p-ace#EVENT"},
			"Empty":   {f.ev.ID, "a b"},
		} {
			_, errs := get(t, ace, c.event, c.user)
			wantCode(t, errs, "BAD_USER_INPUT")
			_ = name
		}
	})
}

const standingsOp = `query($s: Int!, $first: Int, $after: String) { standings(season: $s, first: $first, after: $after) {
  edges { cursor node { ...S } } pageInfo { hasNextPage endCursor } } }
` + standingFields

type standingsData struct{ Standings tConn[tStanding] }

func TestQueryStandings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "Revolution")

	t.Run("HighestFirstWithTies", func(t *testing.T) {
		d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030})
		rows := nodes(&d.Standings)
		var users []string
		var ranks, points, correct []int
		for _, s := range rows {
			users = append(users, s.User.ID)
			ranks = append(ranks, *s.Rank)
			points = append(points, s.Points)
			correct = append(correct, s.Correct)
			if s.EventsPlayed != 1 || s.Season != 2030 {
				t.Fatalf("row %+v", s)
			}
		}
		if !slices.Equal(users, f.players) || !slices.Equal(ranks, []int{1, 2, 2, 4}) ||
			!slices.Equal(points, []int{20, 15, 15, 5}) || !slices.Equal(correct, []int{3, 2, 2, 1}) {
			t.Fatalf("users %v ranks %v points %v correct %v", users, ranks, points, correct)
		}
		if rows[0].User.Name != "Ace" || d.Standings.PageInfo.HasNextPage {
			t.Fatalf("first %+v, hasNext %v", rows[0], d.Standings.PageInfo.HasNextPage)
		}
	})
	t.Run("PagesKeepRanks", func(t *testing.T) {
		for _, size := range []int{1, 2, 3} {
			var ranks []int
			var users []string
			var after any
			for i := 0; i < 6; i++ {
				d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030, "first": size, "after": after})
				for _, s := range nodes(&d.Standings) {
					ranks = append(ranks, *s.Rank)
					users = append(users, s.User.ID)
				}
				if !d.Standings.PageInfo.HasNextPage {
					break
				}
				after = *d.Standings.PageInfo.EndCursor
			}
			if !slices.Equal(ranks, []int{1, 2, 2, 4}) || !slices.Equal(users, f.players) {
				t.Fatalf("pages of %d: users %v ranks %v", size, users, ranks)
			}
		}
	})
	t.Run("SecondEventAddsUp", func(t *testing.T) {
		ev := e.createEvent(t, "Dynasty", e.clock.Now().Add(time.Hour), match("Main Event", 30, "Okada", "Fletcher"))
		e.submit(t, f.tokens["p-dee"], ev, 0)
		e.submit(t, f.tokens["p-ace"], ev, 1)
		e.clock.Set(e.clock.Now().Add(2 * time.Hour))
		e.setWinners(t, ev, 0)
		if rep := e.score(t, ev.ID, false); rep.PredictionsScored != 2 || rep.StandingsChanged != 2 {
			t.Fatalf("report %+v", rep)
		}
		d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030})
		var got []string
		for _, s := range nodes(&d.Standings) {
			got = append(got, s.User.ID)
		}
		if want := []string{"p-dee", "p-ace", "p-bea", "p-cal"}; !slices.Equal(got, want) {
			t.Fatalf("standings %v, want %v", got, want)
		}
		top := d.Standings.Edges[0].Node
		if top.Points != 35 || top.EventsPlayed != 2 || *top.Rank != 1 {
			t.Fatalf("top = %+v", top)
		}
		ace := d.Standings.Edges[1].Node
		if ace.Points != 20 || ace.EventsPlayed != 2 || ace.Correct != 3 {
			t.Fatalf("ace = %+v", ace)
		}
	})
	t.Run("EmptySeason", func(t *testing.T) {
		d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2031})
		if len(d.Standings.Edges) != 0 || d.Standings.PageInfo.HasNextPage || d.Standings.PageInfo.EndCursor != nil {
			t.Fatalf("standings = %+v", d.Standings)
		}
	})
	t.Run("BadArguments", func(t *testing.T) {
		for name, vars := range map[string]map[string]any{
			"FirstZero":    {"s": 2030, "first": 0},
			"FirstTooMany": {"s": 2030, "first": 101},
			"Season":       {"s": 99},
		} {
			if code := codeOf(t, e, "", standingsOp, vars); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
	})
	t.Run("ForgedCursor", func(t *testing.T) {
		curs := forgedCursors()
		d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030, "first": 1})
		real := *d.Standings.PageInfo.EndCursor
		for name, cur := range curs {
			if code := codeOf(t, e, "", standingsOp, map[string]any{"s": 2030, "after": cur}); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
		if code := codeOf(t, e, "", standingsOp, map[string]any{"s": 2029, "after": real}); code != "BAD_USER_INPUT" {
			t.Fatalf("cursor of another season: code %s", code)
		}
	})
}

const userOp = `query($id: ID!, $first: Int, $after: String) { user(id: $id) { id name standings { ...S }
  predictions(first: $first, after: $after) { edges { cursor node { ...P } } pageInfo { hasNextPage endCursor } } } }
` + standingFields + predictionFields

const meOp = `{ me { id name standings { ...S } predictions { edges { node { ...P } } pageInfo { hasNextPage } } } }
` + standingFields + predictionFields

func predictionEvents(u *tUser) []string {
	var out []string
	for _, p := range nodes(u.Predictions) {
		out = append(out, p.EventID)
	}
	return out
}

func TestQueryUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "Revolution")
	open := e.createEvent(t, "Dynasty", e.clock.Now().Add(24*time.Hour), threeMatchCard()...)
	ace, bea := f.tokens["p-ace"], f.tokens["p-bea"]
	e.submit(t, ace, open, 0, 0, 0)

	user := func(t *testing.T, token, id string, vars map[string]any) *tUser {
		t.Helper()
		if vars == nil {
			vars = map[string]any{}
		}
		vars["id"] = id
		return mustGQL[struct{ User *tUser }](t, e, token, userOp, vars).User
	}
	t.Run("AnotherViewerSeesScoredOnly", func(t *testing.T) {
		for name, token := range map[string]string{"SignedIn": bea, "SignedOut": ""} {
			u := user(t, token, "p-ace", nil)
			if u == nil || u.Name != "Ace" {
				t.Fatalf("%s: user = %+v", name, u)
			}
			if got := predictionEvents(u); !slices.Equal(got, []string{f.ev.ID}) {
				t.Fatalf("%s: predictions %v, want only the scored %s", name, got, f.ev.ID)
			}
			if len(u.Standings) != 1 || u.Standings[0].Points != 20 || u.Standings[0].Rank == nil || *u.Standings[0].Rank != 1 || u.Standings[0].Season != 2030 {
				t.Fatalf("%s: standings %+v", name, u.Standings)
			}
		}
	})
	t.Run("OwnerSeesUnscored", func(t *testing.T) {
		u := user(t, ace, "p-ace", nil)
		if got, want := predictionEvents(u), []string{open.ID, f.ev.ID}; !slices.Equal(got, want) {
			t.Fatalf("predictions %v, want newest first %v", got, want)
		}
		ps := nodes(u.Predictions)
		if ps[0].Points != nil || *ps[1].Points != 20 || ps[1].Rank == nil || *ps[1].Rank != 1 {
			t.Fatalf("predictions %+v", ps)
		}
	})
	t.Run("PredictionPages", func(t *testing.T) {
		u := user(t, ace, "p-ace", map[string]any{"first": 1})
		if got := predictionEvents(u); !slices.Equal(got, []string{open.ID}) || !u.Predictions.PageInfo.HasNextPage {
			t.Fatalf("page 1 %v next %v", got, u.Predictions.PageInfo.HasNextPage)
		}
		u = user(t, ace, "p-ace", map[string]any{"first": 1, "after": *u.Predictions.PageInfo.EndCursor})
		if got := predictionEvents(u); !slices.Equal(got, []string{f.ev.ID}) || u.Predictions.PageInfo.HasNextPage {
			t.Fatalf("page 2 %v next %v", got, u.Predictions.PageInfo.HasNextPage)
		}
	})
	t.Run("AnotherViewerPagesSkipUnscored", func(t *testing.T) {
		u := user(t, bea, "p-ace", map[string]any{"first": 1})
		if got := predictionEvents(u); !slices.Equal(got, []string{f.ev.ID}) || u.Predictions.PageInfo.HasNextPage {
			t.Fatalf("page 1 %v next %v", got, u.Predictions.PageInfo.HasNextPage)
		}
	})
	t.Run("CursorOfAnotherUser", func(t *testing.T) {
		u := user(t, ace, "p-ace", map[string]any{"first": 1})
		code := codeOf(t, e, bea, userOp, map[string]any{"id": "p-bea", "after": *u.Predictions.PageInfo.EndCursor})
		if code != "BAD_USER_INPUT" {
			t.Fatalf("code %s", code)
		}
	})
	t.Run("ForgedCursor", func(t *testing.T) {
		for name, cur := range forgedCursors() {
			if code := codeOf(t, e, ace, userOp, map[string]any{"id": "p-ace", "after": cur}); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
	})
	t.Run("FirstOutOfRange", func(t *testing.T) {
		if code := codeOf(t, e, ace, userOp, map[string]any{"id": "p-ace", "first": 0}); code != "BAD_USER_INPUT" {
			t.Fatalf("code %s", code)
		}
	})
	t.Run("MissingIsNull", func(t *testing.T) {
		if u := user(t, ace, "nobody-here", nil); u != nil {
			t.Fatalf("user = %+v", u)
		}
	})
	t.Run("MalformedID", func(t *testing.T) {
		for _, id := range []string{"", "a#USER", "with space", string(make([]byte, 129))} {
			if code := codeOf(t, e, ace, userOp, map[string]any{"id": id}); code != "BAD_USER_INPUT" {
				t.Fatalf("id %q: code %s", id, code)
			}
		}
	})
	t.Run("FirstWriteCreatesProfileFromToken", func(t *testing.T) {
		tok := e.token(t, "p-new", "  Newcomer  ")
		e.submit(t, tok, open, 1)
		u := user(t, "", "p-new", nil)
		if u == nil || u.Name != "Newcomer" || len(nodes(u.Predictions)) != 0 {
			t.Fatalf("user = %+v", u)
		}
	})
}

func TestQueryMe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent(t, "Dynasty", t0.Add(time.Hour), threeMatchCard()...)

	t.Run("SignedOutIsNull", func(t *testing.T) {
		d, errs := gql[map[string]any](t, e, "", meOp, nil)
		noErrors(t, errs)
		if v, ok := d["me"]; !ok || v != nil {
			t.Fatalf("me = %v", v)
		}
	})
	t.Run("NeverRegisteredIsTheTokenUser", func(t *testing.T) {
		me := mustGQL[struct{ Me *tUser }](t, e, e.token(t, "p-fresh", "Fresh Face"), meOp, nil).Me
		if me == nil || me.ID != "p-fresh" || me.Name != "Fresh Face" || len(me.Standings) != 0 ||
			me.Predictions == nil || len(me.Predictions.Edges) != 0 {
			t.Fatalf("me = %+v", me)
		}
	})
	t.Run("RegisteredIsTheProfile", func(t *testing.T) {
		tok := e.token(t, "p-reg", "Token Name")
		mustGQL[json.RawMessage](t, e, tok, `mutation { register(name: "Chosen Name") { id } }`, nil)
		e.submit(t, tok, ev, 0, 1, 0)
		me := mustGQL[struct{ Me *tUser }](t, e, tok, meOp, nil).Me
		if me == nil || me.ID != "p-reg" || me.Name != "Chosen Name" {
			t.Fatalf("me = %+v", me)
		}
		ps := nodes(me.Predictions)
		if len(ps) != 1 || ps[0].EventID != ev.ID || ps[0].Points != nil || ps[0].User.Name != "Chosen Name" {
			t.Fatalf("my predictions = %+v", ps)
		}
	})
}
