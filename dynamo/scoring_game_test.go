package dynamo

// Scoring the game beyond one pick per match (method picks, the joker, the perfect-card
// bonus) through the store on DynamoDB Local: every prediction as the store returns it
// equals domain.ScoreEntry's arithmetic for the card as it is, live and final, at 1 and at
// 16 shards, with literal numbers pinned besides. Helpers are prefixed "gsc".

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
)

// newGscEnv is newScEnv with events and seasons of shards shards.
func newGscEnv(t testing.TB, shards int) *scEnv {
	t.Helper()
	client := dynamotest.Client(t, ddb.CostOption)
	e := &scEnv{t: t, client: client, table: dynamotest.TableName()}
	e.before = New(client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(shards))
	e.after = New(client, e.table, WithClock(func() time.Time { return scAfter }), WithScoreShards(shards))
	scOK(t, e.before.EnsureTable(scCtx(t)))
	return e
}

// gscPick is a pick on the match at index Match of the card as created.
type gscPick struct {
	Match, Team int
	Method      domain.VictoryMethod // "": none
}

// gscEntry is a player's entry: picks, the joker (a match index, -1: none) and the guess.
type gscEntry struct {
	User  string
	Picks []gscPick
	Joker int
	Guess *int
}

// entry is en against ev, the event as created (its match ids).
func (en gscEntry) entry(ev domain.Event) domain.Entry {
	var e domain.Entry
	for _, p := range en.Picks {
		pk := domain.Pick{MatchID: ev.Matches[p.Match].ID, Team: p.Team}
		if p.Method != "" {
			pk.Method = scPtr(p.Method)
		}
		e.Picks = append(e.Picks, pk)
	}
	if en.Joker >= 0 {
		e.Joker = scPtr(ev.Matches[en.Joker].ID)
	}
	e.Tiebreaker = en.Guess
	return e
}

// gscSubmit submits entries through SubmitPrediction (the real write path).
func (e *scEnv) gscSubmit(ev domain.Event, entries ...gscEntry) {
	e.t.Helper()
	for _, en := range entries {
		_, err := e.before.SubmitPrediction(scCtx(e.t), domain.UserRef{ID: en.User, Name: scName(en.User)}, ev.ID, en.entry(ev))
		scOK(e.t, err)
	}
}

// gscCreate creates event id (22:00 UTC on its date) with settings and card.
func (e *scEnv) gscCreate(id string, settings domain.EventSettings, card []domain.MatchSpec) domain.Event {
	e.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	scOK(e.t, err)
	ev, err := e.before.CreateEvent(scCtx(e.t), domain.EventSpec{ID: &id, Name: "Event " + id[11:], StartsAt: day.Add(22 * time.Hour), Matches: card, Settings: settings})
	scOK(e.t, err)
	return ev
}

// gscResult sets the result of ev's match i (as created) and returns the event as the store
// now reads it.
func (e *scEnv) gscResult(ev domain.Event, i int, r domain.MatchResult) {
	e.t.Helper()
	_, err := e.after.SetResult(scCtx(e.t), ev.ID, ev.Matches[i].ID, &r)
	scOK(e.t, err)
}

func gscWin(team int, method domain.VictoryMethod) domain.MatchResult {
	r := scWin(team)
	if method != "" {
		r.Method = &method
	}
	return r
}

// gscScoreAll scores ev with calls until one is complete.
func (e *scEnv) gscScoreAll(s *Store, id string) domain.ScoreReport {
	e.t.Helper()
	var total domain.ScoreReport
	for calls := 1; ; calls++ {
		rep := scScoreRun(e.t, s, id, false)
		total.PredictionsScored += rep.PredictionsScored
		total.StandingsChanged += rep.StandingsChanged
		total.Transactions += rep.Transactions
		total.Complete, total.Final, total.ScoredMatches, total.EventID = rep.Complete, rep.Final, rep.ScoredMatches, rep.EventID
		if rep.Complete {
			return total
		}
		if calls == 50 {
			e.t.Fatalf("scoring %s not complete after %d calls", id, calls)
		}
	}
}

