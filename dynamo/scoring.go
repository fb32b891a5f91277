package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

const (
	// playersPerTransaction keeps a scoring transaction (a prediction and a standing per
	// player) within DynamoDB's 100 items.
	playersPerTransaction = maxTransactItems / 2
	// playersPerChunk is the unit of scoring work: one BatchGetItem of their standings,
	// then their transactions.
	playersPerChunk = 2 * playersPerTransaction
	// scoringWorkers is how many chunks are written at once.
	scoringWorkers = 4
	// maxScoreAttempts bounds the retries of one batch of players.
	maxScoreAttempts = 25
	// maxDriftRereads is how many consistent re-reads a player's apparent drift must
	// survive before it is reported (see driftError).
	maxDriftRereads = 3
	// ScoringMargin is the time a scoring run leaves before its request's deadline: it
	// stops starting new work that much earlier, so that the work in flight and the answer
	// still fit.
	ScoringMargin = 3 * time.Second
)

// WithScoringBudget bounds the time one ScoreEvent call spends (0: no budget of its own;
// the request's deadline still bounds it). A call cut short by its budget returns what it
// did with Complete false; calling again continues.
func WithScoringBudget(d time.Duration) Option { return func(s *Store) { s.scoringBudget = d } }

// scoreJob is one prediction to (re)score: the row as last read and the decision.
type scoreJob struct {
	row      predictionRow
	rescore  domain.Rescore
	standing *standingRow // as last read; nil if the player has none this season
	// driftRereads counts the consistent re-reads made because the prediction and the
	// standing as read did not add up.
	driftRereads int
}

// driftError is a standing that does not add up with the prediction read: it would fall
// below zero, or is missing though the prediction is scored. The two were read at different
// moments (the prediction possibly from the index), so it is real drift only if consistent
// re-reads keep showing it.
type driftError struct{ err error }

func (d *driftError) Error() string { return d.err.Error() }
func (d *driftError) Unwrap() error { return d.err }

func newScoreJob(row predictionRow, ev domain.Event) *scoreJob {
	return &scoreJob{row: row, rescore: domain.RescorePrediction(ev.Matches, ev.CardVersion, row.domainPicks(), row.storedScore())}
}

// cardOutdated is the error of a run whose card a newer run has overtaken.
func cardOutdated(ev domain.Event) error {
	return domain.Errorf(domain.CodeConflict, "the card of event %q changed while scoring; run scoreEvent again", ev.ID)
}

