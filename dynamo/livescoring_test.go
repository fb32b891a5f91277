package dynamo

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// TestLiveScoring: scoreEvent on a BROADCAST event with some results scores the resulted
// matches (provisional points; voids as ever), the event stays BROADCAST, and the last
// result makes the pass final (SCORED). After every result and correction, once the
// budgeted calls complete the pass: every prediction's points are the oracle's for the card
// as it is, every standing is the sum of its player's scored predictions (another scored
// event included), the leaderboard's ranks follow the points, each match's pick counts
// equal a recount of the table, and scoredMatches moved — but only when the pass
// completed: a call stopped by its budget leaves it.
func TestLiveScoring(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ctx := scCtx(t)
	// A scored event first: standings are sums over more than the live event.
	prior := e.createEvent("2025-05-03-prior-show", scCard())
	priorEntries := scGenEntries(30, scTeamCounts(prior), 7)
	e.submit(prior, priorEntries...)
	prior = e.setResults(prior, scResults())
	for rep := scScoreRun(t, e.after, prior.ID, false); !rep.Complete; rep = scScoreRun(t, e.after, prior.ID, false) {
	}

	ev := e.createEvent("2025-05-10-live-show", scCard())
	entries := scGenEntries(70, scTeamCounts(ev), 11)
	e.submit(ev, entries...)
	_, err := e.before.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: scPtr(domain.StateBroadcast)})
	scOK(t, err)
	budgeted := New(e.client, e.table, WithClock(func() time.Time { return scBefore }), WithScoringBudget(time.Nanosecond))

	t.Run("NoCountsBeforeThePass", func(t *testing.T) {
		card, err := e.after.GetEvent(ctx, ev.ID)
		scOK(t, err)
		for _, m := range card.Matches {
			if m.PickCounts != nil {
				t.Fatalf("match %q has pick counts %v before any pass", m.Name, m.PickCounts)
			}
		}
	})
	t.Run("NoResultIsRefused", func(t *testing.T) {
		_, err := budgeted.ScoreEvent(ctx, ev.ID, false)
		wantCode(t, err, domain.CodeBadUserInput)
	})

	type step struct {
		name   string
		match  int
		result *domain.MatchResult // nil: cleared
	}
	res := func(r domain.MatchResult) *domain.MatchResult { return &r }
	steps := []step{
		{"OpenerWin", 0, res(scWin(0))},
		// The only result cleared: the pass takes the provisional points back.
		{"OpenerClearedTakesPointsBack", 0, nil},
		{"OpenerWinAgain", 0, res(scWin(0))},
		{"TagDrawVoids", 2, res(scDraw)},
		{"OpenerCorrected", 0, res(scWin(1))},
		{"FourWayWin", 1, res(scWin(3))},
		{"GrudgeNoContest", 3, res(scNoContest)},
		{"MainEventWinIsFinal", 4, res(scWin(1))},
	}
	scoredMatches := 0
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			_, err := budgeted.SetResult(ctx, ev.ID, ev.Matches[st.match].ID, st.result)
			scOK(t, err)
			card, err := e.after.GetEvent(ctx, ev.ID)
			scOK(t, err)
			final := len(domain.MissingResults(card.Matches)) == 0

			// One call stopped by its budget: one batch, not the pass.
			rep := scScoreRun(t, budgeted, ev.ID, false)
			if rep.Complete || rep.Transactions != 1 {
				t.Fatalf("a budget-stopped call: %+v, want one transaction and complete false", rep)
			}
			if got := e.eventRow(t, ev.ID); got.ScoredMatches != scoredMatches || got.State != string(domain.StateBroadcast) {
				t.Fatalf("after a budget-stopped call: scoredMatches %d state %s, want %d BROADCAST (unchanged)", got.ScoredMatches, got.State, scoredMatches)
			}
			calls := 1
			for !rep.Complete {
				if calls++; calls > 100 {
					t.Fatal("the pass did not complete in 100 calls")
				}
				rep = scScoreRun(t, budgeted, ev.ID, false)
			}
			scoredMatches = domain.ResultedMatches(card.Matches)
			if rep.ScoredMatches != scoredMatches || rep.Final != final {
				t.Fatalf("last report %+v, want scoredMatches %d final %v", rep, scoredMatches, final)
			}
			row := e.eventRow(t, ev.ID)
			wantState := domain.StateBroadcast
			if final {
				wantState = domain.StateScored
			}
			if row.ScoredMatches != scoredMatches || row.State != string(wantState) {
				t.Fatalf("after the pass: scoredMatches %d state %s, want %d %s", row.ScoredMatches, row.State, scoredMatches, wantState)
			}
			snap := e.snapshot()
			snap.checkSums(t)
			snap.checkScored(t, scScoredEvent{card, entries})
			snap.checkTotals(t, scExpect(scScoredEvent{prior, priorEntries}, scScoredEvent{card, entries}))
			e.checkLeaderboard(t, card, snap)
			e.checkPickCounts(t, card.ID, snap)
			// Calling again changes nothing.
			if again := scScoreRun(t, e.after, ev.ID, false); !again.Complete || again.PredictionsScored != 0 || again.StandingsChanged != 0 {
				t.Fatalf("a call after the pass: %+v", again)
			}
			e.checkPickCounts(t, card.ID, e.snapshot())
		})
	}
	t.Run("CardEditsKeepPickCounts", func(t *testing.T) {
		card, err := e.after.GetEvent(ctx, ev.ID)
		scOK(t, err)
		_, err = e.after.UpdateMatch(ctx, ev.ID, card.Matches[1].ID, domain.MatchUpdate{Points: scPtr(30)})
		scOK(t, err)
		r := scWin(0)
		_, err = e.after.SetResult(ctx, ev.ID, card.Matches[0].ID, &r)
		scOK(t, err)
		e.checkPickCounts(t, ev.ID, e.snapshot())
		// A card edit that read the match before its counts were written cannot wipe them.
		stale := card.Matches[2]
		stale.PickCounts = nil
		put, err := e.after.putMatch(table.EventID(ev.ID), stale, true)
		scOK(t, err)
		if err := e.after.db.Transact(ctx, []types.TransactWriteItem{put}); err == nil {
			t.Fatal("a Put of a match read without its pick counts went through")
		}
		e.checkPickCounts(t, ev.ID, e.snapshot())
	})
}

