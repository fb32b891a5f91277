package scoring

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
)

const (
	// PlayersPerTransaction keeps a scoring transaction (a prediction and a standing per
	// player, the shard's checkpoint, and room for two more items) within DynamoDB's 100
	// items. It is also the page a shard's scoring reads at a time.
	PlayersPerTransaction = (ddb.MaxTransactItems - 4) / 2
	// maxScoreAttempts bounds the retries of one batch of players.
	maxScoreAttempts = 25
	// maxDriftRereads is how many consistent re-reads a player's apparent drift must
	// survive before it is reported (see driftError).
	maxDriftRereads = 3
)

// scoreJob is one prediction to (re)score: the row as last read and the decision.
type scoreJob struct {
	row      table.PredictionRow
	rescore  domain.Rescore
	standing *table.StandingRow // as last read; nil if the player has none this season
	// size and standingSize are the bytes of the prediction and of the standing as read,
	// for pacing (Pacer).
	size, standingSize int
	// user is the player's profile as last read (consistently): a first standing takes its
	// name, on the condition that it is still that version (nameCheck). nil if none.
	user *table.UserRow
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

// newScoreJob is the job of prediction row (size bytes as read) under ev, its card, card
// version, settings and tie-breaker answer as the pass read them (domain.RescoreEntry).
func newScoreJob(row table.PredictionRow, size int, ev domain.Event) *scoreJob {
	return &scoreJob{row: row, size: size, rescore: domain.RescoreEntry(ev, row.Entry(), row.StoredScore())}
}

// keyAnswer is the tie-breaker answer a pass of ev writes into the score keys
// (table.LeaderboardSK): the answer as set, which orders the leaderboard once the pass
// completes (domain.Event.CountedAnswer); nil when none is set or ev has no question, and
// the keys are the plain score keys. Setting, changing or clearing the answer moves the card
// version, so the pass after it rewrites every prediction's key.
func keyAnswer(ev domain.Event) *int {
	if ev.Settings.Tiebreaker == nil || ev.Answer == nil {
		return nil
	}
	v := ev.Answer.Value
	return &v
}

// cardOutdated is the error of a run whose card a newer run has overtaken.
func cardOutdated(ev domain.Event) error {
	return domain.Errorf(domain.CodeConflict, "the card of event %q changed while scoring; run scoreEvent again", ev.ID)
}

// scoringRun is one Run: its shards run in parallel, each one batch at a time.
type scoringRun struct {
	e        *Engine
	ev       domain.Event
	card     Card
	deadline time.Time
	dryRun   bool
	// shards and seasonShards are the event's and its season's shard counts.
	shards, seasonShards int

	started atomic.Int64 // batches started, all shards
	wrote   atomic.Int64 // transactions and checkpoint updates that succeeded

	mu       sync.Mutex // guards report
	report   *domain.ScoreReport
	done     []int                 // by shard: predictions written for the card version (the checkpoint's count)
	complete []bool                // by shard: every prediction of the shard is written for the card version
	cps      []table.CheckpointRow // by shard: the checkpoint as the run left it (pick counts)
}

// mayStart reports whether the run may start another batch: before the deadline (if
// any), or if it has started none yet.
func (r *scoringRun) mayStart() bool {
	n := r.started.Add(1)
	if n == 1 || r.deadline.IsZero() || time.Now().Before(r.deadline) {
		return true
	}
	r.started.Add(-1)
	return false
}

func (r *scoringRun) add(rep domain.ScoreReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.report.PredictionsScored += rep.PredictionsScored
	r.report.StandingsChanged += rep.StandingsChanged
	r.report.Transactions += rep.Transactions
}

// shardDone reports whether shard sh is done: it has no prediction, or its checkpoint
// counts all of them written for the run's card version.
func (r *scoringRun) shardDone(cp table.CheckpointRow, count int) bool {
	return count == 0 || (cp.CardVersion == r.ev.CardVersion && cp.Done == count)
}

// shard scores shard sh from its checkpoint until it is done, the deadline stops it, or
// a pass reaches the shard's end short of its count (twice: once the pass it continued,
// once from the beginning).
func (r *scoringRun) shard(ctx context.Context, sh int) error {
	e, ev, eid := r.e, r.ev, table.EventID(r.ev.ID)
	count := r.card.ShardCount(sh)
	cp := r.card.Checkpoints[sh] // zero if there is none yet
	if cp.CardVersion > ev.CardVersion {
		return cardOutdated(ev)
	}
	// pos is the checkpoint as the next write must find it; next what this pass counts.
	pos := cp
	if cp.CardVersion < ev.CardVersion {
		cp = table.CheckpointRow{Keys: table.Keys{PK: table.ShardPK(eid, sh), SK: table.CheckpointSK}, Type: table.TypeCheckpoint, CardVersion: ev.CardVersion}
	}
	restarted := false
	defer func() { r.done[sh], r.cps[sh] = cp.Done, cp }()
	for {
		if cp.Done > count {
			// More written than counted when the run read the counts: predictions came
			// since (CONFLICT: the next run reads the counts again), or the counts drifted.
			locks, _, err := e.ReadCounts(ctx, r.card.Row)
			if err != nil {
				return err
			}
			if now := (Card{Row: r.card.Row, Locks: locks}).ShardCount(sh); now >= cp.Done {
				return domain.Errorf(domain.CodeConflict, "event %q got a new prediction while scoring; run scoreEvent again", ev.ID)
			}
			return domain.Errorf(domain.CodeInternal, "shard %d of event %q has %d predictions scored for card version %d but its lock copies count %d: the counts have drifted", sh, ev.ID, cp.Done, ev.CardVersion, count)
		}
		if r.shardDone(cp, count) {
			r.complete[sh] = true
			return nil
		}
		if !r.mayStart() {
			return nil
		}
		page, last, err := r.page(ctx, sh, cp.After)
		if err != nil {
			return err
		}
		if last == "" {
			// The end of the shard, short of its count: predictions the index does not show
			// yet (written just before the lock) or showed elsewhere while they moved. Go
			// over the shard again from its beginning, in this call at most once.
			if restarted || cp.After == "" || r.dryRun {
				return nil
			}
			restarted = true
			next := cp
			next.After = ""
			if err := r.moveCheckpoint(ctx, sh, &pos, &cp, next); err != nil {
				return err
			}
			continue
		}
		next := cp
		next.After = last
		if r.dryRun {
			r.dryBatch(page)
			cp = next
			continue
		}
		if len(page) == 0 {
			if err := r.moveCheckpoint(ctx, sh, &pos, &cp, next); err != nil {
				return err
			}
			continue
		}
		if err := e.readStandings(ctx, ev.Season(), page); err != nil {
			return fmt.Errorf("dynamo: score %s: read standings: %w", ev.ID, err)
		}
		moved := true
		for _, c := range splitPage(page, last, r.seasonShards) { // one chunk unless first standings make it too big
			to := cp
			to.After = c.after
			rep, m, err := r.scoreBatch(ctx, sh, c.jobs, &checkpointMove{from: pos, to: to})
			r.add(rep)
			if err != nil {
				return err
			}
			if moved = m != nil; !moved {
				break
			}
			r.wrote.Add(1)
			pos, cp = *m, *m
		}
		if moved {
			continue
		}
		// Another run moved the checkpoint first: continue from where it is.
		if err := r.reloadCheckpoint(ctx, sh, &pos, &cp); err != nil {
			return err
		}
	}
}

// page reads the next page of shard sh after index key after (the index, eventually
// consistent): the jobs that need a write, and the last key read ("" at the end).
// Returns CONFLICT if a prediction holds a score from a newer card.
func (r *scoringRun) page(ctx context.Context, sh int, after string) ([]*scoreJob, string, error) {
	eid := table.EventID(r.ev.ID)
	partition := table.EventShardPK(eid, sh, r.shards)
	q, err := r.e.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(partition)).
		And(expression.Key(table.AttrGSISK).GreaterThan(expression.Value(max(after, table.CardLast)))), PlayersPerTransaction, true)
	if err != nil {
		return nil, "", fmt.Errorf("dynamo: score %s: %w", r.ev.ID, err)
	}
	out, err := r.e.db.Query(ctx, q)
	if err != nil {
		return nil, "", fmt.Errorf("dynamo: score %s: %w", r.ev.ID, err)
	}
	var (
		jobs  []*scoreJob
		last  string
		seen  = map[string]bool{}
		bytes int
	)
	for _, item := range out.Items {
		size := table.ItemSize(item)
		bytes += size
		last = table.ItemString(item, table.AttrGSISK)
		if table.ItemType(item) != table.TypePrediction {
			continue
		}
		var row table.PredictionRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return nil, "", fmt.Errorf("dynamo: score %s: %w", r.ev.ID, err)
		}
		if seen[row.UserID] {
			// Twice in one page: the index shows a key change half done. Two writes to
			// one item in a transaction would be refused; the condition on the version
			// takes care of which copy is current.
			continue
		}
		seen[row.UserID] = true
		j := newScoreJob(row, size, r.ev)
		if j.rescore.Newer {
			return nil, "", cardOutdated(r.ev)
		}
		if j.rescore.Write {
			jobs = append(jobs, j)
		}
	}
	if err := r.e.pace.chargeRead(ctx, table.IndexName+"|"+partition, capacity.ReadUnits(bytes, false)); err != nil {
		return nil, "", err
	}
	return jobs, last, nil
}

