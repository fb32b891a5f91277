package dynamo

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

func TestCreateEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	start := time.Date(2030, 3, 3, 1, 0, 0, 0, time.UTC)
	card := func(n int) []domain.MatchSpec {
		out := make([]domain.MatchSpec, n)
		for i := range out {
			out[i] = matchSpec(fmt.Sprintf("Match %d", i+1), i+1)
		}
		return out
	}

	t.Run("WholeCardInCardOrder", func(t *testing.T) {
		t.Parallel()
		spec := domain.EventSpec{ID: ptr("2030-03-04-full-card"), Name: "  Full scoring.Card  ", StartsAt: start.Add(24 * time.Hour), Matches: []domain.MatchSpec{
			{Name: "Title Match", Points: 20, Championships: []string{" World Title "}, Teams: []domain.Team{
				{Name: ptr("The Champs"), Members: []string{"A", "B"}, Champion: true}, {Members: []string{"C", "D"}}}},
			{Name: "Preshow Bout", Points: 2, Preshow: true, Teams: []domain.Team{{Members: []string{"E"}}, {Members: []string{"F"}}, {Members: []string{"G"}}}},
			matchSpec("Opener", 5),
		}}
		ev, err := s.CreateEvent(ctx, spec)
		mustOK(t, err)
		if ev.Name != "Full scoring.Card" || ev.Stored != domain.StateUpcoming || ev.CardVersion != 1 {
			t.Errorf("created %+v", ev)
		}
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if !slices.Equal(matchIDs(got.Matches), matchIDs(ev.Matches)) || len(got.Matches) != 3 {
			t.Fatalf("card %v, want %v", matchIDs(got.Matches), matchIDs(ev.Matches))
		}
		seen := map[string]bool{}
		for i, m := range got.Matches {
			if m.Position != i+1 || domain.ValidateMatchID(m.ID) != nil || seen[m.ID] {
				t.Errorf("match %d: position %d id %q", i, m.Position, m.ID)
			}
			seen[m.ID] = true
		}
		title := got.Matches[0]
		if title.Name != "Title Match" || title.Points != 20 || !slices.Equal(title.Championships, []string{"World Title"}) ||
			*title.Teams[0].Name != "The Champs" || !title.Teams[0].Champion || title.Teams[1].Name != nil || title.Result != nil {
			t.Errorf("title match %+v", title)
		}
		if pre := got.Matches[1]; !pre.Preshow || len(pre.Teams) != 3 || pre.Championships == nil {
			t.Errorf("preshow match %+v", pre)
		}
	})

	t.Run("DerivesIDFromUTCDateAndName", func(t *testing.T) {
		t.Parallel()
		est := time.FixedZone("EST", -5*3600)
		ev, err := s.CreateEvent(ctx, domain.EventSpec{Name: "AEW Revolution: Night 2!", StartsAt: time.Date(2030, 3, 5, 23, 30, 0, 0, est)})
		mustOK(t, err)
		if ev.ID != "2030-03-06-aew-revolution-night-2" || !ev.StartsAt.Equal(time.Date(2030, 3, 6, 4, 30, 0, 0, time.UTC)) {
			t.Errorf("id %q startsAt %s", ev.ID, ev.StartsAt)
		}
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if got.Matches == nil || len(got.Matches) != 0 || got.Season() != 2030 {
			t.Errorf("event without matches: %+v", got)
		}
	})

	t.Run("ThirtyMatches", func(t *testing.T) {
		t.Parallel()
		ev, err := s.CreateEvent(ctx, domain.EventSpec{ID: ptr("2030-03-07-big-card"), Name: "Big", StartsAt: start.AddDate(0, 0, 4), Matches: card(domain.MaxMatches)})
		mustOK(t, err)
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if len(got.Matches) != domain.MaxMatches || got.Matches[29].Position != 30 || got.Matches[29].Name != "Match 30" {
			t.Errorf("%d matches", len(got.Matches))
		}
	})

	t.Run("BackfillInThePastIsLocked", func(t *testing.T) {
		t.Parallel()
		ev, err := s.CreateEvent(ctx, domain.EventSpec{Name: "Old Show", StartsAt: t0.AddDate(-1, 0, 0), Matches: card(2)})
		mustOK(t, err)
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if got.State(t0) != domain.StateBroadcast || !got.Locked(t0) {
			t.Errorf("backfill state %s", got.State(t0))
		}
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "c-back", Name: "B"}, ev.ID, domain.Entry{Picks: picks(got, 0)})
		wantCode(t, err, domain.CodeLocked)
	})

	t.Run("AppliedButAnsweredLateIsTheCallersOwn", func(t *testing.T) {
		t.Parallel()
		// The first attempt of the create's transaction commits but its answer is lost;
		// the SDK sends it again, which finds the event there (ConditionalCheckFailed). The
		// caller gets the event it created, not CONFLICT, and the event is whole.
		late := &answerLostAPI{API: f.db}
		spec := domain.EventSpec{ID: ptr("2030-03-09-answered-late"), Name: "Late Answer", StartsAt: start.AddDate(0, 0, 6), Matches: card(3)}
		ev, err := f.storeOver(late).CreateEvent(ctx, spec)
		mustOK(t, err)
		if late.replayed.Load() != 1 {
			t.Fatalf("the create's transaction was replayed %d times, want 1", late.replayed.Load())
		}
		got, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if got.Name != "Late Answer" || !slices.Equal(matchIDs(got.Matches), matchIDs(ev.Matches)) || len(got.Matches) != 3 {
			t.Errorf("created %+v, stored %+v", ev, got)
		}
		// The same create again (an admin repeating it after UNAVAILABLE) is the same event;
		// another card under that id is CONFLICT.
		again, err := s.CreateEvent(ctx, spec)
		mustOK(t, err)
		if !slices.Equal(matchIDs(again.Matches), matchIDs(ev.Matches)) {
			t.Errorf("repeat: matches %v, want the original %v", matchIDs(again.Matches), matchIDs(ev.Matches))
		}
		spec.Matches = card(2)
		_, err = s.CreateEvent(ctx, spec)
		wantCode(t, err, domain.CodeConflict)
	})

	t.Run("DuplicateIsConflictAndKeepsTheOriginal", func(t *testing.T) {
		t.Parallel()
		spec := domain.EventSpec{ID: ptr("2030-03-08-dupe"), Name: "Dupe", StartsAt: start.AddDate(0, 0, 5), Matches: card(2)}
		first, err := s.CreateEvent(ctx, spec)
		mustOK(t, err)
		spec.Name, spec.Matches = "Dupe Again", card(5)
		_, err = s.CreateEvent(ctx, spec)
		wantCode(t, err, domain.CodeConflict)
		// A derived id that collides is a conflict too.
		_, err = s.CreateEvent(ctx, domain.EventSpec{Name: "dupe", StartsAt: start.AddDate(0, 0, 5)})
		wantCode(t, err, domain.CodeConflict)
		got, err := s.GetEvent(ctx, first.ID)
		mustOK(t, err)
		if got.Name != "Dupe" || !slices.Equal(matchIDs(got.Matches), matchIDs(first.Matches)) {
			t.Errorf("original changed: %+v", got)
		}
	})

	tests := []struct {
		name string
		spec domain.EventSpec
	}{
		{"IDDateNotStartDate", domain.EventSpec{ID: ptr("2030-03-04-x"), Name: "X", StartsAt: start}},
		{"IDDateIsLocalNotUTCDate", domain.EventSpec{ID: ptr("2030-03-02-x"), Name: "X", StartsAt: time.Date(2030, 3, 2, 22, 0, 0, 0, time.FixedZone("EST", -5*3600))}},
		{"IDUppercase", domain.EventSpec{ID: ptr("2030-03-03-AEW"), Name: "X", StartsAt: start}},
		{"IDWithHash", domain.EventSpec{ID: ptr("2030-03-03-a#b"), Name: "X", StartsAt: start}},
		{"IDNotADate", domain.EventSpec{ID: ptr("2030-02-30-x"), Name: "X", StartsAt: start}},
		{"IDWithoutSlug", domain.EventSpec{ID: ptr("2030-03-03"), Name: "X", StartsAt: start}},
		{"IDEmpty", domain.EventSpec{ID: ptr(""), Name: "X", StartsAt: start}},
		{"NameEmpty", domain.EventSpec{Name: "  ", StartsAt: start}},
		{"NameWithoutSlug", domain.EventSpec{Name: "!!!", StartsAt: start}},
		{"ZeroStart", domain.EventSpec{Name: "X"}},
		{"ThirtyOneMatches", domain.EventSpec{Name: "Too Big", StartsAt: start, Matches: card(domain.MaxMatches + 1)}},
		{"MatchWithOneTeam", domain.EventSpec{Name: "X", StartsAt: start, Matches: []domain.MatchSpec{{Name: "M", Points: 1, Teams: []domain.Team{{Members: []string{"A"}}}}}}},
		{"MatchWithoutPoints", domain.EventSpec{Name: "X", StartsAt: start, Matches: []domain.MatchSpec{matchSpec("M", 0)}}},
		{"TeamWithoutMembers", domain.EventSpec{Name: "X", StartsAt: start, Matches: []domain.MatchSpec{{Name: "M", Points: 1, Teams: []domain.Team{{Members: []string{"A"}}, {}}}}}},
	}
	for _, tt := range tests {
		t.Run("Rejects"+tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.CreateEvent(ctx, tt.spec)
			wantCode(t, err, domain.CodeBadUserInput)
		})
	}
	t.Cleanup(func() { // after every parallel subtest
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p, err := s.ListEvents(ctx, nil, 100, "")
		if err != nil {
			t.Errorf("list: %v", err)
			return
		}
		for _, e := range p.Items {
			if e.Name == "X" || e.Name == "Too Big" {
				t.Errorf("rejected event %s was written", e.ID)
			}
		}
	})
}

func TestUpdateEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	scored := f.createEvent("2030-03-05-up-scored", 20, standardCard())
	f.submit("u-1", scored, 0, 0, 0)
	f.lockAndResult(scored, 0, 0, 0)
	f.score(scored)

	t.Run("RenamePropagatesToPredictions", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-20-up-rename", 20, standardCard())
		f.submit("u-1", ev, 0, 0, 0)
		f.submit("u-2", ev, 1, 1, 1)
		got, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{Name: ptr("  Renamed Show ")})
		mustOK(t, err)
		if got.Name != "Renamed Show" || got.CardVersion != ev.CardVersion { // the card did not change
			t.Errorf("updated %+v", got)
		}
		for _, u := range []string{"u-1", "u-2"} {
			p, err := s.GetPrediction(ctx, u, ev.ID, true)
			mustOK(t, err)
			if p.Event.Name != "Renamed Show" {
				t.Errorf("%s: prediction event name %q", u, p.Event.Name)
			}
		}
		_, page, err := s.GetUser(ctx, "u-2", 5, true)
		mustOK(t, err)
		if len(page.Items) != 1 || page.Items[0].Event.Name != "Renamed Show" {
			t.Errorf("profile rows %+v", page.Items)
		}
		e, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		if e.Name != "Renamed Show" {
			t.Errorf("event name %q", e.Name)
		}
	})

	t.Run("StartMovesWithinItsDate", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-21-up-start", 20, standardCard())
		f.submit("u-1", ev, 0, 0, 0)
		newStart := time.Date(2030, 3, 21, 23, 59, 59, 0, time.UTC)
		_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: &newStart})
		mustOK(t, err)
		e, err := s.GetEvent(ctx, ev.ID)
		mustOK(t, err)
		p, err := s.GetPrediction(ctx, "u-1", ev.ID, true)
		mustOK(t, err)
		if !e.StartsAt.Equal(newStart) || !p.Event.StartsAt.Equal(newStart) {
			t.Errorf("event starts %s, prediction's copy %s, want %s", e.StartsAt, p.Event.StartsAt, newStart)
		}
		for _, other := range []time.Time{
			time.Date(2030, 3, 22, 0, 0, 0, 0, time.UTC),
			time.Date(2030, 3, 20, 23, 59, 59, 0, time.UTC),
			time.Date(2030, 3, 21, 22, 0, 0, 0, time.FixedZone("EST", -5*3600)), // 03:00Z on the 22nd
		} {
			_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: &other})
			wantCode(t, err, domain.CodeBadUserInput)
		}
	})

	t.Run("BroadcastLocksAndNeverReopens", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-22-up-state", 20, standardCard())
		_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateUpcoming)})
		mustOK(t, err) // open: a no-op
		got, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		if got.State(t0) != domain.StateBroadcast {
			t.Errorf("state %s", got.State(t0))
		}
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "u-3", Name: "U"}, ev.ID, domain.Entry{Picks: picks(ev, 0)})
		wantCode(t, err, domain.CodeLocked)
		_, err = s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateUpcoming)})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: ptr(ev.StartsAt.Add(time.Hour))})
		wantCode(t, err, domain.CodeBadUserInput) // no later start once locked
		got, err = s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: ptr(ev.StartsAt.Add(-time.Hour))})
		mustOK(t, err) // earlier is fine: still locked
		if !got.StartsAt.Equal(ev.StartsAt.Add(-time.Hour)) || got.Stored != domain.StateBroadcast {
			t.Errorf("after an earlier start: %s %s", got.StartsAt, got.Stored)
		}
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "u-3", Name: "U"}, ev.ID, domain.Entry{Picks: picks(ev, 0)})
		wantCode(t, err, domain.CodeLocked)
	})

	t.Run("ScoredEventOnlyRenamable", func(t *testing.T) {
		t.Parallel()
		_, err := s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{State: ptr(domain.StateUpcoming)})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{StartsAt: ptr(scored.StartsAt.Add(time.Hour))})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{Name: ptr("Scored Renamed"), StartsAt: ptr(scored.StartsAt.Add(time.Hour))})
		wantCode(t, err, domain.CodeBadUserInput)
		got, err := s.UpdateEvent(ctx, scored.ID, domain.EventUpdate{Name: ptr("Scored Renamed")})
		mustOK(t, err)
		if got.Stored != domain.StateScored || got.Name != "Scored Renamed" {
			t.Errorf("renamed scored event %+v", got)
		}
		e, lb, err := s.GetEventWithLeaderboard(ctx, scored.ID, 10, true)
		mustOK(t, err)
		if e.Stored != domain.StateScored || len(lb.Items) != 1 || lb.Items[0].Event.Name != "Scored Renamed" || pointsOf(lb.Items[0]) != "18" {
			t.Errorf("after rename: state %s leaderboard %+v", e.Stored, lb.Items)
		}
	})

	tests := []struct {
		name, id string
		u        domain.EventUpdate
		code     domain.Code
	}{
		{"StateScored", "2030-03-23-up-errs", domain.EventUpdate{State: ptr(domain.StateScored)}, domain.CodeBadUserInput},
		{"StateUnknown", "2030-03-23-up-errs", domain.EventUpdate{State: ptr(domain.EventState("LIVE"))}, domain.CodeBadUserInput},
		{"EmptyName", "2030-03-23-up-errs", domain.EventUpdate{Name: ptr(" ")}, domain.CodeBadUserInput},
		{"OtherDate", "2030-03-23-up-errs", domain.EventUpdate{StartsAt: ptr(time.Date(2030, 3, 24, 1, 0, 0, 0, time.UTC))}, domain.CodeBadUserInput},
		{"UnknownEvent", "2030-03-30-up-none", domain.EventUpdate{Name: ptr("X")}, domain.CodeNotFound},
		{"MalformedID", "up#errs", domain.EventUpdate{Name: ptr("X")}, domain.CodeBadUserInput},
	}
	errEvent := f.createEvent("2030-03-23-up-errs", 20, standardCard())
	for _, tt := range tests {
		t.Run("Rejects"+tt.name, func(t *testing.T) {
			_, err := s.UpdateEvent(ctx, tt.id, tt.u)
			wantCode(t, err, tt.code)
		})
	}
	t.Run("RejectedUpdatesChangeNothing", func(t *testing.T) {
		got, err := s.GetEvent(ctx, errEvent.ID)
		mustOK(t, err)
		if got.Name != errEvent.Name || !got.StartsAt.Equal(errEvent.StartsAt) || got.Stored != domain.StateUpcoming || got.CardVersion != errEvent.CardVersion {
			t.Errorf("event changed: %+v", got)
		}
	})
}

