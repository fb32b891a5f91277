package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pickem/api/dynamo/table"
)

const (
	registerOp    = `mutation($n: String!) { register(name: $n) { id name standings { ...S } predictions { edges { node { eventId } } } } }` + "\n" + standingFields
	addMatchOp    = `mutation($e: ID!, $in: MatchInput!) { addMatch(eventId: $e, input: $in) { ...M } }` + "\n" + matchFields
	updateMatchOp = `mutation($e: ID!, $m: ID!, $in: MatchUpdateInput!) { updateMatch(eventId: $e, matchId: $m, input: $in) { ...M } }` + "\n" + matchFields
	removeMatchOp = `mutation($e: ID!, $m: ID!) { removeMatch(eventId: $e, matchId: $m) }`
	reorderOp     = `mutation($e: ID!, $ids: [ID!]!) { reorderMatches(eventId: $e, matchIds: $ids) { ...M } }` + "\n" + matchFields
	nonAdminID    = "p-other"
)

// TestMutationsCallerChecks: every mutation needs a signed-in caller, and the admin ones
// need the admin group. The arguments are valid, so only the caller makes them fail, and
// nothing is written.
func TestMutationsCallerChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent(t, "Dynasty", t0.Add(time.Hour), threeMatchCard()...)
	m := ev.Matches[0].ID
	ops := []struct {
		name  string
		op    string
		vars  map[string]any
		admin bool
	}{
		{"Register", registerOp, map[string]any{"n": "Someone"}, false},
		{"SubmitPrediction", submitOp, map[string]any{"e": ev.ID, "picks": picks(ev, 0)}, false},
		{"CreateEvent", createEventOp, map[string]any{"input": map[string]any{"name": "Grand Slam", "startsAt": "2030-09-20T23:00:00Z"}}, true},
		{"UpdateEvent", updateEventOp, map[string]any{"id": ev.ID, "input": map[string]any{"name": "Renamed"}}, true},
		{"AddMatch", addMatchOp, map[string]any{"e": ev.ID, "in": match("Extra", 5, "A", "B")}, true},
		{"UpdateMatch", updateMatchOp, map[string]any{"e": ev.ID, "m": m, "in": map[string]any{"name": "Renamed"}}, true},
		{"RemoveMatch", removeMatchOp, map[string]any{"e": ev.ID, "m": m}, true},
		{"ReorderMatches", reorderOp, map[string]any{"e": ev.ID, "ids": []string{ev.Matches[2].ID, ev.Matches[1].ID, m}}, true},
		{"SetResult", setResultOp, map[string]any{"e": ev.ID, "m": m, "r": map[string]any{"outcome": "WIN", "winner": 0}}, true},
		{"ScoreEvent", scoreOp, map[string]any{"e": ev.ID}, true},
	}
	player := e.token(t, nonAdminID, "Player", "players", "administrators")
	for _, c := range ops {
		t.Run(c.name+"/SignedOutIsUnauthenticated", func(t *testing.T) {
			if code := codeOf(t, e, "", c.op, c.vars); code != "UNAUTHENTICATED" {
				t.Fatalf("code %s", code)
			}
		})
		if c.admin {
			t.Run(c.name+"/NonAdminIsForbidden", func(t *testing.T) {
				if code := codeOf(t, e, player, c.op, c.vars); code != "FORBIDDEN" {
					t.Fatalf("code %s", code)
				}
			})
		}
	}
	t.Run("NothingWasWritten", func(t *testing.T) {
		got := e.event(t, "", ev.ID)
		if got.Name != "Dynasty" || len(got.Matches) != 3 || got.Matches[0].ID != m || got.Matches[0].Result != nil {
			t.Fatalf("event changed: %+v", got)
		}
		d := mustGQL[eventsData](t, e, "", eventsOp, nil)
		if len(d.Events.Edges) != 1 {
			t.Fatalf("%d events", len(d.Events.Edges))
		}
		if u := mustGQL[struct{ User *tUser }](t, e, "", userOp, map[string]any{"id": nonAdminID}).User; u != nil {
			t.Fatalf("user created: %+v", u)
		}
	})
}

func TestMutationRegister(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	register := func(t *testing.T, token, name string) (*tUser, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ Register *tUser }](t, e, token, registerOp, map[string]any{"n": name})
		return d.Register, errs
	}
	tok := e.token(t, "p-kenny", "kenny")
	t.Run("CreatesTrimmed", func(t *testing.T) {
		u, errs := register(t, tok, "  Kenny Omega \t")
		noErrors(t, errs)
		if u.ID != "p-kenny" || u.Name != "Kenny Omega" || len(u.Standings) != 0 || u.Predictions == nil {
			t.Fatalf("user = %+v", u)
		}
		me := mustGQL[struct{ Me *tUser }](t, e, tok, meOp, nil).Me
		if me.Name != "Kenny Omega" {
			t.Fatalf("me.name = %q", me.Name)
		}
	})
	t.Run("Renames", func(t *testing.T) {
		u, errs := register(t, tok, "The Cleaner")
		noErrors(t, errs)
		if u.Name != "The Cleaner" {
			t.Fatalf("name %q", u.Name)
		}
		if got := mustGQL[struct{ User *tUser }](t, e, "", userOp, map[string]any{"id": "p-kenny"}).User; got.Name != "The Cleaner" {
			t.Fatalf("user(id).name = %q", got.Name)
		}
	})
	t.Run("LengthBounds", func(t *testing.T) {
		for name, c := range map[string]struct {
			name string
			ok   bool
		}{
			"Empty":              {"", false},
			"Blank":              {"   \t ", false},
			"Forty":              {strings.Repeat("x", 40), true},
			"FortyOne":           {strings.Repeat("x", 41), false},
			"FortyRunes":         {strings.Repeat("é", 40), true},
			"FortyPaddedBySpace": {"  " + strings.Repeat("y", 40) + "  ", true},
		} {
			u, errs := register(t, tok, c.name)
			if c.ok {
				noErrors(t, errs)
				if u.Name != strings.TrimSpace(c.name) {
					t.Fatalf("%s: name %q", name, u.Name)
				}
			} else {
				wantCode(t, errs, "BAD_USER_INPUT")
			}
		}
	})
	t.Run("RenameReachesPredictionsAndStandings", func(t *testing.T) {
		f := newScoredFixture(t, e, "Revolution")
		u, errs := register(t, f.tokens["p-bea"], "Bea Renamed")
		noErrors(t, errs)
		if len(u.Standings) != 1 || u.Standings[0].User.Name != "Bea Renamed" {
			t.Fatalf("register standings %+v", u.Standings)
		}
		lb := nodes(e.event(t, "", f.ev.ID).Leaderboard)
		if lb[1].User.ID != "p-bea" || lb[1].User.Name != "Bea Renamed" {
			t.Fatalf("leaderboard row %+v", lb[1].User)
		}
		st := standingNodes(mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030}))
		if st[1].User.Name != "Bea Renamed" {
			t.Fatalf("standings row %+v", st[1].User)
		}
		p := mustGQL[predictionData](t, e, "", predictionOp, map[string]any{"e": f.ev.ID, "u": "p-bea"}).Prediction
		if p.User.Name != "Bea Renamed" {
			t.Fatalf("prediction user %+v", p.User)
		}
	})
}

