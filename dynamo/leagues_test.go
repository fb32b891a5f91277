package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
)

func ref(id string) domain.UserRef { return domain.UserRef{ID: id, Name: "Player " + id} }

// createLeague creates a league owned by owner.
func (f *fixture) createLeague(owner, name string) domain.League {
	f.t.Helper()
	l, err := f.s.CreateLeague(ctxT(f.t), ref(owner), name)
	mustOK(f.t, err)
	return l
}

// join makes user join with code, one second after the previous join (the clock moves on).
func (f *fixture) join(user, code string) domain.League {
	f.t.Helper()
	f.clock.Advance(time.Second)
	l, err := f.s.JoinLeague(ctxT(f.t), ref(user), code)
	mustOK(f.t, err)
	return l
}

// countPartition counts the items of main-table partition pk whose sort key begins with
// prefix, consistently.
func (f *fixture) countPartition(pk, prefix string) int {
	f.t.Helper()
	q := &dynamodb.QueryInput{
		TableName: aws.String(f.table), Select: types.SelectCount, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.StringValue(pk), ":p": table.StringValue(prefix)},
	}
	if prefix == "" {
		q.KeyConditionExpression = aws.String("PK = :pk")
		delete(q.ExpressionAttributeValues, ":p")
	}
	return f.count(q)
}

// leagueCount is the player's stored league count (0 when the item is missing).
func (f *fixture) leagueCount(user string) int {
	f.t.Helper()
	item := f.getRaw(table.UserPK(table.UserID(user)), table.LeagueCountSK)
	if item == nil {
		return 0
	}
	var n int
	fmt.Sscan(item["leagues"].(*types.AttributeValueMemberN).Value, &n)
	return n
}

// leagueIDs is the ids of the leagues the player has a membership row of.
func (f *fixture) leagueIDs(user string) []string {
	f.t.Helper()
	q, err := f.s.db.NewQuery("", table.PrefixRange(table.UserPK(table.UserID(user)), table.MembershipKeyPrefix), 0, true)
	mustOK(f.t, err)
	q.ConsistentRead = aws.Bool(true)
	var ids []string
	mustOK(f.t, f.s.db.QueryEach(ctxT(f.t), q, func(item map[string]types.AttributeValue) (bool, error) {
		ids = append(ids, table.ItemString(item, "leagueId"))
		return true, nil
	}))
	return ids
}

// checkLeague checks that the league's stored state is whole: the league item's member
// count equals its member rows, the invite item of its code shows the same name, owner and
// count, the owner is a member, and every member has their membership row.
func (f *fixture) checkLeague(id string, wantCount int, wantOwner string) {
	f.t.Helper()
	l, _, err := f.s.GetLeague(ctxT(f.t), id, "", false)
	mustOK(f.t, err)
	lid := table.LeagueID(id)
	if rows := f.countPartition(table.LeaguePK(lid), table.MemberKeyPrefix); l.MemberCount != wantCount || rows != wantCount {
		f.t.Fatalf("league %s: memberCount %d, %d member rows, want %d", id, l.MemberCount, rows, wantCount)
	}
	if l.Owner.ID != wantOwner {
		f.t.Fatalf("owner %q, want %q", l.Owner.ID, wantOwner)
	}
	inv, err := f.s.LeagueByInvite(ctxT(f.t), l.InviteCode)
	mustOK(f.t, err)
	if !reflect.DeepEqual(inv, l) {
		f.t.Fatalf("the invite item shows %+v, the league is %+v", inv, l)
	}
	l, _, err = f.s.GetLeague(ctxT(f.t), id, "", true)
	mustOK(f.t, err)
	members := l.Members
	owner := false
	for _, m := range members {
		owner = owner || m.User.ID == wantOwner
		if f.getRaw(table.UserPK(table.UserID(m.User.ID)), table.MembershipSK(lid)) == nil {
			f.t.Fatalf("member %s has no membership row", m.User.ID)
		}
		if ids := f.leagueIDs(m.User.ID); !slices.Contains(ids, id) {
			f.t.Fatalf("member %s's league item lists %v, not %s", m.User.ID, ids, id)
		}
	}
	if !owner {
		f.t.Fatalf("the owner %s is not a member", wantOwner)
	}
}

// costOf runs fn with a cost-counting context and returns the calls per operation.
func costOf(t *testing.T, fn func(ctx context.Context)) map[string]int {
	t.Helper()
	ctx, c := ddb.WithCost(ctxT(t))
	fn(ctx)
	return c.Snapshot().Operations
}

func wantOps(t *testing.T, got map[string]int, want map[string]int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("DynamoDB calls %v, want %v", got, want)
	}
}

func TestLeagueLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var l domain.League
	t.Run("CreateIsProfileReadAndOneTransaction", func(t *testing.T) {
		f := f.on(t)
		ops := costOf(t, func(ctx context.Context) {
			var err error
			l, err = f.s.CreateLeague(ctx, ref("alice"), "  Friday Night Crew ")
			mustOK(t, err)
		})
		wantOps(t, ops, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1})
		if l.Name != "Friday Night Crew" || l.Owner != ref("alice") || l.MemberCount != 1 || len(l.InviteCode) != domain.InviteCodeLen {
			t.Fatalf("created %+v", l)
		}
		f.checkLeague(l.ID, 1, "alice")
		if n := f.leagueCount("alice"); n != 1 {
			t.Fatalf("alice's league count %d", n)
		}
	})
	t.Run("ReadIsOneCall", func(t *testing.T) {
		for user, member := range map[string]bool{"alice": true, "bob": false, "": false} {
			ops := costOf(t, func(ctx context.Context) {
				got, isMember, err := f.s.GetLeague(ctx, l.ID, user, false)
				mustOK(t, err)
				if !reflect.DeepEqual(got, l) || isMember != member {
					t.Fatalf("GetLeague as %q: %+v member %v", user, got, isMember)
				}
			})
			wantOps(t, ops, map[string]int{"BatchGetItem": 1})
		}
	})
	t.Run("ReadWithMembersIsOneQuery", func(t *testing.T) {
		for user, member := range map[string]bool{"alice": true, "bob": false} {
			ops := costOf(t, func(ctx context.Context) {
				got, isMember, err := f.s.GetLeague(ctx, l.ID, user, true)
				mustOK(t, err)
				want := l
				want.Members = []domain.LeagueMember{{User: ref("alice"), JoinedAt: t0}}
				if !reflect.DeepEqual(got, want) || isMember != member {
					t.Fatalf("GetLeague as %q with members: %+v member %v", user, got, isMember)
				}
			})
			wantOps(t, ops, map[string]int{"Query": 1})
		}
		_, _, err := f.s.GetLeague(ctxT(t), domain.NewLeagueID(), "alice", true)
		wantCode(t, err, domain.CodeNotFound)
	})
	t.Run("PreviewByInviteIsOneGetItem", func(t *testing.T) {
		ops := costOf(t, func(ctx context.Context) {
			got, err := f.s.LeagueByInvite(ctx, " "+strings.ToLower(l.InviteCode)+" ")
			mustOK(t, err)
			if !reflect.DeepEqual(got, l) {
				t.Fatalf("preview %+v, want %+v", got, l)
			}
		})
		wantOps(t, ops, map[string]int{"GetItem": 1})
	})
	t.Run("JoinIsBatchGetAndOneTransaction", func(t *testing.T) {
		f := f.on(t)
		ops := costOf(t, func(ctx context.Context) {
			got, err := f.s.JoinLeague(ctx, ref("bob"), l.InviteCode)
			mustOK(t, err)
			if got.ID != l.ID || got.MemberCount != 2 {
				t.Fatalf("joined %+v", got)
			}
		})
		wantOps(t, ops, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1})
		f.checkLeague(l.ID, 2, "alice")
	})
	t.Run("JoinAgainChangesNothing", func(t *testing.T) {
		f := f.on(t)
		got, err := f.s.JoinLeague(ctxT(t), ref("bob"), l.InviteCode)
		mustOK(t, err)
		if got.MemberCount != 2 {
			t.Fatalf("joined again: %+v", got)
		}
		f.checkLeague(l.ID, 2, "alice")
		if n := f.leagueCount("bob"); n != 1 {
			t.Fatalf("bob's league count %d", n)
		}
	})
	t.Run("CodeInLowerCase", func(t *testing.T) {
		f := f.on(t)
		f.join("carol", strings.ToLower(l.InviteCode))
		f.checkLeague(l.ID, 3, "alice")
	})
	t.Run("UserLeaguesIsQueryAndBatchGet", func(t *testing.T) {
		f := f.on(t)
		other := f.createLeague("bob", "Another League")
		ops := costOf(t, func(ctx context.Context) {
			got, err := f.s.UserLeagues(ctx, "bob")
			mustOK(t, err)
			if names := mapIDs(got, func(l domain.League) string { return l.Name }); !slices.Equal(names, []string{"Another League", "Friday Night Crew"}) {
				t.Fatalf("bob's leagues %v", names)
			}
		})
		wantOps(t, ops, map[string]int{"Query": 1, "BatchGetItem": 1})
		got, err := f.s.UserLeagues(ctxT(t), "dave")
		mustOK(t, err)
		if len(got) != 0 || got == nil {
			t.Fatalf("dave's leagues %v", got)
		}
		mustOK(t, f.s.LeaveLeague(ctxT(t), "bob", other.ID))
	})
	t.Run("MemberLeavesIsBatchGetAndOneTransaction", func(t *testing.T) {
		f := f.on(t)
		ops := costOf(t, func(ctx context.Context) { mustOK(t, f.s.LeaveLeague(ctx, "carol", l.ID)) })
		wantOps(t, ops, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1})
		f.checkLeague(l.ID, 2, "alice")
		if f.getRaw(table.UserPK("carol"), table.MembershipSK(table.LeagueID(l.ID))) != nil || f.leagueCount("carol") != 0 || len(f.leagueIDs("carol")) != 0 {
			t.Fatal("carol's membership is still there")
		}
		wantCode(t, f.s.LeaveLeague(ctxT(t), "carol", l.ID), domain.CodeNotFound)
	})
	t.Run("OwnerLeavesHandsOverToLongestStanding", func(t *testing.T) {
		f := f.on(t)
		f.join("erin", l.InviteCode)
		f.join("dan", l.InviteCode)
		// alice (owner), bob (first to join), erin, dan.
		ops := costOf(t, func(ctx context.Context) { mustOK(t, f.s.LeaveLeague(ctx, "alice", l.ID)) })
		wantOps(t, ops, map[string]int{"BatchGetItem": 1, "Query": 1, "TransactWriteItems": 1})
		f.checkLeague(l.ID, 3, "bob")
		mustOK(t, f.s.LeaveLeague(ctxT(t), "bob", l.ID))
		f.checkLeague(l.ID, 2, "erin")
	})
	t.Run("LastMemberLeavingDeletesTheLeague", func(t *testing.T) {
		f := f.on(t)
		code := mustLeague(f.s.GetLeague(ctxT(t), l.ID, "", false)).InviteCode
		mustOK(t, f.s.LeaveLeague(ctxT(t), "dan", l.ID))
		f.checkLeague(l.ID, 1, "erin")
		mustOK(t, f.s.LeaveLeague(ctxT(t), "erin", l.ID))
		_, _, err := f.s.GetLeague(ctxT(t), l.ID, "erin", false)
		wantCode(t, err, domain.CodeNotFound)
		if n := f.countPartition(table.LeaguePK(table.LeagueID(l.ID)), ""); n != 0 {
			t.Fatalf("%d items left in the league's partition", n)
		}
		if f.getRaw(table.InvitePK(code), table.InviteSK) != nil {
			t.Fatal("the invite item is still there")
		}
		_, err = f.s.JoinLeague(ctxT(t), ref("zed"), code)
		wantCode(t, err, domain.CodeNotFound)
		for _, u := range []string{"alice", "bob", "carol", "dan", "erin"} {
			if n := f.countPartition(table.UserPK(table.UserID(u)), table.MembershipKeyPrefix); n != 0 || f.leagueCount(u) != 0 {
				t.Fatalf("%s: %d memberships, count %d", u, n, f.leagueCount(u))
			}
		}
	})
}

