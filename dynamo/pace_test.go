package dynamo

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
)

// TestPaceCountsAScoredPredictionAtItsScoredSize: what scoring's pace asks of an event
// shard's index partition for a prediction is at least what moving its index entry takes
// (the delete of the entry as read and the put of the scored one), also for predictions
// that cross a write unit when scored.
func TestPaceCountsAScoredPredictionAtItsScoredSize(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	// Twelve matches: a prediction of all of them weighs about 900 bytes unscored, and its
	// correct match ids take many over 1 KB.
	var card []domain.MatchSpec
	var results []domain.MatchResult
	for i := range 12 {
		card = append(card, domain.MatchSpec{Name: fmt.Sprintf("Match %d", i+1), Points: 10, Teams: scTeams(2)})
		results = append(results, scWin(0))
	}
	ev := e.createEvent("2025-04-20-pace", card)
	e.writeEntries(ev, scGenEntries(60, scTeamCounts(ev), 7))
	ev = e.setResults(ev, results)
	predictions := func() map[string]map[string]types.AttributeValue {
		out := map[string]map[string]types.AttributeValue{}
		for _, item := range e.snapshot().items {
			if table.ItemType(item) == table.TypePrediction {
				out[table.ItemString(item, table.AttrPK)] = item
			}
		}
		return out
	}
	before := predictions()
	scScoreRun(t, e.after, ev.ID, false)
	after := predictions()
	crossed := 0
	for pk, item := range before {
		_, demand, err := scoring.ScoringWrites(e.table, ev, scShards, scShards, item, nil)
		scOK(t, err)
		partition := table.IndexName + "|" + table.ItemString(item, table.AttrGSIPK)
		was, is := table.ItemSize(item), table.ItemSize(after[pk])
		if capacity.WriteUnits(is) > capacity.WriteUnits(was) {
			crossed++
		}
		if need := capacity.WriteUnits(was) + capacity.WriteUnits(is); demand[partition] < need {
			t.Errorf("%s: the pace asks %.0f write units of %s, moving the entry (%d → %d bytes) takes %.0f", pk, demand[partition], partition, was, is, need)
		}
	}
	if crossed == 0 {
		t.Fatal("no prediction crossed a write unit when scored: the test shows nothing")
	}
	t.Logf("%d of %d predictions crossed a write unit when scored", crossed, len(before))
}
