package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

func TestSubmitPrediction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	s := f.s
	open := f.createEvent("2030-03-20-sub-open", 20, standardCard())
	other := f.createEvent("2030-03-21-sub-other", 20, standardCard())
	broadcast := f.createEvent("2030-03-22-sub-broadcast", 20, standardCard())
	_, err := s.UpdateEvent(ctx, broadcast.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
	mustOK(t, err)
	backfill := f.createEvent("2030-02-01-sub-backfill", 20, standardCard())
	scored := f.createEvent("2030-03-05-sub-scored", 20, standardCard())
	f.submit("s-scored", scored, 0, 0, 0)
	f.lockAndResult(scored, 0, 0, 0)
	f.score(scored)
	// A store whose clock reads a later time, sharing the table.
	at := func(now time.Time) *Store {
		return New(f.db, f.table, WithClock(func() time.Time { return now }))
	}

	t.Run("CreatesWithProfileFromToken", func(t *testing.T) {
		t.Parallel()
		p, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "s-new", Name: "  Token Name  "}, open.ID, domain.Entry{Picks: picks(open, 0, 1, 0)})
		mustOK(t, err)
		if p.EventID != open.ID || p.Event.Name != open.Name || !p.Event.StartsAt.Equal(open.StartsAt) ||
			p.User.ID != "s-new" || p.User.Name != "Token Name" || len(p.Picks) != 3 || p.Points != nil || !p.UpdatedAt.Equal(t0) {
			t.Errorf("returned %+v", p)
		}
		got, err := s.GetPrediction(ctx, "s-new", open.ID, true)
		mustOK(t, err)
		if got.User.Name != "Token Name" || !slices.Equal(mapIDs(got.Picks, func(p domain.Pick) string { return p.MatchID }), matchIDs(open.Matches)) {
			t.Errorf("stored %+v", got)
		}
		u, page, err := s.GetUser(ctx, "s-new", 5, true)
		mustOK(t, err)
		if u.Name != "Token Name" || len(page.Items) != 1 {
			t.Errorf("profile %+v with %d predictions", u, len(page.Items))
		}
	})

	t.Run("TokenWithoutUsableNameFallsBackToID", func(t *testing.T) {
		t.Parallel()
		p, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "s-noname", Name: "   "}, open.ID, domain.Entry{Picks: picks(open, 0)})
		mustOK(t, err)
		if p.User.Name != "s-noname" {
			t.Errorf("name %q", p.User.Name)
		}
	})

	t.Run("ReplacesPicks", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		f.submit("s-replace", open, 0, 0, 0)
		later := t0.Add(time.Hour)
		p, err := at(later).SubmitPrediction(ctx, domain.UserRef{ID: "s-replace", Name: "x"}, open.ID, domain.Entry{Picks: picks(open, -1, 1, -1)})
		mustOK(t, err)
		got, err := s.GetPrediction(ctx, "s-replace", open.ID, true)
		mustOK(t, err)
		if len(got.Picks) != 1 || got.Picks[0].MatchID != open.Matches[1].ID || got.Picks[0].Team != 1 || !got.UpdatedAt.Equal(later) {
			t.Errorf("after replace %+v (returned %+v)", got, p)
		}
		if got.User.Name != "Player s-replace" {
			t.Errorf("replacing with another token name changed the profile name to %q", got.User.Name)
		}
		_, page, err := s.GetUser(ctx, "s-replace", 5, true)
		mustOK(t, err)
		if len(page.Items) != 1 {
			t.Errorf("%d predictions after a replace", len(page.Items))
		}
		if n := f.countEventGSI(open, table.PendingSK("s-replace")); n != 1 {
			t.Errorf("%d index rows for the player", n)
		}
	})

	t.Run("PartialCardAndCardOrder", func(t *testing.T) {
		t.Parallel()
		in := []domain.Pick{{MatchID: open.Matches[2].ID, Team: 1}, {MatchID: open.Matches[0].ID, Team: 0}}
		p, err := s.SubmitPrediction(ctx, domain.UserRef{ID: "s-partial", Name: "P"}, open.ID, domain.Entry{Picks: in})
		mustOK(t, err)
		if len(p.Picks) != 2 || p.Picks[0].MatchID != open.Matches[0].ID || p.Picks[1].MatchID != open.Matches[2].ID {
			t.Errorf("picks %+v, want card order", p.Picks)
		}
	})

	t.Run("ConcurrentSubmitsOfOnePlayer", func(t *testing.T) {
		t.Parallel()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.SubmitPrediction(ctx, domain.UserRef{ID: "s-race", Name: "Race"}, open.ID, domain.Entry{Picks: picks(open, i%2)})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if c := domain.ErrorCode(err); c != "" && c != domain.CodeConflict {
				t.Errorf("concurrent submit: %v", err)
			}
		}
		_, err := s.GetPrediction(ctx, "s-race", open.ID, true)
		mustOK(t, err)
	})

	errTests := []struct {
		name, user, event string
		store             *Store
		picks             []domain.Pick
		code              domain.Code
	}{
		{"NoPicks", "s-e1", open.ID, s, nil, domain.CodeBadUserInput},
		{"EmptyPicks", "s-e2", open.ID, s, []domain.Pick{}, domain.CodeBadUserInput},
		{"DuplicatePick", "s-e3", open.ID, s, append(picks(open, 0), picks(open, 1)...), domain.CodeBadUserInput},
		{"UnknownMatch", "s-e4", open.ID, s, []domain.Pick{{MatchID: domain.NewMatchID(), Team: 0}}, domain.CodeBadUserInput},
		{"MatchOfOtherEvent", "s-e5", open.ID, s, picks(other, 0), domain.CodeBadUserInput},
		{"MalformedMatchID", "s-e6", open.ID, s, []domain.Pick{{MatchID: "m#1", Team: 0}}, domain.CodeBadUserInput},
		{"TeamTooHigh", "s-e7", open.ID, s, picks(open, 2), domain.CodeBadUserInput},
		{"NegativeTeam", "s-e8", open.ID, s, []domain.Pick{{MatchID: open.Matches[0].ID, Team: -1}}, domain.CodeBadUserInput},
		{"OneGoodOneBad", "s-e9", open.ID, s, append(picks(open, 0), domain.Pick{MatchID: open.Matches[1].ID, Team: 5}), domain.CodeBadUserInput},
		{"UnknownEvent", "s-e10", "2030-03-23-no-such", s, picks(open, 0), domain.CodeNotFound},
		{"MalformedEvent", "s-e11", "2030-03-20-sub-open#x", s, picks(open, 0), domain.CodeBadUserInput},
		{"MalformedCaller", "s#e12", open.ID, s, picks(open, 0), domain.CodeBadUserInput},
		{"AfterStart", "s-e13", open.ID, at(open.StartsAt), picks(open, 0), domain.CodeLocked},
		{"LongAfterStart", "s-e14", open.ID, at(open.StartsAt.Add(48 * time.Hour)), picks(open, 0), domain.CodeLocked},
		{"StateBroadcast", "s-e15", broadcast.ID, s, picks(broadcast, 0), domain.CodeLocked},
		{"Backfill", "s-e16", backfill.ID, s, picks(backfill, 0), domain.CodeLocked},
		{"Scored", "s-e17", scored.ID, s, picks(scored, 0), domain.CodeLocked},
		{"ScoredOwnPrediction", "s-scored", scored.ID, s, picks(scored, 1), domain.CodeLocked},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.store.SubmitPrediction(ctx, domain.UserRef{ID: tt.user, Name: "Err"}, tt.event, domain.Entry{Picks: tt.picks})
			wantCode(t, err, tt.code)
			if _, err := table.ParseUserID(tt.user); err != nil {
				return
			}
			if _, err := table.ParseEventID(tt.event); err != nil {
				return
			}
			if tt.user == "s-scored" {
				p, err := s.GetPrediction(ctx, tt.user, tt.event, true)
				mustOK(t, err)
				if p.Picks[0].Team != 0 || pointsOf(p) != "18" {
					t.Errorf("scored prediction changed: %+v", p)
				}
				return
			}
			_, err = s.GetPrediction(ctx, tt.user, tt.event, true)
			wantCode(t, err, domain.CodeNotFound)
			_, _, err = s.GetUser(ctx, tt.user, 1, true)
			wantCode(t, err, domain.CodeNotFound)
		})
	}
}

