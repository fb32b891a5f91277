package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type tLeague struct {
	ID          string
	Name        string
	Owner       tRef
	MemberCount int
	InviteCode  *string
	Standings   *tConn[tStanding]
}

const (
	leagueFields   = `fragment L on League { id name owner { id name } memberCount inviteCode }`
	createLeagueOp = `mutation($name: String!) { createLeague(name: $name) { ...L } }
` + leagueFields
	joinLeagueOp = `mutation($code: String!) { joinLeague(inviteCode: $code) { ...L } }
` + leagueFields
	leaveLeagueOp = `mutation($id: ID!) { leaveLeague(id: $id) }`
	rotateOp      = `mutation($id: ID!) { rotateInviteCode(id: $id) { ...L } }
` + leagueFields
	leagueOp = `query($id: ID!) { league(id: $id) { ...L } }
` + leagueFields
	leagueStandingsOp = `query($id: ID!, $season: Int!, $first: Int, $after: String) { league(id: $id) { ...L
  standings(season: $season, first: $first, after: $after) { edges { cursor node { ...S } } pageInfo { hasNextPage endCursor } } } }
` + leagueFields + standingFields
	byInviteOp = `query($code: String!) { leagueByInvite(inviteCode: $code) { ...L } }
` + leagueFields
	myLeaguesOp = `{ me { leagues { ...L } } }
` + leagueFields
)

func (e *env) createLeague(t *testing.T, token, name string) tLeague {
	t.Helper()
	return mustGQL[struct{ CreateLeague tLeague }](t, e, token, createLeagueOp, map[string]any{"name": name}).CreateLeague
}

func (e *env) joinLeague(t *testing.T, token, code string) tLeague {
	t.Helper()
	return mustGQL[struct{ JoinLeague tLeague }](t, e, token, joinLeagueOp, map[string]any{"code": code}).JoinLeague
}

// costCalls runs an operation that must succeed and returns its data and the DynamoDB
// calls it made (extensions.dynamodb.calls), checking they are within what it planned.
func costCalls[T any](t *testing.T, e *env, token, query string, vars map[string]any) (T, int) {
	t.Helper()
	resp := e.request(t, token, query, vars)
	noErrors(t, resp.Errors)
	var ext struct {
		Calls        int `json:"calls"`
		PlannedCalls int `json:"plannedCalls"`
	}
	if err := json.Unmarshal(resp.Extensions["dynamodb"], &ext); err != nil {
		t.Fatalf("extensions %s", resp.Extensions["dynamodb"])
	}
	if ext.Calls > ext.PlannedCalls {
		t.Fatalf("made %d DynamoDB calls, planned %d", ext.Calls, ext.PlannedCalls)
	}
	var data T
	if err := json.Unmarshal(resp.Data, &data); err != nil {
		t.Fatalf("decode %s: %v", resp.Data, err)
	}
	return data, ext.Calls
}

func wantCalls(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%d DynamoDB calls, want %d", got, want)
	}
}

