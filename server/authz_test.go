package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/graph"
	"github.com/pickem/api/resolvers"
)

// Callers of the authorization matrix.
const (
	anonymous = iota
	player    // owns the prediction and the profile the row asks about
	another   // another signed-in player
	admin     // in the admin group
	callers
)

var callerNames = [callers]string{"Anonymous", "Player", "AnotherPlayer", "Admin"}

// ok is a matrix cell that succeeds without errors.
const ok = ""

// authzFixture is what the matrix rows act on.
type authzFixture struct {
	scored                              scoredFixture
	upcoming, editable, locked, toScore tEvent
	league                              tLeague // owned by the player, joined by nobody else
}

// authzRow is one field of the schema: a document, its variables (computed when the cell
// runs, from the current state) and the code each caller gets.
type authzRow struct {
	field string // "Query.events"
	query string
	vars  func(t *testing.T, e *env, f *authzFixture) map[string]any
	want  [callers]string
}

func noVars(*testing.T, *env, *authzFixture) map[string]any { return nil }

// authzMatrix is the authorization of every query field and mutation, in one table:
// TestAuthorizationMatrix fails when a field of the schema has no row here.
func authzMatrix() []authzRow {
	const (
		unauth    = "UNAUTHENTICATED"
		forbidden = "FORBIDDEN"
	)
	adminOnly := [callers]string{unauth, forbidden, forbidden, ok}
	signedIn := [callers]string{unauth, ok, ok, ok}
	everyone := [callers]string{ok, ok, ok, ok}
	cardVars := func(pick func(f *authzFixture) tEvent) func(*testing.T, *env, *authzFixture) map[string]any {
		return func(t *testing.T, e *env, f *authzFixture) map[string]any {
			ev := e.event(t, "", pick(f).ID)
			return map[string]any{"e": ev.ID, "m": ev.Matches[0].ID, "last": ev.Matches[len(ev.Matches)-1].ID, "ids": matchIDs(*ev)}
		}
	}
	return []authzRow{
		{"Query.events", `{ events(first: 2) { edges { cursor } } }`, noVars, everyone},
		{"Query.event", `query($e: ID!) { event(id: $e) { id leaderboard(first: 2) { edges { cursor } } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any { return map[string]any{"e": f.scored.ev.ID} }, everyone},
		// The player's own prediction of an open event: nobody else sees it before the
		// event locks, admins included.
		{"Query.prediction", `query($e: ID!, $u: ID) { prediction(eventId: $e, userId: $u) { points picks { team } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any {
				return map[string]any{"e": f.upcoming.ID, "u": f.scored.players[0]}
			}, [callers]string{forbidden, ok, forbidden, forbidden}},
		// Once the event has locked (here: BROADCAST before its start), everyone sees it.
		{"Query.prediction", `query($e: ID!, $u: ID) { prediction(eventId: $e, userId: $u) { points picks { team } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any {
				return map[string]any{"e": f.locked.ID, "u": f.scored.players[0]}
			}, everyone},
		{"Query.standings", `{ standings(season: 2030, first: 2) { edges { cursor } } }`, noVars, everyone},
		{"Query.user", `query($u: ID!) { user(id: $u) { id predictions { edges { cursor } } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any {
				return map[string]any{"u": f.scored.players[0]}
			}, everyone},
		{"Query.me", `{ me { id } }`, noVars, everyone},
		{"Mutation.register", `mutation { register(name: "Matrix Player") { id } }`, noVars, signedIn},
		{"Mutation.submitPrediction", `mutation($e: ID!, $m: ID!) { submitPrediction(eventId: $e, picks: [{matchId: $m, team: 1}]) { eventId } }`,
			cardVars(func(f *authzFixture) tEvent { return f.upcoming }), signedIn},
		{"Mutation.createEvent", `mutation { createEvent(input: {name: "Matrix Mania", startsAt: "2030-09-01T20:00:00Z"}) { id } }`, noVars, adminOnly},
		{"Mutation.updateEvent", `mutation($e: ID!) { updateEvent(id: $e, input: {name: "Matrix Renamed"}) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.editable }), adminOnly},
		{"Mutation.addMatch", `mutation($e: ID!) { addMatch(eventId: $e, input: {name: "Added", points: 5, teams: [{members: ["A"]}, {members: ["B"]}]}) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.editable }), adminOnly},
		{"Mutation.updateMatch", `mutation($e: ID!, $m: ID!) { updateMatch(eventId: $e, matchId: $m, input: {points: 15}) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.editable }), adminOnly},
		{"Mutation.removeMatch", `mutation($e: ID!, $last: ID!) { removeMatch(eventId: $e, matchId: $last) }`,
			cardVars(func(f *authzFixture) tEvent { return f.editable }), adminOnly},
		{"Mutation.reorderMatches", `mutation($e: ID!, $ids: [ID!]!) { reorderMatches(eventId: $e, matchIds: $ids) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.editable }), adminOnly},
		{"Mutation.setResult", `mutation($e: ID!, $m: ID!) { setResult(eventId: $e, matchId: $m, result: {outcome: WIN, winner: 0}) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.locked }), adminOnly},
		{"Mutation.setTiebreakerAnswer", `mutation($e: ID!) { setTiebreakerAnswer(eventId: $e, answer: 30) { id } }`,
			cardVars(func(f *authzFixture) tEvent { return f.locked }), adminOnly},
		{"Mutation.scoreEvent", `mutation($e: ID!) { scoreEvent(eventId: $e) { predictionsScored } }`,
			cardVars(func(f *authzFixture) tEvent { return f.toScore }), adminOnly},
		// A league is private: its members and admins read it.
		{"Query.league", `query($l: ID!) { league(id: $l) { id inviteCode standings(season: 2030) { edges { cursor } } } }`,
			leagueVars, [callers]string{forbidden, ok, forbidden, ok}},
		{"Query.leagueByInvite", `query($c: String!) { leagueByInvite(inviteCode: $c) { id name memberCount inviteCode } }`, leagueVars, everyone},
		{"User.leagues", `query($u: ID!) { user(id: $u) { leagues { id } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any {
				return map[string]any{"u": f.scored.players[0]}
			},
			[callers]string{forbidden, ok, forbidden, ok}},
		// League mutations act on the caller's own leagues (authzCallerVars makes them):
		// whether the caller owns or is in a league needs a read, so refusals for those
		// reasons are tested in leagues_test.go.
		{"Mutation.createLeague", `mutation { createLeague(name: "Matrix League") { id } }`, noVars, signedIn},
		{"Mutation.joinLeague", `mutation($c: String!) { joinLeague(inviteCode: $c) { id } }`, leagueVars, signedIn},
		{"Mutation.leaveLeague", `mutation($l: ID!) { leaveLeague(id: $l) }`, leagueVars, signedIn},
		{"Mutation.rotateInviteCode", `mutation($l: ID!) { rotateInviteCode(id: $l) { id } }`, leagueVars, signedIn},
		{"Query.auditLog", `query($e: ID!) { auditLog(eventId: $e, first: 2) { edges { cursor node { at actor { id name } action eventId matchId summary } } pageInfo { hasNextPage endCursor } } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any { return map[string]any{"e": f.scored.ev.ID} }, adminOnly},
		// Moderation: admins only (deleteLeague last of the rows that use the league).
		{"Mutation.renameLeague", `mutation($l: ID!) { renameLeague(id: $l, name: "Renamed League") { id name } }`, leagueVars, adminOnly},
		{"Mutation.renamePlayer", `mutation($u: ID!) { renamePlayer(id: $u, name: "Renamed Player") { id name } }`,
			func(_ *testing.T, _ *env, f *authzFixture) map[string]any {
				return map[string]any{"u": f.scored.players[0]}
			}, adminOnly},
		{"Mutation.deleteLeague", `mutation($l: ID!) { deleteLeague(id: $l) }`, leagueVars, adminOnly},
		// Last: it deletes the accounts of the players the rows above act as.
		{"Mutation.deleteMe", `mutation { deleteMe }`, noVars, signedIn},
	}
}

// leagueVars are the fixture's league id and invite code.
func leagueVars(_ *testing.T, _ *env, f *authzFixture) map[string]any {
	return map[string]any{"l": f.league.ID, "c": *f.league.InviteCode}
}

// authzCallerVars replace a row's vars for rows whose state depends on the caller: each
// cell gets a league of its own (token is the cell's caller, "" when anonymous).
var authzCallerVars = map[string]func(t *testing.T, e *env, f *authzFixture, token string) map[string]any{
	// A league the caller is not in yet.
	"Mutation.joinLeague": func(t *testing.T, e *env, _ *authzFixture, _ string) map[string]any {
		l := e.createLeague(t, e.token(t, "p-matrix-host", "Host"), "Matrix Join")
		return map[string]any{"c": *l.InviteCode}
	},
	// A league the caller is in (not as its owner).
	"Mutation.leaveLeague": func(t *testing.T, e *env, _ *authzFixture, token string) map[string]any {
		l := e.createLeague(t, e.token(t, "p-matrix-host", "Host"), "Matrix Leave")
		if token != "" {
			e.joinLeague(t, token, *l.InviteCode)
		}
		return map[string]any{"l": l.ID}
	},
	// A league the caller owns.
	"Mutation.rotateInviteCode": func(t *testing.T, e *env, f *authzFixture, token string) map[string]any {
		if token == "" {
			return map[string]any{"l": f.league.ID}
		}
		return map[string]any{"l": e.createLeague(t, token, "Matrix Rotate").ID}
	},
}

func matchIDs(ev tEvent) []string {
	ids := make([]string, len(ev.Matches))
	for i, m := range ev.Matches {
		ids[len(ids)-1-i] = m.ID // reversed: a real reorder
	}
	return ids
}

// TestAuthorizationMatrix runs every query field and mutation as each caller and checks
// the code of each cell; a refused mutation makes no DynamoDB call.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := &authzFixture{scored: newScoredFixture(t, e, "Matrix Revolution")}
	start := e.clock.Now().Add(48 * time.Hour)
	f.upcoming = e.createEvent(t, "Matrix Upcoming", start, threeMatchCard()...)
	f.editable = e.createEvent(t, "Matrix Editable", start.Add(time.Hour), threeMatchCard()...)
	f.locked = e.createEvent(t, "Matrix Locked", start.Add(2*time.Hour), threeMatchCard()...)
	f.toScore = e.createEvent(t, "Matrix To Score", start.Add(3*time.Hour), threeMatchCard()...)
	playerTok := f.scored.tokens[f.scored.players[0]]
	e.submit(t, playerTok, f.upcoming, 0, 1, 0)
	e.submit(t, playerTok, f.toScore, 0, 1, 0)
	e.submit(t, playerTok, f.locked, 0, 1, 0)
	mustGQL[json.RawMessage](t, e, e.admin(t), updateEventOp, map[string]any{"id": f.locked.ID, "input": map[string]any{"tiebreaker": "How many minutes?"}})
	for _, ev := range []tEvent{f.locked, f.toScore} {
		mustGQL[json.RawMessage](t, e, e.admin(t), updateEventOp, map[string]any{"id": ev.ID, "input": map[string]any{"state": "BROADCAST"}})
	}
	e.setWinners(t, f.toScore, 0, 0, 0)
	tokens := [callers]string{"", playerTok, f.scored.tokens[f.scored.players[1]], e.admin(t)}
	f.league = e.createLeague(t, playerTok, "Matrix League")

	rows := authzMatrix()
	// The table covers the schema, and only the schema.
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	byField := map[string]bool{}
	for _, r := range rows {
		byField[r.field] = true
		typ, name, _ := strings.Cut(r.field, ".")
		if d := schema.Types[typ]; d == nil || d.Fields.ForName(name) == nil {
			t.Errorf("the matrix has a row for %s, which the schema does not have", r.field)
		}
	}
	for _, root := range []string{"Query", "Mutation"} {
		for _, fd := range schema.Types[root].Fields {
			if !strings.HasPrefix(fd.Name, "__") && !byField[root+"."+fd.Name] {
				t.Errorf("%s.%s has no row in the authorization matrix", root, fd.Name)
			}
		}
	}

	for _, r := range rows {
		t.Run(strings.ReplaceAll(r.field, ".", "/"), func(t *testing.T) {
			if !strings.Contains(r.query, strings.SplitN(r.field, ".", 2)[1]+"(") && !strings.Contains(r.query, strings.SplitN(r.field, ".", 2)[1]+" ") {
				t.Fatalf("the row's document does not select %s", r.field)
			}
			for _, c := range []int{anonymous, another, player, admin} { // the admin cell last: it may change state
				t.Run(callerNames[c], func(t *testing.T) {
					vars := r.vars(t, e, f)
					if cv := authzCallerVars[r.field]; cv != nil {
						vars = cv(t, e, f, tokens[c])
					}
					before := e.calls.Load()
					_, errs := gql[json.RawMessage](t, e, tokens[c], r.query, vars)
					if r.want[c] == ok {
						noErrors(t, errs)
						return
					}
					wantCode(t, errs, r.want[c])
					if strings.HasPrefix(r.field, "Mutation.") {
						if n := e.calls.Load() - before; n != 0 {
							t.Fatalf("a refused mutation made %d DynamoDB calls", n)
						}
					}
				})
			}
		})
	}
}
