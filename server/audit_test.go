package server_test

import (
	"encoding/json"
	"testing"
	"time"
)

type tAuditEntry struct {
	At      string
	Actor   tRef
	Action  string
	EventID string
	MatchID *string
	Summary string
}

const auditOp = `query($e: ID!, $first: Int, $after: String) { auditLog(eventId: $e, first: $first, after: $after) {
  edges { cursor node { at actor { id name } action eventId matchId summary } } pageInfo { hasNextPage endCursor } } }`

// TestAuditLogOverGraphQL: the admin mutations of a scored event are in its log, read page
// by page with signed cursors; a refused mutation adds nothing; the log and its cursors
// refuse what does not fit, with extensions.code.
func TestAuditLogOverGraphQL(t *testing.T) {
	e := newEnv(t)
	f := newScoredFixture(t, e, "Audit Show") // createEvent, 3 setResult, scoreEvent
	admin := e.admin(t)
	read := func(t *testing.T, first int) []tAuditEntry {
		t.Helper()
		var all []tAuditEntry
		var after *string
		for pages := 0; ; pages++ {
			d := mustGQL[struct{ AuditLog tConn[tAuditEntry] }](t, e, admin, auditOp, map[string]any{"e": f.ev.ID, "first": first, "after": after})
			if len(d.AuditLog.Edges) > first || pages > 10 {
				t.Fatalf("page of %d for first %d (page %d)", len(d.AuditLog.Edges), first, pages)
			}
			all = append(all, nodes(&d.AuditLog)...)
			if !d.AuditLog.PageInfo.HasNextPage {
				return all
			}
			after = d.AuditLog.PageInfo.EndCursor
		}
	}
	entries := read(t, 2)
	count := map[string]int{}
	matches := map[string]bool{}
	for _, m := range f.ev.Matches {
		matches[m.ID] = true
	}
	for _, en := range entries {
		count[en.Action]++
		if en.Actor.ID != "admin-1" || en.Actor.Name != "Admin" || en.EventID != f.ev.ID || en.Summary == "" || en.At == "" {
			t.Errorf("entry %+v: want by admin-1 on %s with a summary", en, f.ev.ID)
		}
		if (en.Action == "setResult") != (en.MatchID != nil && matches[*en.MatchID]) {
			t.Errorf("entry %+v: a setResult names its match, nothing else here does", en)
		}
	}
	if len(entries) != 5 || count["createEvent"] != 1 || count["setResult"] != 3 || count["scoreEvent"] != 1 {
		t.Fatalf("log %v (%d entries), want createEvent, 3 setResult, scoreEvent", count, len(entries))
	}

	t.Run("RefusedMutationsAddNothing", func(t *testing.T) {
		m := f.ev.Matches[0].ID
		_, errs := gql[json.RawMessage](t, e, admin, setResultOp, map[string]any{"e": f.ev.ID, "m": m, "r": map[string]any{"outcome": "WIN", "winner": 9}})
		wantCode(t, errs, "BAD_USER_INPUT")
		_, errs = gql[json.RawMessage](t, e, f.tokens["p-ace"], setResultOp, map[string]any{"e": f.ev.ID, "m": m, "r": map[string]any{"outcome": "DRAW"}})
		wantCode(t, errs, "FORBIDDEN")
		if got := read(t, 50); len(got) != len(entries) {
			t.Fatalf("%d entries after two refused mutations, want %d", len(got), len(entries))
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		first := mustGQL[struct{ AuditLog tConn[tAuditEntry] }](t, e, admin, auditOp, map[string]any{"e": f.ev.ID, "first": 1})
		other := e.createEvent(t, "Audit Other", e.clock.Now().Add(48*time.Hour), threeMatchCard()...)
		for name, c := range map[string]struct {
			token string
			vars  map[string]any
			code  string
		}{
			"Player":            {f.tokens["p-ace"], map[string]any{"e": f.ev.ID}, "FORBIDDEN"},
			"SignedOut":         {"", map[string]any{"e": f.ev.ID}, "UNAUTHENTICATED"},
			"InvalidEventID":    {admin, map[string]any{"e": "EVENT#x"}, "BAD_USER_INPUT"},
			"FirstTooLarge":     {admin, map[string]any{"e": f.ev.ID, "first": 101}, "BAD_USER_INPUT"},
			"CursorOfOtherLog":  {admin, map[string]any{"e": other.ID, "after": *first.AuditLog.PageInfo.EndCursor}, "BAD_USER_INPUT"},
			"CursorOfOtherList": {admin, map[string]any{"e": f.ev.ID, "after": "AQJ0ZXN0"}, "BAD_USER_INPUT"},
		} {
			t.Run(name, func(t *testing.T) {
				_, errs := gql[json.RawMessage](t, e, c.token, auditOp, c.vars)
				wantCode(t, errs, c.code)
			})
		}
	})
}
