package dynamo

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/testclock"
)

// The game's settings, method points, result methods, the tie-breaker answer and entries
// with methods, a joker and a guess, as the store keeps them.

const gameQuestion = "How many seconds will the main event last?"

// gameSettings has every extra on: jokers, a perfect-card bonus of 25, a question.
func gameSettings() domain.EventSettings {
	return domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: ptr(gameQuestion)}
}

// gameCard is three matches worth 10 (and 5 for the method), 20 and 30 points.
func gameCard() []domain.MatchSpec {
	m1 := matchSpec("Opener", 10)
	m1.MethodPoints = 5
	return []domain.MatchSpec{m1, matchSpec("Semi Main", 20), matchSpec("Main Event", 30)}
}

// createGame creates an event with id at 20:00 UTC on its date with settings and card.
func (f *fixture) createGame(id string, settings domain.EventSettings, card []domain.MatchSpec) domain.Event {
	f.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	if err != nil {
		f.t.Fatalf("bad test event id %q", id)
	}
	ev, err := f.s.CreateEvent(ctxT(f.t), domain.EventSpec{ID: ptr(id), Name: strings.ReplaceAll(id[11:], "-", " "),
		StartsAt: day.Add(20 * time.Hour), Matches: card, Settings: settings})
	mustOK(f.t, err)
	return ev
}

// eventItem is an event's item as the table holds it.
func (f *fixture) eventItem(id string) map[string]types.AttributeValue {
	f.t.Helper()
	return f.getRaw(table.EventsPartition, table.EventSK(table.EventID(id)))
}

// wantAttrs fails unless item has each of has and none of hasNot.
func wantAttrs(t *testing.T, what string, item map[string]types.AttributeValue, has, hasNot []string) {
	t.Helper()
	for _, a := range has {
		if _, ok := item[a]; !ok {
			t.Errorf("%s: no attribute %q", what, a)
		}
	}
	for _, a := range hasNot {
		if _, ok := item[a]; ok {
			t.Errorf("%s: attribute %q stored", what, a)
		}
	}
}

var gameEventAttrs = []string{"jokers", "perfectCardBonus", "tiebreaker", "answer", "answerVersion"}

// ownClock returns the fixture failing t with a clock of its own, reading t0, and a store
// on it: a parallel subtest whose audit entries must sort by time moves it between its
// changes.
func (f *fixture) ownClock(t testing.TB) *fixture {
	c := *f
	c.t, c.clock = t, testclock.New(t0)
	c.s = c.storeOver(c.db)
	return &c
}

// unchanged fails unless the event's stored card version and settings and its audit log's
// length are still want's and n.
func (f *fixture) unchanged(t *testing.T, want domain.Event, n int) {
	t.Helper()
	got, err := f.s.GetEventState(ctxT(t), want.ID)
	mustOK(t, err)
	if got.CardVersion != want.CardVersion || got.Name != want.Name || got.Stored != want.Stored ||
		!got.Settings.Equal(want.Settings) || !reflect.DeepEqual(got.Answer, want.Answer) {
		t.Errorf("event changed: %+v, want %+v", got, want)
	}
	if got := len(f.auditLog(want.ID, 100)); got != n {
		t.Errorf("audit log has %d entries, want %d", got, n)
	}
}

func TestGameSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	s := f.s

	t.Run("CreateStoresSettingsAndMethodPoints", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createGame("2030-04-01-game-create", gameSettings(), gameCard())
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if !got.Settings.Equal(gameSettings()) || got.CardVersion != 1 || got.Answer != nil {
			t.Errorf("settings %+v v%d answer %v, want %+v v1 none", got.Settings, got.CardVersion, got.Answer, gameSettings())
		}
		if mp := []int{got.Matches[0].MethodPoints, got.Matches[1].MethodPoints, got.Matches[2].MethodPoints}; !reflect.DeepEqual(mp, []int{5, 0, 0}) {
			t.Errorf("method points %v, want [5 0 0]", mp)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("read %+v, created %+v", got, ev)
		}
		wantAttrs(t, "event", f.eventItem(ev.ID), []string{"jokers", "perfectCardBonus", "tiebreaker"}, []string{"answer", "answerVersion"})
		eid := table.EventID(ev.ID)
		wantAttrs(t, "match 1", f.getRaw(table.EventPK(eid), table.MatchSK(table.MatchID(ev.Matches[0].ID))), []string{"methodPoints"}, nil)
		wantAttrs(t, "match 2", f.getRaw(table.EventPK(eid), table.MatchSK(table.MatchID(ev.Matches[1].ID))), nil, []string{"methodPoints"})
	})

	t.Run("CreateRepeatedIsTheEventOnlyWithTheSameSettings", func(t *testing.T) {
		t.Parallel()
		spec := domain.EventSpec{ID: ptr("2030-04-02-game-repeat"), Name: "Repeat", StartsAt: time.Date(2030, 4, 2, 20, 0, 0, 0, time.UTC),
			Matches: gameCard(), Settings: gameSettings()}
		first, err := s.CreateEvent(ctx, spec)
		mustOK(t, err)
		again, err := s.CreateEvent(ctx, spec)
		mustOK(t, err)
		if !reflect.DeepEqual(matchIDs(again.Matches), matchIDs(first.Matches)) || !again.Settings.Equal(first.Settings) {
			t.Errorf("repeat answered %+v, want the event created %+v", again, first)
		}
		for name, edit := range map[string]func(*domain.EventSpec){
			"OtherBonus":        func(s *domain.EventSpec) { s.Settings.PerfectCardBonus = 30 },
			"JokersOff":         func(s *domain.EventSpec) { s.Settings.Jokers = false },
			"OtherQuestion":     func(s *domain.EventSpec) { s.Settings.Tiebreaker = ptr("How long?") },
			"NoQuestion":        func(s *domain.EventSpec) { s.Settings.Tiebreaker = nil },
			"OtherMethodPoints": func(s *domain.EventSpec) { s.Matches[0].MethodPoints = 6 },
		} {
			t.Run(name, func(t *testing.T) {
				other := spec
				other.Matches, other.Settings = gameCard(), gameSettings()
				edit(&other)
				_, err := s.CreateEvent(ctx, other)
				wantCode(t, err, domain.CodeConflict)
			})
		}
		f.on(t).unchanged(t, first, 1)
	})

	t.Run("CreateRejects", func(t *testing.T) {
		t.Parallel()
		tooLong := strings.Repeat("q", domain.MaxTiebreakerLen+1)
		for i, tt := range []struct {
			name     string
			settings domain.EventSettings
			card     func([]domain.MatchSpec)
			message  string // what the message starts with
		}{
			{"BonusOverTheLimit", domain.EventSettings{PerfectCardBonus: domain.MaxPerfectCardBonus + 1}, nil, "perfectCardBonus"},
			{"NegativeBonus", domain.EventSettings{PerfectCardBonus: -1}, nil, "perfectCardBonus"},
			{"EmptyQuestion", domain.EventSettings{Tiebreaker: ptr("  ")}, nil, "tiebreaker"},
			{"QuestionTooLong", domain.EventSettings{Tiebreaker: &tooLong}, nil, "tiebreaker"},
			{"MethodPointsOverTheLimit", domain.EventSettings{}, func(c []domain.MatchSpec) { c[1].MethodPoints = domain.MaxMethodPoints + 1 }, "match 2: "},
			{"MatchWithoutPoints", domain.EventSettings{}, func(c []domain.MatchSpec) { c[2].Points = 0 }, "match 3: "},
		} {
			t.Run(tt.name, func(t *testing.T) {
				card := gameCard()
				if tt.card != nil {
					tt.card(card)
				}
				id := "2030-04-03-game-rejected-" + string(rune('a'+i))
				_, err := s.CreateEvent(ctx, domain.EventSpec{ID: &id, Name: "Rejected", StartsAt: time.Date(2030, 4, 3, 20, 0, 0, 0, time.UTC),
					Matches: card, Settings: tt.settings})
				wantCode(t, err, domain.CodeBadUserInput)
				// The message is what the client sees (the error presenter shows a domain
				// error's Message): it names the field or the match.
				if de := (*domain.Error)(nil); !errors.As(err, &de) || !strings.HasPrefix(de.Message, tt.message) {
					t.Errorf("message %q, want it to start with %q", err, tt.message)
				}
				_, err = s.GetEvent(ctx, id)
				wantCode(t, err, domain.CodeNotFound)
			})
		}
	})

	t.Run("UpdateSettingsMovesTheCardVersion", func(t *testing.T) {
		t.Parallel()
		f := f.ownClock(t)
		s := f.s
		ev := f.createEvent("2030-04-04-game-update", 20, gameCard())
		wantAttrs(t, "plain event", f.eventItem(ev.ID), nil, gameEventAttrs)
		f.clock.Advance(time.Second)
		got, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Jokers: ptr(true), PerfectCardBonus: ptr(10), Tiebreaker: ptr("  How long?  ")})
		mustOK(t, err)
		want := domain.EventSettings{Jokers: true, PerfectCardBonus: 10, Tiebreaker: ptr("How long?")}
		if !got.Settings.Equal(want) || got.CardVersion != ev.CardVersion+1 {
			t.Errorf("updated %+v v%d, want %+v v%d", got.Settings, got.CardVersion, want, ev.CardVersion+1)
		}
		read, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if !reflect.DeepEqual(read, got) {
			t.Errorf("read %+v, want %+v", read, got)
		}
		f.wantEntries(ev.ID, 2, domain.AuditEntry{Action: domain.ActionUpdateEvent, Summary: `jokers false → true; perfectCardBonus 0 → 10; tiebreaker none → "How long?"`})

		// The same settings again: nothing to write.
		again, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Jokers: ptr(true), Tiebreaker: ptr("How long?")})
		mustOK(t, err)
		f.unchanged(t, got, 2)
		if again.CardVersion != got.CardVersion {
			t.Errorf("unchanged settings answered v%d, want v%d", again.CardVersion, got.CardVersion)
		}
		// A rename leaves the card version.
		renamed, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Name: ptr("Renamed")})
		mustOK(t, err)
		if renamed.CardVersion != got.CardVersion || !renamed.Settings.Equal(want) {
			t.Errorf("renamed %+v", renamed)
		}
		// Back to the plain game: the attributes go, as if never set.
		plain, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Jokers: ptr(false), PerfectCardBonus: ptr(0), ClearTiebreaker: true})
		mustOK(t, err)
		if !plain.Settings.Equal(domain.EventSettings{}) || plain.CardVersion != got.CardVersion+1 {
			t.Errorf("cleared %+v v%d", plain.Settings, plain.CardVersion)
		}
		wantAttrs(t, "cleared event", f.eventItem(ev.ID), nil, gameEventAttrs)
	})

	t.Run("UpdateSettingsRejectsChangeNothing", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		open := f.createGame("2030-04-05-game-update-open", gameSettings(), gameCard())
		locked := f.createGame("2030-04-05-game-update-locked", gameSettings(), gameCard())
		locked, err := s.UpdateEvent(ctx, locked.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		started := f.createGame("2030-04-06-game-update-started", domain.EventSettings{}, gameCard())
		later := New(f.db, f.table, WithClock(func() time.Time { return started.StartsAt }))
		for _, tt := range []struct {
			name  string
			store *Store
			ev    domain.Event
			u     domain.EventUpdate
			audit int
		}{
			{"JokersOnceBroadcast", s, locked, domain.EventUpdate{Name: ptr("Renamed Too"), Jokers: ptr(false)}, 2},
			{"QuestionOnceBroadcast", s, locked, domain.EventUpdate{ClearTiebreaker: true}, 2},
			{"BonusOnceStarted", later, started, domain.EventUpdate{PerfectCardBonus: ptr(5)}, 1},
			{"QuestionAndClear", s, open, domain.EventUpdate{Tiebreaker: ptr("Q"), ClearTiebreaker: true}, 1},
			{"BonusOverTheLimit", s, open, domain.EventUpdate{PerfectCardBonus: ptr(domain.MaxPerfectCardBonus + 1)}, 1},
			{"EmptyQuestion", s, open, domain.EventUpdate{Name: ptr("Renamed Too"), Tiebreaker: ptr(" ")}, 1},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := tt.store.UpdateEvent(ctx, tt.ev.ID, tt.u)
				wantCode(t, err, domain.CodeBadUserInput)
				f.on(t).unchanged(t, tt.ev, tt.audit)
			})
		}
		// Settings given as they are pass on a locked event and change nothing.
		_, err = s.UpdateEvent(ctx, locked.ID, domain.EventUpdate{Jokers: ptr(true), PerfectCardBonus: ptr(25)})
		mustOK(t, err)
		f.unchanged(t, locked, 2)
	})

	t.Run("UpdateMatchKeepsMethodPoints", func(t *testing.T) {
		t.Parallel()
		f := f.ownClock(t)
		s := f.s
		ev := f.createGame("2030-04-07-game-match", gameSettings(), gameCard())
		m := ev.Matches[0]
		f.clock.Advance(time.Second)
		got, err := s.UpdateMatch(ctx, ev.ID, m.ID, domain.MatchUpdate{Name: ptr("Renamed Opener")})
		mustOK(t, err)
		if got.MethodPoints != 5 || got.Name != "Renamed Opener" {
			t.Errorf("renamed %+v, want method points 5 kept", got)
		}
		f.wantEntries(ev.ID, 2, domain.AuditEntry{Action: domain.ActionUpdateMatch, MatchID: &m.ID, Summary: `name "Opener" → "Renamed Opener"`})
		f.clock.Advance(time.Second)
		got, err = s.UpdateMatch(ctx, ev.ID, m.ID, domain.MatchUpdate{MethodPoints: ptr(8)})
		mustOK(t, err)
		f.wantEntries(ev.ID, 3, domain.AuditEntry{Action: domain.ActionUpdateMatch, MatchID: &m.ID, Summary: "methodPoints 5 → 8"})
		_, err = s.UpdateMatch(ctx, ev.ID, m.ID, domain.MatchUpdate{MethodPoints: ptr(domain.MaxMethodPoints + 1)})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateMatch(ctx, ev.ID, m.ID, domain.MatchUpdate{MethodPoints: ptr(0)})
		mustOK(t, err)
		card, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if card.Matches[0].MethodPoints != 0 || card.CardVersion != ev.CardVersion+3 || got.MethodPoints != 8 {
			t.Errorf("card %+v v%d", card.Matches[0], card.CardVersion)
		}
		wantAttrs(t, "match", f.getRaw(table.EventPK(table.EventID(ev.ID)), table.MatchSK(table.MatchID(m.ID))), nil, []string{"methodPoints"})
	})

	t.Run("ResultMethod", func(t *testing.T) {
		t.Parallel()
		f := f.ownClock(t)
		s := f.s
		ev := f.createGame("2030-04-08-game-result", gameSettings(), gameCard())
		f.clock.Advance(time.Second)
		_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		f.clock.Advance(time.Second)
		sub := domain.MethodSubmission
		m, err := s.SetResult(ctx, ev.ID, ev.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0), Method: &sub})
		mustOK(t, err)
		card, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if r := card.Matches[0].Result; r == nil || r.Method == nil || *r.Method != sub || !reflect.DeepEqual(m.Result, r) {
			t.Errorf("stored result %+v, answered %+v", r, m.Result)
		}
		f.wantEntries(ev.ID, 3, domain.AuditEntry{Action: domain.ActionSetResult, MatchID: &m.ID, Summary: "WIN by SUBMISSION, team 0"})
		for _, outcome := range []domain.Outcome{domain.OutcomeDraw, domain.OutcomeNoContest} {
			_, err = s.SetResult(ctx, ev.ID, ev.Matches[1].ID, &domain.MatchResult{Outcome: outcome, Method: &sub})
			wantCode(t, err, domain.CodeBadUserInput)
		}
		_, err = s.SetResult(ctx, ev.ID, ev.Matches[1].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(1), Method: ptr(domain.VictoryMethod("BODYSLAM"))})
		wantCode(t, err, domain.CodeBadUserInput)
		f.unchanged(t, card, 3)
		// A result without a method drops the one before.
		m, err = s.SetResult(ctx, ev.ID, ev.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(1)})
		mustOK(t, err)
		card, err = s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if r := card.Matches[0].Result; r.Method != nil || *r.Winner != 1 || m.Result.Method != nil {
			t.Errorf("result %+v", r)
		}
	})
}

func TestSetTiebreakerAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := domain.WithActor(ctxT(t), auditAdmin)
	s := f.s
	lock := func(ev domain.Event) domain.Event {
		t.Helper()
		ev, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		return ev
	}
	open := f.createGame("2030-04-10-answer-open", gameSettings(), gameCard())
	noQuestion := lock(f.createGame("2030-04-10-answer-no-question", domain.EventSettings{Jokers: true}, gameCard()))
	ev := lock(f.createGame("2030-04-10-answer", gameSettings(), gameCard()))

	t.Run("Rejects", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			ev     domain.Event
			answer *int
			code   domain.Code
			audit  int
		}{
			{"NoQuestion", noQuestion, ptr(5), domain.CodeBadUserInput, 2},
			{"NotLocked", open, ptr(5), domain.CodeBadUserInput, 1},
			{"ClearNotLocked", open, nil, domain.CodeBadUserInput, 1},
			{"Negative", ev, ptr(-1), domain.CodeBadUserInput, 2},
			{"OverTheLimit", ev, ptr(domain.MaxTiebreakerAnswer + 1), domain.CodeBadUserInput, 2},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.SetTiebreakerAnswer(ctx, tt.ev.ID, tt.answer)
				wantCode(t, err, tt.code)
				f.on(t).unchanged(t, tt.ev, tt.audit)
			})
		}
		_, err := s.SetTiebreakerAnswer(ctx, "2030-04-10-answer-missing", ptr(1))
		wantCode(t, err, domain.CodeNotFound)
		_, err = s.SetTiebreakerAnswer(ctx, "answer#x", ptr(1))
		wantCode(t, err, domain.CodeBadUserInput)
	})

	t.Run("SetChangeClear", func(t *testing.T) {
		f := f.on(t)
		v := ev.CardVersion
		n := 2 // audit entries: created, locked
		steps := []struct {
			answer  *int
			want    *domain.TiebreakerAnswer
			written bool
			summary string
		}{
			{ptr(300), &domain.TiebreakerAnswer{Value: 300, Version: v + 1}, true, "tie-breaker answer none → 300"},
			{ptr(300), &domain.TiebreakerAnswer{Value: 300, Version: v + 1}, false, ""},
			{ptr(0), &domain.TiebreakerAnswer{Value: 0, Version: v + 2}, true, "tie-breaker answer 300 → 0"},
			{nil, nil, true, "tie-breaker answer 0 → none"},
			{nil, nil, false, ""},
		}
		for _, st := range steps {
			f.clock.Advance(time.Second)
			got, err := s.SetTiebreakerAnswer(ctx, ev.ID, st.answer)
			mustOK(t, err)
			if st.written {
				v++
				n++
				f.wantEntries(ev.ID, n, domain.AuditEntry{Action: domain.ActionSetTiebreakerAnswer, Summary: st.summary})
			} else if got := len(f.auditLog(ev.ID, 100)); got != n {
				t.Errorf("answer set to its value: %d audit entries, want %d", got, n)
			}
			if got.CardVersion != v || !reflect.DeepEqual(got.Answer, st.want) || len(got.Matches) != 3 {
				t.Errorf("answer %v: answered v%d %+v, want v%d %+v", valueOf(st.answer), got.CardVersion, got.Answer, v, st.want)
			}
			read, err := s.GetEvent(ctx, ev.ID)
			mustOK(t, err)
			if !reflect.DeepEqual(read, got) {
				t.Errorf("read %+v, answered %+v", read, got)
			}
		}
		wantAttrs(t, "cleared", f.eventItem(ev.ID), []string{"tiebreaker"}, []string{"answer", "answerVersion"})
	})

	t.Run("LockedByTimeIsStoredBroadcast", func(t *testing.T) {
		started := f.createGame("2030-04-11-answer-started", gameSettings(), gameCard())
		later := New(f.db, f.table, WithClock(func() time.Time { return started.StartsAt.Add(time.Hour) }))
		got, err := later.SetTiebreakerAnswer(ctx, started.ID, ptr(7))
		mustOK(t, err)
		if got.Stored != domain.StateBroadcast || got.Answer == nil || got.Answer.Value != 7 {
			t.Errorf("answered %+v", got)
		}
		// A submit whose clock says the event is open still finds it locked.
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "answer-late", Name: "L"}, started.ID, domain.Entry{Picks: picks(started, 0)})
		wantCode(t, err, domain.CodeLocked)
	})

	t.Run("ReadCacheForgetsTheEvent", func(t *testing.T) {
		cached := New(f.db, f.table, WithClock(f.clock.Now), WithReadCache(ReadCache{TTL: time.Hour}))
		ev := lock(f.createGame("2030-04-12-answer-cached", gameSettings(), gameCard()))
		before, err := cached.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if before.Answer != nil {
			t.Fatalf("answer before %+v", before.Answer)
		}
		_, err = cached.SetTiebreakerAnswer(ctx, ev.ID, ptr(42))
		mustOK(t, err)
		after, err := cached.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if after.Answer == nil || after.Answer.Value != 42 {
			t.Errorf("cached read after the answer: %+v", after.Answer)
		}
	})
}