func TestCardEdits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	scored := f.createEvent("2030-03-05-edit-scored", 20, standardCard())
	f.submit("e-1", scored, 0, 0, 0)
	f.lockAndResult(scored, 0, 0, 0)
	f.score(scored)
	const missing = "2030-03-30-edit-missing"
	unknownMatch := domain.NewMatchID()
	four := append(standardCard(), matchSpec("Fourth", 1))

	cardOf := func(t *testing.T, id string) domain.Event {
		t.Helper()
		e, err := s.GetEvent(ctx, id)
		mustOK(t, err)
		for i, m := range e.Matches {
			if m.Position != i+1 {
				t.Fatalf("card %s: match %d has position %d", id, i, m.Position)
			}
		}
		return e
	}

	t.Run("AddMatch", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-20-edit-add", 20, standardCard())
		m, err := s.AddMatch(ctx, ev.ID, matchSpec(" Added ", 7))
		mustOK(t, err)
		if m.Position != 4 || m.Name != "Added" || domain.ValidateMatchID(m.ID) != nil {
			t.Errorf("added %+v", m)
		}
		got := cardOf(t, ev.ID)
		if want := append(matchIDs(ev.Matches), m.ID); !slices.Equal(matchIDs(got.Matches), want) || got.CardVersion != ev.CardVersion+1 {
			t.Errorf("card %v v%d, want %v v%d", matchIDs(got.Matches), got.CardVersion, want, ev.CardVersion+1)
		}
		full := f.createEvent("2030-03-20-edit-full", 20, nil)
		for i := 0; i < domain.MaxMatches; i++ {
			_, err := s.AddMatch(ctx, full.ID, matchSpec(fmt.Sprintf("M%d", i), 1))
			mustOK(t, err)
		}
		errs := []struct {
			name, event string
			spec        domain.MatchSpec
			code        domain.Code
		}{
			{"FullCard", full.ID, matchSpec("One Too Many", 1), domain.CodeBadUserInput},
			{"ScoredEvent", scored.ID, matchSpec("Late", 1), domain.CodeBadUserInput},
			{"BadSpec", ev.ID, matchSpec("No Points", 0), domain.CodeBadUserInput},
			{"UnknownEvent", missing, matchSpec("X", 1), domain.CodeNotFound},
			{"MalformedEvent", "edit#add", matchSpec("X", 1), domain.CodeBadUserInput},
		}
		for _, tt := range errs {
			t.Run("Rejects"+tt.name, func(t *testing.T) {
				_, err := s.AddMatch(ctx, tt.event, tt.spec)
				wantCode(t, err, tt.code)
			})
		}
		if n := len(cardOf(t, full.ID).Matches); n != domain.MaxMatches {
			t.Errorf("full card has %d matches", n)
		}
	})

	t.Run("UpdateMatchKeepsIDUnlessTeamsChange", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-21-edit-update", 20, standardCard())
		m0 := ev.Matches[0]
		got, err := s.UpdateMatch(ctx, ev.ID, m0.ID, domain.MatchUpdate{Name: ptr("Renamed"), Points: ptr(12), Preshow: ptr(true), Championships: []string{"Belt"}})
		mustOK(t, err)
		if got.ID != m0.ID || got.Name != "Renamed" || got.Points != 12 || !got.Preshow || !slices.Equal(got.Championships, []string{"Belt"}) || got.Position != 1 {
			t.Errorf("updated %+v", got)
		}
		same := m0.Teams // identical teams: not a change
		got, err = s.UpdateMatch(ctx, ev.ID, m0.ID, domain.MatchUpdate{Teams: same})
		mustOK(t, err)
		if got.ID != m0.ID {
			t.Errorf("identical teams gave a new id")
		}
		card := cardOf(t, ev.ID)
		if card.Matches[0].ID != m0.ID || card.Matches[0].Name != "Renamed" || card.Matches[0].Points != 12 {
			t.Errorf("card %+v", card.Matches[0])
		}
	})

	t.Run("UpdateMatchTeamsVoidsOldPicks", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-22-edit-teams", 20, standardCard())
		f.submit("e-2", ev, 0, 0, 0)
		old := ev.Matches[1]
		newTeams := []domain.Team{{Members: []string{"scoring.New Red"}}, {Members: []string{"scoring.New Blue"}}}
		got, err := s.UpdateMatch(ctx, ev.ID, old.ID, domain.MatchUpdate{Teams: newTeams})
		mustOK(t, err)
		if got.ID == old.ID || got.Position != 2 || got.Name != old.Name || got.Teams[0].Members[0] != "scoring.New Red" {
			t.Fatalf("updated %+v", got)
		}
		card := cardOf(t, ev.ID)
		if want := []string{ev.Matches[0].ID, got.ID, ev.Matches[2].ID}; !slices.Equal(matchIDs(card.Matches), want) {
			t.Errorf("card %v, want %v", matchIDs(card.Matches), want)
		}
		// The old id is gone: a pick on it is refused, and the old pick scores nothing.
		_, err = s.SubmitPrediction(ctx, domain.UserRef{ID: "e-3", Name: "E"}, ev.ID, domain.Entry{Picks: []domain.Pick{{MatchID: old.ID, Team: 0}}})
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = s.UpdateMatch(ctx, ev.ID, old.ID, domain.MatchUpdate{Name: ptr("X")})
		wantCode(t, err, domain.CodeNotFound)
		f.lockAndResult(card, 0, 0, 0)
		f.score(card)
		p, err := s.GetPrediction(ctx, "e-2", ev.ID, true)
		mustOK(t, err)
		if pointsOf(p) != "13" || *p.Correct != 2 { // 10 + 3: the 5-point pick was on the old match
			t.Errorf("points %s correct %d", pointsOf(p), *p.Correct)
		}
		for _, pk := range p.Picks {
			if pk.MatchID == old.ID && (pk.Correct == nil || *pk.Correct) {
				t.Errorf("pick on the replaced match: %+v", pk)
			}
		}
	})

	t.Run("UpdateMatchRejects", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-23-edit-update-errs", 20, standardCard())
		m := ev.Matches[0].ID
		errs := []struct {
			name, event, match string
			u                  domain.MatchUpdate
			code               domain.Code
		}{
			{"UnknownMatch", ev.ID, unknownMatch, domain.MatchUpdate{Name: ptr("X")}, domain.CodeNotFound},
			{"MalformedMatch", ev.ID, "MATCH#1", domain.MatchUpdate{Name: ptr("X")}, domain.CodeBadUserInput},
			{"UnknownEvent", missing, m, domain.MatchUpdate{Name: ptr("X")}, domain.CodeNotFound},
			{"MatchOfOtherEvent", scored.ID, m, domain.MatchUpdate{Name: ptr("X")}, domain.CodeNotFound},
			{"EmptyName", ev.ID, m, domain.MatchUpdate{Name: ptr("")}, domain.CodeBadUserInput},
			{"ZeroPoints", ev.ID, m, domain.MatchUpdate{Points: ptr(0)}, domain.CodeBadUserInput},
			{"OneTeam", ev.ID, m, domain.MatchUpdate{Teams: []domain.Team{{Members: []string{"Solo"}}}}, domain.CodeBadUserInput},
			{"TeamsOfScoredEvent", scored.ID, scored.Matches[0].ID, domain.MatchUpdate{Teams: matchSpec("scoring.New", 1).Teams}, domain.CodeBadUserInput},
		}
		for _, tt := range errs {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.UpdateMatch(ctx, tt.event, tt.match, tt.u)
				wantCode(t, err, tt.code)
			})
		}
		if got := cardOf(t, ev.ID); got.CardVersion != ev.CardVersion || got.Matches[0].Name != ev.Matches[0].Name {
			t.Errorf("rejected updates changed the card: %+v", got)
		}
	})

	t.Run("RemoveMatchClosesUpPositions", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-24-edit-remove", 20, four)
		ids := matchIDs(ev.Matches)
		mustOK(t, s.RemoveMatch(ctx, ev.ID, ids[1]))
		if got, want := matchIDs(cardOf(t, ev.ID).Matches), []string{ids[0], ids[2], ids[3]}; !slices.Equal(got, want) {
			t.Errorf("card %v, want %v", got, want)
		}
		mustOK(t, s.RemoveMatch(ctx, ev.ID, ids[3]))
		mustOK(t, s.RemoveMatch(ctx, ev.ID, ids[0]))
		if got, want := matchIDs(cardOf(t, ev.ID).Matches), []string{ids[2]}; !slices.Equal(got, want) {
			t.Errorf("card %v, want %v", got, want)
		}
		added, err := s.AddMatch(ctx, ev.ID, matchSpec("After Removals", 1))
		mustOK(t, err)
		if added.Position != 2 {
			t.Errorf("added at position %d", added.Position)
		}
		wantCode(t, s.RemoveMatch(ctx, ev.ID, ids[1]), domain.CodeNotFound)
		wantCode(t, s.RemoveMatch(ctx, ev.ID, "nope"), domain.CodeBadUserInput)
		wantCode(t, s.RemoveMatch(ctx, missing, ids[2]), domain.CodeNotFound)
		wantCode(t, s.RemoveMatch(ctx, scored.ID, scored.Matches[0].ID), domain.CodeBadUserInput)
	})

	t.Run("ReorderMatchesNeedsAPermutation", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-25-edit-reorder", 20, four)
		ids := matchIDs(ev.Matches)
		order := []string{ids[3], ids[1], ids[0], ids[2]}
		out, err := s.ReorderMatches(ctx, ev.ID, order)
		mustOK(t, err)
		if !slices.Equal(matchIDs(out), order) || out[0].Position != 1 || out[3].Position != 4 {
			t.Errorf("returned %v", matchIDs(out))
		}
		card := cardOf(t, ev.ID)
		if !slices.Equal(matchIDs(card.Matches), order) || card.CardVersion != ev.CardVersion+1 {
			t.Errorf("card %v v%d", matchIDs(card.Matches), card.CardVersion)
		}
		out, err = s.ReorderMatches(ctx, ev.ID, order) // same order: nothing to write
		mustOK(t, err)
		if !slices.Equal(matchIDs(out), order) {
			t.Errorf("same order returned %v", matchIDs(out))
		}
		errs := []struct {
			name, event string
			ids         []string
			code        domain.Code
		}{
			{"MissingOne", ev.ID, order[:3], domain.CodeBadUserInput},
			{"Empty", ev.ID, nil, domain.CodeBadUserInput},
			{"Duplicate", ev.ID, []string{order[0], order[0], order[1], order[2]}, domain.CodeBadUserInput},
			{"ExtraOne", ev.ID, append(slices.Clone(order), unknownMatch), domain.CodeBadUserInput},
			{"UnknownInsteadOfOne", ev.ID, []string{order[0], order[1], order[2], unknownMatch}, domain.CodeBadUserInput},
			{"Malformed", ev.ID, []string{order[0], order[1], order[2], "x#y"}, domain.CodeBadUserInput},
			{"ScoredEvent", scored.ID, matchIDs(scored.Matches), domain.CodeBadUserInput},
			{"UnknownEvent", missing, order, domain.CodeNotFound},
		}
		for _, tt := range errs {
			t.Run("Rejects"+tt.name, func(t *testing.T) {
				_, err := s.ReorderMatches(ctx, tt.event, tt.ids)
				wantCode(t, err, tt.code)
			})
		}
		if got := cardOf(t, ev.ID); !slices.Equal(matchIDs(got.Matches), order) || got.CardVersion != card.CardVersion {
			t.Errorf("rejected reorders changed the card: %v", matchIDs(got.Matches))
		}
	})

	t.Run("SetResult", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		open := f.createEvent("2030-03-26-edit-result-open", 20, standardCard())
		ev := f.createEvent("2030-03-26-edit-result", 20, []domain.MatchSpec{
			matchSpec("Singles", 5), {Name: "Triple Threat", Points: 5, Teams: []domain.Team{{Members: []string{"A"}}, {Members: []string{"B"}}, {Members: []string{"C"}}}},
		})
		_, err := s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
		mustOK(t, err)
		m0, m1 := ev.Matches[0].ID, ev.Matches[1].ID
		win := func(w int) *domain.MatchResult {
			return &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(w)}
		}
		ok := []struct {
			name  string
			match string
			r     *domain.MatchResult
		}{
			{"WinFirstTeam", m0, win(0)},
			{"WinLastOfThree", m1, win(2)},
			{"Draw", m0, &domain.MatchResult{Outcome: domain.OutcomeDraw}},
			{"NoContest", m1, &domain.MatchResult{Outcome: domain.OutcomeNoContest}},
			{"ClearBeforeScoring", m1, nil},
		}
		for _, tt := range ok {
			t.Run(tt.name, func(t *testing.T) {
				m, err := s.SetResult(ctx, ev.ID, tt.match, tt.r)
				mustOK(t, err)
				got, _ := cardOf(t, ev.ID).Match(tt.match)
				if resultString(m.Result) != resultString(tt.r) || resultString(got.Result) != resultString(tt.r) {
					t.Errorf("result %s stored %s, want %s", resultString(m.Result), resultString(got.Result), resultString(tt.r))
				}
			})
		}
		errs := []struct {
			name, event, match string
			r                  *domain.MatchResult
			code               domain.Code
		}{
			{"OpenEvent", open.ID, open.Matches[0].ID, win(0), domain.CodeBadUserInput},
			{"WinWithoutWinner", ev.ID, m0, &domain.MatchResult{Outcome: domain.OutcomeWin}, domain.CodeBadUserInput},
			{"WinnerOutOfRange", ev.ID, m0, win(2), domain.CodeBadUserInput},
			{"NegativeWinner", ev.ID, m1, win(-1), domain.CodeBadUserInput},
			{"DrawWithWinner", ev.ID, m0, &domain.MatchResult{Outcome: domain.OutcomeDraw, Winner: ptr(0)}, domain.CodeBadUserInput},
			{"NoContestWithWinner", ev.ID, m0, &domain.MatchResult{Outcome: domain.OutcomeNoContest, Winner: ptr(1)}, domain.CodeBadUserInput},
			{"UnknownOutcome", ev.ID, m0, &domain.MatchResult{Outcome: "FORFEIT"}, domain.CodeBadUserInput},
			{"ClearOnScoredEvent", scored.ID, scored.Matches[0].ID, nil, domain.CodeBadUserInput},
			{"UnknownMatch", ev.ID, unknownMatch, win(0), domain.CodeNotFound},
			{"MalformedMatch", ev.ID, "m", win(0), domain.CodeBadUserInput},
			{"UnknownEvent", missing, m0, win(0), domain.CodeNotFound},
		}
		for _, tt := range errs {
			t.Run("Rejects"+tt.name, func(t *testing.T) {
				_, err := s.SetResult(ctx, tt.event, tt.match, tt.r)
				wantCode(t, err, tt.code)
			})
		}
		if got := cardOf(t, open.ID); got.Matches[0].Result != nil {
			t.Errorf("result leaked onto an open event")
		}
		t.Run("AcceptedOnceTheStartHasPassed", func(t *testing.T) {
			started := New(f.db, f.table, WithClock(func() time.Time { return open.StartsAt }))
			m, err := started.SetResult(ctx, open.ID, open.Matches[1].ID, win(1))
			mustOK(t, err)
			if resultString(m.Result) != "WIN:1" {
				t.Errorf("result %s", resultString(m.Result))
			}
		})
		t.Run("CorrectionOnScoredEvent", func(t *testing.T) {
			m, err := s.SetResult(ctx, scored.ID, scored.Matches[0].ID, win(1))
			mustOK(t, err)
			if *m.Result.Winner != 1 {
				t.Errorf("corrected %+v", m.Result)
			}
			e := cardOf(t, scored.ID)
			if e.Stored != domain.StateScored || *e.Matches[0].Result.Winner != 1 {
				t.Errorf("scored event after correction: %s %+v", e.Stored, e.Matches[0].Result)
			}
		})
	})
}

func resultString(r *domain.MatchResult) string {
	switch {
	case r == nil:
		return "none"
	case r.Winner == nil:
		return string(r.Outcome)
	default:
		return fmt.Sprintf("%s:%d", r.Outcome, *r.Winner)
	}
}

// answerLostAPI replays the first TransactWriteItems that puts an event row: it runs it,
// then runs it again and answers with the second attempt, as the SDK does when the first
// attempt's answer is lost (a timeout, a reset) after DynamoDB applied it.
type answerLostAPI struct {
	ddb.API
	replayed atomic.Int64
}

func (a *answerLostAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if p := in.TransactItems[0].Put; p != nil && table.ItemString(p.Item, table.AttrPK) == table.EventsPartition && a.replayed.Add(1) == 1 {
		if _, err := a.API.TransactWriteItems(ctx, in, opts...); err != nil {
			return nil, err
		}
	}
	return a.API.TransactWriteItems(ctx, in, opts...)
}
