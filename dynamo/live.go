package dynamo

import (
	"context"
	"log/slog"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/push"
)

// Live messages (package push, docs/api.md "Live updates"): each commit that changes what a
// watcher of an event sees — a result set or cleared (SetResult), a change of the event's
// state (UpdateEvent), the tie-breaker answer set or cleared (SetTiebreakerAnswer), a
// scoring pass's completion (ScoreEvent) — moves the event row's live version by one in its
// own transaction, conditioned on the version read, and the store that committed it then
// publishes one message of that version on the event's channel. Nothing else moves the
// version or publishes.
const (
	// LivePublishBudget bounds the publish of one message: the request that committed
	// waits for it before it answers (a Lambda function is frozen once it answers).
	LivePublishBudget = push.DefaultBudget
	// LiveMargin is what a scoring call leaves before its request's deadline, on top of
	// ScoringMargin, when the store publishes: the leaderboard read of its message and the
	// publish.
	LiveMargin = liveReadBudget + LivePublishBudget
	// liveReadBudget bounds the leaderboard read of a scoring message.
	liveReadBudget = 500 * time.Millisecond
)

// live is where a store publishes (WithLive).
type live struct {
	pub       push.Publisher
	namespace string
	log       *slog.Logger
}

// WithLive makes the store publish a live message to pub for each commit that publishes
// one, on the event's channel in namespace (domain.LiveChannel), after the commit and
// before the call returns, within LivePublishBudget; pub must return once its context
// ends. A message that cannot be built or published is logged to log (nil:
// slog.Default()) and lost: the call still answers as committed. Without this option the
// store publishes nothing (the live versions move all the same).
func WithLive(pub push.Publisher, namespace string, log *slog.Logger) Option {
	if log == nil {
		log = slog.Default()
	}
	return func(s *Store) { s.live = &live{pub: pub, namespace: namespace, log: log} }
}

// publish sends the message message builds for version of event eventID (a commit made
// it), if the store publishes. It waits at most LivePublishBudget, and never past ctx's
// deadline; ctx's cancellation does not stop it (the commit is made: its watchers still
// get the message). A failure is logged, never returned.
func (s *Store) publish(ctx context.Context, eventID string, version int, message func(push.Head) (string, error)) {
	if s.live == nil {
		return
	}
	ctx, cancel := liveContext(ctx, LivePublishBudget)
	defer cancel()
	s.send(ctx, eventID, version, message)
}

// publishScoring publishes the message of a scoring pass's completion that wrote version
// on ev (the event as the pass read it, of shards shards): its state and scored matches
// after the pass, and the first push.LeaderboardRows rows of its leaderboard read after
// the commit with one first-page read that bypasses the read cache.
func (s *Store) publishScoring(ctx context.Context, ev domain.Event, shards int, report domain.ScoreReport, version int) {
	if s.live == nil {
		return
	}
	ctx, cancel := liveContext(ctx, LiveMargin)
	defer cancel()
	after := ev
	after.ScoredMatches, after.ScoredVersion, after.LiveVersion = report.ScoredMatches, ev.CardVersion, version
	if report.Final {
		after.Stored = domain.StateScored
	}
	var rows []domain.Prediction
	if after.LeaderboardVisible() {
		eid := table.EventID(ev.ID)
		read, cancelRead := context.WithTimeout(ctx, liveReadBudget)
		items, err := s.leaderboardItems(read, eid, shards, push.LeaderboardRows, "", false, nil)
		cancelRead()
		if err != nil {
			s.live.failed(ctx, ev.ID, version, err)
			return
		}
		lp, err := s.leaderboardPage(eid, shards, items, push.LeaderboardRows, domain.Placer{Answer: after.CountedAnswer()})
		if err != nil {
			s.live.failed(ctx, ev.ID, version, err)
			return
		}
		rows = lp.page.Items
	}
	s.send(ctx, ev.ID, version, func(h push.Head) (string, error) {
		return push.Scoring(h, after.Stored, after.ScoredMatches, rows)
	})
}

// send builds version's message of event eventID and publishes it with ctx; a failure is
// logged.
func (s *Store) send(ctx context.Context, eventID string, version int, message func(push.Head) (string, error)) {
	channel, err := domain.LiveChannel(s.live.namespace, eventID)
	if err != nil {
		s.live.failed(ctx, eventID, version, err)
		return
	}
	event, err := message(push.Head{EventID: eventID, Version: version})
	if err != nil {
		s.live.failed(ctx, eventID, version, err)
		return
	}
	pctx, cancel := context.WithTimeout(ctx, LivePublishBudget)
	defer cancel()
	if err := s.live.pub.Publish(pctx, channel, event); err != nil {
		s.live.failed(ctx, eventID, version, err)
	}
}

// failed logs the loss of version's message of event eventID.
func (l *live) failed(ctx context.Context, eventID string, version int, err error) {
	l.log.LogAttrs(ctx, slog.LevelError, "live message not published", slog.String("event", eventID),
		slog.Int("version", version), slog.String("error", err.Error()))
}

// liveContext is the context of a live message's work after a commit: it keeps ctx's
// values but not its cancellation, and ends after budget or at ctx's deadline, whichever
// comes first.
func liveContext(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(budget)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}