func TestSubmitEntry(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	ev := f.createGame("2030-04-20-entry", gameSettings(), gameCard())
	plain := f.createEvent("2030-04-20-entry-plain", 20, gameCard())
	m1, m2, m3 := ev.Matches[0].ID, ev.Matches[1].ID, ev.Matches[2].ID
	pin, sub := domain.MethodPinfall, domain.MethodSubmission
	full := domain.Entry{Picks: []domain.Pick{{MatchID: m1, Team: 0, Method: &pin}, {MatchID: m2, Team: 1}, {MatchID: m3, Team: 0}},
		Joker: ptr(m2), Tiebreaker: ptr(600)}
	sameEntry := func(t *testing.T, what string, p domain.Prediction, want domain.Entry) {
		t.Helper()
		if got := p.Entry(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: entry %+v (joker %v, guess %v), want %+v (joker %v, guess %v)",
				what, got.Picks, valueOf(got.Joker), valueOf(got.Tiebreaker), want.Picks, valueOf(want.Joker), valueOf(want.Tiebreaker))
		}
	}

	t.Run("RoundTripInThreeCalls", func(t *testing.T) {
		cctx, cost := ddb.WithCost(ctx)
		p, err := s.SubmitPrediction(cctx, domain.UserRef{ID: "entry-full", Name: "Full"}, ev.ID, full)
		mustOK(t, err)
		if snap := cost.Snapshot(); snap.Calls != 3 || snap.Operations["TransactWriteItems"] != 1 || snap.MaxTransactionItems != 3 {
			t.Errorf("a submit with methods, joker and guess: %d calls %v, largest transaction %d items; want 3 calls, one transaction of 3",
				snap.Calls, snap.Operations, snap.MaxTransactionItems)
		}
		sameEntry(t, "answered", p, full)
		got, err := s.GetPrediction(ctx, "entry-full", ev.ID, true)
		mustOK(t, err)
		sameEntry(t, "read", got, full)
		if got.PerfectCard != nil || got.Picks[0].Points != nil {
			t.Errorf("unscored prediction with perfect card %v, pick points %v", got.PerfectCard, got.Picks[0].Points)
		}
		_, page, err := s.GetUser(ctx, "entry-full", 5, true)
		mustOK(t, err)
		if len(page.Items) != 1 {
			t.Fatalf("profile rows %+v", page.Items)
		}
		sameEntry(t, "profile row", page.Items[0], full)
	})

	t.Run("SubmitReplacesTheWholeEntry", func(t *testing.T) {
		_, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-replace", Name: "R"}, ev.ID, full)
		mustOK(t, err)
		picksOnly := domain.Entry{Picks: []domain.Pick{{MatchID: m1, Team: 1}}}
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-replace", Name: "R"}, ev.ID, picksOnly)
		mustOK(t, err)
		got, err := s.GetPrediction(ctx, "entry-replace", ev.ID, true)
		mustOK(t, err)
		sameEntry(t, "replaced", got, picksOnly)
		wantAttrs(t, "replaced", f.getRaw(table.UserPK("entry-replace"), table.EventSK(table.EventID(ev.ID))), nil, []string{"joker", "tiebreaker"})
		zero := domain.Entry{Picks: []domain.Pick{{MatchID: m3, Team: 1}}, Tiebreaker: ptr(0)}
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-replace", Name: "R"}, ev.ID, zero)
		mustOK(t, err)
		got, err = s.GetPrediction(ctx, "entry-replace", ev.ID, true)
		mustOK(t, err)
		sameEntry(t, "guess 0", got, zero)
	})

	t.Run("Rejects", func(t *testing.T) {
		kept := domain.Entry{Picks: []domain.Pick{{MatchID: m1, Team: 1, Method: &sub}}, Joker: ptr(m1), Tiebreaker: ptr(90)}
		_, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-kept", Name: "K"}, ev.ID, kept)
		mustOK(t, err)
		with := func(e domain.Entry, edit func(*domain.Entry)) domain.Entry {
			e.Picks = append([]domain.Pick(nil), e.Picks...)
			edit(&e)
			return e
		}
		for _, tt := range []struct {
			name  string
			event string
			entry domain.Entry
		}{
			{"MethodOnAMatchWithoutMethodPoints", ev.ID, with(full, func(e *domain.Entry) { e.Picks[1].Method = &pin })},
			{"UnknownMethod", ev.ID, with(full, func(e *domain.Entry) { e.Picks[0].Method = ptr(domain.VictoryMethod("BODYSLAM")) })},
			{"JokerNotPicked", ev.ID, with(full, func(e *domain.Entry) { e.Picks = e.Picks[:2]; e.Joker = &m3 })},
			{"JokerNotOnTheCard", ev.ID, with(full, func(e *domain.Entry) { e.Joker = ptr(domain.NewMatchID()) })},
			{"GuessNegative", ev.ID, with(full, func(e *domain.Entry) { e.Tiebreaker = ptr(-1) })},
			{"GuessOverTheLimit", ev.ID, with(full, func(e *domain.Entry) { e.Tiebreaker = ptr(domain.MaxTiebreakerAnswer + 1) })},
			{"JokerWhenJokersAreOff", plain.ID, domain.Entry{Picks: picks(plain, 0), Joker: ptr(plain.Matches[0].ID)}},
			{"GuessWithoutAQuestion", plain.ID, domain.Entry{Picks: picks(plain, 0), Tiebreaker: ptr(5)}},
			{"MethodOnAPlainCard", plain.ID, domain.Entry{Picks: []domain.Pick{{MatchID: plain.Matches[1].ID, Team: 0, Method: &pin}}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-new", Name: "N"}, tt.event, tt.entry)
				wantCode(t, err, domain.CodeBadUserInput)
				_, err = s.GetPrediction(ctx, "entry-new", tt.event, false)
				wantCode(t, err, domain.CodeNotFound)
				if tt.event != ev.ID {
					return
				}
				_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-kept", Name: "K"}, ev.ID, tt.entry)
				wantCode(t, err, domain.CodeBadUserInput)
				got, err := s.GetPrediction(ctx, "entry-kept", ev.ID, false)
				mustOK(t, err)
				sameEntry(t, "kept", got, kept)
			})
		}
		// A method on a match with method points is taken on the plain card too.
		withMethod := domain.Entry{Picks: []domain.Pick{{MatchID: plain.Matches[0].ID, Team: 0, Method: &pin}}}
		p, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "entry-new", Name: "N"}, plain.ID, withMethod)
		mustOK(t, err)
		sameEntry(t, "plain card with a method", p, withMethod)
	})
}

