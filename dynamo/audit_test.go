package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

var auditAdmin = domain.UserRef{ID: "admin-1", Name: "Ada Admin"}

// auditChange commits change with entry's audit item in one transaction (the way admin
// writes do) and returns the transaction's error.
func (f *fixture) auditChange(ctx context.Context, change types.TransactWriteItem, entry domain.AuditEntry) error {
	f.t.Helper()
	put, err := f.s.auditPut(ctx, entry)
	mustOK(f.t, err)
	return f.s.db.Transact(ctx, []types.TransactWriteItem{change, put})
}

// markerPut is a Put of a new item (PK TEST#<name>) on the condition that it is new: the
// first commit creates it, any later one is refused.
func (f *fixture) markerPut(name string) types.TransactWriteItem {
	f.t.Helper()
	it, err := f.s.db.Put(struct {
		table.Keys
		Type string `dynamodbav:"type"`
	}{table.Keys{PK: "TEST#" + name, SK: "MARKER"}, "marker"}, table.NotExists())
	mustOK(f.t, err)
	return it
}

// auditLog reads a whole audit log, page by page (first per page), checking each page's
// cursors continue where the last one ended.
func (f *fixture) auditLog(log string, first int) []domain.AuditEntry {
	f.t.Helper()
	var all []domain.AuditEntry
	after := ""
	for range 1000 {
		page, err := f.s.AuditLog(ctxT(f.t), log, first, after)
		mustOK(f.t, err)
		if len(page.Items) > first || len(page.Cursors) != len(page.Items) {
			f.t.Fatalf("page of %d items and %d cursors for first %d", len(page.Items), len(page.Cursors), first)
		}
		all = append(all, page.Items...)
		if !page.HasNext {
			return all
		}
		after = page.EndCursor()
	}
	f.t.Fatal("audit log pages never end")
	return nil
}

// TestAuditEntryCommitsWithItsChange: an entry written with a change exists exactly when
// the change committed — a change refused by its condition leaves no entry.
func TestAuditEntryCommitsWithItsChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-04-01-audit-commit", 20, standardCard())
	before := len(f.auditLog(ev.ID, 50))
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	m := ev.Matches[0].ID
	entry := domain.AuditEntry{Action: domain.ActionSetResult, EventID: ev.ID, MatchID: &m, Summary: "Main Event: WIN, team 1"}

	t.Run("Committed", func(t *testing.T) {
		f := f.on(t)
		f.clock.Advance(time.Millisecond) // after createEvent's entry
		mustOK(t, f.auditChange(ctx, f.markerPut("commit"), entry))
		got := f.auditLog(ev.ID, 50)
		if len(got) != before+1 {
			t.Fatalf("%d entries after one committed change, want %d", len(got), before+1)
		}
		want := domain.AuditEntry{At: f.clock.Now(), Actor: auditAdmin, Action: domain.ActionSetResult, EventID: ev.ID, MatchID: &m, Summary: "Main Event: WIN, team 1"}
		if e := got[0]; !e.At.Equal(want.At) || e.Actor != want.Actor || e.Action != want.Action || e.EventID != want.EventID ||
			e.MatchID == nil || *e.MatchID != m || e.Summary != want.Summary {
			t.Fatalf("newest entry = %+v, want %+v", e, want)
		}
	})
	t.Run("RefusedLeavesNoEntry", func(t *testing.T) {
		f := f.on(t)
		n := len(f.auditLog(ev.ID, 50))
		err := f.auditChange(ctx, f.markerPut("commit"), entry) // the marker exists: refused
		if reasons, cancelled := ddb.CancellationReasons(err); !cancelled || !ddb.Failed(reasons, 0) {
			t.Fatalf("err = %v, want the change's condition to cancel the transaction", err)
		}
		if got := len(f.auditLog(ev.ID, 50)); got != n {
			t.Fatalf("%d entries after a refused change, want %d (unchanged)", got, n)
		}
	})
}

