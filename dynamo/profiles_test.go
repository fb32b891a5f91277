package dynamo

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pickem/api/domain"
)

// TestPicksVisibleAtLock: another player sees a prediction on a profile, and alone, once
// its event has locked — by BROADCAST before the start, by the start time, or by date —
// not only once it is scored; the owner always sees it; an open event's stays hidden.
func TestPicksVisibleAtLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	f.clock.Set(t0)
	open := f.createEvent("2030-03-05-open-show", 20, standardCard())
	broadcast := f.createEvent("2030-03-06-live-show", 20, standardCard())
	today := f.createEvent("2030-03-01-tonight-show", 14, standardCard())
	for _, ev := range []domain.Event{open, broadcast, today} {
		f.submit("p-vis", ev, 0, 1, 0)
	}
	_, err := f.s.UpdateEvent(ctx, broadcast.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
	mustOK(t, err)

	profile := func(t *testing.T, own bool, first int) (pages [][]string, n int) {
		t.Helper()
		n = calls(t, func(ctx context.Context) {
			_, p, err := f.s.GetUser(ctx, "p-vis", first, own)
			mustOK(t, err)
			for {
				pages = append(pages, predEvents(p.Items))
				if !p.HasNext {
					return
				}
				p, err = f.s.UserPredictions(ctx, "p-vis", first, p.EndCursor(), own)
				mustOK(t, err)
			}
		})
		return pages, n
	}
	steps := []struct {
		name    string
		now     time.Time
		visible []string // to another viewer, newest first
	}{
		{"BeforeAnyStart", t0, []string{broadcast.ID}},
		{"TodaysStartPassed", time.Date(2030, 3, 1, 14, 0, 0, 0, time.UTC), []string{broadcast.ID, today.ID}},
		{"NextDay", time.Date(2030, 3, 2, 1, 0, 0, 0, time.UTC), []string{broadcast.ID, today.ID}},
		{"OpenStartPassed", time.Date(2030, 3, 5, 20, 0, 0, 0, time.UTC), []string{broadcast.ID, open.ID, today.ID}},
	}
	for _, st := range steps {
		f.clock.Set(st.now)
		t.Run(st.name, func(t *testing.T) {
			pages, _ := profile(t, false, 20)
			if len(pages) != 1 || !slices.Equal(pages[0], st.visible) {
				t.Fatalf("another viewer's profile %v, want %v", pages, st.visible)
			}
			// Pages of one: the same rows, one per page, the last without a next page.
			pages, _ = profile(t, false, 1)
			if got := slices.Concat(pages...); !slices.Equal(got, st.visible) || len(pages) != len(st.visible) {
				t.Fatalf("pages of one %v, want %v", pages, st.visible)
			}
			own, _ := profile(t, true, 20)
			if want := []string{broadcast.ID, open.ID, today.ID}; !slices.Equal(own[0], want) {
				t.Fatalf("owner's profile %v, want %v", own, want)
			}
			for _, ev := range []domain.Event{open, broadcast, today} {
				e, err := f.s.GetEventState(ctx, ev.ID)
				mustOK(t, err)
				if e.Matches != nil {
					t.Fatalf("GetEventState read the card")
				}
				if got, want := domain.PredictionVisible(e, "p-vis", "p-other", st.now), slices.Contains(st.visible, ev.ID); got != want {
					t.Errorf("%s: visible %v, want %v", ev.ID, got, want)
				}
			}
		})
	}
	t.Run("CallsOnlyForUndatedRows", func(t *testing.T) {
		// Dated before today, unscored rows need no event read; the owner needs none.
		f.clock.Set(time.Date(2030, 3, 7, 1, 0, 0, 0, time.UTC))
		if _, n := profile(t, false, 20); n != 1 {
			t.Errorf("another viewer's profile of locked events: %d calls, want 1", n)
		}
		f.clock.Set(t0)
		if _, n := profile(t, true, 20); n != 1 {
			t.Errorf("owner's profile: %d calls, want 1", n)
		}
		if _, n := profile(t, false, 20); n != 2 {
			t.Errorf("another viewer's profile with open events: %d calls, want 2 (the Query and the event rows)", n)
		}
	})
	t.Run("UnknownEvent", func(t *testing.T) {
		_, err := f.s.GetEventState(ctx, "2030-03-09-no-such-show")
		wantCode(t, err, domain.CodeNotFound)
	})
}
