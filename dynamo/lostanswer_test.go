package dynamo

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// lostAnswerAPI applies the first lose scoring batches (transactions that move a scoring
// checkpoint and write predictions) and then answers with an error, as when DynamoDB
// commits a transaction whose answer never reaches the caller (a timeout, a reset).
type lostAnswerAPI struct {
	ddb.API
	lose int64
	lost atomic.Int64
}

var errAnswerLost = errors.New("injected fault: the answer was lost after the write was applied")

func (a *lostAnswerAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	batch, checkpoint := false, false
	for _, it := range in.TransactItems {
		if it.Update != nil && table.ItemString(it.Update.Key, table.AttrPK) != "" {
			switch sk := table.ItemString(it.Update.Key, table.AttrSK); {
			case sk == table.CheckpointSK:
				checkpoint = true
			case len(sk) > len(table.EventKeyPrefix) && sk[:len(table.EventKeyPrefix)] == table.EventKeyPrefix:
				batch = true // a prediction (USER#<uid>, EVENT#<eid>)
			}
		}
	}
	out, err := a.API.TransactWriteItems(ctx, in, opts...)
	if err == nil && batch && checkpoint && a.lost.Add(1) <= a.lose {
		return nil, errAnswerLost
	}
	return out, err
}

// TestScoringReportsBatchesWhoseAnswerWasLost: a scoring batch applied by DynamoDB whose
// answer is lost is still the call's own (its checkpoint carries the attempt's mark): the
// call goes on, and the reports of the calls up to Complete add up to every prediction
// written once.
func TestScoringReportsBatchesWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-lost-answers", scCard())
	entries := scGenEntries(120, scTeamCounts(ev), 4)
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())
	before := e.snapshot()

	lost := &lostAnswerAPI{API: e.client, lose: 3}
	scored := 0
	for calls := 0; ; calls++ {
		if calls == 10 {
			t.Fatalf("not complete after %d calls", calls)
		}
		rep, err := e.storeOver(lost).ScoreEvent(scCtx(t), ev.ID, false)
		scOK(t, err)
		scored += rep.PredictionsScored
		if rep.Complete {
			break
		}
	}
	if lost.lost.Load() < lost.lose {
		t.Fatalf("only %d answers lost: the test did not exercise it", lost.lost.Load())
	}
	after := e.snapshot()
	written := 0
	for k, p := range after.predictions {
		written += p.Version - before.predictions[k].Version
	}
	if scored != len(entries) || written != len(entries) {
		t.Errorf("reports add up to %d, %d writes; want each of the %d predictions written and reported once", scored, written, len(entries))
	}
	after.checkSums(t)
	after.checkScored(t, scScoredEvent{ev, entries})
}