// gscScored is a prediction's score as the store returns it: points, correct, perfect
// card, and by match id each pick's points and correctness.
type gscScored struct {
	Points, Correct int
	PerfectCard     *bool
	PickPoints      map[string]*int
	PickCorrect     map[string]bool
}

// gscWant is domain's arithmetic for entry under ev (the card as it is): what the store must
// return once a pass of ev's card version completed. An event without extra scoring stores
// no pick points and no perfect card.
func gscWant(ev domain.Event, entry domain.Entry) gscScored {
	sc := domain.ScoreEntry(ev, entry)
	w := gscScored{Points: sc.Points, Correct: sc.Correct, PickPoints: map[string]*int{}, PickCorrect: map[string]bool{}}
	extra := ev.ExtraScoring()
	if extra {
		w.PerfectCard = sc.PerfectCard
	}
	for _, p := range sc.Picks {
		w.PickCorrect[p.MatchID] = *p.Correct
		if extra {
			w.PickPoints[p.MatchID] = p.Points
		} else {
			w.PickPoints[p.MatchID] = nil
		}
	}
	return w
}

// gscGot is p's score as returned.
func gscGot(t testing.TB, p domain.Prediction) gscScored {
	t.Helper()
	if p.Points == nil || p.Correct == nil {
		t.Fatalf("prediction of %s is not scored", p.User.ID)
	}
	g := gscScored{Points: *p.Points, Correct: *p.Correct, PerfectCard: p.PerfectCard, PickPoints: map[string]*int{}, PickCorrect: map[string]bool{}}
	for _, pk := range p.Picks {
		if pk.Correct == nil {
			t.Fatalf("%s's pick on %s has no correctness after scoring", p.User.ID, pk.MatchID)
		}
		g.PickPoints[pk.MatchID], g.PickCorrect[pk.MatchID] = pk.Points, *pk.Correct
	}
	return g
}

func (g gscScored) String() string {
	pp := map[string]any{}
	for k, v := range g.PickPoints {
		pp[k[:4]] = gscDeref(v)
	}
	return fmt.Sprintf("{points %d correct %d perfect %v picks %v}", g.Points, g.Correct, gscDeref(g.PerfectCard), pp)
}

// gscCheck reads each entry's prediction and checks it equals domain's arithmetic under ev
// as the store reads it now; it returns the scores by user.
func (e *scEnv) gscCheck(t *testing.T, created domain.Event, entries []gscEntry) map[string]gscScored {
	t.Helper()
	ev, err := e.after.GetEvent(scCtx(t), created.ID)
	scOK(t, err)
	out := map[string]gscScored{}
	for _, en := range entries {
		p, err := e.after.GetPrediction(scCtx(t), en.User, ev.ID, false)
		scOK(t, err)
		got, want := gscGot(t, p), gscWant(ev, en.entry(created))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: stored %v, domain.ScoreEntry %v", en.User, got, want)
		}
		out[en.User] = got
	}
	return out
}

// The card of TestScoreEventGameEveryCase, by index: A 10 (+5 for the method), B 20, C 30,
// D 15 (+10), E 5 (removed after the lock), F 25. Results: A WIN 0 by PINFALL, B WIN 1, C
// NO_CONTEST, D WIN 1 by SUBMISSION, F WIN 0 (no method pick).
const (
	gscA = iota
	gscB
	gscC
	gscD
	gscE
	gscF
)

func gscEveryCaseCard() []domain.MatchSpec {
	card := []domain.MatchSpec{
		{Name: "Opener", Points: 10, MethodPoints: 5, Teams: scTeams(2)},
		{Name: "Tag Match", Points: 20, Teams: scTeams(2)},
		{Name: "Street Fight", Points: 30, Teams: scTeams(2)},
		{Name: "Submission Match", Points: 15, MethodPoints: 10, Teams: scTeams(2)},
		{Name: "Dark Match", Points: 5, Teams: scTeams(2)},
		{Name: "Main Event", Points: 25, Teams: scTeams(2)},
	}
	return card
}