// TestSubmitAfterSettingsChangeIsConflict: a submit checked against the settings before a
// change (the change lands between its read and its write) fails with CONFLICT and writes
// nothing; the next submit is checked against the new settings.
func TestSubmitAfterSettingsChangeIsConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	for _, tt := range []struct {
		name   string
		change domain.EventUpdate
		entry  func(ev domain.Event) domain.Entry
	}{
		{"JokersTurnedOff", domain.EventUpdate{Jokers: ptr(false)},
			func(ev domain.Event) domain.Entry {
				return domain.Entry{Picks: picks(ev, 0), Joker: ptr(ev.Matches[0].ID)}
			}},
		{"QuestionCleared", domain.EventUpdate{ClearTiebreaker: true},
			func(ev domain.Event) domain.Entry { return domain.Entry{Picks: picks(ev, 0), Tiebreaker: ptr(100)} }},
		{"BonusChanged", domain.EventUpdate{PerfectCardBonus: ptr(50)},
			func(ev domain.Event) domain.Entry { return domain.Entry{Picks: picks(ev, 1, 1, 1)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := f.on(t)
			ev := f.createGame("2030-04-21-settings-race-"+strings.ToLower(tt.name), gameSettings(), gameCard())
			hook := &hookDB{API: f.db}
			hook.arm(func(context.Context) {
				_, err := f.s.UpdateEvent(ctx, ev.ID, tt.change)
				mustOK(t, err)
			})
			_, err := f.storeOver(hook).SubmitPrediction(ctx, domain.UserRef{ID: "racer", Name: "R"}, ev.ID, tt.entry(ev))
			wantCode(t, err, domain.CodeConflict)
			_, err = f.s.GetPrediction(ctx, "racer", ev.ID, false)
			wantCode(t, err, domain.CodeNotFound)
			changed, err := f.s.GetEvent(ctx, ev.ID)
			mustOK(t, err)
			if changed.CardVersion != ev.CardVersion+1 {
				t.Errorf("card version %d after the change, want %d", changed.CardVersion, ev.CardVersion+1)
			}
			_, err = f.s.SubmitPrediction(ctx, domain.UserRef{ID: "racer", Name: "R"}, ev.ID, tt.entry(ev))
			if tt.name == "BonusChanged" {
				mustOK(t, err)
			} else {
				wantCode(t, err, domain.CodeBadUserInput)
			}
		})
	}
}