// dryBatch counts what writing page would do.
func (r *scoringRun) dryBatch(page []*scoreJob) {
	rep := domain.ScoreReport{PredictionsScored: len(page)}
	for _, j := range page {
		if !j.rescore.Delta.Zero() {
			rep.StandingsChanged++
		}
	}
	if len(page) > 0 {
		rep.Transactions = 1
	}
	r.add(rep)
}

// checkpointMove is a checkpoint update in a scoring transaction: from is the checkpoint
// as read (zero: none exists), to where it goes; its count grows by the predictions the
// transaction writes. by, if set, is written as the checkpoint's By: which attempt wrote it.
type checkpointMove struct {
	from, to table.CheckpointRow
	by       string
}

// item is the update of the checkpoint to to, plus written predictions, conditioned on
// it still being from.
func (m *checkpointMove) item(tableName string, written int) (types.TransactWriteItem, table.CheckpointRow, error) {
	to := m.to
	to.Done += written
	cond := table.NotExists()
	if m.from.PK != "" {
		cond = expression.Name("cardVersion").Equal(expression.Value(m.from.CardVersion)).
			And(expression.Name("after").Equal(expression.Value(m.from.After))).
			And(expression.Name("done").Equal(expression.Value(m.from.Done)))
	}
	upd := expression.Set(expression.Name(table.AttrType), expression.Value(table.TypeCheckpoint)).
		Set(expression.Name("cardVersion"), expression.Value(to.CardVersion)).
		Set(expression.Name("after"), expression.Value(to.After)).
		Set(expression.Name("done"), expression.Value(to.Done)).
		Set(expression.Name("picked"), expression.Value(to.Picked))
	if len(to.Picks) > 0 { // the pass's pick counts so far (withPicks)
		upd = upd.Set(expression.Name("picks"), expression.Value(to.Picks))
	} else {
		upd = upd.Remove(expression.Name("picks"))
	}
	if m.by != "" {
		to.By = m.by
		upd = upd.Set(expression.Name("by"), expression.Value(m.by))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, to, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(tableName), Key: table.Key(to.PK, to.SK),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, to, nil
}

// moveCheckpoint moves shard sh's checkpoint from *pos to next without a batch (a page
// with nothing to write, or a new pass from the shard's beginning). If another run moved
// it first, or holds it in a transaction in flight, *pos and *cp become what it holds now
// (read again after a pause, in the second case).
func (r *scoringRun) moveCheckpoint(ctx context.Context, sh int, pos, cp *table.CheckpointRow, next table.CheckpointRow) error {
	m := checkpointMove{from: *pos, to: next}
	item, to, err := m.item(r.e.db.Name, 0)
	if err != nil {
		return fmt.Errorf("dynamo: score %s: %w", r.ev.ID, err)
	}
	err = r.e.db.Transact(ctx, []types.TransactWriteItem{item})
	if reasons, cancelled := ddb.CancellationReasons(err); cancelled {
		if !ddb.Failed(reasons, 0) {
			if err := ddb.Sleep(ctx, ddb.Backoff(1)); err != nil {
				return err
			}
		}
		return r.reloadCheckpoint(ctx, sh, pos, cp)
	}
	if err != nil {
		return fmt.Errorf("dynamo: score %s: checkpoint: %w", r.ev.ID, err)
	}
	r.wrote.Add(1)
	*pos, *cp = to, to
	return nil
}

// reloadCheckpoint reads shard sh's checkpoint again (consistently), after another run
// moved it: *pos and *cp become what it holds. Returns CONFLICT if it is for a newer card.
func (r *scoringRun) reloadCheckpoint(ctx context.Context, sh int, pos, cp *table.CheckpointRow) error {
	eid := table.EventID(r.ev.ID)
	out, err := r.e.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(r.e.db.Name), Key: table.CheckpointKey(eid, sh), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("dynamo: score %s: checkpoint: %w", r.ev.ID, err)
	}
	var row table.CheckpointRow
	if out.Item != nil {
		if err := attributevalue.UnmarshalMap(out.Item, &row); err != nil {
			return fmt.Errorf("dynamo: score %s: checkpoint: %w", r.ev.ID, err)
		}
	}
	if row.CardVersion > r.ev.CardVersion {
		return cardOutdated(r.ev)
	}
	*pos = row
	if row.CardVersion < r.ev.CardVersion { // cannot go back; kept for safety
		*cp = table.CheckpointRow{Keys: table.Keys{PK: table.ShardPK(eid, sh), SK: table.CheckpointSK}, Type: table.TypeCheckpoint, CardVersion: r.ev.CardVersion}
		return nil
	}
	*cp = row
	return nil
}

