package server_test

import (
	"encoding/json"
	"testing"
	"time"
)

// TestOneEntityPerThing checks what normalized caches (Apollo, urql, Relay) key objects by:
// wherever the schema returns a player it is a User with the player's id, an event an
// Event with the event's id, and one prediction has one id on every screen showing it.
func TestOneEntityPerThing(t *testing.T) {
	e := newEnv(t)
	f := newScoredFixture(t, e, "Entity Night")
	ace := f.tokens["p-ace"]
	l := e.createLeague(t, ace, "Ace's Crew")

	type entity struct {
		Typename string `json:"__typename"`
		ID       string
		Name     string
	}
	type row struct {
		Typename string `json:"__typename"`
		ID       string
		User     entity
		Event    entity
	}
	type screens struct {
		Event struct {
			Leaderboard struct{ Edges []struct{ Node row } }
		}
		Prediction row
		Standings  struct {
			Edges []struct{ Node struct{ User entity } }
		}
		User struct {
			Typename    string `json:"__typename"`
			ID          string
			Predictions struct{ Edges []struct{ Node row } }
		}
		League struct{ Owner entity }
	}
	// One request per screen: together they would exceed a request's DynamoDB budget.
	vars := map[string]any{"e": f.ev.ID, "u": "p-ace", "l": l.ID}
	var d screens
	for _, q := range []string{
		`query($e: ID!) { event(id: $e) { leaderboard(first: 1) { edges { node { __typename id user { __typename id name } event { __typename id name } } } } } }`,
		`query($e: ID!) { prediction(eventId: $e) { __typename id user { __typename id name } event { __typename id name } } }`,
		`query { standings(season: 2030, first: 1) { edges { node { user { __typename id name } } } } }`,
		`query($u: ID!) { user(id: $u) { __typename id predictions(first: 1) { edges { node { __typename id user { __typename id } event { __typename id name } } } } } }`,
		`query($l: ID!) { league(id: $l) { owner { __typename id name } } }`,
	} {
		raw := mustGQL[json.RawMessage](t, e, ace, q, vars)
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
	}

	wantID := f.ev.ID + "/p-ace"
	player := entity{Typename: "User", ID: "p-ace", Name: "Ace"}
	event := entity{Typename: "Event", ID: f.ev.ID, Name: f.ev.Name}
	for name, r := range map[string]row{
		"LeaderboardRow": d.Event.Leaderboard.Edges[0].Node,
		"CardPrediction": d.Prediction,
		"ProfileRow":     d.User.Predictions.Edges[0].Node,
	} {
		if r.Typename != "Prediction" || r.ID != wantID {
			t.Errorf("%s: %s %q, want Prediction %q", name, r.Typename, r.ID, wantID)
		}
		if r.User.Typename != "User" || r.User.ID != "p-ace" {
			t.Errorf("%s: user %+v, want User p-ace", name, r.User)
		}
		if r.Event != event {
			t.Errorf("%s: event %+v, want %+v", name, r.Event, event)
		}
	}
	if got := d.Standings.Edges[0].Node.User; got != player {
		t.Errorf("standings row: user %+v, want %+v", got, player)
	}
	if d.League.Owner != player {
		t.Errorf("league owner %+v, want %+v", d.League.Owner, player)
	}
	if d.User.Typename != "User" || d.User.ID != "p-ace" {
		t.Errorf("user(id): %s %q", d.User.Typename, d.User.ID)
	}

	t.Run("SubmitAnswersTheSamePrediction", func(t *testing.T) {
		open := e.createEvent(t, "Open Night", e.clock.Now().Add(48*time.Hour), threeMatchCard()...)
		p := mustGQL[struct{ SubmitPrediction row }](t, e, ace,
			`mutation($e: ID!, $picks: [PickInput!]!) { submitPrediction(eventId: $e, picks: $picks) { __typename id user { __typename id name } event { __typename id name } } }`,
			map[string]any{"e": open.ID, "picks": picks(open, 0, 0, 0)}).SubmitPrediction
		if p.ID != open.ID+"/p-ace" || p.User != player || p.Event.Typename != "Event" || p.Event.ID != open.ID {
			t.Fatalf("submitPrediction answered %+v", p)
		}
	})
}

