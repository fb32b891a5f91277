package dynamo

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// checkCopies fails the test unless every member row holding copies has, for every season
// standing of its member, a copy equal to it (points, correct, events played),
// and no copy of a season the member has no standing of. It returns how many copies it
// compared.
func (f *fixture) checkCopies() int {
	f.t.Helper()
	items := f.scanAll()
	standings := map[string]map[int]seasonTotals{} // user → season → totals
	for _, it := range items {
		if itemType(it) != typeStanding {
			continue
		}
		var row standingRow
		if err := attributevalue.UnmarshalMap(it, &row); err != nil {
			f.t.Fatal(err)
		}
		if standings[row.UserID] == nil {
			standings[row.UserID] = map[int]seasonTotals{}
		}
		standings[row.UserID][row.Season] = seasonTotals{Points: row.Points, Correct: row.Correct, EventsPlayed: row.EventsPlayed}
	}
	compared := 0
	for k, it := range items {
		if itemType(it) != typeMember {
			continue
		}
		m, err := decodeMember(it)
		if err != nil {
			f.t.Fatal(err)
		}
		if !m.Copies {
			continue
		}
		want := standings[m.UserID]
		if want == nil {
			want = map[int]seasonTotals{}
		}
		if !reflect.DeepEqual(m.seasons, want) {
			f.t.Fatalf("member row %s copies %+v, standings %+v", k, m.seasons, want)
		}
		compared += len(want)
	}
	return compared
}

// stripCopies turns the member rows of users in league lid into rows written before
// copies existed.
func (f *fixture) stripCopies(lid string, users ...string) {
	f.t.Helper()
	for _, u := range users {
		item := f.getRaw(leaguePK(leagueID(lid)), memberSK(userID(u)))
		var remove []string
		names := map[string]string{}
		for name := range item {
			if name == attrCopies || len(name) == 5 && name[0] == 's' {
				names[fmt.Sprintf("#n%d", len(names))] = name
			}
		}
		for n := range names {
			remove = append(remove, n)
		}
		_, err := f.db.UpdateItem(ctxT(f.t), &dynamodb.UpdateItemInput{TableName: aws.String(f.table),
			Key: pkKey(leaguePK(leagueID(lid)), memberSK(userID(u))), UpdateExpression: aws.String("REMOVE " + strings.Join(remove, ", ")),
			ExpressionAttributeNames: names})
		mustOK(f.t, err)
	}
}

// txHookAPI runs hook (once) before the first TransactWriteItems that matches.
type txHookAPI struct {
	API
	once  sync.Once
	match func(*dynamodb.TransactWriteItemsInput) bool
	hook  func()
}

func (h *txHookAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if h.match(in) {
		h.once.Do(h.hook)
	}
	return h.API.TransactWriteItems(ctx, in, opts...)
}

// writesStanding reports whether a transaction writes a standing (a scoring batch).
func writesStanding(in *dynamodb.TransactWriteItemsInput) bool {
	for _, it := range in.TransactItems {
		var key map[string]types.AttributeValue
		switch {
		case it.Update != nil:
			key = it.Update.Key
		case it.Put != nil:
			key = it.Put.Item
		}
		if strings.HasPrefix(itemString(key, attrSK), prefixSeason) {
			return true
		}
	}
	return false
}

