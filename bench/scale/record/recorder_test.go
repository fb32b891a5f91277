package record

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// fixture is a store over a fresh table of the package's DynamoDB Local, its events of one
// shard, its clock before the tests' events.
type fixture struct {
	t     *testing.T
	db    *dynamodb.Client
	table string
	clock *testclock.Clock
	s     *dynamo.Store
}

const fixtureShards = 1

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := dynamotest.Client(t, ddb.CostOption)
	f := &fixture{t: t, db: db, table: dynamotest.TableName(), clock: testclock.New(time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC))}
	f.s = dynamo.New(db, f.table, dynamo.WithClock(f.clock.Now), dynamo.WithScoreShards(fixtureShards))
	if err := f.s.EnsureTable(ctxT(t)); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	return f
}

// ctxT is a test's context: it ends 10 s before the test binary's deadline, so that a stuck
// call fails the test that made it.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if end, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, end.Add(-10*time.Second))
	}
	t.Cleanup(cancel)
	return ctx
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error (code %s): %v", domain.ErrorCode(err), err)
	}
}

// createEvent creates event id (its date first) of three matches, starting at hour:00 UTC.
func (f *fixture) createEvent(id string, hour int) domain.Event {
	f.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	if err != nil {
		f.t.Fatalf("bad test event id %q", id)
	}
	var card []domain.MatchSpec
	for _, m := range []struct {
		name   string
		points int
	}{{"Main Event", 10}, {"Semi Main", 5}, {"Opener", 3}} {
		card = append(card, domain.MatchSpec{Name: m.name, Points: m.points,
			Teams: []domain.Team{{Members: []string{m.name + " Red"}}, {Members: []string{m.name + " Blue"}, Champion: true}}})
	}
	ev, err := f.s.CreateEvent(ctxT(f.t), domain.EventSpec{ID: &id, Name: id[11:], StartsAt: day.Add(time.Duration(hour) * time.Hour), Matches: card})
	mustOK(f.t, err)
	return ev
}

// picks pairs the card's matches with teams, one team index per match.
func picks(ev domain.Event, teams ...int) []domain.Pick {
	var out []domain.Pick
	for i, team := range teams {
		out = append(out, domain.Pick{MatchID: ev.Matches[i].ID, Team: team})
	}
	return out
}

func (f *fixture) submit(user string, ev domain.Event, teams ...int) {
	f.t.Helper()
	_, err := f.s.SubmitPrediction(ctxT(f.t), domain.UserRef{ID: user, Name: "Player " + user}, ev.ID, domain.Entry{Picks: picks(ev, teams...)})
	mustOK(f.t, err)
}

// lockAndResult sets the event BROADCAST and every match's result to a WIN of winners[i].
func (f *fixture) lockAndResult(ev domain.Event, winners ...int) {
	f.t.Helper()
	ctx := ctxT(f.t)
	broadcast := domain.StateBroadcast
	_, err := f.s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: &broadcast})
	mustOK(f.t, err)
	for i, w := range winners {
		_, err := f.s.SetResult(ctx, ev.ID, ev.Matches[i].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &w})
		mustOK(f.t, err)
	}
}

// TestRecorderIndexKeyChangeShowsAsDeleteAndPut records a submit and the scoring of it:
// the prediction enters the event's index partition under its pending key, then scoring
// moves it to its score key: a delete of the old index entry and a put of the new one, each
// billed.
func TestRecorderIndexKeyChangeShowsAsDeleteAndPut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	ev := f.createEvent("2030-03-21-recorder", 20)
	rec := newRecorder(f.db, f.table)
	rctx := withRecorder(ctx, rec)
	_, err := f.s.SubmitPrediction(rctx, domain.UserRef{ID: "u1", Name: "Player u1"}, ev.ID, domain.Entry{Picks: picks(ev, 0, 1, 0)})
	mustOK(t, err)
	submit := rec.take()
	f.lockAndResult(ev, 0, 1, 1)
	_, err = f.s.ScoreEvent(rctx, ev.ID, false)
	mustOK(t, err)
	score := rec.take()

	u1, eventSK := table.UserID("u1"), table.EventSK(table.EventID(ev.ID))
	// find returns the first access of op with index, kind and a sort key starting with sk.
	find := func(calls []tracedCall, op, index, kind, sk string) *Access {
		for _, c := range calls {
			for i, a := range c.Accesses {
				if c.Op == op && a.Index == index && a.Kind == kind && strings.HasPrefix(a.SK, sk) {
					return &c.Accesses[i]
				}
			}
		}
		return nil
	}
	shard := table.EventShardPK(table.EventID(ev.ID), 0, fixtureShards)
	put := find(submit, "TransactWriteItems", table.IndexName, AccessPut, table.PendingSK(u1))
	if put == nil || put.PK != shard || put.WCU != 1 || !put.Txn {
		t.Fatalf("submit: index put of the pending entry = %+v, want 1 WCU (index writes are not doubled) in %s; trace %+v", put, shard, submit)
	}
	if tp := find(submit, "TransactWriteItems", "", AccessPut, eventSK); tp == nil || tp.WCU != 2 || tp.PK != table.UserPK(u1) {
		t.Errorf("submit: table put = %+v, want 2 WCU (a transaction doubles) in %s", tp, table.UserPK(u1))
	}
	// A first prediction counts on its player's lock copy: an update in the transaction.
	if lk := find(submit, "TransactWriteItems", "", AccessUpdate, table.LockSK); lk == nil || lk.PK != table.LockPK(table.EventID(ev.ID), u1.LockCopy(table.LockCopies(fixtureShards))) || lk.WCU != 2 {
		t.Errorf("submit: update of the lock copy = %+v, want 2 WCU in partition %s", lk, table.LockPK(table.EventID(ev.ID), u1.LockCopy(table.LockCopies(fixtureShards))))
	}
	if cc := find(submit, "TransactWriteItems", "", AccessCheck, eventSK); cc != nil && cc.PK == table.EventsPartition {
		t.Errorf("submit: condition check on the event item %+v: every submit would hold it", cc)
	}
	del := find(score, "TransactWriteItems", table.IndexName, AccessDelete, table.PendingSK(u1))
	add := find(score, "TransactWriteItems", table.IndexName, AccessPut, table.ScoreFirst)
	if del == nil || add == nil {
		t.Fatalf("scoring: index delete %+v and put %+v of the prediction, want both; trace %+v", del, add, score)
	}
	if del.PK != shard || add.PK != shard || !strings.HasSuffix(add.SK, string(u1)) || del.WCU != 1 || add.WCU != 1 {
		t.Errorf("scoring: delete %+v, put %+v: want 1 WCU each in %s", del, add, shard)
	}
}

