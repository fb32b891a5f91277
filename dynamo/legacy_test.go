package dynamo

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/domain"
)

// TestEventsWrittenBeforeCardHashes: an event row without cardHash and an event without
// prediction count items (data written before issue 8, e.g. a saved local table) can still
// be read, edited and scored: the card is then read consistently, and scoring trusts the
// index for completeness as it did before. The first card edit writes the hash.
func TestEventsWrittenBeforeCardHashes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	ev := f.createEvent("2030-03-20-legacy", 20, standardCard())
	f.submit("legacy-1", ev, 0, 0, 0)
	f.submit("legacy-2", ev, 1, 1, 1)
	_, err := f.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(f.table), Key: pkKey(eventsPK, eventSK(eventID(ev.ID))),
		UpdateExpression: aws.String("REMOVE cardHash"),
	})
	mustOK(t, err)
	for shard := range countShards {
		_, err := f.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.table), Key: pkKey(eventPK(eventID(ev.ID)), countSK(shard))})
		mustOK(t, err)
	}

	cctx, cost := WithCost(ctx)
	got, err := f.s.GetEvent(cctx, ev.ID)
	mustOK(t, err)
	if len(got.Matches) != 3 || cost.Snapshot().Operations["GetItem"] != 1 {
		t.Errorf("legacy card: %d matches, cost %s (want the consistent read)", len(got.Matches), costString(cost.Snapshot()))
	}
	f.lockAndResult(ev, 0, 1, 0)
	if raw := f.getRaw(eventsPK, eventSK(eventID(ev.ID))); raw["cardHash"] == nil {
		t.Errorf("a card edit did not write the hash")
	}
	rep := f.score(ev)
	if rep.PredictionsScored != 2 || !rep.Complete {
		t.Errorf("legacy scoring: %+v", rep)
	}
	if e, _ := f.s.GetEvent(ctx, ev.ID); e.Stored != domain.StateScored {
		t.Errorf("state %s", e.Stored)
	}
}