// hookDB runs before once, just before the next TransactWriteItems it passes on.
type hookDB struct {
	ddb.API
	mu     sync.Mutex
	before func(ctx context.Context)
}

func (h *hookDB) arm(before func(ctx context.Context)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.before = before
}

func (h *hookDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	h.mu.Lock()
	before := h.before
	h.before = nil
	h.mu.Unlock()
	if before != nil {
		before(ctx)
	}
	return h.API.TransactWriteItems(ctx, in, opts...)
}

// TestSubmitLockedByCondition changes the event between SubmitPrediction's read (which finds
// it open) and its transaction: the DynamoDB condition, not the Go check, must refuse it.
func TestSubmitLockedByCondition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	admin := f.s
	// Events start at 20:00 on their day; the clock reads 10:00 that day.
	now := time.Date(2030, 3, 20, 10, 0, 0, 0, time.UTC)
	f.clock.Set(now)

	tests := []struct {
		name    string
		replace bool // the player already has a prediction, which must survive unchanged
		change  func(t *testing.T, ev domain.Event)
		code    domain.Code
	}{
		{"BroadcastBeforeWrite", false, func(t *testing.T, ev domain.Event) {
			_, err := admin.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
			mustOK(t, err)
		}, domain.CodeLocked},
		{"BroadcastBeforeReplace", true, func(t *testing.T, ev domain.Event) {
			_, err := admin.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
			mustOK(t, err)
		}, domain.CodeLocked},
		{"StartMovedIntoThePastBeforeWrite", false, func(t *testing.T, ev domain.Event) {
			_, err := admin.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: ptr(now.Add(-time.Hour))})
			mustOK(t, err)
		}, domain.CodeLocked},
		{"StartMovedToNowBeforeReplace", true, func(t *testing.T, ev domain.Event) {
			_, err := admin.UpdateEvent(ctx, ev.ID, domain.EventUpdate{StartsAt: ptr(now)})
			mustOK(t, err)
		}, domain.CodeLocked},
		{"CardChangedBeforeWrite", false, func(t *testing.T, ev domain.Event) {
			_, err := admin.AddMatch(ctx, ev.ID, matchSpec("Late Addition", 4))
			mustOK(t, err)
		}, domain.CodeConflict},
		{"MatchTeamsChangedBeforeReplace", true, func(t *testing.T, ev domain.Event) {
			_, err := admin.UpdateMatch(ctx, ev.ID, ev.Matches[0].ID, domain.MatchUpdate{Teams: matchSpec("Swap", 1).Teams})
			mustOK(t, err)
		}, domain.CodeConflict},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := f.on(t)
			ev := f.createEvent(fmt.Sprintf("2030-03-20-lock-%d", i), 20, standardCard())
			user := fmt.Sprintf("lock-%d", i)
			if tt.replace {
				f.submit(user, ev, 0, 0, 0)
			}
			before, _ := admin.GetPrediction(ctx, user, ev.ID, true)

			hook := &hookDB{API: f.db}
			hook.arm(func(context.Context) { tt.change(t, ev) })
			player := f.storeOver(hook)
			_, err := player.SubmitPrediction(ctx, domain.UserRef{ID: user, Name: "Late"}, ev.ID, domain.Entry{Picks: picks(ev, 1, 1, 1)})
			wantCode(t, err, tt.code)

			after, err := admin.GetPrediction(ctx, user, ev.ID, true)
			if !tt.replace {
				wantCode(t, err, domain.CodeNotFound)
				_, _, err = admin.GetUser(ctx, user, 1, true)
				wantCode(t, err, domain.CodeNotFound) // no profile written either
				return
			}
			mustOK(t, err)
			if fmt.Sprint(after.Picks) != fmt.Sprint(before.Picks) || !after.UpdatedAt.Equal(before.UpdatedAt) {
				t.Errorf("prediction changed: %+v, was %+v", after.Picks, before.Picks)
			}
		})
	}

	t.Run("RenameBeforeWriteIsRetried", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-20-rename-race", 20, standardCard())
		_, err := admin.Register(ctx, "lock-rename", "Before")
		mustOK(t, err)
		hook := &hookDB{API: f.db}
		hook.arm(func(context.Context) {
			_, err := admin.Register(ctx, "lock-rename", "After")
			mustOK(t, err)
		})
		p, err := f.storeOver(hook).SubmitPrediction(ctx, domain.UserRef{ID: "lock-rename", Name: "Token"}, ev.ID, domain.Entry{Picks: picks(ev, 1)})
		mustOK(t, err)
		if p.User.Name != "After" {
			t.Errorf("prediction carries name %q, want the renamed one", p.User.Name)
		}
		stored, err := admin.GetPrediction(ctx, "lock-rename", ev.ID, true)
		mustOK(t, err)
		if stored.User.Name != "After" {
			t.Errorf("stored name %q", stored.User.Name)
		}
	})

	t.Run("RegisterBeforeFirstWriteIsRetried", func(t *testing.T) {
		t.Parallel()
		f := f.on(t)
		ev := f.createEvent("2030-03-20-register-race", 20, standardCard())
		hook := &hookDB{API: f.db}
		hook.arm(func(context.Context) {
			_, err := admin.Register(ctx, "lock-register", "Registered")
			mustOK(t, err)
		})
		_, err := f.storeOver(hook).SubmitPrediction(ctx, domain.UserRef{ID: "lock-register", Name: "Token"}, ev.ID, domain.Entry{Picks: picks(ev, 1)})
		mustOK(t, err)
		stored, err := admin.GetPrediction(ctx, "lock-register", ev.ID, true)
		mustOK(t, err)
		if stored.User.Name != "Registered" {
			t.Errorf("stored name %q, want the registered one", stored.User.Name)
		}
	})
}