// scoreBatch writes one batch of players in one transaction with the move of their
// shard's checkpoint, re-reading and retrying the players whose conditions failed until
// the batch has nothing left to write (then the transaction moves the checkpoint alone).
// It reports only what its successful transaction wrote, and returns the checkpoint as
// written, or nil if another run had moved the checkpoint first (nothing written).
func (r *scoringRun) scoreBatch(ctx context.Context, sh int, batch []*scoreJob, move *checkpointMove) (domain.ScoreReport, *table.CheckpointRow, error) {
	e, ev := r.e, r.ev
	var report domain.ScoreReport
	season := ev.Season()
	rereads := 0
	for attempt := 0; ; attempt++ {
		if attempt == maxScoreAttempts {
			return report, nil, domain.Errorf(domain.CodeUnavailable, "scoring event %q kept conflicting with other writes; run it again", ev.ID)
		}
		items := make([]types.TransactWriteItem, 0, 2*len(batch)+3)
		owner := make([]int, 0, 2*len(batch)) // item index → batch index
		standings := 0
		drift := map[int]bool{}
		eventRanks, seasonRanks := rankDelta{}, map[int]rankDelta{}
		demand := writeDemand{}
		for i, j := range batch {
			pred, st, err := r.scoreItems(j, eventRanks, seasonRanks, demand)
			var de *driftError
			if errors.As(err, &de) && j.driftRereads < maxDriftRereads {
				drift[i] = true
				continue
			}
			if err != nil {
				return report, nil, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
			}
			items = append(items, pred)
			owner = append(owner, i)
			if st != nil {
				items = append(items, *st)
				owner = append(owner, i)
				if j.standing == nil {
					check, err := e.nameCheck(j)
					if err != nil {
						return report, nil, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
					}
					items = append(items, check)
					owner = append(owner, i)
				}
				standings++
			}
		}
		if len(drift) > 0 {
			// Read those players again, consistently (after a pause: a transaction of
			// another run may be committing them), and build the batch again.
			for i := range drift {
				batch[i].driftRereads++
			}
			if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
				return report, nil, err
			}
			var err error
			if batch, err = e.reread(ctx, ev, batch, drift); err != nil {
				return report, nil, err
			}
			continue
		}
		// Each attempt marks the checkpoint it writes, so that an attempt whose answer is
		// lost (a timeout after DynamoDB applied it) can tell it committed (batchCommitted).
		mv := move.withPicks(ev, batch) // the batch's picks counted
		mv.by = fmt.Sprintf("%016x", rand.Uint64())
		cpItem, moved, err := mv.item(e.db.Name, len(batch))
		if err != nil {
			return report, nil, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		cpIndex := len(items)
		items = append(items, cpItem)
		shardItems := table.ShardPK(table.EventID(ev.ID), sh)
		demand.transactional(shardItems, table.ItemSize(cpItem.Update.ExpressionAttributeValues))
		// The players of a batch are of one shard of the event (the checkpoint's): its
		// histogram, and those of their season shards, move with their scores.
		hists := []struct {
			key map[string]types.AttributeValue
			d   rankDelta
		}{{table.EventRanksKey(table.EventID(ev.ID), sh), eventRanks}}
		for _, ss := range slices.Sorted(maps.Keys(seasonRanks)) {
			hists = append(hists, struct {
				key map[string]types.AttributeValue
				d   rankDelta
			}{table.SeasonRanksKey(season, ss), seasonRanks[ss]})
		}
		for _, h := range hists {
			it, ok, err := e.ranksUpdate(h.key, h.d)
			if err != nil {
				return report, nil, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
			}
			if ok {
				items = append(items, it)
				demand.transactional(table.ItemString(h.key, table.AttrPK), histogramSize)
			}
		}
		if tooManyItems(items) {
			return report, nil, nil // first standings found since the page was split: read it again
		}
		if err := e.pace.waitWrites(ctx, demand); err != nil {
			return report, nil, err
		}
		err = e.db.Transact(ctx, items)
		if _, cancelled := ddb.CancellationReasons(err); err != nil && !cancelled && e.batchCommitted(ctx, moved) {
			err = nil // applied, its answer lost: it is this call's to report
		}
		if err == nil {
			if len(batch) > 0 {
				report.PredictionsScored += len(batch)
				report.StandingsChanged += standings
				report.Transactions++
			}
			return report, &moved, nil
		}
		reasons, cancelled := ddb.CancellationReasons(err)
		if !cancelled {
			return report, nil, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		if ddb.Failed(reasons, cpIndex) {
			return report, nil, nil // another run moved the checkpoint: it goes on from there
		}
		stale := map[int]bool{}
		transient := false
		for i := range items {
			switch ddb.ReasonCode(reasons, i) {
			case "ConditionalCheckFailed":
				stale[owner[i]] = true
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				transient = true
			case "", "None":
			default: // e.g. ValidationError: retrying cannot help
				return report, nil, fmt.Errorf("dynamo: score %s: transaction item %d: %s: %w", ev.ID, i, ddb.ReasonCode(reasons, i), err)
			}
		}
		// Re-read them all if the engine named no item, or if the batch fails again after a
		// re-read: an engine may name only the first failing item, and re-reading
		// one player per attempt would not converge within maxScoreAttempts.
		if (len(stale) == 0 && !transient) || (len(stale) > 0 && rereads > 0) {
			for i := range batch {
				stale[i] = true
			}
		}
		if len(stale) == 0 {
			if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
				return report, nil, err
			}
			continue
		}
		rereads++
		if batch, err = e.reread(ctx, ev, batch, stale); err != nil {
			return report, nil, err
		}
	}
}