// ScoreEvent scores the predictions of a locked event whose matches all have results, and
// moves each player's season standing by the difference, prediction and standing together
// in transactions of at most 100 items.
//
// What decides a write is consistent or guarded: the card comes from consistent reads of
// the table (readCard; never from the index); the predictions are enumerated from the index,
// and each write is conditioned on the version of the prediction it read and the version of
// the standing, so a stale index row only costs a consistent re-read. A prediction is
// written only if its score, its correct picks or the card version it reflects differ from
// what the card says, and never over a score from a newer card. Running it again changes
// nothing; after a corrected result it moves standings by the difference; concurrent runs
// and runs cut off halfway converge to the same table.
//
// The predictions are read page by page, never-scored ones first, and written as they
// come in chunks; the run starts no chunk that would end after its time budget
// (WithScoringBudget, capped by ctx's deadline minus ScoringMargin) — it always does one —
// and then reads no further, reporting Complete false and what Remains; calling again
// continues. The event becomes SCORED, and
// the report Complete, only when every prediction the event's consistent prediction count
// says exists was seen reflecting the card, with a transaction conditioned on that count and
// on the card version. dryRun computes the report without writing.
//
// Returns NOT_FOUND, BAD_USER_INPUT (open event, missing results), CONFLICT (the card or the
// predictions changed while scoring: run it again) or INTERNAL (standings or counts have
// drifted from the predictions; see domain.ApplyDelta).
func (s *Store) ScoreEvent(ctx context.Context, event string, dryRun bool) (domain.ScoreReport, error) {
	report := domain.ScoreReport{EventID: event, DryRun: dryRun}
	deadline := s.scoringDeadline(ctx, time.Now())
	eid, err := parseEventID(event)
	if err != nil {
		return report, err
	}
	card, err := s.readCard(ctx, event, true)
	if err != nil {
		return report, err
	}
	ev := card.ev
	if err := domain.CheckScorable(ev, s.now()); err != nil {
		return report, err
	}
	defer func() { s.forgetEvent(eid); s.forgetSeason(ev.Season()) }()
	// An event whose predictions were all made before prediction counts existed has no
	// count item: its completeness rests on what the index shows, as it did then.
	legacy := len(card.counts) == 0

	// Read the predictions page by page, the ones never scored first, and write as they
	// come: a call under a budget reads only as far as it writes.
	w := s.newChunkWriter(ctx, ev, deadline, &report, dryRun)
	seen := map[string]bool{}
	var last map[string]types.AttributeValue // the last prediction read, when the read stopped early
	for _, r := range [][2]string{{prefixPending, pendingUpper}, {prefixScore, scoreUpper}} {
		q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))).
			And(expression.Key(attrGSISK).Between(expression.Value(r[0]), expression.Value(r[1]))), 0, true)
		if err != nil {
			return report, fmt.Errorf("dynamo: score %s: %w", event, err)
		}
		err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			var row predictionRow
			if err := row.decode(item); err != nil {
				return false, err
			}
			if seen[row.UserID] {
				// Read twice: a concurrent run moved its score key past this paginated
				// read. Two writes to one item in a transaction would be refused;
				// conditions take care of which copy is current.
				return true, nil
			}
			seen[row.UserID] = true
			j := newScoreJob(row, ev)
			if j.rescore.Newer {
				return false, cardOutdated(ev)
			}
			if j.rescore.Write && !w.add(j) {
				last = item
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			w.wait()
			if domain.ErrorCode(err) == domain.CodeConflict {
				return report, err
			}
			return report, fmt.Errorf("dynamo: score %s: %w", event, err)
		}
		if last != nil {
			break
		}
	}
	if last == nil {
		w.flush()
	}
	if err := w.wait(); err != nil {
		return report, err
	}
	report.Remaining = w.left()
	if dryRun {
		report.Remaining += w.started // a dry run starts nothing: all it found is left
	}

	if last != nil {
		// Stopped early: what the index still shows as never scored after the last row
		// read needs a write too (a lower bound: rows scored before may need one as well).
		if strings.HasPrefix(itemString(last, attrGSISK), prefixPending) {
			n, err := s.countAfter(ctx, eid, last)
			if err != nil {
				return report, fmt.Errorf("dynamo: score %s: %w", event, err)
			}
			report.Remaining += n
		}
		return report, nil
	}
	// Predictions the index does not show yet (the count is consistent, the index is not).
	unseen := card.predictions() - len(seen)
	if legacy {
		unseen = 0
	}
	if unseen < 0 {
		return report, domain.Errorf(domain.CodeInternal, "event %q shows %d predictions but its prediction count says %d: the count has drifted", event, len(seen), card.predictions())
	}
	report.Remaining += unseen
	if dryRun {
		report.Complete = report.Remaining == 0 && ev.Stored == domain.StateScored
		return report, nil
	}
	if report.Remaining > 0 {
		return report, nil
	}
	if ev.Stored == domain.StateScored && report.PredictionsScored == 0 {
		// Everything was seen reflecting the card (read consistently at the start) and
		// nothing was written: nothing to confirm.
		report.Complete = true
		return report, nil
	}
	counts := card.counts
	if legacy {
		counts = nil
	}
	if err := s.markScored(ctx, ev, counts); err != nil {
		return report, err
	}
	report.Complete = true
	return report, nil
}

