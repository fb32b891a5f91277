package dynamo

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// lockCutAPI lets the first allow transactions that write only lock copies through and
// fails every later one, and every single-copy UpdateItem once it has failed one: a sync
// of the copies cut off between its transactions of 100.
type lockCutAPI struct {
	ddb.API
	allow  int64
	chunks atomic.Int64
}

var errLockCut = errors.New("injected fault: cut off while writing lock copies")

func onlyLocks(items []types.TransactWriteItem) bool {
	for _, it := range items {
		if table.ItemString(transactKeyMap(it), table.AttrSK) != table.LockSK {
			return false
		}
	}
	return len(items) > 0
}

func transactKeyMap(it types.TransactWriteItem) map[string]types.AttributeValue {
	switch {
	case it.Put != nil:
		return it.Put.Item
	case it.Update != nil:
		return it.Update.Key
	case it.Delete != nil:
		return it.Delete.Key
	case it.ConditionCheck != nil:
		return it.ConditionCheck.Key
	}
	return nil
}

func (a *lockCutAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if onlyLocks(in.TransactItems) && a.chunks.Add(1) > a.allow {
		return nil, errLockCut
	}
	return a.API.TransactWriteItems(ctx, in, opts...)
}

func (a *lockCutAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if table.ItemString(in.Key, table.AttrSK) == table.LockSK && a.chunks.Load() > a.allow {
		return nil, errLockCut
	}
	return a.API.UpdateItem(ctx, in, opts...)
}

// behindCopies reads event id's row and copies and returns how many copies exist and how
// many of them are behind the row.
func (e *scEnv) behindCopies(id string) (row table.EventRow, exist, behind int) {
	e.t.Helper()
	row, err := e.after.getEventRow(scCtx(e.t), table.EventID(id))
	scOK(e.t, err)
	locks, err := e.after.readLocks(scCtx(e.t), row)
	scOK(e.t, err)
	for _, l := range locks {
		if l.Rev < row.Rev {
			behind++
		}
	}
	return row, len(locks), behind
}

// TestLockCopiesFollowTheEventsShards: an event gets the shard count of the store that
// creates it and the lock copies that count asks for (one at one shard, 256 at sixteen),
// stored on its row, and every later reader addresses its copies with the event's count,
// whatever its own store's configuration.
func TestLockCopiesFollowTheEventsShards(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	one := New(e.client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(1))
	sixteen := New(e.client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(16))
	small := e.createWith(one, "2025-04-19-one-shard", scCard())
	many := e.createWith(sixteen, "2025-04-20-sixteen-shards", scCard())
	for _, c := range []struct {
		id             string
		shards, copies int
	}{{small.ID, 1, 1}, {many.ID, 16, 256}} {
		row, exist, behind := e.behindCopies(c.id)
		if row.Shards != c.shards || row.LockCopies != c.copies || exist != c.copies || behind != 0 {
			t.Errorf("event %s: row says %d shards and %d copies, %d exist (%d behind); want %d, %d current", c.id, row.Shards, row.LockCopies, exist, behind, c.shards, c.copies)
		}
		out, err := e.client.GetItem(scCtx(t), &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: table.Key(table.LockPK(table.EventID(c.id), c.copies), table.LockSK), ConsistentRead: aws.Bool(true)})
		scOK(t, err)
		if out.Item != nil {
			t.Errorf("event %s has a copy %d beyond its count", c.id, c.copies)
		}
	}
	// A store configured with one shard submits to the event of sixteen on the event's copy.
	const u = "amy-many"
	_, err := one.SubmitPrediction(scCtx(t), domain.UserRef{ID: u, Name: "Amy"}, many.ID, domain.Entry{Picks: scEntry{Teams: []int{0}}.picks(many)})
	scOK(t, err)
	row, _, _ := e.behindCopies(many.ID)
	locks, err := e.after.readLocks(scCtx(t), row)
	scOK(t, err)
	if n := locks[table.UserID(u).LockCopy(256)].Predictions; n != 1 {
		t.Errorf("copy %d of 256 counts %d predictions, want the submit's 1", table.UserID(u).LockCopy(256), n)
	}
	pred := e.getRaw(table.UserPK(u), table.EventSK(table.EventID(many.ID)))
	if got, want := table.ItemString(pred, table.AttrGSIPK), table.EventShardPK(table.EventID(many.ID), table.UserID(u).Shard(16), 16); got != want {
		t.Errorf("prediction indexed in %s, want the event's shard %s", got, want)
	}
}