// TestAuditLogOrderAndPages: entries read newest first; entries written at the same
// instant (a frozen clock) all exist; pages of any size list every entry once.
func TestAuditLogOrderAndPages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const log = "2030-04-02-audit-pages"
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	at := func(i int) time.Time { return t0.Add(time.Duration(i/3) * time.Millisecond) } // three per instant
	const n = 7
	for i := range n {
		f.clock.Set(at(i))
		mustOK(t, f.auditChange(ctx, f.markerPut(fmt.Sprintf("order-%d", i)),
			domain.AuditEntry{Action: domain.ActionUpdateEvent, EventID: log, Summary: fmt.Sprintf("change %d", i)}))
	}
	for _, first := range []int{1, 2, 3, n, 50} {
		t.Run(fmt.Sprintf("First%d", first), func(t *testing.T) {
			got := f.on(t).auditLog(log, first)
			if len(got) != n {
				t.Fatalf("%d entries, want %d", len(got), n)
			}
			seen := map[string]bool{}
			for i, e := range got {
				if seen[e.Summary] {
					t.Fatalf("%q listed twice", e.Summary)
				}
				seen[e.Summary] = true
				if i > 0 && e.At.After(got[i-1].At) {
					t.Fatalf("entry %d (%v) is newer than entry %d (%v): want newest first", i, e.At, i-1, got[i-1].At)
				}
				if e.MatchID != nil {
					t.Fatalf("entry %q has match %q, want none", e.Summary, *e.MatchID)
				}
			}
			if !got[0].At.Equal(at(n-1)) || !got[n-1].At.Equal(at(0)) {
				t.Fatalf("newest %v, oldest %v; want %v, %v", got[0].At, got[n-1].At, at(n-1), at(0))
			}
		})
	}
	t.Run("OwnPartitionOnly", func(t *testing.T) {
		out, err := f.db.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(f.table),
			KeyConditionExpression:    aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.StringValue("AUDIT#" + log)}})
		mustOK(t, err)
		if len(out.Items) != n {
			t.Fatalf("partition AUDIT#%s holds %d items, want %d", log, len(out.Items), n)
		}
		for _, it := range out.Items {
			if _, indexed := it[table.AttrGSIPK]; indexed || table.ItemType(it) != table.TypeAudit {
				t.Fatalf("audit item %v: want type audit, not indexed", it)
			}
		}
	})
}