// TestLeagueCopies: the copies on member rows equal the standings after joins (which copy
// every season), scoring, a correction and its re-scoring, and scoring again changes
// nothing; a league's standings then read the copies only (one Query).
func TestLeagueCopies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	f.clock.Set(t0.Add(-365 * 24 * time.Hour))
	old := f.createEvent("2029-06-01-last-year", 20, standardCard())
	players := []string{"ann", "ben", "cat", "dov", "eve", "fay"}
	for i, u := range players[:3] {
		f.submit(u, old, i%2, 0, 1)
	}
	f.clock.Set(t0)
	show := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	next := f.createEvent("2030-04-02-next-show", 20, standardCard())
	for i, u := range players {
		f.submit(u, show, i%2, (i/2)%2, 0)
		f.submit(u, next, 0, i%2, 1)
	}
	// A league before anybody has a standing; ann joins a second one; fay is in none.
	a := f.createLeague("ann", "A")
	for _, u := range []string{"ben", "cat", "dov"} {
		f.join(u, a.InviteCode)
	}
	b := f.createLeague("eve", "B")
	f.join("ann", b.InviteCode)
	f.clock.Set(t0.Add(60 * 24 * time.Hour))
	f.lockAndResult(old, 0, 0, 1)
	f.score(old)
	f.lockAndResult(show, 1, 1, 0)
	if rep := f.score(show); !rep.Complete {
		t.Fatalf("scoring %+v", rep)
	}
	if n := f.checkCopies(); n == 0 {
		t.Fatal("no copy compared")
	}
	// Joining after scoring copies both seasons.
	f.join("fay", a.InviteCode)
	f.join("cat", b.InviteCode)
	f.checkCopies()
	// A correction moves standings and copies by the difference.
	_, err := f.s.SetResult(ctx, show.ID, show.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0)})
	mustOK(t, err)
	f.score(show)
	f.checkCopies()
	f.lockAndResult(next, 0, 1, 1)
	f.score(next)
	f.checkCopies()
	// Again: nothing changes.
	before := f.scanAll()
	f.score(next)
	f.score(show)
	if after := f.scanAll(); !reflect.DeepEqual(before, after) {
		t.Fatal("scoring again changed the table")
	}
	// The league's standings are the season standings of its members, from one Query.
	season, err := f.s.Standings(ctx, 2030, 50, "")
	mustOK(t, err)
	var want []string
	for _, st := range season.Items {
		if slices.Contains([]string{"ann", "ben", "cat", "dov", "fay"}, st.User.ID) {
			want = append(want, fmt.Sprintf("%s:%d:%d:%d", st.User.ID, st.Points, st.Correct, st.EventsPlayed))
		}
	}
	var page domain.Page[domain.Standing]
	ops := costOf(t, func(ctx context.Context) {
		l, _, err := f.s.GetLeague(ctx, a.ID, "ann", true)
		mustOK(t, err)
		page, err = f.s.LeagueStandings(ctx, l, 2030, 50, "")
		mustOK(t, err)
	})
	wantOps(t, ops, map[string]int{"Query": 1})
	var got []string
	for _, st := range page.Items {
		got = append(got, fmt.Sprintf("%s:%d:%d:%d", st.User.ID, st.Points, st.Correct, st.EventsPlayed))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("league standings %v, season standings of its members %v", got, want)
	}
}

// TestLeagueCopiesRaces: a join or a leave landing between scoring's reads and its
// transaction, and a scoring run landing between a join's reads and its transaction,
// leave every copy equal to its standing and no member row re-created.
func TestLeagueCopiesRaces(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	show := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	next := f.createEvent("2030-03-09-next-show", 20, standardCard())
	players := []string{"ann", "ben", "cat", "dov", "eve"}
	for i, u := range players {
		f.submit(u, show, i%2, 0, 1)
		f.submit(u, next, 1, i%2, 0)
	}
	a := f.createLeague("ann", "A")
	f.join("ben", a.InviteCode)
	f.join("cat", a.InviteCode)
	f.clock.Set(t0.Add(30 * 24 * time.Hour))
	f.lockAndResult(show, 0, 0, 1)
	f.lockAndResult(next, 1, 1, 1)

	// New standings: dov joins and cat leaves after scoring read them, before it writes.
	hooked := &txHookAPI{API: f.db, match: writesStanding, hook: func() {
		f.join("dov", a.InviteCode)
		mustOK(t, f.s.LeaveLeague(ctxT(t), "cat", a.ID))
	}}
	rep, err := f.storeOver(hooked).ScoreEvent(ctxT(t), show.ID, false)
	mustOK(t, err)
	if !rep.Complete {
		t.Fatalf("scoring %+v", rep)
	}
	f.checkCopies()
	if f.getRaw(leaguePK(leagueID(a.ID)), memberSK("cat")) != nil {
		t.Fatal("scoring re-created the member row of a player who left")
	}
	// Standings that exist: eve joins (and dov leaves) between scoring's reads and its write.
	hooked = &txHookAPI{API: f.db, match: writesStanding, hook: func() {
		f.join("eve", a.InviteCode)
		mustOK(t, f.s.LeaveLeague(ctxT(t), "dov", a.ID))
	}}
	_, err = f.storeOver(hooked).ScoreEvent(ctxT(t), next.ID, false)
	mustOK(t, err)
	f.checkCopies()
	if f.getRaw(leaguePK(leagueID(a.ID)), memberSK("dov")) != nil {
		t.Fatal("scoring re-created the member row of a player who left")
	}
	// A correction scored between cat's reads for a join and the join's transaction.
	_, err = f.s.SetResult(ctxT(t), next.ID, next.Matches[0].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(0)})
	mustOK(t, err)
	isJoin := func(in *dynamodb.TransactWriteItemsInput) bool {
		return slices.ContainsFunc(in.TransactItems, func(it types.TransactWriteItem) bool {
			return it.Put != nil && itemType(it.Put.Item) == typeMember
		})
	}
	joiner := &txHookAPI{API: f.db, match: isJoin, hook: func() { f.score(next) }}
	_, err = f.storeOver(joiner).JoinLeague(ctxT(t), ref("cat"), a.InviteCode)
	mustOK(t, err)
	f.checkCopies()
	l, _, err := f.s.GetLeague(ctxT(t), a.ID, "ann", true)
	mustOK(t, err)
	if l.MemberCount != 4 {
		t.Fatalf("league %+v", l)
	}
}

