package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
)

const (
	// ScoringMargin is the time a scoring run leaves before its request's deadline: it
	// stops starting new work that much earlier, so that the work in flight and the answer
	// still fit.
	ScoringMargin = 3 * time.Second
)

// WithScoringBudget bounds the time one ScoreEvent call spends (0: no budget of its own;
// the request's deadline still bounds it). A call cut short by its budget returns what it
// did with Complete false; calling again continues.
func WithScoringBudget(d time.Duration) Option { return func(s *Store) { s.scoringBudget = d } }

// ScoreEvent scores the predictions of a locked event with at least one result, and moves
// each player's season standing by the difference, prediction and standing together in
// transactions of at most 100 items. With some results only, it is live scoring:
// provisional points, the event stays BROADCAST; with every result set the pass is final
// and the event becomes SCORED. It reads the event and its card consistently from the
// table, its lock copies and scoring checkpoints after them, lets domain.CheckScorable
// decide, brings lock copies left behind in line with the event row first, and hands the
// pass to the scoring engine (scoring.Engine.Run: how a pass writes, resumes and
// completes).
//
// Running it again changes nothing; after a corrected result it moves standings by the
// difference; concurrent runs and runs cut off halfway converge to the same table. The run
// starts no batch once its time budget is spent (WithScoringBudget, capped by ctx's
// deadline minus ScoringMargin, and minus LiveMargin too when the store publishes) — it
// always starts one — and reports Complete false and what Remains; calling again
// continues. dryRun computes the report without writing.
//
// The call whose transaction completes a pass (live, final, or a re-score after a
// correction) publishes one SCORING message (WithLive): the event's state and scored
// matches after it, and the first rows of its leaderboard read after the commit. A call
// that does not complete the pass, or finds it complete with nothing new to write,
// publishes nothing.
//
// Returns NOT_FOUND, BAD_USER_INPUT (open event, no result at all), CONFLICT (the card or the
// predictions changed while scoring: run it again), UNAVAILABLE (DynamoDB busy: run it
// again) or INTERNAL (standings or counts have drifted from the predictions; see
// domain.ApplyDelta).
func (s *Store) ScoreEvent(ctx context.Context, event string, dryRun bool) (domain.ScoreReport, error) {
	report := domain.ScoreReport{EventID: event, DryRun: dryRun}
	deadline := s.scoringDeadline(ctx, time.Now())
	if _, err := table.ParseEventID(event); err != nil {
		return report, err
	}
	card, err := s.readScoringCard(ctx, event)
	if err != nil {
		return report, err
	}
	ev := card.Event
	if err := domain.CheckScorable(ev, s.now(), ev.ScoredMatches > 0 || card.AnyScored()); err != nil {
		return report, err
	}
	// Every copy locked like the event row before the counts are trusted: a copy a cut-off
	// sync left behind (or never created) could still take a submit. The copies (all of
	// them, read consistently after the row) are brought forward and read again; while
	// they still disagree with the row, the call refuses.
	if missing, behind := locksToFix(card.Locks, card.Row); len(missing)+len(behind) > 0 && !dryRun {
		if err := s.fixLocks(ctx, card.Row, card.Locks); err != nil {
			return report, err
		}
		if card, err = s.readScoringCard(ctx, event); err != nil {
			return report, err
		}
		if missing, behind := locksToFix(card.Locks, card.Row); len(missing)+len(behind) > 0 || card.Event.CardVersion != ev.CardVersion || card.Event.Stored != ev.Stored {
			return report, domain.Errorf(domain.CodeUnavailable, "the lock copies of event %q are being brought in line with it; run scoreEvent again", event)
		}
		ev = card.Event
	}
	seasonShards, err := s.seasonShardsFor(ctx, ev.Season())
	if err != nil {
		return report, err
	}
	report, liveVersion, err := s.scoring.Run(ctx, card, seasonShards, deadline, dryRun)
	s.cache.ForgetEvent(ev.ID)
	s.cache.ForgetSeason(ev.Season())
	if liveVersion > 0 {
		s.publishScoring(ctx, ev, card.Row.Shards, report, liveVersion)
	}
	return report, err
}

// readScoringCard is what a scoring run starts from: the event and its card read
// consistently (readCard), then its lock copies and scoring checkpoints.
func (s *Store) readScoringCard(ctx context.Context, id string) (scoring.Card, error) {
	cr, err := s.readCard(ctx, id)
	if err != nil {
		return scoring.Card{}, err
	}
	locks, checkpoints, err := s.scoring.ReadCounts(ctx, cr.row)
	if err != nil {
		return scoring.Card{}, fmt.Errorf("dynamo: load card %s: %w", id, err)
	}
	return scoring.Card{Event: cr.ev, Row: cr.row, Locks: locks, Checkpoints: checkpoints}, nil
}

// seasonShardsFor is the shard count of a season being scored, from a consistent read of
// its item; a season that has no item yet is given the store's count.
func (s *Store) seasonShardsFor(ctx context.Context, season int) (int, error) {
	n, err := s.seasonShards(ctx, season, true)
	if err != nil || n > 0 {
		return n, err
	}
	if err := s.ensureSeason(ctx, season); err != nil {
		return 0, err
	}
	return s.seasonShards(ctx, season, true)
}

// scoringDeadline is when a scoring run that started at start stops starting work: after
// the store's budget, and no later than ctx's deadline minus ScoringMargin (plus LiveMargin
// when the store publishes: the message of a completion is read and published before the
// call answers). Zero: never.
func (s *Store) scoringDeadline(ctx context.Context, start time.Time) time.Time {
	var d time.Time
	if s.scoringBudget > 0 {
		d = start.Add(s.scoringBudget)
	}
	margin := s.scoringMargin
	if s.live != nil {
		margin += LiveMargin
	}
	if dl, ok := ctx.Deadline(); ok {
		if c := dl.Add(-margin); d.IsZero() || c.Before(d) {
			d = c
		}
	}
	return d
}