// TestAuditLogInputs: ids, cursors of other lists, the actor and the summary's bound.
func TestAuditLogInputs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const a, b = "2030-04-03-audit-a", "2030-04-03-audit-b"
	for i, log := range []string{a, a, b, b, domain.AuditLogModeration} {
		mustOK(t, f.auditChange(ctxT(t), f.markerPut(fmt.Sprintf("inputs-%d", i)),
			domain.AuditEntry{Action: domain.ActionCreateEvent, EventID: log, Summary: strings.Repeat("é", 400)}))
	}
	pageA, err := f.s.AuditLog(ctxT(t), a, 1, "")
	mustOK(t, err)
	if !pageA.HasNext {
		t.Fatal("first page of 1 of 2 entries: hasNext false")
	}
	t.Run("SystemActorWithoutCaller", func(t *testing.T) {
		if got := pageA.Items[0].Actor; got != domain.SystemActor {
			t.Fatalf("actor = %+v, want %+v", got, domain.SystemActor)
		}
	})
	t.Run("SummaryClipped", func(t *testing.T) {
		s := pageA.Items[0].Summary
		if n := len([]rune(s)); n != domain.MaxAuditSummaryLen || !strings.HasSuffix(s, "…") {
			t.Fatalf("summary of %d characters ending %q, want %d ending …", n, s[len(s)-3:], domain.MaxAuditSummaryLen)
		}
	})
	t.Run("CursorOfAnotherLog", func(t *testing.T) {
		_, err := f.s.AuditLog(ctxT(t), b, 1, pageA.EndCursor())
		wantCode(t, err, domain.CodeBadUserInput)
	})
	t.Run("CursorOfAnotherKind", func(t *testing.T) {
		events, err := f.s.ListEvents(ctxT(t), nil, 1, "")
		mustOK(t, err)
		c := f.s.cursors.Encode(table.Cursor{Kind: table.CursorEvents, Owner: "all", ID: a})
		if len(events.Items) > 0 {
			c = events.EndCursor()
		}
		_, err = f.s.AuditLog(ctxT(t), a, 1, c)
		wantCode(t, err, domain.CodeBadUserInput)
	})
	t.Run("InvalidIDs", func(t *testing.T) {
		for _, id := range []string{"", "x", "AUDIT#x", "2030-04-03-a#b", "Moderation"} {
			_, err := f.s.AuditLog(ctxT(t), id, 10, "")
			wantCode(t, err, domain.CodeBadUserInput)
			_, err = f.s.auditPut(ctxT(t), domain.AuditEntry{Action: domain.ActionCreateEvent, EventID: id})
			wantCode(t, err, domain.CodeBadUserInput)
		}
		_, err := f.s.auditPut(ctxT(t), domain.AuditEntry{Action: domain.ActionSetResult, EventID: a, MatchID: aws.String("m#1")})
		wantCode(t, err, domain.CodeBadUserInput)
	})
	t.Run("ModerationLog", func(t *testing.T) {
		if got := f.on(t).auditLog(domain.AuditLogModeration, 10); len(got) != 1 || got[0].EventID != domain.AuditLogModeration {
			t.Fatalf("moderation log = %+v, want its one entry", got)
		}
	})
	t.Run("EmptyLog", func(t *testing.T) {
		page, err := f.s.AuditLog(ctxT(t), "2030-04-03-nothing-here", 10, "")
		mustOK(t, err)
		if len(page.Items) != 0 || page.HasNext {
			t.Fatalf("log of an event with no entries: %+v", page)
		}
	})
}

// wantEntries reads log whole and checks it holds n entries, the newest being want (At and
// Actor are checked against the clock and auditAdmin; Summary must contain want.Summary).
func (f *fixture) wantEntries(log string, n int, want domain.AuditEntry) {
	f.t.Helper()
	got := f.auditLog(log, 100)
	if len(got) != n {
		f.t.Fatalf("audit log of %s has %d entries, want %d: %+v", log, len(got), n, got)
	}
	if n == 0 || want.Action == "" {
		return
	}
	e := got[0]
	matchOK := (e.MatchID == nil) == (want.MatchID == nil) && (e.MatchID == nil || *e.MatchID == *want.MatchID)
	if e.Action != want.Action || e.EventID != log || !matchOK || e.Actor != auditAdmin || !e.At.Equal(f.clock.Now()) ||
		!strings.Contains(e.Summary, want.Summary) {
		f.t.Fatalf("newest entry = %+v (match %v), want action %s, match %v, summary containing %q, by %+v at %v",
			e, strOrNil(e.MatchID), want.Action, strOrNil(want.MatchID), want.Summary, auditAdmin, f.clock.Now())
	}
}