// TestLeagueCopiesConcurrent: players join and leave leagues while several runs score an
// event and its correction; every copy ends equal to its standing.
func TestLeagueCopiesConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	show := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	var players []string
	for i := range 60 {
		u := fmt.Sprintf("p%02d", i)
		players = append(players, u)
		f.submit(u, show, i%2, (i/2)%2, (i/4)%2)
	}
	leagues := []domain.League{f.createLeague("p00", "A"), f.createLeague("p01", "B")}
	f.clock.Set(t0.Add(30 * 24 * time.Hour))
	f.lockAndResult(show, 0, 1, 0)
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rep, err := f.s.ScoreEvent(ctx, show.ID, false)
				if err != nil && domain.ErrorCode(err) != domain.CodeConflict && domain.ErrorCode(err) != domain.CodeUnavailable {
					errs <- fmt.Errorf("run %d: %w", r, err)
					return
				}
				if err == nil && rep.Complete {
					return
				}
			}
		}()
	}
	for i, u := range players[2:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := leagues[i%2]
			if _, err := f.s.JoinLeague(ctx, ref(u), l.InviteCode); err != nil {
				errs <- err
				return
			}
			if i%3 == 0 {
				if err := f.s.LeaveLeague(ctx, u, l.ID); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := f.checkCopies(); n < 30 {
		t.Fatalf("%d copies compared", n)
	}
}

// TestLeagueCopiesTwentyLeagues: players in 20 leagues each make scoring transactions of
// fewer players, never over 100 items, and every copy of all of them is right.
func TestLeagueCopiesTwentyLeagues(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	show := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	// Players of one shard, so that they share pages and transactions.
	var players []string
	for i := 0; len(players) < 12; i++ {
		if u := fmt.Sprintf("busy%03d", i); scoreShard(userID(u)) == 3 {
			players = append(players, u)
		}
	}
	for i, u := range players {
		f.submit(u, show, i%2, 0, 1)
	}
	var leagues []domain.League
	for i := range domain.MaxLeaguesPerPlayer {
		leagues = append(leagues, f.createLeague(players[0], fmt.Sprintf("League %02d", i)))
	}
	for _, u := range players[1:] {
		for _, l := range leagues {
			f.join(u, l.InviteCode)
		}
	}
	f.clock.Set(t0.Add(30 * 24 * time.Hour))
	f.lockAndResult(show, 0, 0, 1)
	ctx, cost := WithCost(ctxT(t))
	rep, err := f.s.ScoreEvent(ctx, show.ID, false)
	mustOK(t, err)
	snap := cost.Snapshot()
	// 12 players × (prediction + new standing + league item + 20 copies) = 276 items.
	if !rep.Complete || rep.Transactions < 3 || snap.MaxTransactionItems > maxTransactItems {
		t.Fatalf("scoring %+v, largest transaction %d items", rep, snap.MaxTransactionItems)
	}
	if n := f.checkCopies(); n != len(players)*domain.MaxLeaguesPerPlayer {
		t.Fatalf("%d copies compared, want %d", n, len(players)*domain.MaxLeaguesPerPlayer)
	}
	before := f.scanAll()
	f.score(show)
	if !maps.EqualFunc(before, f.scanAll(), func(a, b map[string]types.AttributeValue) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatal("scoring again changed the table")
	}
}

// TestLeagueCopiesAtTheMemberCap: the standings of a league of 1,000 members whose rows
// hold copies are one Query (with the league), whichever page.
func TestLeagueCopiesAtTheMemberCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.createLeague("host", "Full House")
	users := f.seedMembers(l, "m", domain.MaxLeagueMembers-1)
	var updates []map[string]types.AttributeValue
	for i, u := range users {
		item := f.getRaw(leaguePK(leagueID(l.ID)), memberSK(userID(u)))
		item[attrCopies] = &types.AttributeValueMemberBOOL{Value: true}
		if i%3 != 0 { // a third have not played
			v, err := attributevalue.Marshal(seasonTotals{Points: i, EventsPlayed: 1})
			mustOK(t, err)
			item[seasonAttr(2030)] = v
		}
		updates = append(updates, item)
	}
	f.putRaw(updates)
	for after, pages := "", 0; ; pages++ {
		var page domain.Page[domain.Standing]
		ops := costOf(t, func(ctx context.Context) {
			withMembers, _, err := f.s.GetLeague(ctx, l.ID, "host", true)
			mustOK(t, err)
			page, err = f.s.LeagueStandings(ctx, withMembers, 2030, 100, after)
			mustOK(t, err)
		})
		wantOps(t, ops, map[string]int{"Query": 1})
		if pages == 0 && (page.Items[0].User.ID != users[998] || page.Items[0].Points != 998) {
			t.Fatalf("top %+v", page.Items[0])
		}
		if !page.HasNext {
			if pages != 9 {
				t.Fatalf("%d pages", pages+1)
			}
			break
		}
		after = page.EndCursor()
	}
}