// TestEntityFieldsOnRowsAreRefused checks that a User or an Event reached through a row
// serves only what the row carries: the reading fields are BAD_USER_INPUT before any read
// (the only DynamoDB calls are those of the same query without them), and the state
// fields, which a row cannot know, are refused rather than guessed (a guess would overwrite
// the true value in a client's cache).
func TestEntityFieldsOnRowsAreRefused(t *testing.T) {
	e := newEnv(t)
	f := newScoredFixture(t, e, "Row Night")
	ace := f.tokens["p-ace"]
	l := e.createLeague(t, ace, "Ace's Crew")
	vars := map[string]any{"e": f.ev.ID, "l": l.ID}
	for _, tc := range []struct {
		name, query, without string
	}{
		{"StandingUserPredictions",
			`query { standings(season: 2030) { edges { node { user { id predictions { edges { cursor } } } } } } }`,
			`query { standings(season: 2030) { edges { node { user { id } } } } }`},
		{"StandingUserStandings",
			`query { standings(season: 2030) { edges { node { user { id standings { season } } } } } }`,
			`query { standings(season: 2030) { edges { node { user { id } } } } }`},
		{"StandingUserLeagues",
			`query { standings(season: 2030) { edges { node { user { id leagues { id } } } } } }`,
			`query { standings(season: 2030) { edges { node { user { id } } } } }`},
		{"LeaderboardUserPredictions",
			`query($e: ID!) { event(id: $e) { leaderboard { edges { node { user { predictions { edges { cursor } } } } } } } }`,
			`query($e: ID!) { event(id: $e) { leaderboard { edges { node { user { id } } } } } }`},
		{"PredictionEventLeaderboard",
			`query($e: ID!) { prediction(eventId: $e) { event { leaderboard { edges { cursor } } } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventMatches",
			`query($e: ID!) { prediction(eventId: $e) { event { matches { id } } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventState",
			`query($e: ID!) { prediction(eventId: $e) { event { state } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventLocked",
			`query($e: ID!) { prediction(eventId: $e) { event { locked } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventScoredMatches",
			`query($e: ID!) { prediction(eventId: $e) { event { scoredMatches } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventLiveChannel",
			`query($e: ID!) { prediction(eventId: $e) { event { liveChannel } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"PredictionEventLiveVersion",
			`query($e: ID!) { prediction(eventId: $e) { event { liveVersion } } }`,
			`query($e: ID!) { prediction(eventId: $e) { event { id } } }`},
		{"ProfileRowEventLiveVersion",
			`query { me { predictions { edges { node { event { liveVersion } } } } } }`,
			`query { me { predictions { edges { node { event { id } } } } } }`},
		{"ProfileRowEventLeaderboard",
			`query { me { predictions { edges { node { event { leaderboard { edges { cursor } } } } } } } }`,
			`query { me { predictions { edges { node { event { id } } } } } }`},
		{"LeagueOwnerLeagues",
			`query($l: ID!) { league(id: $l) { owner { leagues { id } } } }`,
			`query($l: ID!) { league(id: $l) { owner { id } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.request(t, ace, tc.query, vars)
			allCode(t, resp.Errors, "BAD_USER_INPUT")
			base := e.request(t, ace, tc.without, vars)
			noErrors(t, base.Errors)
			if got, want := costOf(t, resp).Calls, costOf(t, base).Calls; got != want {
				t.Fatalf("%d DynamoDB calls, want %d (those of the query without the refused field)", got, want)
			}
		})
	}
	t.Run("RowFieldsServed", func(t *testing.T) {
		type eventOfPrediction struct {
			Prediction struct {
				Event struct {
					ID, Name, StartsAt string
					Season             int
				}
			}
		}
		d := mustGQL[eventOfPrediction](t, e, ace, `query($e: ID!) { prediction(eventId: $e) { event { id name startsAt season } } }`, vars)
		if ev := d.Prediction.Event; ev.ID != f.ev.ID || ev.Name != f.ev.Name || ev.StartsAt != f.ev.StartsAt || ev.Season != 2030 {
			t.Fatalf("prediction's event %+v, want the event's id, name, start and season", ev)
		}
	})
}

// TestPageInfoFollowsRelay checks Relay's cursor-connection PageInfo on every kind of
// connection: forward paging only (hasPreviousPage false), startCursor the first edge's
// cursor and endCursor the last's, both null without edges.
func TestPageInfoFollowsRelay(t *testing.T) {
	e := newEnv(t)
	f := newScoredFixture(t, e, "Page Night")
	ace := f.tokens["p-ace"]
	l := e.createLeague(t, ace, "Ace's Crew")
	type page struct {
		Edges    []struct{ Cursor string }
		PageInfo struct {
			HasNextPage, HasPreviousPage bool
			StartCursor, EndCursor       *string
		}
	}
	info := `edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`
	var d struct {
		Events      page
		Standings   page
		Empty       page
		Event       struct{ Leaderboard page }
		Me          struct{ Predictions page }
		League      struct{ Standings page }
		NoStandings struct{ Standings page }
	}
	vars := map[string]any{"e": f.ev.ID, "l": l.ID}
	for _, q := range []string{
		`{ events(first: 1) { ` + info + ` } }`,
		`{ standings(season: 2030, first: 2) { ` + info + ` } }`,
		`{ empty: standings(season: 2031) { ` + info + ` } }`,
		`query($e: ID!) { event(id: $e) { leaderboard(first: 3) { ` + info + ` } } }`,
		`{ me { predictions(first: 1) { ` + info + ` } } }`,
		`query($l: ID!) { league(id: $l) { standings(season: 2030, first: 1) { ` + info + ` } } }`,
	} {
		raw := mustGQL[json.RawMessage](t, e, ace, q, vars)
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
	}
	for name, p := range map[string]page{
		"Events": d.Events, "Standings": d.Standings, "Leaderboard": d.Event.Leaderboard,
		"Profile": d.Me.Predictions, "LeagueStandings": d.League.Standings,
	} {
		if len(p.Edges) == 0 {
			t.Fatalf("%s: no edges", name)
		}
		pi := p.PageInfo
		if pi.HasPreviousPage || pi.StartCursor == nil || *pi.StartCursor != p.Edges[0].Cursor ||
			pi.EndCursor == nil || *pi.EndCursor != p.Edges[len(p.Edges)-1].Cursor {
			t.Errorf("%s: pageInfo %+v with %d edges", name, pi, len(p.Edges))
		}
	}
	if pi := d.Empty.PageInfo; pi.HasPreviousPage || pi.HasNextPage || pi.StartCursor != nil || pi.EndCursor != nil {
		t.Errorf("empty page: pageInfo %+v, want false, false, null, null", pi)
	}
}
