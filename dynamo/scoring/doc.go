// Package scoring is the store's scoring engine: passes over an event's predictions that
// write each one's score and move its player's season standing by the difference (Run),
// in parallel over the event's shards, each from its checkpoint; live scoring (passes with
// some results only); the score histograms kept in the same transactions and the rank
// tables summed from them (SummarizeRanks); pick counts; the pacing of its reads and
// writes to each partition's throughput (Pacer); and what a deleted prediction or standing
// takes out of what scoring counted (PredictionDeleted, StandingDeleted).
//
// Its entry point is Engine.Run with a Card its caller read and checked: the event and its
// card read consistently from the table, its lock copies and checkpoints (ReadCounts), and
// domain.CheckScorable passed. The engine decides no rule (domain.RescoreEntry,
// domain.ApplyDelta and the domain's reports do), never reads the card itself, and knows
// nothing of the store's use cases: package dynamo composes it.
package scoring