// gscEveryCase are entries covering every rule, with their final points pinned (jokers on,
// a perfect-card bonus of 25).
func gscEveryCase() ([]gscEntry, map[string]int) {
	p := func(m, team int, method domain.VictoryMethod) gscPick { return gscPick{m, team, method} }
	entries := []gscEntry{
		// Every non-void match right, methods right, joker right: 15 + 40 + 0 + 25 + 0 + 25 + 25.
		{"perfect", []gscPick{p(gscA, 0, domain.MethodPinfall), p(gscB, 1, ""), p(gscC, 0, ""), p(gscD, 1, domain.MethodSubmission), p(gscE, 0, ""), p(gscF, 0, "")}, gscB, nil},
		// Winners right, methods wrong: 10 + 20 + 15 + 25, and the bonus (methods play no part in it).
		{"methods-wrong", []gscPick{p(gscA, 0, domain.MethodSubmission), p(gscB, 1, ""), p(gscC, 1, ""), p(gscD, 1, domain.MethodPinfall), p(gscE, 1, ""), p(gscF, 0, "")}, -1, nil},
		// No method given, joker on D: 10 + 20 + 30 + 25 + 25 (no pick on the void C).
		{"methods-unset", []gscPick{p(gscA, 0, ""), p(gscB, 1, ""), p(gscD, 1, ""), p(gscF, 0, "")}, gscD, nil},
		// Every winner wrong, the joker lost: -20, clamped at 0.
		{"clamped", []gscPick{p(gscA, 1, ""), p(gscB, 0, ""), p(gscD, 0, ""), p(gscF, 1, "")}, gscB, nil},
		// The joker on the void C: 15 + 0 + 0 (F wrong); no perfect card (B, D not picked).
		{"joker-void", []gscPick{p(gscA, 0, domain.MethodPinfall), p(gscC, 0, ""), p(gscF, 1, "")}, gscC, nil},
		// The joker on E, removed from the card: 0 for it; 10 + 20 + 15 + 25 and the bonus.
		{"joker-removed", []gscPick{p(gscA, 0, ""), p(gscB, 1, ""), p(gscD, 1, ""), p(gscE, 0, ""), p(gscF, 0, "")}, gscE, nil},
		// The joker lost on F: 15 + 20 + 25 - 25; the perfect card missed.
		{"missed-perfect", []gscPick{p(gscA, 0, domain.MethodPinfall), p(gscB, 1, ""), p(gscD, 1, domain.MethodSubmission), p(gscF, 1, "")}, gscF, nil},
		// The joker won with the method: (15 + 10) x 2 + 10 + 0 + 25.
		{"joker-method", []gscPick{p(gscA, 0, ""), p(gscB, 0, ""), p(gscD, 1, domain.MethodSubmission), p(gscF, 0, "")}, gscD, nil},
	}
	final := map[string]int{"perfect": 130, "methods-wrong": 95, "methods-unset": 110, "clamped": 0, "joker-void": 15,
		"joker-removed": 95, "missed-perfect": 35, "joker-method": 85}
	return entries, final
}

