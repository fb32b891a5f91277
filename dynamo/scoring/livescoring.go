package scoring

import "github.com/pickem/api/domain"

// Live scoring. a pass runs on a locked event with at least one result (or none left
// after earlier passes wrote points: results cleared): a pass scores
// every prediction against the card as it is — matches without a result count nothing yet
// (domain.ScoreEntry), so points are provisional — and standings move by the difference,
// exactly as for a correction. A pass completes like a final one (markScored): the event
// row records the matches it counted (scoredMatches) and its card version (scoredVersion),
// the rank tables are summarized (provisional ranks), and the card gets its pick counts
// (pickCountItems). Only with every result set does the pass make the event SCORED; until
// then it stays BROADCAST, and every further result or correction is a new card version
// whose pass applies only the difference.

// passMarked reports whether ev's row already records a complete pass of its card version:
// scoredVersion at the card version, and SCORED when the pass is final.
func passMarked(ev domain.Event, final bool) bool {
	return ev.ScoredVersion == ev.CardVersion && (ev.Stored == domain.StateScored || !final)
}

// AnyScored reports whether a pass (of any card version, complete or not) has written
// points on some prediction of the event: a shard's checkpoint has moved.
func (c Card) AnyScored() bool {
	for _, cp := range c.Checkpoints {
		if cp.Done > 0 {
			return true
		}
	}
	return false
}