func mustLeague(l domain.League, _ bool, err error) domain.League {
	if err != nil {
		panic(err)
	}
	return l
}

func TestLeagueOwnerHandOverTieGoesToLowestID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("owner", "Tied")
	for _, u := range []string{"zoe", "yan", "xia"} { // same instant: the clock does not move
		_, err := f.s.JoinLeague(ctxT(t), ref(u), l.InviteCode)
		mustOK(t, err)
	}
	mustOK(t, f.s.LeaveLeague(ctxT(t), "owner", l.ID))
	f.checkLeague(l.ID, 3, "xia")
}

func TestLeagueRotateInviteCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("alice", "Rotating")
	f.join("bob", l.InviteCode)
	t.Run("OwnerOnly", func(t *testing.T) {
		_, err := f.s.RotateInviteCode(ctxT(t), "bob", l.ID)
		wantCode(t, err, domain.CodeForbidden)
		_, err = f.s.RotateInviteCode(ctxT(t), "alice", domain.NewLeagueID())
		wantCode(t, err, domain.CodeNotFound)
		_, err = f.s.RotateInviteCode(ctxT(t), "alice", "not-a-league")
		wantCode(t, err, domain.CodeBadUserInput)
	})
	t.Run("OldCodeStopsWorking", func(t *testing.T) {
		f := f.on(t)
		var got domain.League
		ops := costOf(t, func(ctx context.Context) {
			var err error
			got, err = f.s.RotateInviteCode(ctx, "alice", l.ID)
			mustOK(t, err)
		})
		wantOps(t, ops, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1})
		if got.InviteCode == l.InviteCode || got.MemberCount != 2 || got.Owner.ID != "alice" {
			t.Fatalf("rotated %+v (old code %s)", got, l.InviteCode)
		}
		_, err := f.s.LeagueByInvite(ctxT(t), l.InviteCode)
		wantCode(t, err, domain.CodeNotFound)
		_, err = f.s.JoinLeague(ctxT(t), ref("carol"), l.InviteCode)
		wantCode(t, err, domain.CodeNotFound)
		if f.getRaw(table.InvitePK(l.InviteCode), table.InviteSK) != nil {
			t.Fatal("the old code's item is still there")
		}
		f.join("carol", got.InviteCode)
		f.checkLeague(l.ID, 3, "alice")
	})
}

func TestLeagueInputErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	for name, err := range map[string]error{
		"EmptyName":    second(f.s.CreateLeague(ctx, ref("alice"), "   ")),
		"LongName":     second(f.s.CreateLeague(ctx, ref("alice"), strings.Repeat("a", 61))),
		"ControlChars": second(f.s.CreateLeague(ctx, ref("alice"), "Bad\u202eName")),
		"ShortCode":    second(f.s.JoinLeague(ctx, ref("alice"), "ABC")),
		"CodeWithO":    second(f.s.JoinLeague(ctx, ref("alice"), "OOOOOOOOOOOOO")),
		"KeyInCode":    second(f.s.LeagueByInvite(ctx, "AB#CDEFGHJKLM")),
		"LeagueID":     third(f.s.GetLeague(ctx, "LEAGUE#x", "alice", false)),
		"LeaveID":      f.s.LeaveLeague(ctx, "alice", "x#y"),
		"StandingsID":  second(f.s.LeagueStandings(ctx, domain.League{ID: "nope"}, 2030, 10, "")),
		"Season":       second(f.s.LeagueStandings(ctx, domain.League{ID: domain.NewLeagueID()}, 30, 10, "")),
	} {
		t.Run(name, func(t *testing.T) { wantCode(t, err, domain.CodeBadUserInput) })
	}
	t.Run("UnknownCode", func(t *testing.T) {
		_, err := f.s.JoinLeague(ctx, ref("alice"), domain.NewInviteCode())
		wantCode(t, err, domain.CodeNotFound)
		_, err = f.s.LeagueByInvite(ctx, domain.NewInviteCode())
		wantCode(t, err, domain.CodeNotFound)
	})
	t.Run("LeaveUnknownLeague", func(t *testing.T) {
		wantCode(t, f.s.LeaveLeague(ctx, "alice", domain.NewLeagueID()), domain.CodeNotFound)
	})
}

func second[A, B any](_ A, b B) B        { return b }
func third[A, B, C any](_ A, _ B, c C) C { return c }

// TestLeagueLimitPerPlayer: a player in 20 leagues can neither create nor join another, and
// can again once they leave one.
func TestLeagueLimitPerPlayer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ls []domain.League
	for i := range domain.MaxLeaguesPerPlayer {
		ls = append(ls, f.createLeague("busy", fmt.Sprintf("League %02d", i)))
	}
	open := f.createLeague("host", "Open Door")
	_, err := f.s.CreateLeague(ctxT(t), ref("busy"), "One Too Many")
	wantCode(t, err, domain.CodeConflict)
	_, err = f.s.JoinLeague(ctxT(t), ref("busy"), open.InviteCode)
	wantCode(t, err, domain.CodeConflict)
	f.checkLeague(open.ID, 1, "host")
	if n := f.leagueCount("busy"); n != domain.MaxLeaguesPerPlayer {
		t.Fatalf("league count %d", n)
	}
	// Joining one of their own leagues again is not a new league.
	_, err = f.s.JoinLeague(ctxT(t), ref("busy"), ls[3].InviteCode)
	mustOK(t, err)
	mustOK(t, f.s.LeaveLeague(ctxT(t), "busy", ls[0].ID))
	f.join("busy", open.InviteCode)
	f.checkLeague(open.ID, 2, "host")
	leagues, err := f.s.UserLeagues(ctxT(t), "busy")
	mustOK(t, err)
	if len(leagues) != domain.MaxLeaguesPerPlayer {
		t.Fatalf("%d leagues", len(leagues))
	}
}

// seedMembers writes n member rows (and their memberships and league counts) into a league
// directly, as n joins would, and adds n to the league's and its invite's member count.
func (f *fixture) seedMembers(l domain.League, prefix string, n int) []string {
	f.t.Helper()
	lid := table.LeagueID(l.ID)
	at := t0.Add(-time.Hour).Format(table.JoinTimeLayout)
	var items []map[string]types.AttributeValue
	var users []string
	for i := range n {
		u := fmt.Sprintf("%s%04d", prefix, i)
		users = append(users, u)
		items = append(items,
			marshal(f.t, table.MemberRow{Keys: table.Keys{PK: table.LeaguePK(lid), SK: table.MemberSK(table.UserID(u))}, Type: table.TypeMember, LeagueID: l.ID, UserID: u, UserName: "Player " + u, JoinedAt: at}, 0),
			marshal(f.t, table.MembershipRow{Keys: table.Keys{PK: table.UserPK(table.UserID(u)), SK: table.MembershipSK(lid)}, Type: table.TypeMembership, LeagueID: l.ID, JoinedAt: at}, 0),
			map[string]types.AttributeValue{table.AttrPK: table.StringValue(table.UserPK(table.UserID(u))), table.AttrSK: table.StringValue(table.LeagueCountSK), table.AttrType: table.StringValue(table.TypeLeagueCount),
				"leagues": num(1)},
		)
	}
	f.putRaw(items)
	for _, key := range []map[string]types.AttributeValue{table.Key(table.LeaguePK(lid), table.LeagueSK), table.Key(table.InvitePK(l.InviteCode), table.InviteSK)} {
		_, err := f.db.UpdateItem(ctxT(f.t), &dynamodb.UpdateItemInput{TableName: aws.String(f.table), Key: key,
			UpdateExpression: aws.String("ADD memberCount :n"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(n)}})
		if err != nil {
			f.t.Fatalf("seed member count: %v", err)
		}
	}
	return users
}