// TestLeaguesAPI drives every league field and mutation through the handler: privacy,
// invite codes, hand-over, errors with their codes and the DynamoDB calls of each.
func TestLeaguesAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "League Night") // 2030: Ace 20, Bea 15, Cal 15, Dee 5
	ace, bea, cal, dee := f.tokens["p-ace"], f.tokens["p-bea"], f.tokens["p-cal"], f.tokens["p-dee"]
	newbie := e.token(t, "p-new", "Newbie")
	admin := e.admin(t)

	var l tLeague
	t.Run("Create", func(t *testing.T) {
		d, calls := costCalls[struct{ CreateLeague tLeague }](t, e, ace, createLeagueOp, map[string]any{"name": "The Ring Rats"})
		wantCalls(t, calls, 2) // the profile (for the name); the transaction
		l = d.CreateLeague
		if l.Name != "The Ring Rats" || l.Owner.ID != "p-ace" || l.Owner.Name != "Ace" || l.MemberCount != 1 || l.InviteCode == nil || len(*l.InviteCode) != 13 {
			t.Fatalf("created %+v", l)
		}
	})
	t.Run("PreviewByInvite", func(t *testing.T) {
		for _, tok := range []string{"", dee, ace} {
			d, calls := costCalls[struct{ LeagueByInvite *tLeague }](t, e, tok, byInviteOp, map[string]any{"code": strings.ToLower(*l.InviteCode)})
			wantCalls(t, calls, 1)
			p := d.LeagueByInvite
			if p == nil || p.ID != l.ID || p.Name != l.Name || p.Owner.ID != "p-ace" || p.MemberCount != 1 || p.InviteCode != nil {
				t.Fatalf("preview %+v", p)
			}
		}
		if d := mustGQL[struct{ LeagueByInvite *tLeague }](t, e, dee, byInviteOp, map[string]any{"code": "ABCDEFGHJKLMN"}); d.LeagueByInvite != nil {
			t.Fatalf("unknown code: %+v", d.LeagueByInvite)
		}
		wantCode(t, second(gql[json.RawMessage](t, e, dee, byInviteOp, map[string]any{"code": "nope"})), "BAD_USER_INPUT")
	})
	t.Run("Join", func(t *testing.T) {
		d, calls := costCalls[struct{ JoinLeague tLeague }](t, e, bea, joinLeagueOp, map[string]any{"code": *l.InviteCode})
		wantCalls(t, calls, 2) // the code and the profile; the transaction
		if j := d.JoinLeague; j.ID != l.ID || j.MemberCount != 2 || j.InviteCode == nil || *j.InviteCode != *l.InviteCode {
			t.Fatalf("joined %+v", j)
		}
		e.joinLeague(t, cal, *l.InviteCode)
		e.joinLeague(t, newbie, *l.InviteCode)
		for code, want := range map[string]string{"ABCDEFGHJKLMN": "NOT_FOUND", "abc": "BAD_USER_INPUT"} {
			wantCode(t, second(gql[json.RawMessage](t, e, dee, joinLeagueOp, map[string]any{"code": code})), want)
		}
		wantCode(t, second(gql[json.RawMessage](t, e, "", joinLeagueOp, map[string]any{"code": *l.InviteCode})), "UNAUTHENTICATED")
	})
	t.Run("LeagueIsPrivate", func(t *testing.T) {
		for name, tok := range map[string]string{"Member": bea, "Admin": admin} {
			t.Run(name, func(t *testing.T) {
				d, calls := costCalls[struct{ League *tLeague }](t, e, tok, leagueOp, map[string]any{"id": l.ID})
				wantCalls(t, calls, 1)
				if d.League == nil || d.League.MemberCount != 4 || d.League.InviteCode == nil || *d.League.InviteCode != *l.InviteCode {
					t.Fatalf("league %+v", d.League)
				}
			})
		}
		for name, tok := range map[string]string{"NotAMember": dee, "Anonymous": ""} {
			t.Run(name, func(t *testing.T) {
				for _, op := range []string{leagueOp, leagueStandingsOp} {
					wantCode(t, second(gql[json.RawMessage](t, e, tok, op, map[string]any{"id": l.ID, "season": 2030})), "FORBIDDEN")
				}
			})
		}
		t.Run("Unknown", func(t *testing.T) {
			if d := mustGQL[struct{ League *tLeague }](t, e, dee, leagueOp, map[string]any{"id": "00000000-0000-4000-8000-000000000000"}); d.League != nil {
				t.Fatalf("league %+v", d.League)
			}
			wantCode(t, second(gql[json.RawMessage](t, e, dee, leagueOp, map[string]any{"id": "LEAGUE#1"})), "BAD_USER_INPUT")
		})
	})
	t.Run("Standings", func(t *testing.T) {
		d, calls := costCalls[struct{ League tLeague }](t, e, cal, leagueStandingsOp, map[string]any{"id": l.ID, "season": 2030, "first": 3})
		wantCalls(t, calls, 2) // the league with its members (one Query); their standings (one BatchGetItem)
		type row struct {
			User   string
			Rank   int
			Points int
		}
		var got []row
		for _, s := range nodes(d.League.Standings) {
			got = append(got, row{s.User.ID, *s.Rank, s.Points})
		}
		if want := []row{{"p-ace", 1, 20}, {"p-bea", 2, 15}, {"p-cal", 2, 15}}; !slices.Equal(got, want) || !d.League.Standings.PageInfo.HasNextPage {
			t.Fatalf("page 1 %v, want %v", got, want)
		}
		next := mustGQL[struct{ League tLeague }](t, e, admin, leagueStandingsOp,
			map[string]any{"id": l.ID, "season": 2030, "first": 3, "after": *d.League.Standings.PageInfo.EndCursor})
		if n := nodes(next.League.Standings); len(n) != 1 || n[0].User.ID != "p-new" || *n[0].Rank != 4 || n[0].Points != 0 || n[0].User.Name != "Newbie" {
			t.Fatalf("page 2 %+v", n)
		}
		wantCode(t, second(gql[json.RawMessage](t, e, cal, leagueStandingsOp,
			map[string]any{"id": l.ID, "season": 2030, "after": "bm90IGEgY3Vyc29y"})), "BAD_USER_INPUT")
		wantCode(t, second(gql[json.RawMessage](t, e, cal, leagueStandingsOp,
			map[string]any{"id": l.ID, "season": 2030, "first": 101})), "BAD_USER_INPUT")
	})
	t.Run("MyLeagues", func(t *testing.T) {
		// (A player who has not played: their profile is one Query.)
		d, calls := costCalls[struct{ Me struct{ Leagues []tLeague } }](t, e, newbie, myLeaguesOp, nil)
		wantCalls(t, calls, 3) // the profile; memberships; leagues
		if ls := d.Me.Leagues; len(ls) != 1 || ls[0].ID != l.ID || ls[0].InviteCode == nil {
			t.Fatalf("leagues %+v", ls)
		}
		q := `query($u: ID!) { user(id: $u) { leagues { id inviteCode } } }`
		wantCode(t, second(gql[json.RawMessage](t, e, dee, q, map[string]any{"u": "p-bea"})), "FORBIDDEN")
		wantCode(t, second(gql[json.RawMessage](t, e, "", q, map[string]any{"u": "p-bea"})), "FORBIDDEN")
		if d := mustGQL[struct{ User struct{ Leagues []tLeague } }](t, e, admin, q, map[string]any{"u": "p-bea"}); len(d.User.Leagues) != 1 || d.User.Leagues[0].InviteCode == nil {
			t.Fatalf("admin reads %+v", d.User.Leagues)
		}
	})
	t.Run("Rotate", func(t *testing.T) {
		wantCode(t, second(gql[json.RawMessage](t, e, bea, rotateOp, map[string]any{"id": l.ID})), "FORBIDDEN")
		d, calls := costCalls[struct{ RotateInviteCode tLeague }](t, e, ace, rotateOp, map[string]any{"id": l.ID})
		wantCalls(t, calls, 2)
		fresh := d.RotateInviteCode.InviteCode
		if fresh == nil || *fresh == *l.InviteCode {
			t.Fatalf("rotated %+v", d.RotateInviteCode)
		}
		if d := mustGQL[struct{ LeagueByInvite *tLeague }](t, e, dee, byInviteOp, map[string]any{"code": *l.InviteCode}); d.LeagueByInvite != nil {
			t.Fatal("the old code still shows the league")
		}
		wantCode(t, second(gql[json.RawMessage](t, e, dee, joinLeagueOp, map[string]any{"code": *l.InviteCode})), "NOT_FOUND")
		l.InviteCode = fresh
	})
	t.Run("LeaveHandsOver", func(t *testing.T) {
		wantCode(t, second(gql[json.RawMessage](t, e, dee, leaveLeagueOp, map[string]any{"id": l.ID})), "NOT_FOUND")
		d, calls := costCalls[struct{ LeaveLeague bool }](t, e, ace, leaveLeagueOp, map[string]any{"id": l.ID})
		wantCalls(t, calls, 3) // the league and the member row; the members; the transaction
		if !d.LeaveLeague {
			t.Fatal("leaveLeague answered false")
		}
		got := mustGQL[struct{ League *tLeague }](t, e, bea, leagueOp, map[string]any{"id": l.ID}).League
		if got == nil || got.Owner.ID != "p-bea" || got.MemberCount != 3 {
			t.Fatalf("after the owner left: %+v", got)
		}
		wantCode(t, second(gql[json.RawMessage](t, e, ace, leagueOp, map[string]any{"id": l.ID})), "FORBIDDEN")
		_, calls = costCalls[struct{ LeaveLeague bool }](t, e, newbie, leaveLeagueOp, map[string]any{"id": l.ID})
		wantCalls(t, calls, 2)
	})
	t.Run("LastLeavesDeletes", func(t *testing.T) {
		mustGQL[json.RawMessage](t, e, bea, leaveLeagueOp, map[string]any{"id": l.ID})
		mustGQL[json.RawMessage](t, e, cal, leaveLeagueOp, map[string]any{"id": l.ID})
		if d := mustGQL[struct{ League *tLeague }](t, e, admin, leagueOp, map[string]any{"id": l.ID}); d.League != nil {
			t.Fatalf("the league is still there: %+v", d.League)
		}
		if d := mustGQL[struct{ LeagueByInvite *tLeague }](t, e, dee, byInviteOp, map[string]any{"code": *l.InviteCode}); d.LeagueByInvite != nil {
			t.Fatal("its code still shows it")
		}
	})
	t.Run("TooManyLeagues", func(t *testing.T) {
		busy := e.token(t, "p-busy", "Busy")
		for i := range 20 {
			e.createLeague(t, busy, fmt.Sprintf("League %02d", i))
		}
		wantCode(t, second(gql[json.RawMessage](t, e, busy, createLeagueOp, map[string]any{"name": "One More"})), "CONFLICT")
		open := e.createLeague(t, dee, "Open")
		wantCode(t, second(gql[json.RawMessage](t, e, busy, joinLeagueOp, map[string]any{"code": *open.InviteCode})), "CONFLICT")
		wantCode(t, second(gql[json.RawMessage](t, e, dee, createLeagueOp, map[string]any{"name": " "})), "BAD_USER_INPUT")
	})
}