// histogramSize is what a score histogram is taken to weigh when pacing its writes: a
// few hundred totals of a few bytes each.
const histogramSize = 1024

// batchCommitted reports whether the checkpoint holds what a batch's transaction wrote to
// it (to, with its By mark): after an error that does not say whether the transaction was
// applied (a timeout, a reset connection, the SDK's retries spent), a consistent read of the
// checkpoint tells — no other attempt writes that mark. It reads even if ctx is done (for a
// few seconds), so that a batch committed just as the call's deadline struck is still
// reported by the call that wrote it. false if the read fails.
func (e *Engine) batchCommitted(ctx context.Context, to table.CheckpointRow) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(e.db.Name), Key: table.Key(to.PK, to.SK), ConsistentRead: aws.Bool(true),
	})
	if err != nil || out.Item == nil {
		return false
	}
	var cp table.CheckpointRow
	if err := attributevalue.UnmarshalMap(out.Item, &cp); err != nil {
		return false
	}
	return cp.By == to.By && cp.CardVersion == to.CardVersion && cp.After == to.After && cp.Done == to.Done
}

// scoreItems builds a job's prediction update, conditioned on the version read, and, if
// the standing moves (or the player has none yet), its standing write (nil otherwise).
// Beside the items it records the moves of the prediction's points in ev (the shard's
// event histogram) and of the standing's total in seasonRanks (by season shard), and what
// the writes ask of the index partitions (demand).
func (r *scoringRun) scoreItems(j *scoreJob, ev rankDelta, seasonRanks map[int]rankDelta, demand writeDemand) (types.TransactWriteItem, *types.TransactWriteItem, error) {
	pred, st, moved, err := r.scoreWrites(j)
	if err != nil {
		return pred, st, err
	}
	ev.move(j.row.Points, &j.rescore.Score.Points)
	demand.indexMove(table.IndexName+"|"+table.EventShardPK(table.EventID(r.ev.ID), table.UserID(j.row.UserID).Shard(r.shards), r.shards), j.size, j.scoredSize(r.ev))
	if moved != nil {
		ss := table.UserID(j.row.UserID).Shard(r.seasonShards)
		if seasonRanks[ss] == nil {
			seasonRanks[ss] = rankDelta{}
		}
		seasonRanks[ss].move(moved[0], moved[1])
		size := max(j.standingSize, newStandingSize)
		demand.indexMove(table.IndexName+"|"+table.SeasonShardPK(r.ev.Season(), ss, r.seasonShards), size, size)
	}
	return pred, st, nil
}