// TestLeagueMemberCapUnderConcurrentJoins: a league 10 short of the cap, 30 players join
// at once: exactly 10 get in, 20 get CONFLICT, and the count equals the member rows.
func TestLeagueMemberCapUnderConcurrentJoins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("host", "Packed House")
	f.seedMembers(l, "seed", domain.MaxLeagueMembers-11)
	f.checkLeague(l.ID, domain.MaxLeagueMembers-10, "host")
	const joiners = 30
	codes := make([]domain.Code, joiners)
	var wg sync.WaitGroup
	for i := range joiners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.s.JoinLeague(ctxT(t), ref(fmt.Sprintf("rush%02d", i)), l.InviteCode)
			codes[i] = domain.ErrorCode(err)
		}()
	}
	wg.Wait()
	got := map[domain.Code]int{}
	for _, c := range codes {
		got[c]++
	}
	if got[""] != 10 || got[domain.CodeConflict] != 20 {
		t.Fatalf("joins: %v, want 10 in and 20 CONFLICT", got)
	}
	f.checkLeague(l.ID, domain.MaxLeagueMembers, "host")
	for i := range joiners {
		u := fmt.Sprintf("rush%02d", i)
		member := f.getRaw(table.LeaguePK(table.LeagueID(l.ID)), table.MemberSK(table.UserID(u))) != nil
		if member != (codes[i] == "") || f.leagueCount(u) != map[bool]int{true: 1}[member] {
			t.Fatalf("%s: answer %q, member row %v, league count %d", u, codes[i], member, f.leagueCount(u))
		}
	}
	t.Run("FullLeagueIsConflict", func(t *testing.T) {
		_, err := f.s.JoinLeague(ctxT(t), ref("late"), l.InviteCode)
		wantCode(t, err, domain.CodeConflict)
	})
	t.Run("OwnerHandOverAtTheCap", func(t *testing.T) {
		f := f.on(t)
		mustOK(t, f.s.LeaveLeague(ctxT(t), "host", l.ID))
		f.checkLeague(l.ID, domain.MaxLeagueMembers-1, "seed0000") // seeded an hour earlier; lowest id
	})
}

// TestLeagueStandings: members ranked by their whole season (ties share a rank), members
// who have not played at 0, pages joined by signed cursors; read from the copies the
// joins made of the members' standings (one Query with the league, none after it), or by
// key for member rows without copies (written before copies existed).
func TestLeagueStandings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Standings of 2030: ann 40, ben 25, cat 40, dov none (0), eve 25; zak (not a member) 99;
	// ann also has 2029.
	f.putRaw([]map[string]types.AttributeValue{
		standingItem(t, f.shards, "ann", 2030, 40, 0), standingItem(t, f.shards, "ben", 2030, 25, 0), standingItem(t, f.shards, "cat", 2030, 40, 0),
		standingItem(t, f.shards, "eve", 2030, 25, 0), standingItem(t, f.shards, "zak", 2030, 99, 0), standingItem(t, f.shards, "ann", 2029, 7, 0),
	})
	l := f.createLeague("ann", "Table")
	for _, u := range []string{"ben", "cat", "dov", "eve"} {
		f.join(u, l.InviteCode)
	}
	other := f.createLeague("zak", "Other")
	type row struct {
		user         string
		rank, points int
	}
	rowsOf := func(p domain.Page[domain.Standing]) []row {
		var out []row
		for _, s := range p.Items {
			out = append(out, row{s.User.ID, *s.Rank, s.Points})
		}
		return out
	}
	want := []row{{"ann", 1, 40}, {"cat", 1, 40}, {"ben", 3, 25}, {"eve", 3, 25}, {"dov", 5, 0}}
	t.Run("WholeLeague", func(t *testing.T) {
		var page domain.Page[domain.Standing]
		ops := costOf(t, func(ctx context.Context) {
			var err error
			page, err = f.s.LeagueStandings(ctx, domain.League{ID: l.ID}, 2030, 50, "")
			mustOK(t, err)
		})
		wantOps(t, ops, map[string]int{"Query": 1, "BatchGetItem": 1})
		if got := rowsOf(page); !slices.Equal(got, want) || page.HasNext {
			t.Fatalf("standings %v (next %v), want %v", got, page.HasNext, want)
		}
		if dov := page.Items[4]; dov.User.Name != "Player dov" || dov.Season != 2030 || dov.EventsPlayed != 0 {
			t.Fatalf("a member without a standing: %+v", dov)
		}
	})
	t.Run("WithTheLeaguesMembers", func(t *testing.T) {
		withMembers, _, err := f.s.GetLeague(ctxT(t), l.ID, "ann", true)
		mustOK(t, err)
		var page domain.Page[domain.Standing]
		ops := costOf(t, func(ctx context.Context) {
			page, err = f.s.LeagueStandings(ctx, withMembers, 2030, 50, "")
			mustOK(t, err)
		})
		wantOps(t, ops, map[string]int{"BatchGetItem": 1})
		if got := rowsOf(page); !slices.Equal(got, want) {
			t.Fatalf("standings %v, want %v", got, want)
		}
	})
	t.Run("Pages", func(t *testing.T) {
		var got []row
		after := ""
		for range 3 {
			page, err := f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2030, 2, after)
			mustOK(t, err)
			got = append(got, rowsOf(page)...)
			after = page.EndCursor()
			if !page.HasNext {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("paged %v, want %v", got, want)
		}
	})
	t.Run("CursorOfAnotherListIsBadInput", func(t *testing.T) {
		page, err := f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2030, 2, "")
		mustOK(t, err)
		cur := page.EndCursor()
		_, err = f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2029, 2, cur)
		wantCode(t, err, domain.CodeBadUserInput)
		_, err = f.s.LeagueStandings(ctxT(t), domain.League{ID: other.ID}, 2030, 2, cur)
		wantCode(t, err, domain.CodeBadUserInput)
		std, err := f.s.Standings(ctxT(t), 2030, 2, "")
		mustOK(t, err)
		_, err = f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2030, 2, std.EndCursor())
		wantCode(t, err, domain.CodeBadUserInput)
	})
	t.Run("OtherSeason", func(t *testing.T) {
		page, err := f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2029, 50, "")
		mustOK(t, err)
		if got := rowsOf(page); !slices.Equal(got, []row{{"ann", 1, 7}, {"ben", 2, 0}, {"cat", 2, 0}, {"dov", 2, 0}, {"eve", 2, 0}}) {
			t.Fatalf("2029: %v", got)
		}
	})
}

