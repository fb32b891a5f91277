package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/leagues"
	"github.com/pickem/api/dynamo/table"
)

// failTxAPI fails every TransactWriteItems after the first n, without reaching the engine
// (a call cut off between its transactions).
type failTxAPI struct {
	ddb.API
	n     int64
	calls atomic.Int64
}

var errCut = errors.New("injected: cut off")

func (f *failTxAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if f.calls.Add(1) > f.n {
		return nil, errCut
	}
	return f.API.TransactWriteItems(ctx, in, opts...)
}

// moderationEntries are the entries of the moderation log with action.
func (f *fixture) moderationEntries(action string) []domain.AuditEntry {
	f.t.Helper()
	var out []domain.AuditEntry
	for _, e := range f.auditLog(domain.AuditLogModeration, 50) {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

// TestRenameLeague: the league and its invite preview take the new name, with exactly one
// moderation entry per change (none for a rename to the same name, or a refused one),
// also when another change of the league makes the first transaction fail.
func TestRenameLeague(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("ann", "Old Name")
	f.join("ben", l.InviteCode)
	ctx := domain.WithActor(ctxT(t), domain.UserRef{ID: "mod-1", Name: "Moderator"})

	// ben leaves between the rename's read and its transaction: it reads again.
	hooked := &txHookAPI{API: f.db, match: func(*dynamodb.TransactWriteItemsInput) bool { return true },
		hook: func() { mustOK(t, f.s.LeaveLeague(ctxT(t), "ben", l.ID)) }}
	got, err := f.storeOver(hooked).RenameLeague(ctx, l.ID, "  scoring.New Name ")
	mustOK(t, err)
	if got.Name != "scoring.New Name" || got.MemberCount != 1 {
		t.Fatalf("renamed %+v", got)
	}
	f.checkLeague(l.ID, 1, "ann")
	if p, err := f.s.LeagueByInvite(ctxT(t), l.InviteCode); err != nil || p.Name != "scoring.New Name" {
		t.Fatalf("preview %+v %v", p, err)
	}
	_, err = f.s.RenameLeague(ctx, l.ID, "scoring.New Name")
	mustOK(t, err)
	_, err = f.s.RenameLeague(ctx, l.ID, strings.Repeat("x", domain.MaxLeagueNameLen+1))
	wantCode(t, err, domain.CodeBadUserInput)
	_, err = f.s.RenameLeague(ctx, domain.NewLeagueID(), "Whatever")
	wantCode(t, err, domain.CodeNotFound)
	entries := f.moderationEntries(domain.ActionRenameLeague)
	if len(entries) != 1 || entries[0].Actor.ID != "mod-1" || !strings.Contains(entries[0].Summary, l.ID) || !strings.Contains(entries[0].Summary, `"scoring.New Name"`) {
		t.Fatalf("moderation entries %+v", entries)
	}
}

// TestDeleteLeague: deleting a league of more members than one transaction holds removes
// every row of it (league, invite, member rows, memberships) and lowers each member's
// league count, with one moderation entry written with the last step; a call cut off
// leaves a closed league (no code, not readable) that a member can still leave and the
// next call finishes.
func TestDeleteLeague(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	f.submit("ann", ev, 0, 0, 0)
	l := f.createLeague("ann", "Doomed")
	keep := f.createLeague("ben", "Kept")
	f.join("cat", l.InviteCode)
	f.join("cat", keep.InviteCode)
	f.join("zed", l.InviteCode) // sorts last: still a member after the first transaction of members
	seeded := f.seedMembers(l, "m", 2*leagues.MembersPerDeleteTx+5)
	ctx := domain.WithActor(ctxT(t), domain.UserRef{ID: "mod-1", Name: "Moderator"})

	// Cut off after closing it and one transaction of members.
	cut := &failTxAPI{API: f.db, n: 2}
	if err := f.storeOver(cut).DeleteLeague(ctx, l.ID); !errors.Is(err, errCut) {
		t.Fatalf("cut-off deletion: %v", err)
	}
	_, _, err := f.s.GetLeague(ctxT(t), l.ID, "ann", true)
	wantCode(t, err, domain.CodeNotFound)
	_, err = f.s.JoinLeague(ctxT(t), ref("dov"), l.InviteCode)
	wantCode(t, err, domain.CodeNotFound)
	_, err = f.s.RotateInviteCode(ctxT(t), "ann", l.ID)
	wantCode(t, err, domain.CodeNotFound)
	if ls, err := f.s.UserLeagues(ctxT(t), "cat"); err != nil || len(ls) != 1 || ls[0].ID != keep.ID {
		t.Fatalf("cat's leagues while one is being deleted: %+v %v", ls, err)
	}
	if n := len(f.moderationEntries(domain.ActionDeleteLeague)); n != 0 {
		t.Fatalf("%d entries before the league is gone", n)
	}
	mustOK(t, f.s.LeaveLeague(ctxT(t), "zed", l.ID)) // a member leaves a closed league

	mustOK(t, f.s.DeleteLeague(ctx, l.ID))
	if n := f.countPartition(table.LeaguePK(table.LeagueID(l.ID)), ""); n != 0 {
		t.Fatalf("%d items left in the league's partition", n)
	}
	if inv := f.getRaw(table.InvitePK(l.InviteCode), table.InviteSK); inv != nil {
		t.Fatal("the invite item is left")
	}
	for _, u := range append(seeded, "ann", "cat", "zed") {
		if f.getRaw(table.UserPK(table.UserID(u)), table.MembershipSK(table.LeagueID(l.ID))) != nil || slices.Contains(f.leagueIDs(u), l.ID) {
			t.Fatalf("%s still has the league", u)
		}
	}
	if f.leagueCount("cat") != 1 || f.leagueCount(seeded[0]) != 0 || f.leagueCount("ann") != 0 {
		t.Fatalf("league counts cat %d, %s %d, ann %d", f.leagueCount("cat"), seeded[0], f.leagueCount(seeded[0]), f.leagueCount("ann"))
	}
	f.checkLeague(keep.ID, 2, "ben")
	entries := f.moderationEntries(domain.ActionDeleteLeague)
	if len(entries) != 1 || entries[0].Actor.ID != "mod-1" || !strings.Contains(entries[0].Summary, l.ID) {
		t.Fatalf("moderation entries %+v", entries)
	}
	wantCode(t, f.s.DeleteLeague(ctx, l.ID), domain.CodeNotFound)
	// The members are free to join 20 leagues again.
	f.join(seeded[0], keep.InviteCode)
}

// TestRenamePlayer: the profile and every copy of the name (predictions, standings, league
// rows, the owner's name on the league and its code) take the new name, with one
// moderation entry; none for the same name or a player without a profile.
func TestRenamePlayer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	f.submit("ann", ev, 0, 0, 0)
	_, err := f.s.Register(ctxT(t), "ann", "Rude Name")
	mustOK(t, err)
	l := f.createLeague("ann", "Ann's")
	ctx := domain.WithActor(ctxT(t), domain.UserRef{ID: "mod-1", Name: "Moderator"})

	u, err := f.s.RenamePlayer(ctx, "ann", "Player 7")
	mustOK(t, err)
	if u.Name != "Player 7" {
		t.Fatalf("renamed %+v", u)
	}
	for sk, c := range f.nameCopies("ann") {
		if !strings.HasPrefix(c, "Player 7@") {
			t.Fatalf("%s still carries %s", sk, c)
		}
	}
	got, _, err := f.s.GetLeague(ctxT(t), l.ID, "ann", true)
	mustOK(t, err)
	if got.Owner.Name != "Player 7" || got.Members[0].User.Name != "Player 7" {
		t.Fatalf("league %+v", got)
	}
	if p, err := f.s.LeagueByInvite(ctxT(t), l.InviteCode); err != nil || p.Owner.Name != "Player 7" {
		t.Fatalf("preview %+v %v", p, err)
	}
	_, err = f.s.RenamePlayer(ctx, "ann", "Player 7")
	mustOK(t, err)
	_, err = f.s.RenamePlayer(ctx, "nobody", "Name")
	wantCode(t, err, domain.CodeNotFound)
	_, err = f.s.RenamePlayer(ctx, "ann", "")
	wantCode(t, err, domain.CodeBadUserInput)
	entries := f.moderationEntries(domain.ActionRenamePlayer)
	if len(entries) != 1 || entries[0].Summary != fmt.Sprintf("player ann renamed from %q to %q", "Rude Name", "Player 7") {
		t.Fatalf("moderation entries %+v", entries)
	}
}