func strOrNil(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestAdminChangesWriteAuditEntries: every card change writes one entry with its change,
// and a change that is refused — by a condition of its transaction (another admin's change
// landed between its read and its write) or before it writes — leaves none.
func TestAdminChangesWriteAuditEntries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hook := &hookDB{API: f.db}
	s := f.storeOver(hook)
	other := f.s // another admin, whose changes land between s's reads and writes
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	const id = "2030-05-01-audit-card"
	n := 0 // entries so far
	step := func() { f.clock.Advance(time.Millisecond) }

	step()
	ev, err := s.CreateEvent(ctx, domain.EventSpec{ID: ptr(id), Name: "Audit scoring.Card", StartsAt: time.Date(2030, 5, 1, 20, 0, 0, 0, time.UTC), Matches: standardCard()})
	mustOK(t, err)
	n++
	f.wantEntries(id, n, domain.AuditEntry{Action: domain.ActionCreateEvent, Summary: `created "Audit scoring.Card", starts 2030-05-01T20:00:00Z, with 3 matches`})

	t.Run("CreateEventRefused", func(t *testing.T) {
		step()
		_, err := s.CreateEvent(ctx, domain.EventSpec{ID: ptr(id), Name: "Audit scoring.Card", StartsAt: ev.StartsAt})
		wantCode(t, err, domain.CodeConflict)
		f.on(t).wantEntries(id, n, domain.AuditEntry{})
	})
	t.Run("UpdateEvent", func(t *testing.T) {
		step()
		_, err := s.UpdateEvent(ctx, id, domain.EventUpdate{Name: ptr("Audit scoring.Card II")})
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionUpdateEvent, Summary: `name "Audit scoring.Card" → "Audit scoring.Card II"`})
	})
	t.Run("UpdateEventRacedDecidesAgain", func(t *testing.T) {
		// Another admin renames the event between this update's read and its write: the
		// write's condition fails (no entry), the update reads again and writes (one entry).
		step()
		hook.arm(func(context.Context) {
			_, err := other.UpdateEvent(domain.WithActor(ctx, domain.UserRef{ID: "admin-2", Name: "Other"}), id, domain.EventUpdate{Name: ptr("Raced")})
			mustOK(t, err)
			step() // this update's own entry is then the newest
		})
		_, err := s.UpdateEvent(ctx, id, domain.EventUpdate{Name: ptr("Audit scoring.Card III")})
		mustOK(t, err)
		n += 2
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionUpdateEvent, Summary: `name "Raced" → "Audit scoring.Card III"`})
	})
	var added domain.Match
	t.Run("AddMatch", func(t *testing.T) {
		step()
		added, err = s.AddMatch(ctx, id, matchSpec("Added", 7))
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionAddMatch, MatchID: &added.ID, Summary: `added match 4 "Added" (7 points): Added Red vs Added Blue`})
	})
	t.Run("AddMatchRefusedByCondition", func(t *testing.T) {
		// Another admin's card edit lands between this one's read and its transaction: the
		// card version condition fails, CONFLICT, and only the other admin's entry exists.
		step()
		hook.arm(func(context.Context) {
			_, err := other.UpdateMatch(ctx, id, added.ID, domain.MatchUpdate{Points: ptr(8)})
			mustOK(t, err)
		})
		_, err := s.AddMatch(ctx, id, matchSpec("Refused", 5))
		wantCode(t, err, domain.CodeConflict)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionUpdateMatch, MatchID: &added.ID, Summary: "points 7 → 8"})
		for _, e := range f.on(t).auditLog(id, 100) {
			if strings.Contains(e.Summary, "Refused") {
				t.Fatalf("the refused change has an entry: %+v", e)
			}
		}
	})
	t.Run("UpdateMatchTeams", func(t *testing.T) {
		step()
		m, err := s.UpdateMatch(ctx, id, added.ID, domain.MatchUpdate{Teams: []domain.Team{{Members: []string{"X"}}, {Members: []string{"Y"}}}})
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionUpdateMatch, MatchID: &m.ID, Summary: "new match id (was " + added.ID + "): now match 4 \"Added\" (8 points): X vs Y"})
		added = m
	})
	t.Run("ReorderMatches", func(t *testing.T) {
		step()
		cur, err := s.GetEvent(ctx, id)
		mustOK(t, err)
		ids := make([]string, len(cur.Matches))
		for i, m := range cur.Matches {
			ids[len(ids)-1-i] = m.ID
		}
		_, err = s.ReorderMatches(ctx, id, ids)
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionReorderMatches, Summary: `card order: 1 "Added", 2 "Opener", 3 "Semi Main", 4 "Main Event"`})
		_, err = s.ReorderMatches(ctx, id, ids) // the same order: nothing written
		mustOK(t, err)
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionReorderMatches, Summary: "card order"})
	})
	t.Run("RemoveMatch", func(t *testing.T) {
		step()
		mustOK(t, s.RemoveMatch(ctx, id, added.ID))
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionRemoveMatch, MatchID: &added.ID, Summary: `removed match 1 "Added"`})
	})
	t.Run("Lock", func(t *testing.T) {
		step()
		_, err := s.UpdateEvent(ctx, id, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionUpdateEvent, Summary: "state UPCOMING → BROADCAST"})
	})
	t.Run("SetResult", func(t *testing.T) {
		main := ev.Matches[0]
		step()
		_, err := s.SetResult(ctx, id, main.ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(1)})
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionSetResult, MatchID: &main.ID, Summary: `"Main Event": WIN, team 1 (Main Event Blue)`})
		_, err = s.SetResult(ctx, id, main.ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(7)})
		wantCode(t, err, domain.CodeBadUserInput) // refused before anything is written
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionSetResult, MatchID: &main.ID, Summary: "WIN, team 1"})
		step()
		_, err = s.SetResult(ctx, id, main.ID, &domain.MatchResult{Outcome: domain.OutcomeDraw})
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionSetResult, MatchID: &main.ID, Summary: "DRAW (void) (was WIN, team 1 (Main Event Blue))"})
		step()
		_, err = s.SetResult(ctx, id, main.ID, nil)
		mustOK(t, err)
		n++
		f.on(t).wantEntries(id, n, domain.AuditEntry{Action: domain.ActionSetResult, MatchID: &main.ID, Summary: "result cleared (was DRAW (void))"})
	})
}