// TestLeagueStandingsAtTheMemberCap: 1,000 members cost one Query and ten BatchGetItems
// (in parallel), and every member is ranked.
func TestLeagueStandingsAtTheMemberCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("host", "Full House")
	users := f.seedMembers(l, "m", domain.MaxLeagueMembers-1)
	var standings []map[string]types.AttributeValue
	for i, u := range users {
		if i%3 != 0 { // a third have not played
			standings = append(standings, standingItem(t, f.shards, u, 2030, i, 0))
		}
	}
	f.putRaw(standings)
	var page domain.Page[domain.Standing]
	ops := costOf(t, func(ctx context.Context) {
		var err error
		page, err = f.s.LeagueStandings(ctx, domain.League{ID: l.ID}, 2030, 100, "")
		mustOK(t, err)
	})
	wantOps(t, ops, map[string]int{"Query": 1, "BatchGetItem": 10})
	if len(page.Items) != 100 || !page.HasNext || page.Items[0].User.ID != users[998] || page.Items[0].Points != 998 {
		t.Fatalf("first page: %d rows, next %v, top %+v", len(page.Items), page.HasNext, page.Items[0])
	}
	total := 0
	for after := ""; ; {
		p, err := f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2030, 100, after)
		mustOK(t, err)
		total += len(p.Items)
		if !p.HasNext {
			last := p.Items[len(p.Items)-1]
			if last.Points != 0 || *last.Rank != domain.MaxLeagueMembers-len(users)/3 {
				t.Fatalf("last row %+v rank %d", last, *last.Rank)
			}
			break
		}
		after = p.EndCursor()
	}
	if total != domain.MaxLeagueMembers {
		t.Fatalf("%d rows, want %d", total, domain.MaxLeagueMembers)
	}
}

// TestLeaguesLeaveTheProfileReadAlone: memberships are in the player's partition but never
// cost the profile's Query anything.
func TestLeaguesLeaveTheProfileReadAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-04-01-spring-show", 20, standardCard())
	f.submit("pat", ev, 0, 1, 0)
	for i := range domain.MaxLeaguesPerPlayer {
		f.createLeague("pat", fmt.Sprintf("League %02d", i))
	}
	f.putRaw([]map[string]types.AttributeValue{standingItem(t, f.shards, "pat", 2030, 5, 0)})
	ops := costOf(t, func(ctx context.Context) {
		u, page, err := f.s.GetUser(ctx, "pat", 20, true)
		mustOK(t, err)
		if u.Name != "Player pat" || len(u.Standings) != 1 || len(page.Items) != 1 || page.HasNext {
			t.Fatalf("profile %+v, %d predictions (next %v)", u, len(page.Items), page.HasNext)
		}
	})
	if ops["Query"] != 1 {
		t.Fatalf("profile read: %v", ops)
	}
}

// TestLeagueConcurrentLeavesAndJoins: the last two members leaving at once both succeed
// and leave nothing behind; an owner leaving while others join and leave hands over to a
// member, and the count still equals the member rows.
func TestLeagueConcurrentLeavesAndJoins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	t.Run("LastTwoLeaveAtOnce", func(t *testing.T) {
		f := f.on(t)
		for round := range 5 {
			l := f.createLeague("pair-a", fmt.Sprintf("Pair %d", round))
			f.join("pair-b", l.InviteCode)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, u := range []string{"pair-a", "pair-b"} {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = f.s.LeaveLeague(ctxT(t), u, l.ID) }()
			}
			wg.Wait()
			mustOK(t, errs[0])
			mustOK(t, errs[1])
			if n := f.countPartition(table.LeaguePK(table.LeagueID(l.ID)), ""); n != 0 || f.getRaw(table.InvitePK(l.InviteCode), table.InviteSK) != nil {
				t.Fatalf("round %d: %d items left in the league, invite %v", round, n, f.getRaw(table.InvitePK(l.InviteCode), table.InviteSK) != nil)
			}
		}
		for _, u := range []string{"pair-a", "pair-b"} {
			if f.leagueCount(u) != 0 || len(f.leagueIDs(u)) != 0 {
				t.Fatalf("%s: count %d, ids %v", u, f.leagueCount(u), f.leagueIDs(u))
			}
		}
	})
	t.Run("OwnerLeavesDuringJoinsAndLeaves", func(t *testing.T) {
		f := f.on(t)
		l := f.createLeague("boss", "Busy Night")
		for i := range 10 {
			f.join(fmt.Sprintf("stay%02d", i), l.InviteCode)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 21)
		wg.Add(1)
		go func() { defer wg.Done(); errs <- f.s.LeaveLeague(ctxT(t), "boss", l.ID) }()
		for i := range 10 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := f.s.JoinLeague(ctxT(t), ref(fmt.Sprintf("new%02d", i)), l.InviteCode)
				errs <- err
			}()
			go func() { defer wg.Done(); errs <- f.s.LeaveLeague(ctxT(t), fmt.Sprintf("stay%02d", i), l.ID) }()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			mustOK(t, err)
		}
		got, _, err := f.s.GetLeague(ctxT(t), l.ID, "", false)
		mustOK(t, err)
		if got.Owner.ID == "boss" || got.MemberCount != 10 {
			t.Fatalf("after the rush: %+v", got)
		}
		f.checkLeague(l.ID, 10, got.Owner.ID)
	})
}