func TestMutationSubmitPrediction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := t0.Add(2 * time.Hour)
	ev := e.createEvent(t, "Dynasty", start, threeMatchCard()...)
	tok := e.token(t, "p-jo", "Jo")

	t.Run("CreatesPartial", func(t *testing.T) {
		p := e.submit(t, tok, ev, -1, 1, -1)
		if p.EventID != ev.ID || p.User.ID != "p-jo" || p.User.Name != "Jo" || len(p.Picks) != 1 ||
			p.Picks[0].MatchID != ev.Matches[1].ID || p.Picks[0].Team != 1 || p.Points != nil || p.Picks[0].Correct != nil {
			t.Fatalf("prediction = %+v", p)
		}
	})
	t.Run("ReplacesInCardOrder", func(t *testing.T) {
		reversed := []map[string]any{
			{"matchId": ev.Matches[2].ID, "team": 1},
			{"matchId": ev.Matches[0].ID, "team": 0},
			{"matchId": ev.Matches[1].ID, "team": 0},
		}
		p := mustGQL[struct{ SubmitPrediction tPrediction }](t, e, tok, submitOp, map[string]any{"e": ev.ID, "picks": reversed}).SubmitPrediction
		var ids []string
		for _, pk := range p.Picks {
			ids = append(ids, pk.MatchID)
		}
		if want := []string{ev.Matches[0].ID, ev.Matches[1].ID, ev.Matches[2].ID}; !slices.Equal(ids, want) {
			t.Fatalf("picks %v, want card order %v", ids, want)
		}
		got := mustGQL[predictionData](t, e, tok, predictionOp, map[string]any{"e": ev.ID}).Prediction
		if len(got.Picks) != 3 || got.Picks[2].Team != 1 {
			t.Fatalf("stored prediction %+v", got)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		m0 := ev.Matches[0].ID
		for name, c := range map[string]struct {
			event string
			picks []map[string]any
		}{
			"NoPicks":          {ev.ID, []map[string]any{}},
			"UnknownMatch":     {ev.ID, []map[string]any{{"matchId": uuid.NewString(), "team": 0}}},
			"MalformedMatchID": {ev.ID, []map[string]any{{"matchId": "MATCH#x", "team": 0}}},
			"DuplicateMatch":   {ev.ID, []map[string]any{{"matchId": m0, "team": 0}, {"matchId": m0, "team": 1}}},
			"TeamTooHigh":      {ev.ID, []map[string]any{{"matchId": m0, "team": 2}}},
			"TeamNegative":     {ev.ID, []map[string]any{{"matchId": m0, "team": -1}}},
			"MalformedEventID": {"dynasty", []map[string]any{{"matchId": m0, "team": 0}}},
		} {
			t.Run(name, func(t *testing.T) {
				if code := codeOf(t, e, tok, submitOp, map[string]any{"e": c.event, "picks": c.picks}); code != "BAD_USER_INPUT" {
					t.Fatalf("code %s", code)
				}
			})
		}
	})
	t.Run("MissingEventIsNotFound", func(t *testing.T) {
		code := codeOf(t, e, tok, submitOp, map[string]any{"e": "2030-06-15-nothing", "picks": picks(ev, 0)})
		if code != "NOT_FOUND" {
			t.Fatalf("code %s", code)
		}
	})
	t.Run("LockedOnBroadcast", func(t *testing.T) {
		bc := e.createEvent(t, "Dynasty Broadcast", start, threeMatchCard()...)
		e.submit(t, tok, bc, 1)
		mustGQL[json.RawMessage](t, e, e.admin(t), updateEventOp, map[string]any{"id": bc.ID, "input": map[string]any{"state": "BROADCAST"}})
		if code := codeOf(t, e, tok, submitOp, map[string]any{"e": bc.ID, "picks": picks(bc, 0)}); code != "LOCKED" {
			t.Fatalf("code %s", code)
		}
	})
	t.Run("LockedAfterStart", func(t *testing.T) {
		defer e.clock.Set(t0)
		for _, at := range []time.Time{start, start.Add(time.Second), start.Add(24 * time.Hour)} {
			e.clock.Set(at)
			if code := codeOf(t, e, tok, submitOp, map[string]any{"e": ev.ID, "picks": picks(ev, 0)}); code != "LOCKED" {
				t.Fatalf("at %s: code %s", at.Format(time.RFC3339), code)
			}
		}
		e.clock.Set(start.Add(-time.Second))
		e.submit(t, tok, ev, 0)
	})
	t.Run("LockedOnceScored", func(t *testing.T) {
		f := newScoredFixture(t, e, "Revolution")
		if code := codeOf(t, e, f.tokens["p-ace"], submitOp, map[string]any{"e": f.ev.ID, "picks": picks(f.ev, 1)}); code != "LOCKED" {
			t.Fatalf("code %s", code)
		}
	})
}

func TestMutationCreateEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	create := func(t *testing.T, in map[string]any) (*tEvent, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ CreateEvent *tEvent }](t, e, admin, createEventOp, map[string]any{"input": in})
		return d.CreateEvent, errs
	}
	t.Run("WholeCard", func(t *testing.T) {
		ev, errs := create(t, map[string]any{
			"name": "  AEW All In  ", "startsAt": "2030-08-25T17:00:00Z",
			"matches": []any{
				map[string]any{"name": "Tag Team Match", "points": 5, "preshow": true, "teams": []any{
					map[string]any{"name": "FTR", "members": []string{"Dax Harwood", "Cash Wheeler"}, "champion": true},
					map[string]any{"name": "The Young Bucks", "members": []string{"Matthew Jackson", "Nicholas Jackson"}},
				}, "championships": []string{"AEW World Tag Team Championship"}},
				match("Main Event", 25, "Swerve Strickland", "Bryan Danielson", "Samoa Joe"),
			},
		})
		noErrors(t, errs)
		if ev.ID != "2030-08-25-aew-all-in" || ev.Name != "AEW All In" || ev.StartsAt != "2030-08-25T17:00:00Z" ||
			ev.Season != 2030 || ev.State != "UPCOMING" || ev.Locked || len(ev.Matches) != 2 {
			t.Fatalf("event = %+v", ev)
		}
		tag, main := ev.Matches[0], ev.Matches[1]
		if tag.Position != 1 || !tag.Preshow || tag.Points != 5 || *tag.Teams[0].Name != "FTR" || !tag.Teams[0].Champion ||
			tag.Teams[1].Champion || !slices.Equal(tag.Championships, []string{"AEW World Tag Team Championship"}) {
			t.Fatalf("match 1 = %+v", tag)
		}
		if main.Position != 2 || main.Preshow || len(main.Teams) != 3 || main.Teams[2].Name != nil ||
			main.Championships == nil || len(main.Championships) != 0 || main.Result != nil {
			t.Fatalf("match 2 = %+v", main)
		}
		for _, m := range ev.Matches {
			if _, err := uuid.Parse(m.ID); err != nil {
				t.Fatalf("match id %q: %v", m.ID, err)
			}
		}
		read := e.event(t, "", ev.ID)
		if read.Name != ev.Name || len(read.Matches) != 2 || read.Matches[0].ID != tag.ID || read.Matches[1].ID != main.ID {
			t.Fatalf("event(id) = %+v", read)
		}
	})
	t.Run("SuppliedID", func(t *testing.T) {
		ev, errs := create(t, map[string]any{"id": "2030-10-12-wrestledream", "name": "WrestleDream", "startsAt": "2030-10-12T23:00:00Z"})
		noErrors(t, errs)
		if ev.ID != "2030-10-12-wrestledream" || len(ev.Matches) != 0 || ev.Matches == nil {
			t.Fatalf("event = %+v", ev)
		}
	})
	t.Run("DuplicateIsConflict", func(t *testing.T) {
		_, errs := create(t, map[string]any{"name": "AEW All In", "startsAt": "2030-08-25T20:00:00Z", "matches": []any{match("M", 5, "A", "B")}})
		wantCode(t, errs, "CONFLICT")
		_, errs = create(t, map[string]any{"id": "2030-10-12-wrestledream", "name": "Other", "startsAt": "2030-10-12T01:00:00Z"})
		wantCode(t, errs, "CONFLICT")
		// The original card is untouched.
		if ev := e.event(t, "", "2030-08-25-aew-all-in"); len(ev.Matches) != 2 || ev.StartsAt != "2030-08-25T17:00:00Z" {
			t.Fatalf("original changed: %+v", ev)
		}
	})
	t.Run("TimeOutputIsUTC", func(t *testing.T) {
		ev, errs := create(t, map[string]any{"name": "Forbidden Door", "startsAt": "2030-07-01T22:00:00+02:00"})
		noErrors(t, errs)
		if ev.StartsAt != "2030-07-01T20:00:00Z" || ev.ID != "2030-07-01-forbidden-door" {
			t.Fatalf("startsAt %s id %s", ev.StartsAt, ev.ID)
		}
	})
	t.Run("SeasonIsUTCYear", func(t *testing.T) {
		ev, errs := create(t, map[string]any{"name": "New Year Smash", "startsAt": "2030-01-01T01:00:00+03:00"})
		noErrors(t, errs)
		if ev.StartsAt != "2029-12-31T22:00:00Z" || ev.Season != 2029 || ev.ID != "2029-12-31-new-year-smash" {
			t.Fatalf("event = %+v", ev)
		}
	})
	t.Run("PastStartIsLockedAtOnce", func(t *testing.T) {
		ev, errs := create(t, map[string]any{"name": "Backfill", "startsAt": "2030-03-03T23:00:00Z"})
		noErrors(t, errs)
		if ev.State != "BROADCAST" || !ev.Locked {
			t.Fatalf("state %s locked %v", ev.State, ev.Locked)
		}
	})
	t.Run("BadTime", func(t *testing.T) {
		for name, v := range map[string]any{
			"NoOffset":  "2030-07-01T20:00:00",
			"Empty":     "",
			"DateOnly":  "2030-07-01",
			"Words":     "tomorrow",
			"Number":    1893456000,
			"SpaceForm": "2030-07-01 20:00:00Z",
		} {
			t.Run(name, func(t *testing.T) {
				_, errs := create(t, map[string]any{"name": "Bad Time " + name, "startsAt": v})
				wantCode(t, errs, "BAD_USER_INPUT")
			})
		}
		t.Run("InlineLiteral", func(t *testing.T) {
			_, errs := gql[json.RawMessage](t, e, admin, `mutation { createEvent(input: {name: "Inline", startsAt: "2030-07-01T20:00:00"}) { id } }`, nil)
			wantCode(t, errs, "BAD_USER_INPUT")
		})
	})
	t.Run("BadInput", func(t *testing.T) {
		tooMany := make([]any, 31)
		for i := range tooMany {
			tooMany[i] = match("M", 1, "A", "B")
		}
		for name, in := range map[string]map[string]any{
			"IDDateNotStartDate": {"id": "2030-11-01-full-gear", "name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z"},
			"MalformedID":        {"id": "Full Gear", "name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z"},
			"KeyInID":            {"id": "2030-11-02-x#EVENT", "name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z"},
			"EmptyName":          {"name": "  ", "startsAt": "2030-11-02T01:00:00Z"},
			"UnsluggableName":    {"name": "!!!", "startsAt": "2030-11-02T01:00:00Z"},
			"OneTeam":            {"name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z", "matches": []any{match("M", 5, "A")}},
			"ZeroPoints":         {"name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z", "matches": []any{match("M", 0, "A", "B")}},
			"NoMembers":          {"name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z", "matches": []any{map[string]any{"name": "M", "points": 5, "teams": []any{map[string]any{"members": []string{}}, map[string]any{"members": []string{"B"}}}}}},
			"TooManyMatches":     {"name": "Full Gear", "startsAt": "2030-11-02T01:00:00Z", "matches": tooMany},
		} {
			t.Run(name, func(t *testing.T) {
				_, errs := create(t, in)
				wantCode(t, errs, "BAD_USER_INPUT")
			})
		}
		// Nothing of the refused cards was written.
		if ev := e.event(t, "", "2030-11-02-full-gear"); ev != nil {
			t.Fatalf("refused event exists: %+v", ev)
		}
	})
}

func TestMutationUpdateEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	start := t0.Add(3 * time.Hour) // 2030-06-15T15:00Z
	ev := e.createEvent(t, "Dynasty", start, threeMatchCard()...)
	tok := e.token(t, "p-jo", "Jo")
	e.submit(t, tok, ev, 0, 0, 0)
	update := func(t *testing.T, id string, in map[string]any) (*tEvent, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ UpdateEvent *tEvent }](t, e, admin, updateEventOp, map[string]any{"id": id, "input": in})
		return d.UpdateEvent, errs
	}
	t.Run("RenameReachesPredictions", func(t *testing.T) {
		got, errs := update(t, ev.ID, map[string]any{"name": " AEW Dynasty "})
		noErrors(t, errs)
		if got.Name != "AEW Dynasty" || got.ID != ev.ID || len(got.Matches) != 3 {
			t.Fatalf("event = %+v", got)
		}
		p := mustGQL[predictionData](t, e, tok, predictionOp, map[string]any{"e": ev.ID}).Prediction
		if p.Event.Name != "AEW Dynasty" {
			t.Fatalf("prediction event ref %+v", p.Event)
		}
	})
	t.Run("MoveStartWithinItsDate", func(t *testing.T) {
		got, errs := update(t, ev.ID, map[string]any{"startsAt": "2030-06-15T20:30:00-02:00"}) // 22:30Z
		noErrors(t, errs)
		if got.StartsAt != "2030-06-15T22:30:00Z" || got.State != "UPCOMING" {
			t.Fatalf("event = %+v", got)
		}
		p := mustGQL[predictionData](t, e, tok, predictionOp, map[string]any{"e": ev.ID}).Prediction
		if p.Event.StartsAt != "2030-06-15T22:30:00Z" {
			t.Fatalf("prediction event ref %+v", p.Event)
		}
	})
	t.Run("BroadcastNeverReopens", func(t *testing.T) {
		bc := e.createEvent(t, "Dynasty Broadcast", start, threeMatchCard()...)
		got, errs := update(t, bc.ID, map[string]any{"state": "BROADCAST"})
		noErrors(t, errs)
		if got.State != "BROADCAST" || !got.Locked {
			t.Fatalf("state %s locked %v", got.State, got.Locked)
		}
		for name, in := range map[string]map[string]any{
			"Upcoming":   {"state": "UPCOMING"},
			"LaterStart": {"startsAt": "2030-06-15T23:00:00Z"},
		} {
			_, errs = update(t, bc.ID, in)
			if len(errs) != 1 || errs[0].Code() != "BAD_USER_INPUT" {
				t.Errorf("%s: errors %v, want BAD_USER_INPUT", name, errs)
			}
		}
		if got := e.event(t, "", bc.ID); got.State != "BROADCAST" || !got.Locked {
			t.Fatalf("state %s locked %v", got.State, got.Locked)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		for name, in := range map[string]map[string]any{
			"OtherDate":   {"startsAt": "2030-06-16T01:00:00Z"},
			"OtherDateTZ": {"startsAt": "2030-06-15T23:30:00-02:00"},
			"SetScored":   {"state": "SCORED"},
			"EmptyName":   {"name": ""},
			"NoOffset":    {"startsAt": "2030-06-15T20:00:00"},
		} {
			t.Run(name, func(t *testing.T) {
				_, errs := update(t, ev.ID, in)
				wantCode(t, errs, "BAD_USER_INPUT")
			})
		}
		if got := e.event(t, "", ev.ID); got.StartsAt != "2030-06-15T22:30:00Z" || got.State != "UPCOMING" || got.Name != "AEW Dynasty" {
			t.Fatalf("event changed: %+v", got)
		}
	})
	t.Run("ScoredEventOnlyRenames", func(t *testing.T) {
		f := newScoredFixture(t, e, "Revolution")
		for name, in := range map[string]map[string]any{
			"State":    {"state": "BROADCAST"},
			"Upcoming": {"state": "UPCOMING"},
			"StartsAt": {"startsAt": f.ev.StartsAt},
		} {
			_, errs := update(t, f.ev.ID, in)
			if len(errs) != 1 || errs[0].Code() != "BAD_USER_INPUT" {
				t.Fatalf("%s: errors %+v", name, errs)
			}
		}
		got, errs := update(t, f.ev.ID, map[string]any{"name": "Revolution 2030"})
		noErrors(t, errs)
		if got.Name != "Revolution 2030" || got.State != "SCORED" {
			t.Fatalf("event = %+v", got)
		}
	})
	t.Run("MissingIsNotFound", func(t *testing.T) {
		_, errs := update(t, "2030-06-15-nothing", map[string]any{"name": "X"})
		wantCode(t, errs, "NOT_FOUND")
		_, errs = update(t, "nothing", map[string]any{"name": "X"})
		wantCode(t, errs, "BAD_USER_INPUT")
	})
}