// newStandingSize is what a standing is taken to weigh when pacing its first write.
const newStandingSize = 300

// Bytes a prediction gains when scored (DynamoDB's item size): each correct match id in
// correctIds (its 36 characters and a byte of list overhead), and on its first scoring the
// attributes scoring adds (points, correct, scoredWith, correctIds' name and list). On an
// event with domain.Event.ExtraScoring, each pick's points (the name, a number of up to 4
// digits and the map entry's byte) and the perfect card (its name and a boolean); on an
// event whose tie-breaker answer is set, the tie-break component of the index key and its
// '#'.
const (
	correctIDBytes   = 37
	firstScoreBytes  = 48
	pickPointsBytes  = 6 + 4 + 1
	perfectCardBytes = 11 + 1
	tiebreakKeyBytes = domain.TiebreakKeyLen + 1
)

// scoredSize estimates the prediction's size once this run has scored it: scored, an item
// often crosses a write unit (1 KB) that it was under as read, and its index entry's put
// costs what the new item weighs.
func (j *scoreJob) scoredSize(ev domain.Event) int {
	n := j.size + (len(j.rescore.CorrectIDs)-len(j.row.CorrectIDs))*correctIDBytes
	if j.row.Points == nil {
		n += firstScoreBytes
	}
	next := j.rescore.Next
	if next.PickPoints != nil && !slices.ContainsFunc(j.row.Picks, func(p table.PickRow) bool { return p.Points != nil }) {
		n += len(next.PickPoints) * pickPointsBytes
	}
	if next.PerfectCard != nil && j.row.PerfectCard == nil {
		n += perfectCardBytes
	}
	if _, tiebreak, _, err := table.ParseScoreSK(j.row.GSISK); keyAnswer(ev) != nil && (err != nil || tiebreak == "") {
		n += tiebreakKeyBytes // a key without a tie-break (or an unscored one) gets one
	}
	return n
}

// scoreWrites is scoreItems without the histograms: moved is the standing's total before
// and after (nil before: no standing yet), or nil if the standing is not written.
func (r *scoringRun) scoreWrites(j *scoreJob) (types.TransactWriteItem, *types.TransactWriteItem, *[2]*int, error) {
	e, season, cardVersion := r.e, r.ev.Season(), r.ev.CardVersion
	uid := table.UserID(j.row.UserID)
	seasonPartition := table.SeasonShardPK(season, uid.Shard(r.seasonShards), r.seasonShards)
	score := j.rescore.Next
	sk, err := table.LeaderboardSK(score.Points, keyAnswer(r.ev), j.row.Tiebreaker, uid)
	if err != nil {
		return types.TransactWriteItem{}, nil, nil, err
	}
	cond := table.Exists().And(table.VersionIs(j.row.Version))
	upd := expression.Set(expression.Name("points"), expression.Value(score.Points)).
		Set(expression.Name("correct"), expression.Value(score.Correct)).
		Set(expression.Name("scoredWith"), expression.Value(cardVersion)).
		Set(expression.Name(table.AttrGSISK), expression.Value(sk)).
		Set(expression.Name("version"), expression.Value(j.row.Version+1))
	if len(score.CorrectIDs) > 0 {
		upd = upd.Set(expression.Name("correctIds"), expression.Value(score.CorrectIDs))
	} else {
		upd = upd.Remove(expression.Name("correctIds")) // no empty lists: see table.MatchRow
	}
	upd = gameScoreUpdate(upd, j.row, score)
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, nil, nil, err
	}
	pred := types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(e.db.Name), Key: table.Key(j.row.PK, j.row.SK),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}
	d := j.rescore.Delta
	if j.standing == nil {
		if j.row.Points != nil {
			// Scored before, yet no standing: the standing was lost or never written with
			// the prediction. Report it rather than rebuild it from this event alone.
			return pred, nil, nil, &driftError{domain.Errorf(domain.CodeInternal, "player %q has a scored prediction for event %q but no %d standing: standings have drifted from the scored predictions", j.row.UserID, j.row.EventID, season)}
		}
		name, version := j.firstStandingName()
		row := table.StandingRow{
			Keys:      table.Keys{PK: table.UserPK(uid), SK: table.StandingSK(season)},
			IndexKeys: table.IndexKeys{GSIPK: seasonPartition},
			Type:      table.TypeStanding, UserID: j.row.UserID, UserName: name, UserNameVersion: version,
			Season: season, Points: d.Points, Correct: d.Correct, EventsPlayed: d.EventsPlayed, Version: 1,
		}
		if row.GSISK, err = table.ScoreSK(row.Points, uid); err != nil {
			return pred, nil, nil, err
		}
		put, err := e.db.Put(row, table.NotExists())
		return pred, &put, &[2]*int{nil, &row.Points}, err
	}
	if d.Zero() {
		return pred, nil, nil, nil
	}
	st := *j.standing
	next, err := domain.ApplyDelta(st.ToDomain(), d)
	if err != nil {
		return pred, nil, nil, &driftError{err}
	}
	stSK, err := table.ScoreSK(next.Points, uid)
	if err != nil {
		return pred, nil, nil, err
	}
	sexpr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("points"), expression.Value(next.Points)).
			Set(expression.Name("correct"), expression.Value(next.Correct)).
			Set(expression.Name("eventsPlayed"), expression.Value(next.EventsPlayed)).
			Set(expression.Name(table.AttrGSIPK), expression.Value(seasonPartition)).
			Set(expression.Name(table.AttrGSISK), expression.Value(stSK)).
			Set(expression.Name("version"), expression.Value(st.Version+1))).
		WithCondition(expression.Name("version").Equal(expression.Value(st.Version))).Build()
	if err != nil {
		return pred, nil, nil, err
	}
	return pred, &types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(e.db.Name), Key: table.Key(st.PK, st.SK),
		UpdateExpression: sexpr.Update(), ConditionExpression: sexpr.Condition(),
		ExpressionAttributeNames: sexpr.Names(), ExpressionAttributeValues: sexpr.Values(),
	}}, &[2]*int{&st.Points, &next.Points}, nil
}

