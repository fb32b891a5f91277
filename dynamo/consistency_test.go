package dynamo

// Consistency under the races AWS allows, each on the AWS-faithful engine
// (internal/awsfaithful): index reads that lag behind the table item by item, reads that
// straddle another writer's change, and transactions that conflict while another one
// holds an item.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/dynamotest"
)

// newFaithfulScEnv is a scoring env whose every call (fixtures included) goes through an
// AWS-faithful engine in front of the package's DynamoDB Local.
func newFaithfulScEnv(t *testing.T) (*scEnv, *awsfaithful.Engine) {
	t.Helper()
	eng := awsfaithful.New(t, awsfaithful.Config{})
	client := eng.Client(t, ddb.CostOption)
	e := &scEnv{t: t, client: client, table: dynamotest.TableName()}
	e.before = New(client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(scShards))
	e.after = e.storeOver(client)
	if err := e.before.EnsureTable(scCtx(t)); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	return e, eng
}

// syncIndex lets the index catch up with everything written so far (holds excepted).
func syncIndex(t *testing.T, eng *awsfaithful.Engine) {
	t.Helper()
	if err := eng.SyncIndex(scCtx(t)); err != nil {
		t.Fatalf("SyncIndex: %v", err)
	}
}

// TestScoringReadsTheCardFromTheTable: a result corrected just before scoring is in the
// table, but its match row has not reached the index while the event row (new
// cardVersion) has. Scoring reads the card from the table: it scores the corrected result,
// on a first score and on a re-score alike.
func TestScoringReadsTheCardFromTheTable(t *testing.T) {
	t.Parallel()
	for _, rescore := range []bool{false, true} {
		t.Run(fmt.Sprintf("rescore=%v", rescore), func(t *testing.T) {
			t.Parallel()
			e, eng := newFaithfulScEnv(t)
			ev := e.createEvent("2025-04-19-card-from-table", scCard())
			entries := scGenEntries(30, scTeamCounts(ev), 101)
			e.writeEntries(ev, entries)
			ev = e.setResults(ev, scResults())
			if rescore {
				scScoreRun(t, e.after, ev.ID, false)
			}
			syncIndex(t, eng)
			h := eng.HoldIndex(awsfaithful.Where("type", "match"))
			defer h.Release()
			m, err := e.after.SetResult(scCtx(t), ev.ID, ev.Matches[0].ID, scPtr(scWin(1)))
			scOK(t, err)
			ev.Matches[0] = m

			rep := scScoreRun(t, e.after, ev.ID, false)
			snap := e.snapshot()
			snap.checkSums(t)
			snap.checkScored(t, scScoredEvent{ev, entries})
			snap.checkTotals(t, scExpect(scScoredEvent{ev, entries}))
			if snap.state(ev.ID) != domain.StateScored || !rep.Complete || rep.PredictionsScored == 0 {
				t.Errorf("state %s, report %+v", snap.state(ev.ID), rep)
			}
		})
	}
}

// cardRaceAPI makes readCard's two reads straddle another admin's edit: the consistent
// Query of the match rows runs first, then between() makes the edit, then the GetItem of
// the event row runs: a read that paired the new event row (new cardVersion) with the old
// matches would let an edit overwrite the other admin's.
type cardRaceAPI struct {
	ddb.API
	between func()
	once    sync.Once
	queried chan struct{}
}

func newCardRaceAPI(db ddb.API, between func()) *cardRaceAPI {
	return &cardRaceAPI{API: db, between: between, queried: make(chan struct{})}
}

func (c *cardRaceAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := c.API.Query(ctx, in, opts...)
	if in.IndexName == nil && aws.ToBool(in.ConsistentRead) {
		c.once.Do(func() {
			c.between()
			close(c.queried)
		})
	}
	return out, err
}

