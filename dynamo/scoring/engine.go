package scoring

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Engine runs scoring passes on a store's table.
type Engine struct {
	db    *ddb.Table
	cache *ddb.Cache
	pace  *Pacer
	audit Audit
}

// Audit returns the transaction item that writes an audit entry by the caller in ctx.
type Audit func(ctx context.Context, entry domain.AuditEntry) (types.TransactWriteItem, error)

// New returns an engine scoring on db, dropping from cache what its passes change, pacing
// itself with pace, and writing its audit entries with audit.
func New(db *ddb.Table, cache *ddb.Cache, pace *Pacer, audit Audit) *Engine {
	return &Engine{db: db, cache: cache, pace: pace, audit: audit}
}

// Card is what a scoring run starts from: an event with its card as one moment of the main
// table (read consistently), its row, and, read consistently after the row, its lock
// copies by copy (their counts say how many predictions each shard has) and its scoring
// checkpoints by shard. A copy or a checkpoint that does not exist is missing from its map.
type Card struct {
	Event       domain.Event
	Row         table.EventRow
	Locks       map[int]table.LockRow
	Checkpoints map[int]table.CheckpointRow
}

// Run scores card's predictions (see dynamo.Store.ScoreEvent for the contract), the
// season's standings being spread over seasonShards shards, and starts no batch after
// deadline (zero: none) but the first. Its caller has read card as Card says and checked
// it with domain.CheckScorable.
//
// What decides a write is consistent or guarded: the card, the lock copies (whose counts
// say how many predictions each shard has) and the scoring checkpoints come from
// consistent reads of the table (Card; never from the index); the predictions are
// enumerated from the index, and each write is conditioned on the version of the
// prediction it read and the version of the standing, so a stale index row only costs a
// consistent re-read. A prediction is written only if its score, its correct picks or the
// card version it reflects differ from what the card says, and never over a score from a
// newer card. Running it again changes nothing; after a corrected result it moves
// standings by the difference; concurrent runs and runs cut off halfway converge to the
// same table.
//
// The shards of the event (the event's own count; the standings go to the season's
// shards, the season's own count) are scored in parallel, each from where the last call
// left it: its checkpoint says, for the card version, the last index key passed and how
// many predictions were written for that version, and every batch's transaction moves the
// checkpoint on, conditioned on the checkpoint read, so a batch is never skipped nor
// counted twice and a call never re-reads what an earlier one passed. A shard is done
// when its checkpoint counts as many predictions written for the card as its lock copies
// count predictions; a pass that reaches the shard's end short of that (predictions the
// index does not show yet) starts again from the shard's beginning in a later call. The
// run starts no batch after deadline — it always starts one — and reports Complete false
// and what Remains (exact: the predictions not yet written for the card). The pass completes
// (the event's scoredMatches, SCORED if final, the card's pick counts), and the report is
// Complete, when every shard is done, with a transaction conditioned on the card version
// and every checkpoint (see markScored), which carries the call's audit entry. dryRun
// computes the report without writing. The run paces its reads and writes to each
// partition it shares (Pacer).
//
// liveVersion is the event's live version that the completion's transaction wrote (it moves
// the version by one: domain.Event.LiveVersion); 0 when the call wrote no completion
// (not complete, a dry run, or complete already with nothing new to write).
func (e *Engine) Run(ctx context.Context, card Card, seasonShards int, deadline time.Time, dryRun bool) (report domain.ScoreReport, liveVersion int, err error) {
	ev := card.Event
	report = domain.ScoreReport{EventID: ev.ID, DryRun: dryRun}
	report.ScoredMatches, report.Final = domain.ResultedMatches(ev.Matches), len(domain.MissingResults(ev.Matches)) == 0
	shards := card.Row.Shards
	run := &scoringRun{e: e, ev: ev, card: card, shards: shards, seasonShards: seasonShards, deadline: deadline, dryRun: dryRun,
		report: &report, done: make([]int, shards), complete: make([]bool, shards), cps: make([]table.CheckpointRow, shards)}
	g, gctx := errgroup.WithContext(ctx)
	for sh := range shards {
		g.Go(func() error { return run.shard(gctx, sh) })
	}
	if err := g.Wait(); err != nil {
		return report, 0, e.auditScoringCall(ctx, run, err)
	}
	complete := true
	for sh := range shards {
		report.Remaining += card.ShardCount(sh) - run.done[sh]
		complete = complete && run.complete[sh]
	}
	if !complete {
		return report, 0, e.auditScoringCall(ctx, run, nil)
	}
	if dryRun {
		report.Complete = report.Remaining == 0 && passMarked(ev, report.Final)
		return report, 0, nil
	}
	if !passMarked(ev, report.Final) || run.wrote.Load() > 0 || !pickCountsCurrent(ev, run.cps) {
		// (Otherwise every shard was done for this card version when the run read it,
		// consistently, at the start, and nothing was written: nothing to confirm.)
		// The counts once more (defence in depth: none can have grown since the card was read,
		// see markScored, and the copies may be more than its transaction could check).
		locks, _, err := e.ReadCounts(ctx, card.Row)
		if err != nil {
			return report, 0, err
		}
		for c := range card.Row.LockCopies {
			if locks[c].Predictions != card.Locks[c].Predictions {
				return report, 0, domain.Errorf(domain.CodeConflict, "event %q got a new prediction while scoring; run scoreEvent again", ev.ID)
			}
		}
		// The call's audit entry commits with its last step.
		final := report
		final.Complete = true
		entry, err := e.audit(ctx, domain.AuditEntry{Action: domain.ActionScoreEvent, EventID: ev.ID,
			Summary: domain.SummarizeScoring(final, ev.CardVersion, "")})
		if err != nil {
			return report, 0, err
		}
		// The pass's pick counts go onto the card with it (pickCountItems).
		extra, err := e.pickCountItems(ev, run.cps)
		if err != nil {
			return report, 0, err
		}
		liveVersion, err = e.markScored(ctx, ev, card, run.done, append(extra, entry)...)
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			// Other transactions kept holding the event, its checkpoints or its copies —
			// typically another run completing it at the same moment: not complete yet,
			// the next call confirms (or marks it).
			return report, 0, e.auditScoringCall(ctx, run, nil)
		}
		if err != nil {
			return report, 0, e.auditScoringCall(ctx, run, err)
		}
	}
	// The rank tables sum the shard histograms as they are now; a table is only replaced
	// by one of more changes, so this also finishes the summary of a completing call cut
	// off after markScored.
	if err := e.SummarizeRanks(ctx, table.EventID(ev.ID), shards, ev.Season(), seasonShards); err != nil {
		return report, liveVersion, err
	}
	report.Complete = true
	return report, liveVersion, nil
}