// TestScoreEventGameEveryCase scores an event with jokers, a perfect-card bonus and method
// picks at 1 and at 16 shards: a live pass (two results, a match removed), the final pass,
// a run again (nothing written), a correction (a method changed: only the predictions it
// moves get other points): after each, every prediction's points, correct picks, pick
// points and perfect card equal domain.ScoreEntry's for the card as it is, the literal
// totals pinned besides, and every standing the sum of its player's predictions.
func TestScoreEventGameEveryCase(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 16} {
		t.Run(fmt.Sprintf("Shards%d", shards), func(t *testing.T) {
			t.Parallel()
			e := newGscEnv(t, shards)
			settings := domain.EventSettings{Jokers: true, PerfectCardBonus: 25}
			ev := e.gscCreate("2025-04-19-every-case", settings, gscEveryCaseCard())
			entries, final := gscEveryCase()
			e.gscSubmit(ev, entries...)

			// Live: E removed after the lock, A and B resulted.
			scOK(t, e.after.RemoveMatch(scCtx(t), ev.ID, ev.Matches[gscE].ID))
			e.gscResult(ev, gscA, gscWin(0, domain.MethodPinfall))
			e.gscResult(ev, gscB, scWin(1))
			rep := e.gscScoreAll(e.after, ev.ID)
			if rep.Final || rep.PredictionsScored != len(entries) {
				t.Fatalf("live pass: %+v", rep)
			}
			live := e.gscCheck(t, ev, entries)
			for user, want := range map[string]int{"perfect": 55, "clamped": 0, "joker-method": 10, "joker-void": 15, "methods-wrong": 30} {
				if live[user].Points != want || live[user].PerfectCard != nil {
					t.Errorf("live: %s = %v, want %d points and no perfect card yet", user, live[user], want)
				}
			}
			if p := live["clamped"].PickPoints[ev.Matches[gscB].ID]; p == nil || *p != -20 {
				t.Errorf("live: the lost joker's pick points = %v, want -20", gscDeref(p))
			}
			e.snapshot().checkSums(t)

			// Final.
			e.gscResult(ev, gscC, scNoContest)
			e.gscResult(ev, gscD, gscWin(1, domain.MethodSubmission))
			e.gscResult(ev, gscF, gscWin(0, ""))
			rep = e.gscScoreAll(e.after, ev.ID)
			if !rep.Final || rep.PredictionsScored != len(entries) {
				t.Fatalf("final pass: %+v", rep)
			}
			got := e.gscCheck(t, ev, entries)
			for user, want := range final {
				if got[user].Points != want {
					t.Errorf("final: %s = %v, want %d points", user, got[user], want)
				}
			}
			for user, want := range map[string]bool{"perfect": true, "methods-wrong": true, "methods-unset": true, "joker-removed": true,
				"clamped": false, "joker-void": false, "missed-perfect": false, "joker-method": false} {
				if pc := got[user].PerfectCard; pc == nil || *pc != want {
					t.Errorf("final: %s perfect card %v, want %v", user, gscDeref(pc), want)
				}
			}
			if p := got["joker-removed"].PickPoints[ev.Matches[gscE].ID]; p == nil || *p != 0 || got["joker-removed"].PickCorrect[ev.Matches[gscE].ID] {
				t.Errorf("the joker on a removed match: %v points, correct %v; want 0, false", gscDeref(p), got["joker-removed"].PickCorrect[ev.Matches[gscE].ID])
			}
			before := e.snapshot()
			before.checkSums(t)
			if before.state(ev.ID) != domain.StateScored {
				t.Fatalf("state %s after the final pass", before.state(ev.ID))
			}

			t.Run("AgainChangesNothing", func(t *testing.T) {
				ctx, cost := ddb.WithCost(scCtx(t))
				rep, err := e.after.ScoreEvent(ctx, ev.ID, false)
				scOK(t, err)
				if rep.PredictionsScored != 0 || rep.Transactions != 0 || !rep.Complete {
					t.Errorf("run again: %+v", rep)
				}
				if ops := cost.Snapshot().Operations; ops["TransactWriteItems"] != 0 || ops["PutItem"] != 0 {
					t.Errorf("run again wrote: %v", ops)
				}
				if !reflect.DeepEqual(e.snapshot().items, before.items) {
					t.Error("a run again changed the table")
				}
			})
			t.Run("CorrectionRewritesWhatChanged", func(t *testing.T) {
				// D was won by PINFALL: the method points of D move to whoever said PINFALL.
				e.gscResult(ev, gscD, gscWin(1, domain.MethodPinfall))
				rep := e.gscScoreAll(e.after, ev.ID)
				moved := 0
				corrected := e.gscCheck(t, ev, entries)
				for user, sc := range corrected {
					if sc.Points != got[user].Points {
						moved++
					}
				}
				// perfect and joker-method lose D's method (10, and 20 with the joker);
				// methods-wrong gains it (10); missed-perfect loses it (10).
				for user, want := range map[string]int{"perfect": 120, "joker-method": 65, "methods-wrong": 105, "missed-perfect": 25, "clamped": 0} {
					if corrected[user].Points != want {
						t.Errorf("corrected: %s = %v, want %d points", user, corrected[user], want)
					}
				}
				if rep.PredictionsScored != len(entries) || rep.StandingsChanged != moved || moved != 4 {
					t.Errorf("correction: %+v; %d predictions moved", rep, moved)
				}
				after := e.snapshot()
				after.checkSums(t)
				for _, en := range entries {
					if d := after.standings[en.User].Points - before.standings[en.User].Points; d != corrected[en.User].Points-got[en.User].Points {
						t.Errorf("%s: standing moved by %d, its prediction by %d", en.User, d, corrected[en.User].Points-got[en.User].Points)
					}
				}
			})
		})
	}
}