// TestRecorderUnitsMatchDynamoDBLocal checks the units the recorder computes from item
// sizes against what DynamoDB Local reports, for the calls it reports faithfully
// (everything but transactions).
func TestRecorderUnitsMatchDynamoDBLocal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	ev := f.createEvent("2030-03-22-recorder", 20)
	for i := 0; i < 30; i++ {
		f.submit(fmt.Sprintf("u%02d", i), ev, i%2, 1, 0)
	}
	rec := newRecorder(f.db, f.table)
	rctx := withRecorder(ctx, rec)
	_, err := f.s.GetEvent(rctx, ev.ID)
	mustOK(t, err)
	_, err = f.s.GetPrediction(rctx, "u01", ev.ID, true)
	mustOK(t, err)
	_, err = f.s.Register(rctx, "u02", "A much longer name for player two")
	mustOK(t, err)
	f.lockAndResult(ev, 0, 1, 1)
	_, err = f.s.ScoreEvent(rctx, ev.ID, false)
	mustOK(t, err)
	_, err = f.s.Standings(rctx, 2030, 20, "")
	mustOK(t, err)
	_, _, err = f.s.GetEventWithLeaderboard(rctx, ev.ID, 20, true)
	mustOK(t, err)

	compared := 0
	for _, c := range rec.take() {
		if c.Op == "TransactWriteItems" || c.ReportedRCU == nil || c.Error != "" {
			continue
		}
		empty := false
		for _, a := range c.Accesses {
			empty = empty || (a.Kind == AccessRead && a.Items == 0)
		}
		if empty {
			continue // DynamoDB Local reports 0 for a read that found nothing; AWS the minimum
		}
		compared++
		if c.Accesses.RCU() != *c.ReportedRCU || c.Accesses.WCU() != *c.ReportedWCU {
			t.Errorf("%s: computed %g RCU / %g WCU, DynamoDB Local reported %g / %g: %+v", c.Op, c.Accesses.RCU(), c.Accesses.WCU(), *c.ReportedRCU, *c.ReportedWCU, c.Accesses)
		}
	}
	if compared < 6 {
		t.Errorf("only %d calls compared", compared)
	}
}

// TestRecorderTagsCacheFills: the calls a read-cache fill makes carry its entry's key in the
// trace, with the cache on (a miss) and off (every call), and no other call does.
func TestRecorderTagsCacheFills(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ev := f.createEvent("2030-03-22-cachetag", 20)
	f.submit("u1", ev, 0, 1, 0)
	for _, c := range []struct {
		name  string
		store *dynamo.Store
	}{
		{"CacheOff", f.s},
		{"CacheOn", dynamo.New(f.db, f.table, dynamo.WithClock(f.clock.Now), dynamo.WithReadCache(dynamo.ReadCache{}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder(f.db, f.table)
			ctx := withRecorder(ctxT(t), rec)
			if _, err := c.store.GetEvent(ctx, ev.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := c.store.GetPrediction(ctx, "u1", ev.ID, true); err != nil {
				t.Fatal(err)
			}
			tagged, untagged := 0, 0
			for _, call := range rec.take() {
				switch call.Cache {
				case ddb.CardKey(ev.ID):
					tagged++
				case "":
					untagged++
				default:
					t.Errorf("%s tagged %q, want %q or nothing", call.Op, call.Cache, ddb.CardKey(ev.ID))
				}
			}
			if tagged != 1 || untagged == 0 {
				t.Errorf("%d calls tagged with the card's entry, %d untagged; want the card's one Query tagged and the prediction's reads not", tagged, untagged)
			}
		})
	}
}