// TestItemsWithoutTheGameReadAsBefore writes an event, its matches, its lock copy, a
// player and a prediction as the store wrote them before the game's attributes existed
// (through the SDK, attribute by attribute), and reads them back: the plain game, nothing
// missing, no migration. Edits and submits on that event work and add none of the new
// attributes.
func TestItemsWithoutTheGameReadAsBefore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	const id = "2030-04-30-old-shape"
	eid := table.EventID(id)
	m1, m2 := "00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2"
	start := time.Date(2030, 4, 30, 20, 0, 0, 0, time.UTC)
	card := []domain.Match{
		{ID: m1, Position: 1, Name: "Main", Points: 10, Championships: []string{"World"},
			Teams: []domain.Team{{Name: ptr("Champs"), Members: []string{"A", "B"}, Champion: true}, {Members: []string{"C", "D"}}}},
		{ID: m2, Position: 2, Name: "Opener", Points: 5, Preshow: true, Championships: []string{},
			Teams: []domain.Team{{Members: []string{"E"}}, {Members: []string{"F"}}}},
	}
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	num := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	b := func(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }
	l := func(v ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: v} }
	m := func(v map[string]types.AttributeValue) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: v}
	}
	team := func(members ...string) types.AttributeValue {
		ms := make([]types.AttributeValue, len(members))
		for i, x := range members {
			ms[i] = str(x)
		}
		return m(map[string]types.AttributeValue{"members": l(ms...), "champion": b(false)})
	}
	items := []map[string]types.AttributeValue{
		{"PK": str("EVENT"), "SK": str("EVENT#" + id), "GSI_PK": str("EVENT#" + id), "GSI_SK": str("CARD#000"), "type": str("event"),
			"id": str(id), "name": str("Old Shape"), "startsAt": str("2030-04-30T20:00:00Z"), "season": num("2030"), "state": str("UPCOMING"),
			"cardVersion": num("1"), "cardHash": str(table.CardHash(card)), "rev": num("1"), "shards": num("1"), "lockCopies": num("1"),
			"scoredMatches": num("0"), "scoredVersion": num("0")},
		{"PK": str("EVENT#" + id), "SK": str("MATCH#" + m1), "GSI_PK": str("EVENT#" + id), "GSI_SK": str("CARD#001"), "type": str("match"),
			"eventId": str(id), "id": str(m1), "position": num("1"), "name": str("Main"), "points": num("10"), "preshow": b(false),
			"championships": l(str("World")),
			"teams":         l(m(map[string]types.AttributeValue{"name": str("Champs"), "members": l(str("A"), str("B")), "champion": b(true)}), team("C", "D"))},
		{"PK": str("EVENT#" + id), "SK": str("MATCH#" + m2), "GSI_PK": str("EVENT#" + id), "GSI_SK": str("CARD#002"), "type": str("match"),
			"eventId": str(id), "id": str(m2), "position": num("2"), "name": str("Opener"), "points": num("5"), "preshow": b(true),
			"teams": l(team("E"), team("F"))},
		{"PK": str(table.LockPK(eid, 0)), "SK": str(table.LockSK), "type": str("lock"), "eventId": str(id), "name": str("Old Shape"),
			"startsAt": str("2030-04-30T20:00:00Z"), "state": str("UPCOMING"), "cardVersion": num("1"), "rev": num("1"), "predictions": num("1")},
		{"PK": str("USER#old-1"), "SK": str("USER"), "type": str("user"), "id": str("old-1"), "name": str("Old One"), "nameVersion": num("1"),
			"createdAt": str("2030-02-01T10:00:00Z")},
		{"PK": str("USER#old-1"), "SK": str("EVENT#" + id), "GSI_PK": str("EVENT#" + id), "GSI_SK": str("UNSCORED#old-1"), "type": str("prediction"),
			"userId": str("old-1"), "userName": str("Old One"), "userNameVersion": num("1"), "eventId": str(id), "eventName": str("Old Shape"),
			"eventStartsAt": str("2030-04-30T20:00:00Z"), "season": num("2030"),
			"picks":     l(m(map[string]types.AttributeValue{"matchId": str(m1), "team": num("1")}), m(map[string]types.AttributeValue{"matchId": str(m2), "team": num("0")})),
			"updatedAt": str("2030-02-01T10:00:00Z"), "version": num("1")},
	}
	for _, it := range items {
		if _, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(it map[string]types.AttributeValue) map[string]bool {
		out := map[string]bool{}
		for k := range it {
			out[k] = true
		}
		return out
	}
	eventAttrs := names(items[0])

	wantEvent := domain.Event{ID: id, Name: "Old Shape", StartsAt: start, Stored: domain.StateUpcoming, CardVersion: 1, Matches: card}
	got, err := f.s.GetEvent(ctx, id)
	mustOK(t, err)
	if !reflect.DeepEqual(got, wantEvent) {
		t.Errorf("event %+v, want %+v", got, wantEvent)
	}
	wantPrediction := domain.Prediction{EventID: id, Event: domain.EventRef{ID: id, Name: "Old Shape", StartsAt: start},
		User: domain.UserRef{ID: "old-1", Name: "Old One"}, Picks: []domain.Pick{{MatchID: m1, Team: 1}, {MatchID: m2, Team: 0}},
		UpdatedAt: time.Date(2030, 2, 1, 10, 0, 0, 0, time.UTC)}
	p, err := f.s.GetPrediction(ctx, "old-1", id, true)
	mustOK(t, err)
	if !reflect.DeepEqual(p, wantPrediction) {
		t.Errorf("prediction %+v, want %+v", p, wantPrediction)
	}
	_, page, err := f.s.GetUser(ctx, "old-1", 5, true)
	mustOK(t, err)
	if len(page.Items) != 1 || !reflect.DeepEqual(page.Items[0], wantPrediction) {
		t.Errorf("profile rows %+v, want %+v", page.Items, wantPrediction)
	}

	// Its card edits (the card hash as stored still matches) and submits write none of the
	// game's attributes.
	_, err = f.s.UpdateMatch(ctx, id, m2, domain.MatchUpdate{Points: ptr(6)})
	mustOK(t, err)
	f.submit("old-2", got, 0, 1)
	if got := names(f.eventItem(id)); !reflect.DeepEqual(got, eventAttrs) {
		t.Errorf("event attributes after an edit %v, want %v", got, eventAttrs)
	}
	if got, want := names(f.getRaw(table.EventPK(eid), table.MatchSK(table.MatchID(m2)))), names(items[2]); !reflect.DeepEqual(got, want) {
		t.Errorf("match attributes after an edit %v, want %v", got, want)
	}
	if got, want := names(f.getRaw("USER#old-2", "EVENT#"+id)), names(items[5]); !reflect.DeepEqual(got, want) {
		t.Errorf("a new prediction's attributes %v, want %v", got, want)
	}
}