// TestScoreEventWorkedExample is the rules' worked example (docs/api.md, "Scoring rules"):
// jokers on, a perfect-card bonus of 25; M1 10 (+5 for the method), M2 20, M3 30; picks M1
// team 0 by PINFALL, M2 team 1 as the joker, M3 team 0; results M1 WIN 0 by PINFALL, M2 WIN
// 1, M3 NO_CONTEST: 15 + 40 + 0 + 25 = 80, correct 2, perfect card. M2 corrected to a WIN
// of team 0: 15 - 20 = -5, so 0, correct 1, no perfect card; the standing follows.
func TestScoreEventWorkedExample(t *testing.T) {
	t.Parallel()
	e := newGscEnv(t, 1)
	card := []domain.MatchSpec{
		{Name: "M1", Points: 10, MethodPoints: 5, Teams: scTeams(2)},
		{Name: "M2", Points: 20, Teams: scTeams(2)},
		{Name: "M3", Points: 30, Teams: scTeams(2)},
	}
	ev := e.gscCreate("2025-04-26-worked-example", domain.EventSettings{Jokers: true, PerfectCardBonus: 25}, card)
	en := gscEntry{"worked", []gscPick{{0, 0, domain.MethodPinfall}, {1, 1, ""}, {2, 0, ""}}, 1, nil}
	e.gscSubmit(ev, en)
	e.gscResult(ev, 0, gscWin(0, domain.MethodPinfall))
	e.gscResult(ev, 1, scWin(1))
	e.gscResult(ev, 2, scNoContest)
	for _, step := range []struct {
		name                    string
		m2                      int
		points, correct         int
		perfect                 bool
		m1Points, m2Points, m3P int
	}{
		{"AsPlayed", 1, 80, 2, true, 15, 40, 0},
		{"M2ToTeam0", 0, 0, 1, false, 15, -20, 0},
	} {
		t.Run(step.name, func(t *testing.T) {
			e.gscResult(ev, 1, scWin(step.m2))
			e.gscScoreAll(e.after, ev.ID)
			got := e.gscCheck(t, ev, []gscEntry{en})["worked"]
			want := gscScored{Points: step.points, Correct: step.correct, PerfectCard: &step.perfect,
				PickPoints:  map[string]*int{ev.Matches[0].ID: &step.m1Points, ev.Matches[1].ID: &step.m2Points, ev.Matches[2].ID: &step.m3P},
				PickCorrect: map[string]bool{ev.Matches[0].ID: true, ev.Matches[1].ID: step.m2 == 1, ev.Matches[2].ID: false}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stored %v, want %v", got, want)
			}
			snap := e.snapshot()
			snap.checkSums(t)
			if st := snap.standings["worked"]; st.Points != step.points || st.Correct != step.correct {
				t.Fatalf("standing %d points %d correct, want %d, %d", st.Points, st.Correct, step.points, step.correct)
			}
		})
	}
}

// gscDeref is *p, or nil.
func gscDeref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// gscGenEntries makes n players' entries for ev (every match picked but one in seven, the
// team, the method and the joker varied, a guess for most), deterministic in salt.
func gscGenEntries(ev domain.Event, n, salt int) []gscEntry {
	methods := append([]domain.VictoryMethod{""}, domain.VictoryMethods()...)
	out := make([]gscEntry, n)
	for k := range out {
		en := gscEntry{User: fmt.Sprintf("p%05d", k), Joker: -1}
		for i, m := range ev.Matches {
			h := (k*7919 + i*104729 + salt*31337) % 9973
			if h%7 == 0 && i != 0 {
				continue
			}
			pk := gscPick{Match: i, Team: h % len(m.Teams)}
			if m.MethodPoints > 0 {
				pk.Method = methods[h%len(methods)]
			}
			en.Picks = append(en.Picks, pk)
			if ev.Settings.Jokers && en.Joker < 0 && h%3 == 0 {
				en.Joker = i
			}
		}
		if ev.Settings.Tiebreaker != nil && k%5 != 0 {
			en.Guess = scPtr((k * 37) % 400)
		}
		out[k] = en
	}
	return out
}