// countAfter counts the predictions of an event the index shows as never scored after
// item (one of them), with Select COUNT (no item comes back).
func (s *Store) countAfter(ctx context.Context, eid eventID, item map[string]types.AttributeValue) (int, error) {
	q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))).
		And(expression.Key(attrGSISK).Between(expression.Value(prefixPending), expression.Value(pendingUpper))), 0, true)
	if err != nil {
		return 0, err
	}
	q.Select = types.SelectCount
	q.ExclusiveStartKey = map[string]types.AttributeValue{
		attrPK: item[attrPK], attrSK: item[attrSK], attrGSIPK: item[attrGSIPK], attrGSISK: item[attrGSISK],
	}
	n := 0
	for {
		out, err := s.db.Query(ctx, q)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// scoringDeadline is when a scoring run that started at start stops starting work: after
// the store's budget, and no later than ctx's deadline minus ScoringMargin. Zero: never.
func (s *Store) scoringDeadline(ctx context.Context, start time.Time) time.Time {
	var d time.Time
	if s.scoringBudget > 0 {
		d = start.Add(s.scoringBudget)
	}
	if dl, ok := ctx.Deadline(); ok {
		if c := dl.Add(-s.scoringMargin); d.IsZero() || c.Before(d) {
			d = c
		}
	}
	return d
}

// chunkWriter writes scoring jobs in chunks of playersPerChunk (their standings read in
// one consistent BatchGetItem, then their transactions), scoringWorkers chunks at a time,
// as a call's read finds them. Past the first, it starts no chunk that would end after the
// deadline (if not zero), judging by the longest chunk so far. A dry run only counts what
// it would write.
type chunkWriter struct {
	s        *Store
	ev       domain.Event
	deadline time.Time
	dryRun   bool
	g        *errgroup.Group
	gctx     context.Context

	pending []*scoreJob // read, not started
	started int

	mu      sync.Mutex // guards report and longest
	report  *domain.ScoreReport
	longest time.Duration // the longest chunk written so far
}

func (s *Store) newChunkWriter(ctx context.Context, ev domain.Event, deadline time.Time, report *domain.ScoreReport, dryRun bool) *chunkWriter {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(scoringWorkers)
	return &chunkWriter{s: s, ev: ev, deadline: deadline, dryRun: dryRun, g: g, gctx: gctx, report: report}
}

// add queues j and starts a chunk when one is full. It returns false once the deadline
// has stopped the writer (j stays pending).
func (w *chunkWriter) add(j *scoreJob) bool {
	w.pending = append(w.pending, j)
	if len(w.pending) < playersPerChunk {
		return true
	}
	return w.start()
}

// flush starts the last, partial chunk (subject to the deadline like any other).
func (w *chunkWriter) flush() {
	if len(w.pending) > 0 {
		w.start()
	}
}

// left is how many jobs were read but never started.
func (w *chunkWriter) left() int { return len(w.pending) }

func (w *chunkWriter) start() bool {
	if w.dryRun {
		w.report.PredictionsScored += len(w.pending)
		for _, j := range w.pending {
			if !j.rescore.Delta.Zero() {
				w.report.StandingsChanged++
			}
		}
		w.report.Transactions += (len(w.pending) + playersPerTransaction - 1) / playersPerTransaction
		w.started += len(w.pending)
		w.pending = nil
		return true
	}
	if w.started > 0 && !w.deadline.IsZero() {
		w.mu.Lock()
		ends := time.Now().Add(w.longest)
		w.mu.Unlock()
		if !ends.Before(w.deadline) {
			return false
		}
	}
	chunk := w.pending
	w.pending = nil
	w.started += len(chunk)
	w.g.Go(func() error {
		began := time.Now()
		defer func() {
			w.mu.Lock()
			w.longest = max(w.longest, time.Since(began))
			w.mu.Unlock()
		}()
		if err := w.s.readStandings(w.gctx, w.ev.Season(), chunk); err != nil {
			return fmt.Errorf("dynamo: score %s: read standings: %w", w.ev.ID, err)
		}
		for b := 0; b < len(chunk); b += playersPerTransaction {
			r, err := w.s.scoreBatch(w.gctx, w.ev, chunk[b:min(b+playersPerTransaction, len(chunk))])
			w.mu.Lock()
			w.report.PredictionsScored += r.PredictionsScored
			w.report.StandingsChanged += r.StandingsChanged
			w.report.Transactions += r.Transactions
			w.mu.Unlock()
			if err != nil {
				return err
			}
		}
		return nil
	})
	return true
}

// wait waits for the chunks started and returns the first error.
func (w *chunkWriter) wait() error { return w.g.Wait() }

// scoreBatch writes one batch of players in one transaction, re-reading and retrying the
// players whose conditions failed until the batch has nothing left to write. It reports
// only what its successful transaction wrote.
func (s *Store) scoreBatch(ctx context.Context, ev domain.Event, batch []*scoreJob) (domain.ScoreReport, error) {
	var report domain.ScoreReport
	season := ev.Season()
	rereads := 0
	for attempt := 0; len(batch) > 0; attempt++ {
		if attempt == maxScoreAttempts {
			return report, domain.Errorf(domain.CodeUnavailable, "scoring event %q kept conflicting with other writes; run it again", ev.ID)
		}
		items := make([]types.TransactWriteItem, 0, 2*len(batch))
		owner := make([]int, 0, 2*len(batch)) // item index → batch index
		standings := 0
		drift := map[int]bool{}
		for i, j := range batch {
			pred, st, err := s.scoreItems(j, season, ev.CardVersion)
			var de *driftError
			if errors.As(err, &de) && j.driftRereads < maxDriftRereads {
				drift[i] = true
				continue
			}
			if err != nil {
				return report, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
			}
			items = append(items, pred)
			owner = append(owner, i)
			if st != nil {
				items = append(items, *st)
				owner = append(owner, i)
				standings++
			}
		}
		if len(drift) > 0 {
			// Read those players again, consistently (after a pause: a transaction of
			// another run may be committing them), and build the batch again.
			for i := range drift {
				batch[i].driftRereads++
			}
			if err := sleep(ctx, backoff(attempt+1)); err != nil {
				return report, err
			}
			var err error
			if batch, err = s.reread(ctx, ev, batch, drift); err != nil {
				return report, err
			}
			continue
		}
		err := s.transact(ctx, items)
		if err == nil {
			report.PredictionsScored += len(batch)
			report.StandingsChanged += standings
			report.Transactions++
			return report, nil
		}
		reasons, cancelled := cancellationReasons(err)
		if !cancelled {
			return report, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		stale := map[int]bool{}
		transient := false
		for i := range items {
			switch reasonCode(reasons, i) {
			case "ConditionalCheckFailed":
				stale[owner[i]] = true
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				transient = true
			case "", "None":
			default: // e.g. ValidationError: retrying cannot help
				return report, fmt.Errorf("dynamo: score %s: transaction item %d: %s: %w", ev.ID, i, reasonCode(reasons, i), err)
			}
		}
		// Re-read them all if the engine named no item, or if the batch fails again after a
		// re-read: an engine may name only the first failing item (minidyn), and re-reading
		// one player per attempt would not converge within maxScoreAttempts.
		if (len(stale) == 0 && !transient) || (len(stale) > 0 && rereads > 0) {
			for i := range batch {
				stale[i] = true
			}
		}
		if len(stale) == 0 {
			if err := sleep(ctx, backoff(attempt+1)); err != nil {
				return report, err
			}
			continue
		}
		rereads++
		if batch, err = s.reread(ctx, ev, batch, stale); err != nil {
			return report, err
		}
	}
	return report, nil
}

// scoreItems builds a job's prediction update, conditioned on the version read, and, if
// the standing moves (or the player has none yet), its standing write (nil otherwise).
func (s *Store) scoreItems(j *scoreJob, season, cardVersion int) (types.TransactWriteItem, *types.TransactWriteItem, error) {
	uid := userID(j.row.UserID)
	sc := j.rescore.Score
	sk, err := scoreSK(sc.Points, uid)
	if err != nil {
		return types.TransactWriteItem{}, nil, err
	}
	cond := expression.AttributeExists(expression.Name(attrPK)).And(versionIs(j.row.Version))
	upd := expression.Set(expression.Name("points"), expression.Value(sc.Points)).
		Set(expression.Name("correct"), expression.Value(sc.Correct)).
		Set(expression.Name("scoredWith"), expression.Value(cardVersion)).
		Set(expression.Name(attrGSISK), expression.Value(sk)).
		Set(expression.Name("version"), expression.Value(j.row.Version+1))
	if len(j.rescore.CorrectIDs) > 0 {
		upd = upd.Set(expression.Name("correctIds"), expression.Value(j.rescore.CorrectIDs))
	} else {
		upd = upd.Remove(expression.Name("correctIds")) // no empty lists: see matchRow
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, nil, err
	}
	pred := types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(j.row.PK, j.row.SK),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}
	d := j.rescore.Delta
	if j.standing == nil {
		if j.row.Points != nil {
			// Scored before, yet no standing: the standing was lost or never written with
			// the prediction. Report it rather than rebuild it from this event alone.
			return pred, nil, &driftError{domain.Errorf(domain.CodeInternal, "player %q has a scored prediction for event %q but no %d standing: standings have drifted from the scored predictions", j.row.UserID, j.row.EventID, season)}
		}
		row := standingRow{
			keys:      keys{PK: userPK(uid), SK: seasonSK(season)},
			indexKeys: indexKeys{GSIPK: seasonGSIPK(season)},
			Type:      typeStanding, UserID: j.row.UserID, UserName: j.row.UserName, UserNameVersion: j.row.UserNameVersion,
			Season: season, Points: d.Points, Correct: d.Correct, EventsPlayed: d.EventsPlayed, Version: 1,
		}
		if row.GSISK, err = scoreSK(row.Points, uid); err != nil {
			return pred, nil, err
		}
		put, err := s.put(row, false)
		return pred, &put, err
	}
	if d.Zero() {
		return pred, nil, nil
	}
	st := *j.standing
	next, err := domain.ApplyDelta(st.toDomain(), d)
	if err != nil {
		return pred, nil, &driftError{err}
	}
	stSK, err := scoreSK(next.Points, uid)
	if err != nil {
		return pred, nil, err
	}
	sexpr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("points"), expression.Value(next.Points)).
			Set(expression.Name("correct"), expression.Value(next.Correct)).
			Set(expression.Name("eventsPlayed"), expression.Value(next.EventsPlayed)).
			Set(expression.Name(attrGSISK), expression.Value(stSK)).
			Set(expression.Name("version"), expression.Value(st.Version+1))).
		WithCondition(expression.Name("version").Equal(expression.Value(st.Version))).Build()
	if err != nil {
		return pred, nil, err
	}
	return pred, &types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(st.PK, st.SK),
		UpdateExpression: sexpr.Update(), ConditionExpression: sexpr.Condition(),
		ExpressionAttributeNames: sexpr.Names(), ExpressionAttributeValues: sexpr.Values(),
	}}, nil
}