func (c *cardRaceAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if table.ItemString(in.Key, table.AttrPK) == table.EventsPartition {
		select {
		case <-c.queried:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return c.API.GetItem(ctx, in, opts...)
}

// TestCardEditsNeverOverwriteNorDuplicate: another admin's edit lands between the two
// reads of a card edit. The edit reads the card again: addMatch never gives two matches
// one position, and updateMatch never writes an old match row over the other admin's
// change.
func TestCardEditsNeverOverwriteNorDuplicate(t *testing.T) {
	t.Parallel()
	e, _ := newFaithfulScEnv(t)
	ctx := scCtx(t)
	admin := e.before

	t.Run("AddMatchKeepsPositionsUnique", func(t *testing.T) {
		ev := e.createEvent("2026-04-19-race-add", scCard())
		race := newCardRaceAPI(e.client, func() {
			_, err := admin.AddMatch(ctx, ev.ID, domain.MatchSpec{Name: "Added by B", Points: 5, Teams: scTeams(2)})
			scOK(t, err)
		})
		_, err := New(race, e.table, WithClock(func() time.Time { return scBefore })).
			AddMatch(ctx, ev.ID, domain.MatchSpec{Name: "Added by A", Points: 5, Teams: scTeams(2)})
		scOK(t, err)
		cr, err := admin.readCard(ctx, ev.ID)
		card := cr.ev
		scOK(t, err)
		var positions []int
		for _, m := range card.Matches {
			positions = append(positions, m.Position)
		}
		if want := []int{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(positions, want) {
			t.Errorf("positions %v, want %v", positions, want)
		}
	})

	t.Run("UpdateMatchKeepsTheOtherAdminsEdit", func(t *testing.T) {
		ev := e.createEvent("2026-04-20-race-update", scCard())
		m0 := ev.Matches[0].ID
		race := newCardRaceAPI(e.client, func() {
			_, err := admin.UpdateMatch(ctx, ev.ID, m0, domain.MatchUpdate{Name: scPtr("Renamed by B")})
			scOK(t, err)
		})
		_, err := New(race, e.table, WithClock(func() time.Time { return scBefore })).
			UpdateMatch(ctx, ev.ID, m0, domain.MatchUpdate{Points: scPtr(7)})
		scOK(t, err)
		cr, err := admin.readCard(ctx, ev.ID)
		card := cr.ev
		scOK(t, err)
		if got := card.Matches[0]; got.Name != "Renamed by B" || got.Points != 7 {
			t.Errorf("match: name %q points %d, want both edits (Renamed by B, 7)", got.Name, got.Points)
		}
	})
}

// TestALockedEventNeverReopens: updateEvent refuses to set BROADCAST back to UPCOMING and
// to move the start of an event locked by time later (results entered meanwhile would be
// visible to players who could pick again), also when the event locks between its read
// and its write.
func TestALockedEventNeverReopens(t *testing.T) {
	t.Parallel()
	e, _ := newFaithfulScEnv(t)
	ctx := scCtx(t)
	player := domain.UserRef{ID: "reopen-player", Name: "P"}

	t.Run("NotByState", func(t *testing.T) {
		ev := e.createEvent("2026-04-19-never-reopens", scCard())
		_, err := e.before.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: scPtr(domain.StateBroadcast)})
		scOK(t, err)
		_, err = e.before.SetResult(ctx, ev.ID, ev.Matches[0].ID, scPtr(scWin(0)))
		scOK(t, err)
		_, err = e.before.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: scPtr(domain.StateUpcoming)})
		if domain.ErrorCode(err) != domain.CodeBadUserInput {
			t.Fatalf("BROADCAST → UPCOMING: %v, want BAD_USER_INPUT", err)
		}
		_, err = e.before.SubmitPrediction(ctx, player, ev.ID, domain.Entry{Picks: scEntry{Teams: []int{0, 0, 0, 0, 0}}.picks(ev)})
		if domain.ErrorCode(err) != domain.CodeLocked {
			t.Fatalf("pick after a refused reopen: %v, want LOCKED", err)
		}
	})

	t.Run("NotByALaterStart", func(t *testing.T) {
		ev := e.createEvent("2025-04-20-start-later", scCard()) // starts 22:00; e.after's clock is in June
		_, err := e.after.SetResult(ctx, ev.ID, ev.Matches[0].ID, scPtr(scWin(0)))
		scOK(t, err)
		later := ev.StartsAt.Add(time.Hour)
		s := New(e.client, e.table, WithClock(func() time.Time { return ev.StartsAt.Add(time.Minute) }))
		_, err = s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: &later})
		if domain.ErrorCode(err) != domain.CodeBadUserInput {
			t.Fatalf("later start once locked: %v, want BAD_USER_INPUT", err)
		}
		earlier := ev.StartsAt.Add(-time.Hour)
		_, err = s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: &earlier})
		scOK(t, err) // earlier keeps it locked
		got, err := s.GetEvent(ctx, ev.ID)
		scOK(t, err)
		if !got.Locked(ev.StartsAt.Add(-2 * time.Hour)) {
			t.Errorf("an event with a result looks open to a clock before its start: %s", got.Stored)
		}
	})

	t.Run("NotByAChangeBetweenReadAndWrite", func(t *testing.T) {
		// The admin's update is decided on an open event; the event locks (a result is
		// entered, which stores BROADCAST) before the write: the write's condition fails and
		// the decision, taken again, refuses the later start.
		ev := e.createEvent("2026-04-21-locks-meanwhile", scCard())
		hook := &hookDB{API: e.client} // before the update's transaction (event change + audit entry)
		hook.arm(func(context.Context) {
			_, err := e.before.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: scPtr(domain.StateBroadcast)})
			scOK(t, err)
		})
		later := ev.StartsAt.Add(time.Hour)
		_, err := New(hook, e.table, WithClock(func() time.Time { return scBefore })).UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: &later, State: scPtr(domain.StateUpcoming)})
		if domain.ErrorCode(err) != domain.CodeBadUserInput {
			t.Fatalf("update decided on an open event that locked meanwhile: %v, want BAD_USER_INPUT", err)
		}
		cr, err := e.before.readCard(ctx, ev.ID)
		got := cr.ev
		scOK(t, err)
		if got.Stored != domain.StateBroadcast || !got.StartsAt.Equal(ev.StartsAt) {
			t.Errorf("event %s starting %s, want BROADCAST at %s", got.Stored, got.StartsAt, ev.StartsAt)
		}
	})
}

