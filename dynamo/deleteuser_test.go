package dynamo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// TestDeleteUser: deleting an account leaves no row of the player behind (profile,
// predictions, standings, league rows), hands their league over, takes them off
// leaderboards and standings without changing anybody else's score, keeps the events'
// prediction counts and scoring checkpoints right (a later correction and re-score of the
// scored event, and the scoring of the open one, complete without drift) and drops them
// from the rank tables.
func TestDeleteUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	scored := f.createEvent("2030-03-02-scored-show", 20, standardCard())
	open := f.createEvent("2030-04-02-open-show", 20, standardCard())
	f.submit("gone", scored, 0, 0, 0) // 18 points
	f.submit("stay", scored, 0, 1, 0) // 13
	f.submit("also", scored, 1, 1, 1) // 0
	f.submit("gone", open, 0, 0, 0)
	f.submit("stay", open, 1, 0, 0)
	f.clock.Set(t0.Add(48 * time.Hour))
	f.lockAndResult(scored, 0, 0, 0)
	if rep := f.score(scored); !rep.Complete {
		t.Fatalf("scoring %+v", rep)
	}
	_, err := f.s.Register(ctx, "gone", "Gone Soon")
	mustOK(t, err)
	l := f.createLeague("gone", "Left Behind")
	f.join("stay", l.InviteCode)

	mustOK(t, f.s.DeleteUser(ctx, "gone"))

	if n := f.countPartition(table.UserPK("gone"), ""); n != 0 {
		t.Fatalf("%d items left in the player's partition", n)
	}
	// No item anywhere in the table mentions the player: not a key, a member row, a name
	// copy or an owner field.
	for k, item := range f.scanAll() {
		if mentions(item, "gone", "Gone Soon") {
			t.Fatalf("item %s still mentions the deleted player: %v", k, item)
		}
	}
	_, err = f.s.GetPrediction(ctx, "gone", scored.ID, true)
	wantCode(t, err, domain.CodeNotFound)
	_, _, err = f.s.GetUser(ctx, "gone", 20, true)
	wantCode(t, err, domain.CodeNotFound)
	got, _, err := f.s.GetLeague(ctx, l.ID, "", false)
	mustOK(t, err)
	if got.Owner.ID != "stay" || got.MemberCount != 1 {
		t.Fatalf("league after the owner's account went: %+v", got)
	}
	_, board, err := f.s.GetEventWithLeaderboard(ctx, scored.ID, 10, true)
	mustOK(t, err)
	if users, ranks := predUsers(board.Items), predRanks(board.Items); !slices.Equal(users, []string{"stay", "also"}) || !slices.Equal(ranks, []int{1, 2}) {
		t.Fatalf("leaderboard %v ranks %v", users, ranks)
	}
	season, err := f.s.Standings(ctx, 2030, 10, "")
	mustOK(t, err)
	if users := standingUsers(season.Items); !slices.Equal(users, []string{"stay", "also"}) || season.Items[0].Points != 13 {
		t.Fatalf("standings %v", season.Items)
	}
	p, err := f.s.GetPrediction(ctx, "stay", scored.ID, true)
	mustOK(t, err)
	if p.Rank == nil || *p.Rank != 1 {
		t.Fatalf("stay's rank after the deletion: %v", p.Rank)
	}
	openRow, err := f.s.getEventRow(ctx, table.EventID(open.ID))
	mustOK(t, err)
	locks, err := f.s.readLocks(ctx, openRow)
	mustOK(t, err)
	counted := 0
	for _, c := range locks {
		counted += c.Predictions
	}
	if counted != 1 {
		t.Fatalf("the open event's lock copies count %d predictions, want 1", counted)
	}

	// A correction of the scored event and the open event's scoring still complete, exactly.
	_, err = f.s.SetResult(ctx, scored.ID, scored.Matches[2].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(1)})
	mustOK(t, err)
	if rep := f.score(scored); !rep.Complete {
		t.Fatalf("re-scoring after the deletion: %+v", rep)
	}
	f.lockAndResult(open, 1, 0, 0)
	if rep := f.score(open); !rep.Complete || rep.PredictionsScored != 1 {
		t.Fatalf("scoring the open event: %+v", rep)
	}
	season, err = f.s.Standings(ctx, 2030, 10, "")
	mustOK(t, err)
	// stay: 10 + 0 (the opener now went to team 1) on the first show, 18 on the second.
	if users := standingUsers(season.Items); !slices.Equal(users, []string{"stay", "also"}) || season.Items[0].Points != 28 {
		t.Fatalf("standings after re-scoring %+v", season.Items)
	}
	// Deleting again, or an account that never existed, changes nothing.
	mustOK(t, f.s.DeleteUser(ctx, "gone"))
	mustOK(t, f.s.DeleteUser(ctx, "never"))
}

// mentions reports whether any string in item (keys, attributes, sets, lists and maps at
// any depth) contains one of words.
func mentions(item map[string]types.AttributeValue, words ...string) bool {
	var has func(v types.AttributeValue) bool
	has = func(v types.AttributeValue) bool {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			for _, w := range words {
				if strings.Contains(v.Value, w) {
					return true
				}
			}
		case *types.AttributeValueMemberSS:
			return slices.ContainsFunc(v.Value, func(s string) bool { return has(&types.AttributeValueMemberS{Value: s}) })
		case *types.AttributeValueMemberL:
			return slices.ContainsFunc(v.Value, has)
		case *types.AttributeValueMemberM:
			return mentions(v.Value, words...)
		}
		return false
	}
	for k, v := range item {
		if has(&types.AttributeValueMemberS{Value: k}) || has(v) {
			return true
		}
	}
	return false
}