// TestLeagueStandingsOnListRowsIsAnError: User.leagues rows refuse standings (a read per
// row) before reading anything; a preview (leagueByInvite) of a league the caller is not in
// refuses them as FORBIDDEN.
func TestLeagueStandingsOnListRowsIsAnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, "p-rows", "Rows")
	l := e.createLeague(t, tok, "Rows")
	before := e.calls.Load()
	_, errs := gql[json.RawMessage](t, e, tok, `{ me { leagues { id standings(season: 2030) { edges { cursor } } } } }`, nil)
	wantCode(t, errs, "BAD_USER_INPUT")
	if n := e.calls.Load() - before; n != 3 { // me, memberships, leagues: no standings read
		t.Fatalf("%d DynamoDB calls", n)
	}
	other := e.token(t, "p-other", "Other")
	_, errs = gql[json.RawMessage](t, e, other, `query($c: String!) { leagueByInvite(inviteCode: $c) { id standings(season: 2030) { edges { cursor } } } }`,
		map[string]any{"c": *l.InviteCode})
	wantCode(t, errs, "FORBIDDEN")
}

func second[A, B any](_ A, b B) B { return b }

// TestDeleteMe: a player deletes their account: their profile is gone, their scored
// prediction leaves the leaderboard and their standing the season's standings (the others'
// scores unchanged), their league passes to the next member; repeating it is fine.
func TestDeleteMe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "Farewell Show") // Ace 20, Bea 15, Cal 15, Dee 5
	ace, bea := f.tokens["p-ace"], f.tokens["p-bea"]
	l := e.createLeague(t, ace, "Ace's League")
	e.joinLeague(t, bea, *l.InviteCode)
	wantCode(t, second(gql[json.RawMessage](t, e, "", `mutation { deleteMe }`, nil)), "UNAUTHENTICATED")
	for range 2 {
		if d := mustGQL[struct{ DeleteMe bool }](t, e, ace, `mutation { deleteMe }`, nil); !d.DeleteMe {
			t.Fatal("deleteMe answered false")
		}
	}
	if d := mustGQL[struct{ User *tUser }](t, e, bea, `query($u: ID!) { user(id: $u) { id } }`, map[string]any{"u": "p-ace"}); d.User != nil {
		t.Fatalf("the profile is still there: %+v", d.User)
	}
	ev := mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 10}).Event
	var board []string
	for _, p := range nodes(ev.Leaderboard) {
		board = append(board, fmt.Sprintf("%s:%d:%d", p.User.ID, *p.Rank, *p.Points))
	}
	if want := []string{"p-bea:1:15", "p-cal:1:15", "p-dee:3:5"}; !slices.Equal(board, want) {
		t.Fatalf("leaderboard %v, want %v", board, want)
	}
	st := mustGQL[struct{ Standings tConn[tStanding] }](t, e, "", `{ standings(season: 2030) { edges { node { user { id } points } } } }`, nil)
	var rows []string
	for _, s := range nodes(&st.Standings) {
		rows = append(rows, fmt.Sprintf("%s:%d", s.User.ID, s.Points))
	}
	if want := []string{"p-bea:15", "p-cal:15", "p-dee:5"}; !slices.Equal(rows, want) {
		t.Fatalf("standings %v, want %v", rows, want)
	}
	got := mustGQL[struct{ League *tLeague }](t, e, bea, leagueOp, map[string]any{"id": l.ID}).League
	if got == nil || got.Owner.ID != "p-bea" || got.MemberCount != 1 {
		t.Fatalf("league after the owner's account went: %+v", got)
	}
}