func TestMutationCardEdits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	ev := e.createEvent(t, "Dynasty", t0.Add(24*time.Hour), threeMatchCard()...)
	card := func(t *testing.T) []tMatch {
		t.Helper()
		return e.event(t, "", ev.ID).Matches
	}
	names := func(ms []tMatch) []string {
		var out []string
		for i, m := range ms {
			if m.Position != i+1 {
				t.Fatalf("match %s at index %d has position %d", m.Name, i, m.Position)
			}
			out = append(out, m.Name)
		}
		return out
	}
	missingEvent := "2030-06-16-nothing"
	unknownMatch := uuid.NewString()

	t.Run("AddMatch", func(t *testing.T) {
		in := match("Ladder Match", 15, "Kazuchika Okada", "Kyle Fletcher")
		in["championships"] = []string{"AEW Continental Championship"}
		m := mustGQL[struct{ AddMatch tMatch }](t, e, admin, addMatchOp, map[string]any{"e": ev.ID, "in": in}).AddMatch
		if m.Position != 4 || m.Name != "Ladder Match" || m.Points != 15 || len(m.Teams) != 2 {
			t.Fatalf("match = %+v", m)
		}
		got := card(t)
		if len(got) != 4 || got[3].ID != m.ID {
			t.Fatalf("card = %v", names(got))
		}
		ev.Matches = got
	})
	t.Run("AddMatchErrors", func(t *testing.T) {
		for name, c := range map[string]struct {
			event string
			in    map[string]any
			code  string
		}{
			"MissingEvent":   {missingEvent, match("X", 5, "A", "B"), "NOT_FOUND"},
			"MalformedEvent": {"x", match("X", 5, "A", "B"), "BAD_USER_INPUT"},
			"OneTeam":        {ev.ID, match("X", 5, "A"), "BAD_USER_INPUT"},
			"TooManyPoints":  {ev.ID, match("X", 1001, "A", "B"), "BAD_USER_INPUT"},
		} {
			if code := codeOf(t, e, admin, addMatchOp, map[string]any{"e": c.event, "in": c.in}); code != c.code {
				t.Fatalf("%s: code %s, want %s", name, code, c.code)
			}
		}
	})
	t.Run("UpdateMatchKeepsID", func(t *testing.T) {
		target := ev.Matches[1]
		m := mustGQL[struct{ UpdateMatch tMatch }](t, e, admin, updateMatchOp, map[string]any{
			"e": ev.ID, "m": target.ID, "in": map[string]any{"name": "Women's World Title", "points": 7, "preshow": true},
		}).UpdateMatch
		if m.ID != target.ID || m.Name != "Women's World Title" || m.Points != 7 || !m.Preshow || m.Position != 2 ||
			m.Teams[0].Members[0] != "Toni Storm" {
			t.Fatalf("match = %+v", m)
		}
		// The same teams again are no change of teams.
		m = mustGQL[struct{ UpdateMatch tMatch }](t, e, admin, updateMatchOp, map[string]any{
			"e": ev.ID, "m": target.ID, "in": map[string]any{"teams": []any{
				map[string]any{"members": []string{"Toni Storm"}}, map[string]any{"members": []string{"Mariah May"}}}},
		}).UpdateMatch
		if m.ID != target.ID {
			t.Fatalf("same teams changed the id: %s → %s", target.ID, m.ID)
		}
	})
	t.Run("UpdateMatchNewTeamsNewID", func(t *testing.T) {
		tok := e.token(t, "p-jo", "Jo")
		e.submit(t, tok, ev, -1, 1, -1, -1)
		old := ev.Matches[1]
		m := mustGQL[struct{ UpdateMatch tMatch }](t, e, admin, updateMatchOp, map[string]any{
			"e": ev.ID, "m": old.ID, "in": map[string]any{"teams": []any{
				map[string]any{"members": []string{"Toni Storm"}}, map[string]any{"members": []string{"Mercedes Moné"}}}},
		}).UpdateMatch
		if m.ID == old.ID || m.Position != 2 || m.Teams[1].Members[0] != "Mercedes Moné" || m.Name != "Women's World Title" {
			t.Fatalf("match = %+v (old id %s)", m, old.ID)
		}
		got := card(t)
		if len(got) != 4 || got[1].ID != m.ID {
			t.Fatalf("card = %+v", got)
		}
		// Picks on the old match are not re-pointed: picking it now is refused.
		code := codeOf(t, e, tok, submitOp, map[string]any{"e": ev.ID, "picks": []map[string]any{{"matchId": old.ID, "team": 1}}})
		if code != "BAD_USER_INPUT" {
			t.Fatalf("pick on the replaced match: code %s", code)
		}
		ev.Matches = got
	})
	t.Run("UpdateMatchErrors", func(t *testing.T) {
		m := ev.Matches[0].ID
		for name, c := range map[string]struct {
			event, match string
			in           map[string]any
			code         string
		}{
			"MissingEvent":   {missingEvent, m, map[string]any{"name": "X"}, "NOT_FOUND"},
			"UnknownMatch":   {ev.ID, unknownMatch, map[string]any{"name": "X"}, "NOT_FOUND"},
			"MalformedMatch": {ev.ID, "MATCH#1", map[string]any{"name": "X"}, "BAD_USER_INPUT"},
			"ZeroPoints":     {ev.ID, m, map[string]any{"points": 0}, "BAD_USER_INPUT"},
			"OneTeam":        {ev.ID, m, map[string]any{"teams": []any{map[string]any{"members": []string{"A"}}}}, "BAD_USER_INPUT"},
		} {
			if code := codeOf(t, e, admin, updateMatchOp, map[string]any{"e": c.event, "m": c.match, "in": c.in}); code != c.code {
				t.Fatalf("%s: code %s, want %s", name, code, c.code)
			}
		}
	})
	t.Run("ReorderMatches", func(t *testing.T) {
		ids := []string{ev.Matches[3].ID, ev.Matches[0].ID, ev.Matches[2].ID, ev.Matches[1].ID}
		ms := mustGQL[struct{ ReorderMatches []tMatch }](t, e, admin, reorderOp, map[string]any{"e": ev.ID, "ids": ids}).ReorderMatches
		want := []string{"Ladder Match", "Main Event", "Opener", "Women's World Title"}
		if got := names(ms); !slices.Equal(got, want) {
			t.Fatalf("returned %v, want %v", got, want)
		}
		got := card(t)
		if !slices.Equal(names(got), want) {
			t.Fatalf("card %v, want %v", names(got), want)
		}
		ev.Matches = got
	})
	t.Run("ReorderMatchesErrors", func(t *testing.T) {
		ids := func(idx ...int) []string {
			var out []string
			for _, i := range idx {
				out = append(out, ev.Matches[i].ID)
			}
			return out
		}
		for name, c := range map[string]struct {
			event string
			ids   []string
			code  string
		}{
			"MissingOne":   {ev.ID, ids(0, 1, 2), "BAD_USER_INPUT"},
			"Duplicate":    {ev.ID, ids(0, 1, 2, 2), "BAD_USER_INPUT"},
			"Unknown":      {ev.ID, append(ids(0, 1, 2), unknownMatch), "BAD_USER_INPUT"},
			"Extra":        {ev.ID, append(ids(0, 1, 2, 3), unknownMatch), "BAD_USER_INPUT"},
			"MissingEvent": {missingEvent, ids(0, 1, 2, 3), "NOT_FOUND"},
		} {
			if code := codeOf(t, e, admin, reorderOp, map[string]any{"e": c.event, "ids": c.ids}); code != c.code {
				t.Fatalf("%s: code %s, want %s", name, code, c.code)
			}
		}
		if got := names(card(t)); got[0] != "Ladder Match" {
			t.Fatalf("card changed: %v", got)
		}
	})
	t.Run("RemoveMatchClosesGap", func(t *testing.T) {
		ok := mustGQL[struct{ RemoveMatch bool }](t, e, admin, removeMatchOp, map[string]any{"e": ev.ID, "m": ev.Matches[1].ID}).RemoveMatch
		if !ok {
			t.Fatal("removeMatch = false")
		}
		got := card(t)
		if want := []string{"Ladder Match", "Opener", "Women's World Title"}; !slices.Equal(names(got), want) {
			t.Fatalf("card %v, want %v", names(got), want)
		}
		if code := codeOf(t, e, admin, removeMatchOp, map[string]any{"e": ev.ID, "m": ev.Matches[1].ID}); code != "NOT_FOUND" {
			t.Fatalf("removing it again: code %s", code)
		}
		ev.Matches = got
	})
	t.Run("RemoveMatchErrors", func(t *testing.T) {
		for name, c := range map[string]struct{ event, match, code string }{
			"MissingEvent":   {missingEvent, ev.Matches[0].ID, "NOT_FOUND"},
			"UnknownMatch":   {ev.ID, unknownMatch, "NOT_FOUND"},
			"MalformedMatch": {ev.ID, "nope", "BAD_USER_INPUT"},
		} {
			if code := codeOf(t, e, admin, removeMatchOp, map[string]any{"e": c.event, "m": c.match}); code != c.code {
				t.Fatalf("%s: code %s, want %s", name, code, c.code)
			}
		}
	})
	t.Run("ScoredCardIsFrozen", func(t *testing.T) {
		f := newScoredFixture(t, e, "Revolution")
		m := f.ev.Matches[0].ID
		for name, c := range map[string]struct {
			op   string
			vars map[string]any
		}{
			"AddMatch":       {addMatchOp, map[string]any{"e": f.ev.ID, "in": match("X", 5, "A", "B")}},
			"RemoveMatch":    {removeMatchOp, map[string]any{"e": f.ev.ID, "m": m}},
			"ReorderMatches": {reorderOp, map[string]any{"e": f.ev.ID, "ids": []string{f.ev.Matches[2].ID, f.ev.Matches[1].ID, m}}},
			"NewTeams":       {updateMatchOp, map[string]any{"e": f.ev.ID, "m": m, "in": map[string]any{"teams": []any{map[string]any{"members": []string{"A"}}, map[string]any{"members": []string{"B"}}}}}},
		} {
			if code := codeOf(t, e, admin, c.op, c.vars); code != "BAD_USER_INPUT" {
				t.Fatalf("%s: code %s", name, code)
			}
		}
	})
}

func TestMutationSetResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	start := t0.Add(time.Hour)
	ev := e.createEvent(t, "Dynasty", start, match("Main Event", 10, "A", "B", "C"), match("Opener", 5, "D", "E"))
	m := ev.Matches[0].ID
	set := func(t *testing.T, event, match string, r any) (*tMatch, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ SetResult *tMatch }](t, e, admin, setResultOp, map[string]any{"e": event, "m": match, "r": r})
		return d.SetResult, errs
	}
	win := func(w int) map[string]any { return map[string]any{"outcome": "WIN", "winner": w} }

	t.Run("OpenEventIsBadInput", func(t *testing.T) {
		_, errs := set(t, ev.ID, m, win(0))
		wantCode(t, errs, "BAD_USER_INPUT")
	})
	e.clock.Set(start.Add(time.Minute))
	t.Run("Win", func(t *testing.T) {
		got, errs := set(t, ev.ID, m, win(2))
		noErrors(t, errs)
		if got.ID != m || got.Result == nil || got.Result.Outcome != "WIN" || *got.Result.Winner != 2 {
			t.Fatalf("match = %+v", got)
		}
		if r := e.event(t, "", ev.ID).Matches[0].Result; r == nil || *r.Winner != 2 {
			t.Fatalf("stored result %+v", r)
		}
	})
	t.Run("VoidOutcomes", func(t *testing.T) {
		for _, o := range []string{"DRAW", "NO_CONTEST"} {
			got, errs := set(t, ev.ID, ev.Matches[1].ID, map[string]any{"outcome": o})
			noErrors(t, errs)
			if got.Result.Outcome != o || got.Result.Winner != nil {
				t.Fatalf("%s: result %+v", o, got.Result)
			}
		}
	})
	t.Run("NullClears", func(t *testing.T) {
		got, errs := set(t, ev.ID, ev.Matches[1].ID, nil)
		noErrors(t, errs)
		if got.Result != nil {
			t.Fatalf("result %+v", got.Result)
		}
		if r := e.event(t, "", ev.ID).Matches[1].Result; r != nil {
			t.Fatalf("stored result %+v", r)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for name, c := range map[string]struct {
			event, match string
			r            any
			code         string
		}{
			"WinWithoutWinner": {ev.ID, m, map[string]any{"outcome": "WIN"}, "BAD_USER_INPUT"},
			"WinnerTooHigh":    {ev.ID, m, win(3), "BAD_USER_INPUT"},
			"WinnerNegative":   {ev.ID, m, win(-1), "BAD_USER_INPUT"},
			"DrawWithWinner":   {ev.ID, m, map[string]any{"outcome": "DRAW", "winner": 0}, "BAD_USER_INPUT"},
			"UnknownOutcome":   {ev.ID, m, map[string]any{"outcome": "DQ"}, "GRAPHQL_VALIDATION_FAILED"},
			"UnknownMatch":     {ev.ID, uuid.NewString(), win(0), "NOT_FOUND"},
			"MalformedMatch":   {ev.ID, "m1", win(0), "BAD_USER_INPUT"},
			"MissingEvent":     {"2030-06-15-nothing", m, win(0), "NOT_FOUND"},
		} {
			_, errs := set(t, c.event, c.match, c.r)
			if len(errs) != 1 || errs[0].Code() != c.code {
				t.Fatalf("%s: errors %+v, want %s", name, errs, c.code)
			}
		}
		if r := e.event(t, "", ev.ID).Matches[0].Result; r == nil || *r.Winner != 2 {
			t.Fatalf("result changed: %+v", r)
		}
	})
	t.Run("ScoredResultCorrectedNotCleared", func(t *testing.T) {
		f := newScoredFixture(t, e, "Revolution")
		_, errs := set(t, f.ev.ID, f.ev.Matches[0].ID, nil)
		wantCode(t, errs, "BAD_USER_INPUT")
		got, errs := set(t, f.ev.ID, f.ev.Matches[0].ID, win(1))
		noErrors(t, errs)
		if *got.Result.Winner != 1 {
			t.Fatalf("result %+v", got.Result)
		}
	})
}