// gameScoreUpdate adds to upd what the game's rules store beyond the points (next, from
// domain.RescoreEntry): each pick's points in the picks list (row's, as read: the update is
// conditioned on its version) and the perfect card when next has them (an event with
// domain.Event.ExtraScoring; the perfect card on a final pass only); an attribute row holds
// but next has not is removed. A prediction of an event without them gets no action here:
// it stores what it always did.
func gameScoreUpdate(upd expression.UpdateBuilder, row table.PredictionRow, next domain.StoredScore) expression.UpdateBuilder {
	for i, p := range row.Picks {
		name := expression.Name(fmt.Sprintf("picks[%d].points", i))
		switch {
		case next.PickPoints != nil:
			upd = upd.Set(name, expression.Value(next.PickPoints[i]))
		case p.Points != nil:
			upd = upd.Remove(name)
		}
	}
	switch {
	case next.PerfectCard != nil:
		upd = upd.Set(expression.Name("perfectCard"), expression.Value(*next.PerfectCard))
	case row.PerfectCard != nil:
		upd = upd.Remove(expression.Name("perfectCard"))
	}
	return upd
}

// readStandings loads the season standing and the profile of every player in batch
// (consistent BatchGetItems of 100 keys).
func (e *Engine) readStandings(ctx context.Context, season int, batch []*scoreJob) error {
	keys := make([]map[string]types.AttributeValue, 0, 2*len(batch))
	byPK := make(map[string]*scoreJob, len(batch))
	for _, j := range batch {
		keys = append(keys, table.Key(j.row.PK, table.StandingSK(season)), table.Key(j.row.PK, table.UserSK))
		byPK[j.row.PK] = j
		j.standing, j.user = nil, nil
	}
	return e.db.BatchGet(ctx, keys, true, func(item map[string]types.AttributeValue) (err error) {
		j := byPK[table.ItemString(item, table.AttrPK)]
		if j == nil {
			return nil
		}
		switch table.ItemType(item) {
		case table.TypeUser:
			j.user = &table.UserRow{}
			err = attributevalue.UnmarshalMap(item, j.user)
		case table.TypeStanding:
			j.standing = &table.StandingRow{}
			j.standingSize = table.ItemSize(item)
			err = attributevalue.UnmarshalMap(item, j.standing)
		}
		return err
	})
}

// firstStandingName is the name a first standing of j's player is written with, and its
// version: the profile's as read, or the prediction's copy for a player without a profile.
func (j *scoreJob) firstStandingName() (string, int) {
	if j.user != nil {
		return j.user.Name, j.user.NameVersion
	}
	return j.row.UserName, j.row.UserNameVersion
}

