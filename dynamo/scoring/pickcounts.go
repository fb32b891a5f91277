package scoring

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// Pick counts (Match.pickCounts): how many predictions picked each team of each match.
// Scoring counts them as it writes the predictions of a pass, in the same transactions:
// each shard's checkpoint (table.CheckpointRow.Picks, keyed by table.PickKey) sums the
// picks of the predictions written for its card version, and Picked says how many
// predictions that sum covers. Every prediction is written once per card version and the
// checkpoint moves only from the state it was read in, so at the end of a pass a shard
// whose Picked equals its Done has counted each of its predictions exactly once, whatever
// the budgeted calls, concurrent runs and retries. The pass's last step (markScored) sums
// the shards and writes the totals onto the card's match items, in its transaction
// conditioned on the card version; card edits carry the counts over and are conditioned on
// them (the store's match writes), so an edit never wipes counts written after it read the
// card. A pass whose counts do not cover every prediction (Picked ≠ Done: a checkpoint
// that counts done predictions whose picks it did not count) writes none; the card keeps
// what it had.

// withPicks is the move with the picks of batch (the predictions its transaction writes)
// added to the counts of the checkpoint it moves to: the picks of matches on ev's card,
// for teams the match has.
func (m checkpointMove) withPicks(ev domain.Event, batch []*scoreJob) checkpointMove {
	picks := make(map[string]int, len(m.to.Picks))
	for k, n := range m.to.Picks {
		picks[k] = n
	}
	teams := make(map[string]int, len(ev.Matches))
	for _, mt := range ev.Matches {
		teams[mt.ID] = len(mt.Teams)
	}
	for _, j := range batch {
		for _, p := range j.row.Picks {
			if p.Team >= 0 && p.Team < teams[p.MatchID] {
				picks[table.PickKey(p.MatchID, p.Team)]++
			}
		}
	}
	m.to.Picks = picks
	m.to.Picked += len(batch)
	return m
}

// pickSums are the pick counts of ev's matches (by card position, then team) summed over
// cps, the shards' checkpoints at the end of a complete pass of ev's card version; ok is
// false if some shard's counts do not cover all its predictions (see above).
func pickSums(ev domain.Event, cps []table.CheckpointRow) (sums [][]int, ok bool) {
	for _, cp := range cps {
		if cp.Done > 0 && (cp.CardVersion != ev.CardVersion || cp.Picked != cp.Done) {
			return nil, false
		}
	}
	sums = make([][]int, len(ev.Matches))
	for i, m := range ev.Matches {
		sums[i] = make([]int, len(m.Teams))
		for team := range sums[i] {
			for _, cp := range cps {
				if cp.Done > 0 {
					sums[i][team] += cp.Picks[table.PickKey(m.ID, team)]
				}
			}
		}
	}
	return sums, true
}

// pickCountsCurrent reports whether ev's card already shows the pick counts of the pass
// (or the pass has none to show): a run that writes nothing need not complete the pass
// again — unless the counts moved without a prediction write (an account deleted).
func pickCountsCurrent(ev domain.Event, cps []table.CheckpointRow) bool {
	sums, ok := pickSums(ev, cps)
	if !ok {
		return true
	}
	for i, m := range ev.Matches {
		if !slices.Equal(m.PickCounts, sums[i]) {
			return false
		}
	}
	return true
}

// pickCountItems are the updates of the card's match items with the pass's pick counts
// (pickSums), or nil if it has none.
func (e *Engine) pickCountItems(ev domain.Event, cps []table.CheckpointRow) ([]types.TransactWriteItem, error) {
	sums, ok := pickSums(ev, cps)
	if !ok {
		return nil, nil
	}
	eid := table.EventID(ev.ID)
	items := make([]types.TransactWriteItem, 0, len(ev.Matches))
	for i, m := range ev.Matches {
		expr, err := expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name("pickCounts"), expression.Value(sums[i]))).
			WithCondition(table.Exists()).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: pick counts %s: %w", ev.ID, err)
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(e.db.Name), Key: table.Key(table.EventPK(eid), table.MatchSK(table.MatchID(m.ID))),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}})
	}
	return items, nil
}

// pickCountsOnDelete adds to upd the SET actions taking deleted prediction p's picks out
// of the counts of checkpoint cp, which counted p (its version is p's scoredWith): one per
// pick cp has a count for (the others were not counted: matches no longer on the card).
func pickCountsOnDelete(upd expression.UpdateBuilder, p table.PredictionRow, cp table.CheckpointRow) expression.UpdateBuilder {
	for _, pk := range p.Picks {
		k := table.PickKey(pk.MatchID, pk.Team)
		if cp.Picks[k] <= 0 {
			continue
		}
		count := expression.Name("picks").AppendName(expression.NameNoDotSplit(k))
		upd = upd.Set(count, count.Minus(expression.Value(1)))
	}
	return upd
}