// TestStandingDriftIsReportedNotClamped: a standing that has drifted below the sum of its
// player's predictions would fall below zero after a correction. The run reports the
// drift (INTERNAL, naming the player) and writes nothing for that player; it never clamps
// the standing to 0.
func TestStandingDriftIsReportedNotClamped(t *testing.T) {
	t.Parallel()
	e, _ := newFaithfulScEnv(t)
	ctx := scCtx(t)
	ev := e.createEvent("2025-04-19-standing-drift", scCard())
	e.submit(ev, scEntry{User: "drifter", Teams: []int{0, 2, -1, -1, 1}}) // 10 + 20 + 25 = 55
	ev = e.setResults(ev, scResults())
	scScoreRun(t, e.after, ev.ID, false)
	// Drift: the standing lost 50 points behind scoring's back.
	_, err := e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.table), Key: table.Key(table.UserPK("drifter"), table.StandingSK(scSeason)),
		UpdateExpression:          aws.String("SET points = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberN{Value: "5"}},
	})
	scOK(t, err)
	before := e.snapshot()
	_, err = e.after.SetResult(ctx, ev.ID, ev.Matches[4].ID, scPtr(scWin(0))) // the main event (25) was lost
	scOK(t, err)

	_, err = e.after.ScoreEvent(ctx, ev.ID, false)
	var de *domain.Error
	if domain.ErrorCode(err) != domain.CodeInternal || !errors.As(err, &de) || !strings.Contains(de.Message, "drifted") || !strings.Contains(de.Message, "drifter") {
		t.Fatalf("scoring over a drifted standing: %v, want INTERNAL naming the drift and the player", err)
	}
	after := e.snapshot()
	if st := after.standings["drifter"]; st.Points != 5 || st.Version != before.standings["drifter"].Version {
		t.Errorf("standing rewritten to %d points (version %d → %d)", st.Points, before.standings["drifter"].Version, st.Version)
	}
	if p := after.predictions["drifter/"+ev.ID]; *p.Points != 55 {
		t.Errorf("prediction rewritten to %d points without its standing", *p.Points)
	}
}