// readStandings loads the season standing of every player in batch (one consistent
// BatchGetItem per 100 keys).
func (s *Store) readStandings(ctx context.Context, season int, batch []*scoreJob) error {
	keys := make([]map[string]types.AttributeValue, len(batch))
	byPK := make(map[string]*scoreJob, len(batch))
	for i, j := range batch {
		keys[i] = pkKey(j.row.PK, seasonSK(season))
		byPK[j.row.PK] = j
		j.standing = nil
	}
	return s.batchGet(ctx, keys, func(item map[string]types.AttributeValue) error {
		var row standingRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		if j := byPK[row.PK]; j != nil {
			j.standing = &row
		}
		return nil
	})
}

// reread reloads the predictions and standings of the stale players of batch (consistent
// reads) and returns the batch without the players that no longer need a write. Returns
// CONFLICT if a prediction now holds a score from a newer card than ev's.
func (s *Store) reread(ctx context.Context, ev domain.Event, batch []*scoreJob, stale map[int]bool) ([]*scoreJob, error) {
	season := ev.Season()
	var keys []map[string]types.AttributeValue
	for i := range stale {
		j := batch[i]
		keys = append(keys, pkKey(j.row.PK, j.row.SK), pkKey(j.row.PK, seasonSK(season)))
	}
	preds := map[string]predictionRow{}
	standings := map[string]*standingRow{}
	err := s.batchGet(ctx, keys, func(item map[string]types.AttributeValue) error {
		pk := itemString(item, attrPK)
		switch itemType(item) {
		case typePrediction:
			var row predictionRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			preds[pk] = row
		case typeStanding:
			var row standingRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			standings[pk] = &row
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dynamo: score %s: re-read: %w", ev.ID, err)
	}
	out := batch[:0:0]
	for i, j := range batch {
		if !stale[i] {
			out = append(out, j)
			continue
		}
		row, ok := preds[j.row.PK]
		if !ok {
			continue // gone
		}
		nj := newScoreJob(row, ev)
		if nj.rescore.Newer {
			return nil, cardOutdated(ev)
		}
		if !nj.rescore.Write {
			continue // another run already wrote it
		}
		nj.standing = standings[j.row.PK]
		nj.driftRereads = j.driftRereads
		out = append(out, nj)
	}
	return out, nil
}

// batchGet reads keys consistently in requests of at most 100 keys, retrying unprocessed
// keys, and calls fn for every item found.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) error {
	return s.batchGetItems(ctx, keys, true, fn)
}

// markScored makes the event SCORED (or, if it is already, confirms it) in one
// transaction conditioned on the card version scored and on every shard of the prediction
// count holding what the run read (counts nil: the event has no count items): the run saw
// that many predictions, each reflecting this card. Returns CONFLICT if the card or the
// count changed since.
func (s *Store) markScored(ctx context.Context, ev domain.Event, counts map[int]int) error {
	eid := eventID(ev.ID)
	same := expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))
	var event types.TransactWriteItem
	if ev.Stored == domain.StateScored {
		expr, err := expression.NewBuilder().WithCondition(same).Build()
		if err != nil {
			return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		event = types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}
	} else {
		expr, err := expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name("state"), expression.Value(string(domain.StateScored)))).
			WithCondition(same).Build()
		if err != nil {
			return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		event = types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
			UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}}
	}
	items := []types.TransactWriteItem{event}
	for shard := range countShards {
		if counts == nil {
			break // no count items (see ScoreEvent)
		}
		cond := expression.Name("predictions").Equal(expression.Value(counts[shard]))
		if counts[shard] == 0 {
			cond = expression.AttributeNotExists(expression.Name(attrPK)).Or(cond)
		}
		expr, err := expression.NewBuilder().WithCondition(cond).Build()
		if err != nil {
			return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.table), Key: pkKey(eventPK(eid), countSK(shard)),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		}})
	}
	err := s.transactRetry(ctx, items)
	if reasons, cancelled := cancellationReasons(err); cancelled {
		if reasonCode(reasons, 0) == "ConditionalCheckFailed" {
			return cardOutdated(ev)
		}
		return domain.Errorf(domain.CodeConflict, "event %q got a new prediction while scoring; run scoreEvent again", ev.ID)
	}
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			return err
		}
		return fmt.Errorf("dynamo: score %s: mark scored: %w", ev.ID, err)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