// shardsOf is how many score shards the players are in: a scoring transaction holds
// players of one shard (at most 48).
func shardsOf[V any](players map[string]V) int {
	shards := map[int]bool{}
	for id := range players {
		shards[table.ShardOf(id, 1)] = true
	}
	return len(shards)
}

func TestMutationScoreEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.admin(t)
	start := t0.Add(2 * time.Hour)
	ev := e.createEvent(t, "Full Gear", start, threeMatchCard()...)
	players := map[string][]int{"p-ace": {0, 1, 0}, "p-bea": {0, 1, 1}, "p-cal": {0, 0, 0}, "p-dee": {1, 1, 1}}
	for id, choice := range players {
		e.submit(t, e.token(t, id, strings.ToUpper(id[2:])), ev, choice...)
	}
	score := func(t *testing.T, id string, dry bool) (*tReport, []gqlErr) {
		t.Helper()
		d, errs := gql[struct{ ScoreEvent *tReport }](t, e, admin, scoreOp, map[string]any{"e": id, "dry": dry})
		return d.ScoreEvent, errs
	}
	standings := func(t *testing.T) map[string]int {
		t.Helper()
		out := map[string]int{}
		for _, s := range standingNodes(mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030})) {
			out[s.User.ID] = s.Points
		}
		return out
	}

	t.Run("OpenEventIsBadInput", func(t *testing.T) {
		_, errs := score(t, ev.ID, false)
		wantCode(t, errs, "BAD_USER_INPUT")
	})
	e.clock.Set(start.Add(time.Hour))
	t.Run("NoResultIsBadInput", func(t *testing.T) {
		// Some results score live (TestLiveScoringAPI); none at all is refused.
		for _, dry := range []bool{true, false} {
			_, errs := score(t, ev.ID, dry)
			wantCode(t, errs, "BAD_USER_INPUT")
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		_, errs := score(t, "2030-06-15-nothing", false)
		wantCode(t, errs, "NOT_FOUND")
		_, errs = score(t, "nothing", false)
		wantCode(t, errs, "BAD_USER_INPUT")
	})
	e.setWinners(t, ev, 0, 1, 0)
	t.Run("DryRunWritesNothing", func(t *testing.T) {
		rep, errs := score(t, ev.ID, true)
		noErrors(t, errs)
		if *rep != (tReport{EventID: ev.ID, DryRun: true, PredictionsScored: 4, StandingsChanged: 4, Transactions: shardsOf(players)}) {
			t.Fatalf("report %+v", *rep)
		}
		got := e.event(t, "", ev.ID)
		if got.State != "BROADCAST" || len(got.Leaderboard.Edges) != 0 {
			t.Fatalf("after dry run: state %s, %d leaderboard rows", got.State, len(got.Leaderboard.Edges))
		}
		if len(standings(t)) != 0 {
			t.Fatal("dry run wrote standings")
		}
		p := mustGQL[predictionData](t, e, e.token(t, "p-ace", "ACE"), predictionOp, map[string]any{"e": ev.ID}).Prediction
		if p.Points != nil || p.Picks[0].Correct != nil {
			t.Fatalf("dry run scored a prediction: %+v", p)
		}
	})
	t.Run("Scores", func(t *testing.T) {
		rep, errs := score(t, ev.ID, false)
		noErrors(t, errs)
		if *rep != (tReport{EventID: ev.ID, DryRun: false, PredictionsScored: 4, StandingsChanged: 4, Transactions: shardsOf(players)}) {
			t.Fatalf("report %+v", *rep)
		}
		got := e.event(t, "", ev.ID)
		if got.State != "SCORED" || len(got.Leaderboard.Edges) != 4 {
			t.Fatalf("state %s, %d leaderboard rows", got.State, len(got.Leaderboard.Edges))
		}
		if s := standings(t); s["p-ace"] != 20 || s["p-bea"] != 15 || s["p-cal"] != 15 || s["p-dee"] != 5 {
			t.Fatalf("standings %v", s)
		}
	})
	t.Run("RerunChangesNothing", func(t *testing.T) {
		for _, dry := range []bool{true, false} {
			rep, errs := score(t, ev.ID, dry)
			noErrors(t, errs)
			if rep.PredictionsScored != 0 || rep.StandingsChanged != 0 || rep.Transactions != 0 || rep.DryRun != dry {
				t.Fatalf("dry %v: report %+v", dry, *rep)
			}
		}
		if s := standings(t); s["p-ace"] != 20 || s["p-dee"] != 5 {
			t.Fatalf("standings %v", s)
		}
	})
	t.Run("CorrectedResultAppliesTheDifference", func(t *testing.T) {
		// The opener's winner was 0; it is 1. Ace and Cal lose 5, Bea and Dee gain 5.
		mustGQL[json.RawMessage](t, e, admin, setResultOp, map[string]any{"e": ev.ID, "m": ev.Matches[2].ID,
			"r": map[string]any{"outcome": "WIN", "winner": 1}})
		rep, errs := score(t, ev.ID, false)
		noErrors(t, errs)
		if rep.PredictionsScored != 4 || rep.StandingsChanged != 4 {
			t.Fatalf("report %+v", *rep)
		}
		if s := standings(t); s["p-ace"] != 15 || s["p-bea"] != 20 || s["p-cal"] != 10 || s["p-dee"] != 10 {
			t.Fatalf("standings %v", s)
		}
		d := mustGQL[standingsData](t, e, "", standingsOp, map[string]any{"s": 2030})
		for _, s := range nodes(&d.Standings) {
			if s.EventsPlayed != 1 {
				t.Fatalf("%s played %d events", s.User.ID, s.EventsPlayed)
			}
		}
	})
	t.Run("VoidedMatchScoresNobody", func(t *testing.T) {
		start := e.clock.Now().Add(time.Hour)
		ev := e.createEvent(t, "Worlds End", start, match("Main Event", 10, "A", "B"), match("Tag", 5, "C", "D"))
		e.submit(t, e.token(t, "p-eve", "Eve"), ev, 0, 0)
		e.submit(t, e.token(t, "p-fay", "Fay"), ev, 1, 1)
		e.clock.Set(start.Add(time.Hour))
		mustGQL[json.RawMessage](t, e, admin, setResultOp, map[string]any{"e": ev.ID, "m": ev.Matches[0].ID, "r": map[string]any{"outcome": "WIN", "winner": 0}})
		mustGQL[json.RawMessage](t, e, admin, setResultOp, map[string]any{"e": ev.ID, "m": ev.Matches[1].ID, "r": map[string]any{"outcome": "DRAW"}})
		e.score(t, ev.ID, false)
		lb := nodes(e.event(t, "", ev.ID).Leaderboard)
		if len(lb) != 2 || lb[0].User.ID != "p-eve" || *lb[0].Points != 10 || *lb[1].Points != 0 || *lb[1].Rank != 2 {
			t.Fatalf("leaderboard %+v", lb)
		}
		for _, p := range lb {
			if c := p.Picks[1].Correct; c == nil || *c {
				t.Fatalf("%s: pick on the drawn match correct = %v, want false", p.User.ID, deref(c))
			}
		}
	})
	t.Run("EventWithoutPredictions", func(t *testing.T) {
		start := e.clock.Now().Add(time.Hour)
		ev := e.createEvent(t, "Empty Arena", start, match("Main Event", 10, "A", "B"))
		e.clock.Set(start.Add(time.Minute))
		e.setWinners(t, ev, 1)
		rep := e.score(t, ev.ID, false)
		if rep.PredictionsScored != 0 || rep.Transactions != 0 {
			t.Fatalf("report %+v", rep)
		}
		if got := e.event(t, "", ev.ID); got.State != "SCORED" {
			t.Fatalf("state %s", got.State)
		}
	})
}