// TestTwoSubmitsInOneSecondScoreTheLastPicks: a player replaces their picks within the
// same second, and the index still shows the first picks when scoring reads it. The
// scoring write is conditioned on the prediction's version (updatedAt, of one-second
// resolution, is the same for both): the last picks are the ones scored.
func TestTwoSubmitsInOneSecondScoreTheLastPicks(t *testing.T) {
	t.Parallel()
	e, eng := newFaithfulScEnv(t)
	ev := e.createEvent("2025-04-19-two-submits", scCard())
	first := scEntry{User: "quick", Teams: []int{0, 2, 0, 0, 1}}  // all right: 55
	second := scEntry{User: "quick", Teams: []int{1, 0, 0, 0, 0}} // all wrong: 0
	e.submit(ev, first)
	syncIndex(t, eng)
	h := eng.HoldIndex(awsfaithful.Where("type", "prediction"))
	defer h.Release()
	e.submit(ev, second) // same clock reading: the same updatedAt
	ev = e.setResults(ev, scResults())

	scScoreRun(t, e.after, ev.ID, false)
	snap := e.snapshot()
	snap.checkScored(t, scScoredEvent{ev, []scEntry{second}})
	snap.checkSums(t)
}

// TestSubmitValidatesPicksAgainstTheCurrentCard: the teams of a match change (it gets a
// new id) and the index shows the new event row with the old match rows. A submit
// validates its picks against the current card: a pick on the old match is refused and a
// pick on the new match is stored.
func TestSubmitValidatesPicksAgainstTheCurrentCard(t *testing.T) {
	t.Parallel()
	e, eng := newFaithfulScEnv(t)
	ctx := scCtx(t)
	ev := e.createEvent("2025-04-19-current-card", scCard())
	syncIndex(t, eng)
	h := eng.HoldIndex(awsfaithful.Where("type", "match"))
	defer h.Release()
	m, err := e.before.UpdateMatch(ctx, ev.ID, ev.Matches[0].ID, domain.MatchUpdate{Teams: scTeams(3)})
	scOK(t, err)

	old := []domain.Pick{{MatchID: ev.Matches[0].ID, Team: 0}}
	_, err = e.before.SubmitPrediction(ctx, domain.UserRef{ID: "stale-card", Name: "S"}, ev.ID, domain.Entry{Picks: old})
	if domain.ErrorCode(err) != domain.CodeBadUserInput {
		t.Errorf("pick on the replaced match: %v, want BAD_USER_INPUT", err)
	}
	if _, err := e.before.GetPrediction(ctx, "stale-card", ev.ID, true); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Errorf("a prediction was stored: %v", err)
	}
	_, err = e.before.SubmitPrediction(ctx, domain.UserRef{ID: "new-card", Name: "N"}, ev.ID, domain.Entry{Picks: []domain.Pick{{MatchID: m.ID, Team: 2}}})
	scOK(t, err)
	// The screen shows the current card too (read again from the table, the index being
	// detectably stale).
	got, err := e.before.GetEvent(ctx, ev.ID)
	scOK(t, err)
	if got.Matches[0].ID != m.ID {
		t.Errorf("card shows match %s first, want the new %s", got.Matches[0].ID, m.ID)
	}
}