// txHook runs before once, just before the first TransactWriteItems that match accepts.
type txHook struct {
	ddb.API
	mu     sync.Mutex
	match  func(*dynamodb.TransactWriteItemsInput) bool
	before func(ctx context.Context)
}

func (h *txHook) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	h.mu.Lock()
	var before func(context.Context)
	if h.before != nil && h.match(in) {
		before, h.before = h.before, nil
	}
	h.mu.Unlock()
	if before != nil {
		before(ctx)
	}
	return h.API.TransactWriteItems(ctx, in, opts...)
}

// touchesEventItem reports whether a transaction writes or checks an event item (markScored
// does; scoring batches do not).
func touchesEventItem(in *dynamodb.TransactWriteItemsInput) bool {
	return slices.ContainsFunc(in.TransactItems, func(it types.TransactWriteItem) bool { return transactKey(it) == table.EventsPartition })
}

// scoringEntries returns the scoreEvent entries of a log, newest first.
func (f *fixture) scoringEntries(log string) []domain.AuditEntry {
	f.t.Helper()
	var out []domain.AuditEntry
	for _, e := range f.auditLog(log, 100) {
		if e.Action == domain.ActionScoreEvent {
			out = append(out, e)
		}
	}
	return out
}

// TestScoreEventAuditEntries: a scoreEvent call that writes has one entry — in the SCORED
// transaction when it completes the event, after its batches when the budget or an error
// stops it — and a call that writes nothing (dry run, nothing left) has none. A SCORED
// transaction refused by its condition (the card changed) commits no "complete" entry.
func TestScoreEventAuditEntries(t *testing.T) {
	t.Parallel()
	f := newFixtureShards(t, 4) // several shards: a budget of one batch a call takes several calls
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	step := func() { f.clock.Advance(time.Millisecond) }
	build := func(id string, players int) domain.Event {
		ev := f.createEvent(id, 20, standardCard())
		for i := range players {
			f.submit(fmt.Sprintf("p%02d", i), ev, i%2, 0, 1)
		}
		return ev
	}
	ev := build("2030-03-10-audit-score", 6)
	other := build("2030-03-11-audit-refused", 3)
	f.clock.Set(time.Date(2030, 3, 12, 0, 0, 0, 0, time.UTC)) // both have started
	f.lockAndResult(ev, 0, 0, 1)
	f.lockAndResult(other, 0, 0, 1)

	t.Run("BudgetedCallsThenNothingLeft", func(t *testing.T) {
		f := f.on(t)
		budgeted := New(f.db, f.table, WithClock(f.clock.Now), WithScoringBudget(time.Nanosecond)) // one batch a call
		step()
		if _, err := budgeted.ScoreEvent(ctx, ev.ID, true); err != nil {
			t.Fatal(err)
		}
		if got := f.scoringEntries(ev.ID); len(got) != 0 {
			t.Fatalf("a dry run wrote entries: %+v", got)
		}
		calls := 0
		for {
			step()
			rep, err := budgeted.ScoreEvent(ctx, ev.ID, false)
			mustOK(t, err)
			calls++
			got := f.scoringEntries(ev.ID)
			if len(got) != calls {
				t.Fatalf("after %d calls: %d scoreEvent entries, want one per call", calls, len(got))
			}
			want := fmt.Sprintf("wrote %d predictions", rep.PredictionsScored)
			if rep.Complete {
				want += fmt.Sprintf(" and %d standings in %d transactions; complete, event SCORED", rep.StandingsChanged, rep.Transactions)
			} else {
				want += fmt.Sprintf(" and %d standings in %d transactions; %d remaining, call again", rep.StandingsChanged, rep.Transactions, rep.Remaining)
			}
			f.wantEntries(ev.ID, len(f.auditLog(ev.ID, 100)), domain.AuditEntry{Action: domain.ActionScoreEvent, Summary: want})
			if rep.Complete {
				break
			}
			if calls > 10 {
				t.Fatal("never complete")
			}
		}
		if calls < 2 {
			t.Fatalf("complete in %d call: the budget did not cut the run", calls)
		}
		step()
		rep, err := budgeted.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		if !rep.Complete || rep.Transactions != 0 {
			t.Fatalf("a call after completion: %+v", rep)
		}
		if got := f.scoringEntries(ev.ID); len(got) != calls {
			t.Fatalf("a call that wrote nothing added an entry: %d, want %d", len(got), calls)
		}
	})

	t.Run("RefusedScoredTransactionCommitsNoCompleteEntry", func(t *testing.T) {
		f := f.on(t)
		hook := &txHook{API: f.db, match: touchesEventItem, before: func(context.Context) {
			// A correction lands between the run's read and its SCORED transaction.
			_, err := f.s.SetResult(ctx, other.ID, other.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeDraw})
			mustOK(t, err)
			step()
		}}
		step()
		_, err := New(hook, f.table, WithClock(f.clock.Now)).ScoreEvent(ctx, other.ID, false)
		wantCode(t, err, domain.CodeConflict)
		got, err := f.s.GetEvent(ctxT(t), other.ID)
		mustOK(t, err)
		if got.Stored == domain.StateScored {
			t.Fatal("the refused transaction made the event SCORED")
		}
		entries := f.scoringEntries(other.ID)
		if len(entries) != 1 || !strings.Contains(entries[0].Summary, "stopped by CONFLICT") || strings.Contains(entries[0].Summary, "complete") {
			t.Fatalf("entries %+v, want one saying the call (whose batches committed) stopped by CONFLICT", entries)
		}
		// Called again, it scores the corrected card and completes: its entry says so.
		step()
		rep, err := f.s.ScoreEvent(ctx, other.ID, false)
		mustOK(t, err)
		if !rep.Complete {
			t.Fatalf("%+v", rep)
		}
		f.wantEntries(other.ID, len(f.auditLog(other.ID, 100)), domain.AuditEntry{Action: domain.ActionScoreEvent, Summary: "complete, event SCORED"})
	})
}