// TestLeagueJoinsAtTheCapUnderTransactionConflicts: on an engine where overlapping
// transactions conflict (as on AWS; DynamoDB Local serialises them), joiners racing for the
// last places of a league are retried, never counted twice: the member count equals the
// member rows, never passes the cap, and each joiner is in, CONFLICT (full) or, when the
// retries ran out, UNAVAILABLE without having joined.
func TestLeagueJoinsAtTheCapUnderTransactionConflicts(t *testing.T) {
	t.Parallel()
	eng := awsfaithful.New(t, awsfaithful.Config{TransactionHold: 20 * time.Millisecond})
	db := eng.Client(t, ddb.CostOption)
	f := &fixture{t: t, db: db, table: dynamotest.TableName(), clock: testclock.New(t0)}
	f.s = New(db, f.table, WithClock(f.clock.Now), WithScoreShards(testShards))
	mustOK(t, f.s.EnsureTable(ctxT(t)))
	l := f.createLeague("host", "Last Seats")
	// Seeded straight into DynamoDB Local (the proxy adds nothing to bulk writes of items
	// no index holds).
	direct := *f
	direct.db = dynamotest.Client(t, ddb.CostOption)
	direct.seedMembers(l, "seed", domain.MaxLeagueMembers-4) // 3 places left
	const joiners = 8
	codes := make([]domain.Code, joiners)
	var wg sync.WaitGroup
	for i := range joiners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.s.JoinLeague(ctxT(t), ref(fmt.Sprintf("race%d", i)), l.InviteCode)
			codes[i] = domain.ErrorCode(err)
		}()
	}
	wg.Wait()
	got := map[domain.Code]int{}
	for _, c := range codes {
		got[c]++
	}
	if eng.Faults().Conflicts == 0 {
		t.Fatal("the engine raised no TransactionConflict: the test did not race")
	}
	if got[""] > 3 || got[""]+got[domain.CodeConflict]+got[domain.CodeUnavailable] != joiners || got[domain.CodeUnavailable] == 0 && got[""] != 3 {
		t.Fatalf("joins: %v", got)
	}
	f.checkLeague(l.ID, domain.MaxLeagueMembers-3+got[""], "host")
	for i := range joiners {
		u := fmt.Sprintf("race%d", i)
		if member := f.getRaw(table.LeaguePK(table.LeagueID(l.ID)), table.MemberSK(table.UserID(u))) != nil; member != (codes[i] == "") {
			t.Fatalf("%s: answer %q, member row %v", u, codes[i], member)
		}
	}
	t.Logf("joins %v, %d TransactionConflicts", got, eng.Faults().Conflicts)
}

// TestLeagueNamesFollowRenames: league rows carry the player's profile name (the token's
// when they have none) and follow Register: the owner's name on the league and its invite,
// a member's name in the league's standings, and after a hand-over the new owner's.
func TestLeagueNamesFollowRenames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	_, err := f.s.Register(ctx, "ana", "Ana Profile")
	mustOK(t, err)
	l := f.createLeague("ana", "Names") // token name "Player ana", profile "Ana Profile"
	if l.Owner.Name != "Ana Profile" {
		t.Fatalf("owner %+v", l.Owner)
	}
	f.join("bo", l.InviteCode) // no profile: the token's name
	ownerName := func() (string, string) {
		t.Helper()
		got, _, err := f.s.GetLeague(ctxT(t), l.ID, "", false)
		mustOK(t, err)
		inv, err := f.s.LeagueByInvite(ctxT(t), got.InviteCode)
		mustOK(t, err)
		return got.Owner.Name, inv.Owner.Name
	}
	nameInStandings := func(user string) string {
		t.Helper()
		page, err := f.s.LeagueStandings(ctxT(t), domain.League{ID: l.ID}, 2030, 50, "")
		mustOK(t, err)
		for _, st := range page.Items {
			if st.User.ID == user {
				return st.User.Name
			}
		}
		t.Fatalf("%s is not in the standings", user)
		return ""
	}
	if got := nameInStandings("bo"); got != "Player bo" {
		t.Fatalf("bo shows as %q", got)
	}
	_, err = f.s.Register(ctx, "ana", "Ana Renamed")
	mustOK(t, err)
	if a, b := ownerName(); a != "Ana Renamed" || b != "Ana Renamed" {
		t.Fatalf("owner name after a rename: league %q, invite %q", a, b)
	}
	_, err = f.s.Register(ctx, "bo", "Bo Registered")
	mustOK(t, err)
	if got := nameInStandings("bo"); got != "Bo Registered" {
		t.Fatalf("bo shows as %q", got)
	}
	mustOK(t, f.s.LeaveLeague(ctx, "ana", l.ID))
	if a, b := ownerName(); a != "Bo Registered" || b != "Bo Registered" {
		t.Fatalf("owner after the hand-over: league %q, invite %q", a, b)
	}
	_, err = f.s.Register(ctx, "bo", "Bo Owner")
	mustOK(t, err)
	if a, b := ownerName(); a != "Bo Owner" || b != "Bo Owner" {
		t.Fatalf("new owner's rename: league %q, invite %q", a, b)
	}
	// A rename that changes nothing writes nothing more: the rows are current.
	ops := costOf(t, func(ctx context.Context) {
		_, err := f.s.Register(ctx, "bo", "Bo Owner")
		mustOK(t, err)
	})
	if ops["TransactWriteItems"] != 0 {
		t.Fatalf("a same-name register wrote: %v", ops)
	}
}