// TestScoredOnlyWhenEveryPredictionIsSeen: a prediction written just before the lock has
// not reached the index when scoring runs. The event's consistent prediction count says
// one is missing: the call is not complete, the event not SCORED, and a later call
// finishes.
func TestScoredOnlyWhenEveryPredictionIsSeen(t *testing.T) {
	t.Parallel()
	e, eng := newFaithfulScEnv(t)
	ev := e.createEvent("2025-04-19-unseen-prediction", scCard())
	entries := scGenEntries(12, scTeamCounts(ev), 107)
	e.submit(ev, entries...)
	syncIndex(t, eng)
	late := scEntry{User: "late-pick", Teams: []int{0, 2, 0, 0, 1}}
	h := eng.HoldIndex(awsfaithful.Where("userId", late.User))
	e.submit(ev, late)
	ev = e.setResults(ev, scResults())

	rep := scScoreRun(t, e.after, ev.ID, false)
	snap := e.snapshot()
	if snap.state(ev.ID) == domain.StateScored || rep.Complete || rep.Remaining != 1 {
		t.Fatalf("state %s, report %+v: want not SCORED, not complete, 1 remaining", snap.state(ev.ID), rep)
	}
	if p := snap.predictions[late.User+"/"+ev.ID]; p.Points != nil {
		t.Fatalf("the unseen prediction was scored")
	}
	snap.checkSums(t)

	h.Release()
	rep = scScoreRun(t, e.after, ev.ID, false)
	if !rep.Complete || rep.PredictionsScored != 1 {
		t.Errorf("second call %+v: want the late prediction scored and complete", rep)
	}
	all := append(slices.Clone(entries), late)
	snap = e.snapshot()
	snap.checkSums(t)
	snap.checkScored(t, scScoredEvent{ev, all})
	if snap.state(ev.ID) != domain.StateScored {
		t.Errorf("state %s, want SCORED", snap.state(ev.ID))
	}
}

// cancelWatch calls onCancel the first time a TransactWriteItems comes back cancelled
// with a TransactionConflict.
type cancelWatch struct {
	ddb.API
	once     sync.Once
	onCancel func()
}

func (c *cancelWatch) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := c.API.TransactWriteItems(ctx, in, opts...)
	if reasons, ok := ddb.CancellationReasons(err); ok {
		for i := range reasons {
			if ddb.ReasonCode(reasons, i) == "TransactionConflict" {
				c.once.Do(c.onCancel)
			}
		}
	}
	return out, err
}

// TestTransactionConflictIsRetried: while one player's submit is in flight (its
// transaction holds its lock copy of the event, which the submits of 1/copies of the
// players share), another player's submit on the same copy is cancelled with
// TransactionConflict. It is retried once the first transaction is through, not reported
// to the player as CONFLICT.
func TestTransactionConflictIsRetried(t *testing.T) {
	t.Parallel()
	e, eng := newFaithfulScEnv(t)
	ctx := scCtx(t)
	ev := e.createEvent("2025-04-19-conflict-retried", scCard())
	second := "second"
	for i := 0; table.UserID(second).LockCopy(table.LockCopies(scShards)) != table.UserID("in-flight").LockCopy(table.LockCopies(scShards)); i++ {
		second = fmt.Sprintf("second-%d", i)
	}
	gate := eng.PauseTransactions(awsfaithful.Touches(table.LockPK(table.EventID(ev.ID), table.UserID("in-flight").LockCopy(table.LockCopies(scShards))), table.LockSK))
	defer gate.Release()
	first := make(chan error, 1)
	go func() {
		_, err := e.before.SubmitPrediction(ctx, domain.UserRef{ID: "in-flight", Name: "F"}, ev.ID, domain.Entry{Picks: scEntry{Teams: []int{0}}.picks(ev)})
		first <- err
	}()
	if err := gate.Paused(ctx); err != nil {
		t.Fatal(err)
	}
	watch := &cancelWatch{API: e.client, onCancel: gate.Release}
	_, err := New(watch, e.table, WithClock(func() time.Time { return scBefore })).
		SubmitPrediction(ctx, domain.UserRef{ID: second, Name: "S"}, ev.ID, domain.Entry{Picks: scEntry{Teams: []int{1}}.picks(ev)})
	scOK(t, err)
	scOK(t, <-first)
	for _, user := range []string{"in-flight", second} {
		if _, err := e.before.GetPrediction(ctx, user, ev.ID, true); err != nil {
			t.Errorf("prediction of %s: %v", user, err)
		}
	}
}