// nameCheck is the condition, in the transaction that writes j's first standing, that the
// player's profile is still the one firstStandingName read (or still absent): a rename that
// lands after the read cancels the write, and the player is read again.
func (e *Engine) nameCheck(j *scoreJob) (types.TransactWriteItem, error) {
	cond := table.NotExists()
	if j.user != nil {
		cond = expression.Name("nameVersion").Equal(expression.Value(j.user.NameVersion))
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(e.db.Name), Key: table.Key(j.row.PK, table.UserSK),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// reread reloads the predictions and standings of the stale players of batch (consistent
// reads) and returns the batch without the players that no longer need a write. Returns
// CONFLICT if a prediction now holds a score from a newer card than ev's.
func (e *Engine) reread(ctx context.Context, ev domain.Event, batch []*scoreJob, stale map[int]bool) ([]*scoreJob, error) {
	season := ev.Season()
	var keys []map[string]types.AttributeValue
	for i := range stale {
		j := batch[i]
		keys = append(keys, table.Key(j.row.PK, j.row.SK), table.Key(j.row.PK, table.StandingSK(season)), table.Key(j.row.PK, table.UserSK))
	}
	preds := map[string]table.PredictionRow{}
	sizes := map[string]int{}
	standings := map[string]*table.StandingRow{}
	users := map[string]*table.UserRow{}
	err := e.db.BatchGet(ctx, keys, true, func(item map[string]types.AttributeValue) error {
		pk := table.ItemString(item, table.AttrPK)
		switch table.ItemType(item) {
		case table.TypePrediction:
			var row table.PredictionRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			preds[pk], sizes[pk] = row, table.ItemSize(item)
		case table.TypeStanding:
			var row table.StandingRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			standings[pk], sizes[pk+"|standing"] = &row, table.ItemSize(item)
		case table.TypeUser:
			var row table.UserRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			users[pk] = &row
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
		nj := newScoreJob(row, sizes[j.row.PK], ev)
		if nj.rescore.Newer {
			return nil, cardOutdated(ev)
		}
		if !nj.rescore.Write {
			continue // another run already wrote it
		}
		nj.standing, nj.standingSize, nj.user = standings[j.row.PK], sizes[j.row.PK+"|standing"], users[j.row.PK]
		nj.driftRereads = j.driftRereads
		out = append(out, nj)
	}
	return out, nil
}

// markScored completes a scoring pass: it records on the event row the matches the pass
// counted (scoredMatches) and its card version (scoredVersion), and makes the event SCORED
// if every match has a result (otherwise, live scoring, it stays BROADCAST; an event already
// SCORED stays so). scoredVersion moves on a SCORED event too: what a pass after a change
// of the card applies (a tie-breaker answer among them: domain.Event.CountedAnswer) counts
// once it is recorded. One transaction conditioned on the card version scored
// and on every shard's checkpoint holding the count done the run read (done, by shard):
// every prediction the copies counted was written for this card. No prediction can have
// come since the counts were read: scoring needs a result, a result is only entered once
// every copy is locked (the store locks them before the card change, and in it), and
// the store brings any copy left behind forward before it reads them (so the copies,
// which may be more than a transaction holds, need no condition here). extra (the pass's
// pick counts, then the call's audit entry) is written last in the same transaction.
// The completion moves the event's live version by one, conditioned on the version read:
// when another completion of the same card moved it first, the transaction is made again
// on top of that one (the condition's failure returns the row as it is). Returns the live
// version written; CONFLICT if the card or a checkpoint changed since, UNAVAILABLE if other
// completions kept moving the live version.
func (e *Engine) markScored(ctx context.Context, ev domain.Event, card Card, done []int, extra ...types.TransactWriteItem) (int, error) {
	eid := table.EventID(ev.ID)
	same := expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))
	// update is the event row's update writing live version live (a builder shares its
	// actions with its copies: one per transaction).
	update := func(live int) expression.UpdateBuilder {
		upd := expression.Set(expression.Name("scoredMatches"), expression.Value(domain.ResultedMatches(ev.Matches))).
			Set(expression.Name("scoredVersion"), expression.Value(ev.CardVersion)).
			Set(expression.Name("liveVersion"), expression.Value(live))
		if ev.Stored != domain.StateScored && len(domain.MissingResults(ev.Matches)) == 0 {
			upd = upd.Set(expression.Name("state"), expression.Value(string(domain.StateScored)))
		}
		return upd
	}
	var checks []types.TransactWriteItem
	for sh := range card.Row.Shards {
		if card.ShardCount(sh) == 0 {
			continue // nothing to have scored
		}
		check, err := e.db.Check(table.CheckpointKey(eid, sh), same.And(expression.Name("done").Equal(expression.Value(done[sh]))))
		if err != nil {
			return 0, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		checks = append(checks, check)
	}
	live := card.Row.LiveVersion
	for range ddb.OptimisticAttempts {
		event, err := e.db.UpdateIf(table.Key(table.EventsPartition, table.EventSK(eid)), update(live+1), same.And(table.LiveVersionIs(live)))
		if err != nil {
			return 0, fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
		}
		items := append(append([]types.TransactWriteItem{event}, checks...), extra...)
		err = e.db.TransactRetry(ctx, items)
		if reasons, cancelled := ddb.CancellationReasons(err); cancelled {
			if !ddb.Failed(reasons, 0) {
				return 0, domain.Errorf(domain.CodeConflict, "another scoring run of event %q moved on meanwhile; run scoreEvent again", ev.ID)
			}
			var row table.EventRow
			if err := attributevalue.UnmarshalMap(reasons[0].Item, &row); err != nil || row.CardVersion != ev.CardVersion {
				return 0, cardOutdated(ev)
			}
			live = row.LiveVersion // another completion of this card came first
			continue
		}
		if err != nil {
			if domain.ErrorCode(err) == domain.CodeUnavailable {
				return 0, err
			}
			return 0, fmt.Errorf("dynamo: score %s: mark scored: %w", ev.ID, err)
		}
		return live + 1, nil
	}
	return 0, domain.Errorf(domain.CodeUnavailable, "other scoring runs of event %q kept completing it; run scoreEvent again", ev.ID)
}

// jobItems is how many transaction items scoring j takes: its prediction, and with a
// standing write the standing, and for a first standing the check of the name it takes
// (nameCheck).
func jobItems(j *scoreJob) int {
	switch {
	case j.standing == nil && j.row.Points == nil:
		return 3
	case j.standing != nil && !j.rescore.Delta.Zero():
		return 2
	}
	return 1
}

// pageChunk is a part of a page of a shard written in one transaction, and the index key
// the checkpoint moves to with it.
type pageChunk struct {
	jobs  []*scoreJob
	after string
}

// splitPage splits a page (whose last index key is last) into transactions of at most
// maxTransactItems items, in index order: each holds its players' items, the checkpoint,
// the event shard's histogram and one histogram per season shard (of seasonShards) of its
// players. Every chunk but the last moves the checkpoint to the index key of its last
// player, the last one to last. A page is one chunk unless its first standings make it too
// big.
func splitPage(page []*scoreJob, last string, seasonShards int) []pageChunk {
	var (
		out     []pageChunk
		cur     []*scoreJob
		items   int
		seasons map[int]bool
	)
	for _, j := range page {
		ss := table.UserID(j.row.UserID).Shard(seasonShards)
		n := jobItems(j)
		if !seasons[ss] {
			n++
		}
		if len(cur) > 0 && items+n+2 > ddb.MaxTransactItems {
			out = append(out, pageChunk{jobs: cur, after: cur[len(cur)-1].row.GSISK})
			cur, items, seasons = nil, 0, nil
			n = jobItems(j) + 1
		}
		if seasons == nil {
			seasons = map[int]bool{}
		}
		seasons[ss] = true
		cur = append(cur, j)
		items += n
	}
	return append(out, pageChunk{jobs: cur, after: last})
}

// tooManyItems reports whether a scoring transaction's items exceed DynamoDB's limit
// (players re-read since the page was split need more): the caller reads the page again
// and splits it anew.
func tooManyItems(items []types.TransactWriteItem) bool { return len(items) > ddb.MaxTransactItems }

// ScoringWrites returns the writes scoring makes for one prediction against ev's card: the
// prediction's update and, when its player's season standing moves, the standing's update
// (or put of a first standing); and the write units they ask of each index partition, by
// partition, as the scoring run paces them. prediction and standing (nil: none) are the
// items as read; the event has eventShards shards, its season seasonShards. A scoring
// transaction adds its checkpoint, histograms and name checks to these: a benchmark's floor
// writes only these.
func ScoringWrites(tableName string, ev domain.Event, eventShards, seasonShards int, prediction, standing map[string]types.AttributeValue) ([]types.TransactWriteItem, map[string]float64, error) {
	var row table.PredictionRow
	if err := attributevalue.UnmarshalMap(prediction, &row); err != nil {
		return nil, nil, err
	}
	j := newScoreJob(row, table.ItemSize(prediction), ev)
	if standing != nil {
		j.standing = &table.StandingRow{}
		if err := attributevalue.UnmarshalMap(standing, j.standing); err != nil {
			return nil, nil, err
		}
		j.standingSize = table.ItemSize(standing)
	}
	r := &scoringRun{e: &Engine{db: &ddb.Table{Name: tableName}}, ev: ev, shards: eventShards, seasonShards: seasonShards}
	demand := writeDemand{}
	pred, st, err := r.scoreItems(j, rankDelta{}, map[int]rankDelta{}, demand)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return []types.TransactWriteItem{pred}, demand, nil
	}
	return []types.TransactWriteItem{pred, *st}, demand, nil
}

// ShardCount is how many predictions shard s of the event has: the sum of the counts on
// the shard's lock copies.
func (c Card) ShardCount(s int) int {
	n := 0
	for copy, l := range c.Locks {
		if copy%c.Row.Shards == s {
			n += l.Predictions
		}
	}
	return n
}

// ReadCounts reads every lock copy and every scoring checkpoint of the event of row
// consistently (BatchGetItems of 100 keys), by copy and by shard. A copy or a checkpoint
// that does not exist is missing from its map.
func (e *Engine) ReadCounts(ctx context.Context, row table.EventRow) (map[int]table.LockRow, map[int]table.CheckpointRow, error) {
	eid := table.EventID(row.ID)
	locks := make(map[int]table.LockRow, row.LockCopies)
	checkpoints := make(map[int]table.CheckpointRow, row.Shards)
	copyOf := make(map[string]int, row.LockCopies)
	shardOf := make(map[string]int, row.Shards)
	ks := table.LockKeys(eid, row.LockCopies)
	for c := range row.LockCopies {
		copyOf[table.LockPK(eid, c)] = c
	}
	for sh := range row.Shards {
		ks = append(ks, table.CheckpointKey(eid, sh))
		shardOf[table.ShardPK(eid, sh)] = sh
	}
	err := e.db.BatchGet(ctx, ks, true, func(item map[string]types.AttributeValue) error {
		switch table.ItemType(item) {
		case table.TypeLock:
			var l table.LockRow
			if err := attributevalue.UnmarshalMap(item, &l); err != nil {
				return err
			}
			if c, ok := copyOf[l.PK]; ok {
				locks[c] = l
			}
		case table.TypeCheckpoint:
			var cp table.CheckpointRow
			if err := attributevalue.UnmarshalMap(item, &cp); err != nil {
				return err
			}
			if sh, ok := shardOf[cp.PK]; ok {
				checkpoints[sh] = cp
			}
		}
		return nil
	})
	return locks, checkpoints, err
}

// auditScoringCall writes the audit entry of a Run that wrote something but
// does not end with the SCORED transaction (markScored, which carries the entry of a call
// that completes the event): the time budget stopped it, or cause (an error) did. Its
// batches commit in parallel shards, so which of them is the call's last is only known
// once they have all ended: the entry is written then, in a transaction of its own. A dry
// run, or a call that wrote nothing, writes no entry. Returns cause if not nil (the
// entry's own failure is then dropped), else the entry's error.
func (e *Engine) auditScoringCall(ctx context.Context, run *scoringRun, cause error) error {
	if run.dryRun || run.wrote.Load() == 0 {
		return cause
	}
	stopped := ""
	if cause != nil {
		stopped = string(domain.ErrorCode(cause))
	}
	run.mu.Lock()
	rep := *run.report
	run.mu.Unlock()
	put, err := e.audit(ctx, domain.AuditEntry{Action: domain.ActionScoreEvent, EventID: run.ev.ID,
		Summary: domain.SummarizeScoring(rep, run.ev.CardVersion, stopped)})
	if err == nil {
		err = e.db.TransactRetry(ctx, []types.TransactWriteItem{put})
	}
	if cause != nil {
		return cause
	}
	if err != nil {
		return fmt.Errorf("dynamo: score %s: audit entry: %w", run.ev.ID, err)
	}
	return nil
}