// eventRow reads an event's row.
func (e *scEnv) eventRow(t testing.TB, id string) table.EventRow {
	t.Helper()
	items := e.snapshot().items
	i := slices.IndexFunc(items, func(it map[string]types.AttributeValue) bool {
		return table.ItemType(it) == table.TypeEvent && table.ItemString(it, "id") == id
	})
	var row table.EventRow
	if err := attributevalue.UnmarshalMap(items[i], &row); err != nil {
		t.Fatal(err)
	}
	return row
}

// checkLeaderboard checks the event's leaderboard (the store's, as event(id) reads it)
// against the snapshot: every scored prediction once, highest points first, competition
// ranks; and each player's rank as a prediction read alone (the rank table) the same.
func (e *scEnv) checkLeaderboard(t *testing.T, ev domain.Event, snap scSnapshot) {
	t.Helper()
	var points []int
	for _, p := range snap.predictions {
		if p.EventID == ev.ID && p.Points != nil {
			points = append(points, *p.Points)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(points)))
	got, page, err := e.after.GetEventWithLeaderboard(scCtx(t), ev.ID, 100, true)
	scOK(t, err)
	if domain.ResultedMatches(ev.Matches) == 0 {
		// Every result cleared: the pass counted none, as before the first one.
		if got.LeaderboardVisible() || len(page.Items) != 0 {
			t.Fatalf("event %+v with no result counted shows a leaderboard of %d rows", got, len(page.Items))
		}
		return
	}
	if !got.LeaderboardVisible() {
		t.Fatalf("event %+v shows no leaderboard after a complete pass", got)
	}
	if len(page.Items) != len(points) {
		t.Fatalf("leaderboard has %d rows, want %d", len(page.Items), len(points))
	}
	for i, p := range page.Items {
		want := 1 + slices.IndexFunc(points, func(x int) bool { return x == *p.Points })
		if *p.Points != points[i] || p.Rank == nil || *p.Rank != want {
			t.Fatalf("leaderboard row %d: %d points rank %v, want %d points rank %d", i, *p.Points, p.Rank, points[i], want)
		}
		if i%10 == 0 {
			alone, err := e.after.GetPrediction(scCtx(t), p.User.ID, ev.ID, true)
			scOK(t, err)
			if alone.Rank == nil || *alone.Rank != want {
				t.Fatalf("%s's rank read alone %v, want %d", p.User.ID, alone.Rank, want)
			}
		}
	}
}

// checkPickCounts checks every match's pick counts on the card against a recount of the
// predictions in the snapshot (a table scan).
func (e *scEnv) checkPickCounts(t testing.TB, id string, snap scSnapshot) {
	t.Helper()
	card, err := e.after.GetEvent(scCtx(t), id)
	scOK(t, err)
	for _, m := range card.Matches {
		want := make([]int, len(m.Teams))
		for _, p := range snap.predictions {
			if p.EventID != id {
				continue
			}
			for _, pk := range p.Picks {
				if pk.MatchID == m.ID {
					want[pk.Team]++
				}
			}
		}
		if !slices.Equal(m.PickCounts, want) {
			t.Errorf("match %q pick counts %v, want the recount %v", m.Name, m.PickCounts, want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestPickCountsAfterAccountDeletion: a deleted account's picks leave the pass's counts
// (its shard's checkpoint, in the deletion's transaction), and the next scoreEvent call —
// which has no prediction to write — puts the recount on the card; a call stopped by its
// budget, re-runs and a live pass keep the counts equal to a recount throughout.
func TestPickCountsAfterAccountDeletion(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ctx := scCtx(t)
	ev := e.createEvent("2025-05-17-counted-show", scCard())
	entries := scGenEntries(40, scTeamCounts(ev), 5)
	e.submit(ev, entries...)
	budgeted := New(e.client, e.table, WithClock(func() time.Time { return scAfter }), WithScoringBudget(time.Nanosecond))
	ev = e.setResults(ev, scResults()[:2]) // live: two results
	for rep := scScoreRun(t, budgeted, ev.ID, false); !rep.Complete; rep = scScoreRun(t, budgeted, ev.ID, false) {
	}
	e.checkPickCounts(t, ev.ID, e.snapshot())
	scOK(t, e.after.DeleteUser(ctx, entries[3].User))
	rep := scScoreRun(t, e.after, ev.ID, false)
	if !rep.Complete || rep.PredictionsScored != 0 {
		t.Fatalf("the call after the deletion: %+v", rep)
	}
	snap := e.snapshot()
	snap.checkSums(t)
	e.checkPickCounts(t, ev.ID, snap)
	// The rest of the results: the final pass counts the same.
	ev = e.setResults(ev, scResults())
	for rep := scScoreRun(t, budgeted, ev.ID, false); !rep.Complete; rep = scScoreRun(t, budgeted, ev.ID, false) {
	}
	if got := e.eventRow(t, ev.ID); got.State != string(domain.StateScored) || got.ScoredMatches != len(ev.Matches) {
		t.Fatalf("event row %+v after the final pass", got)
	}
	e.checkPickCounts(t, ev.ID, e.snapshot())
}