// TestLockFlipBeyondOneTransaction: with 256 lock copies (more than a transaction holds)
// the flip of an event's copies is written in transactions of 100 after the event row, each
// conditioned on the row's rev. Cut off after the first transaction, the admin's change
// reports the failure and leaves copies behind; the admin's retry finishes them; and scoring
// reads every copy consistently and refuses (writes no score) while it cannot bring them in
// line with the row, then scores once it can.
func TestLockFlipBeyondOneTransaction(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	e.before = New(e.client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(table.MaxShards)) // 256 copies
	ev := e.createEvent("2025-04-19-many-copies", scCard())
	entries := scGenEntries(10, scTeamCounts(ev), 5)
	for _, en := range entries {
		_, err := e.before.SubmitPrediction(scCtx(t), domain.UserRef{ID: en.User, Name: scName(en.User)}, ev.ID, domain.Entry{Picks: en.picks(ev)})
		scOK(t, err)
	}

	// The first result locks the event (BROADCAST): row first, then the copies, 100 a
	// transaction — cut off after the first.
	cut := &lockCutAPI{API: e.client, allow: 1}
	after := func(db ddb.API) *Store {
		return New(db, e.table, WithClock(func() time.Time { return scAfter }))
	}
	r := scResults()[0]
	if _, err := after(cut).SetResult(scCtx(t), ev.ID, ev.Matches[0].ID, &r); !errors.Is(err, errLockCut) {
		t.Fatalf("result with the flip cut off: %v, want the injected fault", err)
	}
	row, exist, behind := e.behindCopies(ev.ID)
	if copies := table.LockCopies(table.MaxShards); row.State != string(domain.StateBroadcast) || exist != copies || behind != copies-ddb.MaxTransactItems {
		t.Fatalf("after the cut: row %s, %d copies, %d behind; want BROADCAST, %d, %d", row.State, exist, behind, copies, copies-ddb.MaxTransactItems)
	}
	// A submit that read the event before the flip may still be taken by a copy behind (as
	// just before the lock); one that reads it now is refused.
	_, err := e.before.SubmitPrediction(scCtx(t), domain.UserRef{ID: "late", Name: "Late"}, ev.ID, domain.Entry{Picks: scEntry{Teams: []int{0}}.picks(ev)})
	if domain.ErrorCode(err) != domain.CodeLocked {
		t.Errorf("submit after the lock: %v, want LOCKED", err)
	}

	// The admin's retry (the same result again) finishes the flip before it writes.
	_, err = e.after.SetResult(scCtx(t), ev.ID, ev.Matches[0].ID, &r)
	scOK(t, err)
	if _, _, behind := e.behindCopies(ev.ID); behind != 0 {
		t.Fatalf("after the retry: %d copies behind, want 0", behind)
	}
	ev = e.setResults(ev, scResults())

	// Copies behind again (a flip cut off), and scoring cannot bring them forward: it
	// refuses without writing a score.
	row, _, _ = e.behindCopies(ev.ID)
	for c := range 150 {
		_, err := e.client.UpdateItem(scCtx(t), &dynamodb.UpdateItemInput{TableName: aws.String(e.table), Key: table.Key(table.LockPK(table.EventID(ev.ID), c), table.LockSK),
			UpdateExpression:          aws.String("SET rev = :old, #s = :open"),
			ExpressionAttributeNames:  map[string]string{"#s": "state"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":old": &types.AttributeValueMemberN{Value: "1"}, ":open": &types.AttributeValueMemberS{Value: string(domain.StateUpcoming)}}})
		scOK(t, err)
	}
	if _, err := after(&lockCutAPI{API: e.client}).ScoreEvent(scCtx(t), ev.ID, false); err == nil {
		t.Fatal("scoring with copies it could not bring in line: no error")
	}
	if snap := e.snapshot(); snap.scored(ev.ID) != 0 || snap.state(ev.ID) == domain.StateScored {
		t.Fatalf("scoring with copies behind wrote %d scores (state %s), want none", snap.scored(ev.ID), snap.state(ev.ID))
	}
	// Able to write them, it brings them forward, reads them all again and scores.
	if rep := scScoreRun(t, e.after, ev.ID, false); !rep.Complete || rep.PredictionsScored != len(entries) {
		t.Errorf("scoring after the copies are fixed: %+v, want all %d scored", rep, len(entries))
	}
	if _, _, behind := e.behindCopies(ev.ID); behind != 0 {
		t.Errorf("%d copies behind after scoring", behind)
	}
}