// TestConcurrentRunsReportOnlyWhatTheyWrote: a correction swaps the winners of two matches
// of equal points, so some predictions keep their points and correct count but not their
// correct picks. Of 8 concurrent runs, each prediction is written once in all, and the
// runs' reports (and those of the calls that complete it after a run answered
// UNAVAILABLE) add up to exactly that.
func TestConcurrentRunsReportOnlyWhatTheyWrote(t *testing.T) {
	t.Parallel()
	e, _ := newFaithfulScEnv(t)
	card := []domain.MatchSpec{
		{Name: "Left", Points: 10, Teams: scTeams(2)},
		{Name: "Right", Points: 10, Teams: scTeams(2)},
	}
	ev := e.createEvent("2025-04-19-concurrent-runs", card)
	var entries []scEntry
	for i, picks := range [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		for k := range 3 {
			entries = append(entries, scEntry{User: fmt.Sprintf("swap-%d-%d", i, k), Teams: picks})
		}
	}
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, []domain.MatchResult{scWin(0), scWin(1)})
	scScoreRun(t, e.after, ev.ID, false)
	before := e.snapshot()
	ev = e.setResults(ev, []domain.MatchResult{scWin(1), scWin(0)}) // the swap

	const runs = 8
	reports := make([]domain.ScoreReport, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			reports[i], errs[i] = e.storeOver(e.client).ScoreEvent(scCtx(t), ev.ID, false)
		}()
	}
	close(start)
	wg.Wait()
	var scored, standings int
	unavailable := 0
	for i := range runs {
		// Eight runs on the same items under AWS's conflict rule: a run may run out of
		// retries (UNAVAILABLE: run it again); what it wrote before is in its report.
		if domain.ErrorCode(errs[i]) == domain.CodeUnavailable {
			unavailable++
		} else {
			scOK(t, errs[i])
		}
		scored += reports[i].PredictionsScored
		standings += reports[i].StandingsChanged
	}
	if unavailable > 0 {
		// What the admin does after UNAVAILABLE: run it again until complete.
		for calls := 0; ; calls++ {
			if calls == 5 {
				t.Fatalf("not complete after %d more calls", calls)
			}
			rep := scScoreRun(t, e.after, ev.ID, false)
			scored += rep.PredictionsScored
			standings += rep.StandingsChanged
			if rep.Complete {
				break
			}
		}
		t.Logf("%d of %d runs answered UNAVAILABLE; completed by a later call", unavailable, runs)
	}
	after := e.snapshot()
	written := 0
	for k, p := range after.predictions {
		if d := p.Version - before.predictions[k].Version; d > 1 {
			t.Errorf("prediction %s written %d times", k, d)
		} else {
			written += d
		}
	}
	if scored != written || written != len(entries) {
		t.Errorf("runs reported %d predictions; %d were written (want each of the %d once)", scored, written, len(entries))
	}
	// Only {0,1} and {1,0} players change totals (20 ↔ 0).
	if standings != 6 {
		t.Errorf("runs reported %d standings, want the 6 whose totals changed", standings)
	}
	after.checkSums(t)
	after.checkScored(t, scScoredEvent{ev, entries})
}