// TestModerationAPI: admins rename a league and a player and delete a league; each change
// is in the moderation audit log (auditLog(eventId: "moderation")).
func TestModerationAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ace, bea := e.token(t, "p-ace", "Ace"), e.token(t, "p-bea", "Bea")
	admin := e.admin(t)
	mustGQL[json.RawMessage](t, e, ace, `mutation { register(name: "Ace") { id } }`, nil)
	l := e.createLeague(t, ace, "Bad Name")
	e.joinLeague(t, bea, *l.InviteCode)

	d, calls := costCalls[struct{ RenameLeague tLeague }](t, e, admin, `mutation($id: ID!) { renameLeague(id: $id, name: "Good Name") { ...L } }
`+leagueFields, map[string]any{"id": l.ID})
	wantCalls(t, calls, 2)
	if d.RenameLeague.Name != "Good Name" || d.RenameLeague.InviteCode == nil {
		t.Fatalf("renamed %+v", d.RenameLeague)
	}
	p := mustGQL[struct{ RenamePlayer tRef }](t, e, admin, `mutation { renamePlayer(id: "p-ace", name: "Ace 2") { id name } }`, nil)
	if p.RenamePlayer.Name != "Ace 2" {
		t.Fatalf("renamed %+v", p.RenamePlayer)
	}
	if got := mustGQL[struct{ League tLeague }](t, e, bea, leagueOp, map[string]any{"id": l.ID}).League; got.Owner.Name != "Ace 2" || got.Name != "Good Name" {
		t.Fatalf("league %+v", got)
	}
	wantCode(t, second(gql[json.RawMessage](t, e, admin, `mutation { renamePlayer(id: "p-nobody", name: "X") { id } }`, nil)), "NOT_FOUND")
	del := mustGQL[struct{ DeleteLeague bool }](t, e, admin, `mutation($id: ID!) { deleteLeague(id: $id) }`, map[string]any{"id": l.ID})
	if !del.DeleteLeague {
		t.Fatal("deleteLeague false")
	}
	if mine := mustGQL[struct{ Me struct{ Leagues []tLeague } }](t, e, bea, myLeaguesOp, nil); len(mine.Me.Leagues) != 0 {
		t.Fatalf("bea's leagues %+v", mine.Me.Leagues)
	}
	wantCode(t, second(gql[json.RawMessage](t, e, admin, `mutation($id: ID!) { deleteLeague(id: $id) }`, map[string]any{"id": l.ID})), "NOT_FOUND")
	log := mustGQL[struct {
		AuditLog struct {
			Edges []struct {
				Node struct {
					Action  string
					EventID string
					Actor   tRef
					Summary string
				}
			}
		}
	}](t, e, admin, `{ auditLog(eventId: "moderation") { edges { node { action eventId actor { id } summary } } } }`, nil)
	var actions []string
	for _, edge := range log.AuditLog.Edges {
		actions = append(actions, edge.Node.Action)
		if edge.Node.EventID != "moderation" || edge.Node.Actor.ID == "" {
			t.Fatalf("entry %+v", edge.Node)
		}
	}
	slices.Sort(actions) // (the test server's clock stands still: entries of one instant are in no set order)
	if !slices.Equal(actions, []string{"deleteLeague", "renameLeague", "renamePlayer"}) {
		t.Fatalf("moderation log %v", actions)
	}
}