// valueOf is what p points to, or nil.
func valueOf[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestLeaderboardRowsCarryTheEntry: a leaderboard row shows the player's joker and guess,
// with its picks or without them (the rows of a page of several shards are then read
// without their picks), at 1 and 2 shards.
func TestLeaderboardRowsCarryTheEntry(t *testing.T) {
	t.Parallel()
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("%dShards", shards), func(t *testing.T) {
			t.Parallel()
			f := newFixtureShards(t, shards)
			ctx := ctxT(t)
			f.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			ev := f.createGame("2030-02-14-entry-board", gameSettings(), gameCard())
			entries := map[string]domain.Entry{
				"board-a": {Picks: picks(ev, 0, 1, 0), Joker: ptr(ev.Matches[1].ID), Tiebreaker: ptr(600)},
				"board-b": {Picks: picks(ev, 1, 1, 1), Tiebreaker: ptr(0)},
				"board-c": {Picks: picks(ev, 0, 0, 0)},
			}
			for user, e := range entries {
				_, err := f.s.SubmitPrediction(ctx, domain.UserRef{ID: user, Name: user}, ev.ID, e)
				mustOK(t, err)
			}
			f.clock.Set(t0)
			f.lockAndResult(ev, 0, 1, 0)
			f.score(ev)
			for _, withPicks := range []bool{true, false} {
				_, page, err := f.storeOver(f.db).GetEventWithLeaderboard(ctx, ev.ID, 10, withPicks)
				mustOK(t, err)
				if len(page.Items) != len(entries) {
					t.Fatalf("picks %t: %d rows, want %d", withPicks, len(page.Items), len(entries))
				}
				for _, p := range page.Items {
					want := entries[p.User.ID]
					if !reflect.DeepEqual(p.Joker, want.Joker) || !reflect.DeepEqual(p.Tiebreaker, want.Tiebreaker) {
						t.Errorf("picks %t: %s's row has joker %v, guess %v; want %v, %v", withPicks, p.User.ID,
							valueOf(p.Joker), valueOf(p.Tiebreaker), valueOf(want.Joker), valueOf(want.Tiebreaker))
					}
					if withPicks != (len(p.Picks) > 0) {
						t.Errorf("picks %t: %s's row has %d picks", withPicks, p.User.ID, len(p.Picks))
					}
				}
			}
		})
	}
}