// gscWriteEntries writes entries as unscored prediction items of ev (shards shards), as a
// submit shapes them (table.PredictionRow.WithEntry), counted on their lock copies.
func (e *scEnv) gscWriteEntries(ev domain.Event, shards int, entries []gscEntry) {
	e.t.Helper()
	items := make([]map[string]types.AttributeValue, len(entries))
	users := make([]string, len(entries))
	for i, en := range entries {
		uid, eid := table.UserID(en.User), table.EventID(ev.ID)
		row := table.PredictionRow{
			Keys:      table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)},
			IndexKeys: table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(shards), shards), GSISK: table.PendingSK(uid)},
			Type:      table.TypePrediction, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1,
			EventID: ev.ID, EventName: ev.Name, EventStartsAt: table.FormatTime(ev.StartsAt), Season: ev.Season(),
			UpdatedAt: table.FormatTime(scBefore), Version: 1,
		}.WithEntry(en.entry(ev))
		item, err := attributevalue.MarshalMap(row)
		scOK(e.t, err)
		items[i], users[i] = item, en.User
	}
	scBatchWrite(e.t, e.client, e.table, items)
	addPredictionCounts(e.t, e.client, e.table, ev.ID, users)
}

// gscCrashData is an event with every extra (a tie-breaker answer set), 150 predictions and
// its results, in e (scShards shards).
func gscCrashData(e *scEnv) (domain.Event, []gscEntry) {
	e.t.Helper()
	settings := domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: scPtr("How many seconds will the main event last?")}
	ev := e.gscCreate("2025-04-19-crash-game", settings, gscEveryCaseCard())
	entries := gscGenEntries(ev, 150, 5)
	e.gscWriteEntries(ev, scShards, entries)
	for i, r := range []domain.MatchResult{gscWin(0, domain.MethodPinfall), scWin(1), scNoContest, gscWin(1, domain.MethodSubmission), scDraw, gscWin(0, "")} {
		e.gscResult(ev, i, r)
	}
	_, err := e.after.SetTiebreakerAnswer(scCtx(e.t), ev.ID, scPtr(250))
	scOK(e.t, err)
	return ev, entries
}

// TestScoreEventGameInterruptedRunFinishes: a pass of an event with every extra (pick
// points, perfect cards, keys with the tie-break of its answer) cut off after k of its
// transactions leaves every standing the sum of what was written, and the next call
// finishes it: the table ends identical, item for item, to a twin holding the same data
// scored by one uninterrupted run, every prediction as domain.ScoreEntry says.
func TestScoreEventGameInterruptedRunFinishes(t *testing.T) {
	t.Parallel()
	for _, k := range []int64{1, 3} {
		t.Run(fmt.Sprintf("after%dTransactions", k), func(t *testing.T) {
			t.Parallel()
			e := newScEnv(t)
			ev, entries := gscCrashData(e)
			twin := newScEnv(t)
			scBatchWrite(t, twin.client, twin.table, e.snapshot().items)
			twin.gscScoreAll(twin.after, ev.ID)
			want := twin.snapshot()

			faulty := newScFaultAPI(e.client)
			faulty.failAfter = k
			_, err := e.storeOver(faulty).ScoreEvent(scCtx(t), ev.ID, false)
			if !errors.Is(err, errScInjected) {
				t.Fatalf("interrupted run: err = %v, want the injected fault", err)
			}
			mid := e.snapshot()
			mid.checkSums(t)
			if n := mid.scored(ev.ID); n == 0 || n == len(entries) || mid.state(ev.ID) == domain.StateScored {
				t.Fatalf("cut off with %d of %d scored, state %s", n, len(entries), mid.state(ev.ID))
			}
			e.gscScoreAll(e.after, ev.ID)
			got := e.snapshot()
			got.checkSums(t)
			if !reflect.DeepEqual(got.items, want.items) {
				t.Fatalf("table differs from the twin scored without a cut")
			}
			e.gscCheck(t, ev, entries)
			e.checkPickCounts(t, ev.ID, got)
		})
	}
}