// TestLeaguePagesEqualTheSeasonsStandings: a league's standings, read when viewed (one
// Query of its members, one BatchGetItem per 100 of them, at once), rank its members as the
// season's standings rank the same players — ties across the batches included, members
// without a standing at 0 — at 1, 100, 101 and 1,000 members, page after page.
func TestLeaguePagesEqualTheSeasonsStandings(t *testing.T) {
	t.Parallel()
	for _, members := range []int{1, 100, 101, domain.MaxLeagueMembers} {
		t.Run(fmt.Sprint(members), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			l := f.createLeague("host", "Big Table")
			users := append([]string{"host"}, f.seedMembers(l, "m", members-1)...)
			type row struct {
				user         string
				points, rank int
			}
			var want []row
			var items []map[string]types.AttributeValue
			for i, u := range users {
				points := 0
				if i%5 != 4 { // every fifth member has not played
					points = (i * 7) % 13 // many ties, spread over the batches
					items = append(items, standingItem(t, f.shards, u, 2030, points, 0))
				}
				want = append(want, row{user: u, points: points})
			}
			for i := range 50 { // players of the season who are not members
				items = append(items, standingItem(t, f.shards, fmt.Sprintf("x%03d", i), 2030, 20+i%3, 0))
			}
			f.putRaw(items)
			slices.SortFunc(want, func(a, b row) int { return cmp.Or(cmp.Compare(b.points, a.points), cmp.Compare(a.user, b.user)) })
			for i := range want {
				want[i].rank = i + 1
				if i > 0 && want[i].points == want[i-1].points {
					want[i].rank = want[i-1].rank
				}
			}
			var got []row
			after := ""
			for page := 0; ; page++ {
				var p domain.Page[domain.Standing]
				ops := costOf(t, func(ctx context.Context) {
					var err error
					p, err = f.s.LeagueStandings(ctx, domain.League{ID: l.ID}, 2030, 50, after)
					mustOK(t, err)
				})
				wantOps(t, ops, map[string]int{"Query": 1, "BatchGetItem": (members + 99) / 100})
				for _, st := range p.Items {
					got = append(got, row{st.User.ID, st.Points, *st.Rank})
				}
				if !p.HasNext {
					break
				}
				after = p.EndCursor()
			}
			if !slices.Equal(got, want) {
				t.Fatalf("the league's pages put together differ from its members' season standings\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestLeagueShowsLeavesAndDeletionsAtOnce: a member who leaves, and one who deletes their
// account, are gone from the league's standings at the next read.
func TestLeagueShowsLeavesAndDeletionsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	l := f.createLeague("ann", "Small Table")
	for _, u := range []string{"ben", "cat"} {
		f.join(u, l.InviteCode)
	}
	f.putRaw([]map[string]types.AttributeValue{standingItem(t, f.shards, "ann", 2030, 9, 0), standingItem(t, f.shards, "ben", 2030, 7, 0),
		standingItem(t, f.shards, "cat", 2030, 5, 0)})
	members := func() []string {
		t.Helper()
		p, err := f.s.LeagueStandings(ctx, domain.League{ID: l.ID}, 2030, 50, "")
		mustOK(t, err)
		return mapIDs(p.Items, func(s domain.Standing) string { return s.User.ID })
	}
	if got := members(); !slices.Equal(got, []string{"ann", "ben", "cat"}) {
		t.Fatalf("before: %v", got)
	}
	mustOK(t, f.s.LeaveLeague(ctx, "ben", l.ID))
	if got := members(); !slices.Equal(got, []string{"ann", "cat"}) {
		t.Fatalf("after ben left: %v", got)
	}
	mustOK(t, f.s.DeleteUser(ctx, "cat"))
	if got := members(); !slices.Equal(got, []string{"ann"}) {
		t.Fatalf("after cat deleted their account: %v", got)
	}
}

func num(n int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(n)} }