// TestMigrateLeagueCopies: member rows written before copies existed get them from admin
// migrate (then a league's standings are one Query again); a second run finds none.
func TestMigrateLeagueCopies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	show := f.createEvent("2030-03-02-spring-show", 20, standardCard())
	for i, u := range []string{"ann", "ben", "cat"} {
		f.submit(u, show, i%2, 0, 1)
	}
	l := f.createLeague("ann", "Old League")
	f.join("ben", l.InviteCode)
	f.join("cat", l.InviteCode)
	f.clock.Set(t0.Add(30 * 24 * time.Hour))
	f.lockAndResult(show, 0, 0, 1)
	f.score(show)
	f.stripCopies(l.ID, "ann", "ben", "cat")
	f.putRaw([]map[string]types.AttributeValue{standingItem(t, "ben", 2029, 7, 0)}) // a season scored before the league

	n, err := f.s.MigrateLeagueCopies(ctxT(t))
	mustOK(t, err)
	if n != 3 {
		t.Fatalf("%d rows migrated, want 3", n)
	}
	if got := f.checkCopies(); got != 4 {
		t.Fatalf("%d copies compared, want 4", got)
	}
	ops := costOf(t, func(ctx context.Context) {
		withMembers, _, err := f.s.GetLeague(ctx, l.ID, "ann", true)
		mustOK(t, err)
		_, err = f.s.LeagueStandings(ctx, withMembers, 2030, 50, "")
		mustOK(t, err)
	})
	wantOps(t, ops, map[string]int{"Query": 1})
	n, err = f.s.MigrateLeagueCopies(ctxT(t))
	mustOK(t, err)
	if n != 0 {
		t.Fatalf("a second run migrated %d rows", n)
	}
}