// TestScoringFitsATimeBudget: scoring a large event in one call cannot fit API Gateway's
// 30 s. A call stops starting work when its budget (or the request's deadline minus
// ScoringMargin) is spent, answers with what it did, and any sequence of calls —
// concurrent ones included — ends with the table one unbudgeted call makes.
func TestScoringFitsATimeBudget(t *testing.T) {
	t.Parallel()
	const players = 2*scoring.PlayersPerTransaction + 10 // three batches of work with one shard
	// One dataset, copied item for item into a fresh table for the twin and each subtest.
	src, _ := newFaithfulScEnv(t)
	prior := src.createEvent("2025-03-01-prior-event", scCard())
	src.writeEntries(prior, scGenEntries(players/4, scTeamCounts(prior), 9))
	src.setResults(prior, scResults())
	scScoreRun(t, src.after, prior.ID, false)
	ev := src.createEvent("2025-04-19-time-budget", scCard())
	src.writeEntries(ev, scGenEntries(players, scTeamCounts(ev), 10))
	ev = src.setResults(ev, scResults())
	items := src.snapshot().items
	build := func(t *testing.T) (*scEnv, domain.Event) {
		e, _ := newFaithfulScEnv(t)
		scBatchWrite(t, e.client, e.table, items)
		return e, ev
	}
	twin, twinEv := build(t)
	whole := scScoreRun(t, twin.after, twinEv.ID, false)
	if !whole.Complete || whole.PredictionsScored != players {
		t.Fatalf("unbudgeted run: %+v", whole)
	}
	want := twin.snapshot()
	ws, wp, wk := want.comparable()
	same := func(t *testing.T, e *scEnv, ev domain.Event) {
		t.Helper()
		got := e.snapshot()
		got.checkSums(t)
		gs, gp, gk := got.comparable()
		if !maps.Equal(gs, ws) || !maps.EqualFunc(gp, wp, func(a, b scScore) bool { return reflect.DeepEqual(a, b) }) || !maps.Equal(gk, wk) {
			t.Errorf("table differs from one unbudgeted run")
		}
		if got.state(ev.ID) != domain.StateScored {
			t.Errorf("state %s", got.state(ev.ID))
		}
		for k, p := range got.predictions {
			if p.EventID == ev.ID && p.Version != want.predictions[k].Version {
				t.Errorf("prediction %s at version %d, want %d (written once)", k, p.Version, want.predictions[k].Version)
			}
		}
	}

	t.Run("CallsUntilComplete", func(t *testing.T) {
		t.Parallel()
		e, ev := build(t)
		s := New(e.client, e.table, WithClock(func() time.Time { return scAfter }), WithScoringBudget(time.Nanosecond))
		dry := scScoreRun(t, s, ev.ID, true)
		if dry.Remaining != players || dry.Complete {
			t.Errorf("dry run %+v, want %d remaining", dry, players)
		}
		calls, total := 0, 0
		for {
			rep := scScoreRun(t, s, ev.ID, false)
			calls++
			total += rep.PredictionsScored
			if rep.PredictionsScored == 0 && !rep.Complete {
				t.Fatalf("call %d made no progress: %+v", calls, rep)
			}
			if rep.Remaining != players-total && !rep.Complete {
				t.Errorf("call %d: %d remaining, want %d", calls, rep.Remaining, players-total)
			}
			if rep.Complete {
				break
			}
			if calls > players {
				t.Fatal("never complete")
			}
		}
		if want := scBatches(scGenEntries(players, scTeamCounts(ev), 10)); calls != want || total != players {
			t.Errorf("%d calls wrote %d predictions, want %d calls (one batch of at most %d of a shard each) and %d", calls, total, want, scoring.PlayersPerTransaction, players)
		}
		same(t, e, ev)
	})

	t.Run("ConcurrentCallers", func(t *testing.T) {
		t.Parallel()
		e, ev := build(t)
		var calls atomic.Int64
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				s := New(e.client, e.table, WithClock(func() time.Time { return scAfter }), WithScoringBudget(time.Nanosecond))
				for range 4 * players {
					rep, err := s.ScoreEvent(scCtx(t), ev.ID, false)
					calls.Add(1)
					if err != nil || rep.Complete {
						errs <- err
						return
					}
				}
				errs <- errors.New("never complete")
			}()
		}
		for range 4 {
			scOK(t, <-errs)
		}
		t.Logf("%d calls by 4 concurrent callers", calls.Load())
		same(t, e, ev)
	})

	t.Run("RequestDeadlineCapsTheBudget", func(t *testing.T) {
		t.Parallel()
		e, ev := build(t)
		// No budget of its own; a request deadline that leaves no time past the margin
		// (a long margin here, so that the chunk in flight has all the time it needs on a
		// slow machine).
		s := e.storeOver(e.client)
		s.scoringMargin = 2 * time.Minute
		ctx, cancel := context.WithTimeout(scCtx(t), s.scoringMargin+time.Millisecond)
		defer cancel()
		rep, err := s.ScoreEvent(ctx, ev.ID, false)
		scOK(t, err)
		if rep.Complete || rep.PredictionsScored == 0 || rep.PredictionsScored > scoring.PlayersPerTransaction || rep.Remaining != players-rep.PredictionsScored {
			t.Errorf("call with a near deadline: %+v, want one batch and the rest remaining", rep)
		}
		for !rep.Complete {
			rep = scScoreRun(t, e.after, ev.ID, false)
		}
		same(t, e, ev)
	})
}