// TestOpenAtIsTheDomainsLock pins the table's lock condition (table.OpenAt) to the domain's
// rule: for every stored state and starts around now, a write under table.OpenAt(now)
// succeeds exactly when domain.Event.Locked(now) is false.
func TestOpenAtIsTheDomainsLock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	now := time.Date(2030, 5, 1, 20, 0, 0, 600_000_000, time.UTC) // not a whole second
	base := now.Truncate(time.Second)
	starts := []time.Time{base.Add(-time.Hour), base.Add(-time.Second), base, base.Add(time.Second), base.Add(time.Hour)}
	states := []domain.EventState{domain.StateUpcoming, domain.StateBroadcast, domain.StateScored}
	expr, err := expression.NewBuilder().WithCondition(table.OpenAt(now)).Build()
	mustOK(t, err)
	for _, st := range states {
		for i, start := range starts {
			pk := fmt.Sprintf("OPENAT#%s#%d", st, i)
			_, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
				table.AttrPK: table.StringValue(pk), table.AttrSK: table.StringValue("X"), "state": table.StringValue(string(st)), "startsAt": table.StringValue(table.FormatTime(start)),
			}})
			mustOK(t, err)
			_, err = f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(f.table), Key: table.Key(pk, "X"),
				UpdateExpression: aws.String("SET written = :t"), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(),
				ExpressionAttributeValues: func() map[string]types.AttributeValue {
					v := map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}
					maps.Copy(v, expr.Values())
					return v
				}(),
			})
			var failed *types.ConditionalCheckFailedException
			if err != nil && !errors.As(err, &failed) {
				t.Fatal(err)
			}
			locked := domain.Event{Stored: st, StartsAt: start}.Locked(now)
			if open := err == nil; open == locked {
				t.Errorf("stored %s, start %s, now %s: the condition lets the write through = %v, domain Locked = %v",
					st, start.Format(time.RFC3339), now.Format(time.RFC3339Nano), open, locked)
			}
		}
	}
}
