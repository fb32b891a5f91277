package dynamo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/dynamo/trace"
)

// TestRecorderIndexKeyChangeShowsAsDeleteAndPut records a submit and the scoring of it:
// the prediction enters the event's index partition under UNSCORED#, then scoring moves it
// to SCORE#…: a delete of the old index entry and a put of the new one, each billed.
func TestRecorderIndexKeyChangeShowsAsDeleteAndPut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	ev := f.createEvent("2030-03-21-recorder", 20, standardCard())
	rec := trace.NewRecorder(f.db, f.table)
	rctx := trace.WithRecorder(ctx, rec)
	_, err := f.s.SubmitPrediction(rctx, domain.UserRef{ID: "u1", Name: "Player u1"}, ev.ID, picks(ev, 0, 1, 0))
	mustOK(t, err)
	submit := rec.Take()
	f.lockAndResult(ev, 0, 1, 1)
	_, err = f.s.ScoreEvent(rctx, ev.ID, false)
	mustOK(t, err)
	score := rec.Take()

	// find returns the first access of op with index, kind and a sort key starting with sk.
	find := func(calls []trace.TraceCall, op, index, kind, sk string) *trace.TraceAccess {
		for _, c := range calls {
			for i, a := range c.Accesses {
				if c.Op == op && a.Index == index && a.Kind == kind && strings.HasPrefix(a.SK, sk) {
					return &c.Accesses[i]
				}
			}
		}
		return nil
	}
	shard := table.EventShardPK(table.EventID(ev.ID), 0, f.shards)
	put := find(submit, "TransactWriteItems", table.IndexName, trace.AccessPut, "UNSCORED#u1")
	if put == nil || put.PK != shard || put.WCU != 1 || !put.Txn {
		t.Fatalf("submit: index put of UNSCORED#u1 = %+v, want 1 WCU (index writes are not doubled) in %s; trace %+v", put, shard, submit)
	}
	if tp := find(submit, "TransactWriteItems", "", trace.AccessPut, "EVENT#"+ev.ID); tp == nil || tp.WCU != 2 || tp.PK != "USER#u1" {
		t.Errorf("submit: table put = %+v, want 2 WCU (a transaction doubles) in USER#u1", tp)
	}
	// A first prediction counts on its player's lock copy: an update in the transaction.
	if lk := find(submit, "TransactWriteItems", "", trace.AccessUpdate, table.LockSK); lk == nil || lk.PK != table.LockPK(table.EventID(ev.ID), table.UserID("u1").LockCopy(table.LockCopies(f.shards))) || lk.WCU != 2 {
		t.Errorf("submit: update of the lock copy = %+v, want 2 WCU in partition %s", lk, table.LockPK(table.EventID(ev.ID), table.UserID("u1").LockCopy(table.LockCopies(f.shards))))
	}
	if cc := find(submit, "TransactWriteItems", "", trace.AccessCheck, "EVENT#"+ev.ID); cc != nil && cc.PK == table.EventsPartition {
		t.Errorf("submit: condition check on the event item %+v: every submit would hold it", cc)
	}
	del := find(score, "TransactWriteItems", table.IndexName, trace.AccessDelete, "UNSCORED#u1")
	add := find(score, "TransactWriteItems", table.IndexName, trace.AccessPut, table.ScoreFirst)
	if del == nil || add == nil {
		t.Fatalf("scoring: index delete %+v and put %+v of the prediction, want both; trace %+v", del, add, score)
	}
	if del.PK != shard || add.PK != shard || !strings.HasSuffix(add.SK, "#u1") || del.WCU != 1 || add.WCU != 1 {
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
	ev := f.createEvent("2030-03-22-recorder", 20, standardCard())
	for i := 0; i < 30; i++ {
		f.submit(fmt.Sprintf("u%02d", i), ev, i%2, 1, 0)
	}
	rec := trace.NewRecorder(f.db, f.table)
	rctx := trace.WithRecorder(ctx, rec)
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
	for _, c := range rec.Calls() {
		if c.Op == "TransactWriteItems" || c.ReportedRCU == nil || c.Error != "" {
			continue
		}
		empty := false
		for _, a := range c.Accesses {
			empty = empty || (a.Kind == trace.AccessRead && a.Items == 0)
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
	ev := f.createEvent("2030-03-22-cachetag", 20, standardCard())
	f.submit("u1", ev, 0, 1, 0)
	for _, c := range []struct {
		name  string
		store *Store
	}{
		{"CacheOff", f.s},
		{"CacheOn", New(f.db, f.table, WithClock(f.clock.Now), WithReadCache(ReadCache{}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := trace.NewRecorder(f.db, f.table)
			ctx := trace.WithRecorder(ctxT(t), rec)
			if _, err := c.store.GetEvent(ctx, ev.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := c.store.GetPrediction(ctx, "u1", ev.ID, true); err != nil {
				t.Fatal(err)
			}
			tagged, untagged := 0, 0
			for _, call := range rec.Take() {
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
