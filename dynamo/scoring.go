package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

const (
	// playersPerTransaction keeps a scoring transaction (a prediction and a standing per
	// player) within DynamoDB's 100 items.
	playersPerTransaction = maxTransactItems / 2
	// scoringWorkers is how many scoring transactions run at once.
	scoringWorkers = 4
	// maxScoreAttempts bounds the retries of one batch of players.
	maxScoreAttempts = 25
)

// scoreJob is one prediction to (re)score: the row as last read and what it should hold.
type scoreJob struct {
	row        predictionRow
	score      domain.Score
	correctIDs []string
	standing   *standingRow // as last read; nil if the player has none this season
}

func newScoreJob(row predictionRow, card []domain.Match) *scoreJob {
	picks := make([]domain.Pick, len(row.Picks))
	for i, p := range row.Picks {
		picks[i] = domain.Pick{MatchID: p.MatchID, Team: p.Team}
	}
	j := &scoreJob{row: row, score: domain.ScorePicks(card, picks), correctIDs: []string{}}
	for _, p := range j.score.Picks {
		if *p.Correct {
			j.correctIDs = append(j.correctIDs, p.MatchID)
		}
	}
	return j
}

// changed reports whether the stored prediction differs from its score.
func (j *scoreJob) changed() bool {
	r := j.row
	return r.Points == nil || r.Correct == nil || *r.Points != j.score.Points || *r.Correct != j.score.Correct ||
		!slices.Equal(nonNil(r.CorrectIDs), j.correctIDs)
}

// delta is what the player's standing gains from this write.
func (j *scoreJob) delta() (points, correct, events int) {
	if j.row.Points == nil {
		return j.score.Points, j.score.Correct, 1
	}
	old := 0
	if j.row.Correct != nil {
		old = *j.row.Correct
	}
	return j.score.Points - *j.row.Points, j.score.Correct - old, 0
}

func (j *scoreJob) touchesStanding() bool {
	p, c, e := j.delta()
	return p != 0 || c != 0 || e != 0 || j.standing == nil
}

// ScoreEvent scores every prediction of a locked event whose matches all have results, and
// moves each player's season standing by the difference, prediction and standing together
// in transactions of at most 100 items guarded by conditions on the values read. Running it
// again changes nothing; after a corrected result it applies only the difference; concurrent
// runs and runs cut off halfway converge to the same totals. The event becomes SCORED once
// every prediction is scored. dryRun computes the report without writing.
//
// Returns NOT_FOUND, BAD_USER_INPUT (open event, missing results) or CONFLICT (the card
// changed while scoring: run it again).
func (s *Store) ScoreEvent(ctx context.Context, event string, dryRun bool) (domain.ScoreReport, error) {
	report := domain.ScoreReport{EventID: event, DryRun: dryRun}
	eid, err := parseEventID(event)
	if err != nil {
		return report, err
	}
	q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))), 0, true)
	if err != nil {
		return report, fmt.Errorf("dynamo: score %s: %w", event, err)
	}
	p, err := s.readPartition(ctx, q, 0)
	if err != nil {
		return report, fmt.Errorf("dynamo: score %s: %w", event, err)
	}
	ev, err := p.toEvent(event)
	if err != nil {
		return report, err
	}
	if !ev.Locked(s.now()) {
		return report, domain.BadInput("event %q is still open for picks: it locks at %s or with updateEvent(state: BROADCAST)", event, formatTime(ev.StartsAt))
	}
	if len(ev.Matches) == 0 {
		return report, domain.BadInput("event %q has no matches", event)
	}
	if missing := domain.MissingResults(ev.Matches); len(missing) > 0 {
		return report, domain.BadInput("event %q has matches without a result: %s", event, strings.Join(missing, ", "))
	}

	var jobs []*scoreJob
	known := make(map[string]bool, len(p.predictions))
	for _, row := range p.predictions {
		if known[row.UserID] {
			// Read twice: a concurrent run moved its score key past this paginated read.
			// Two writes to one item in a transaction would be refused; conditions take
			// care of which copy is current.
			continue
		}
		known[row.UserID] = true
		if j := newScoreJob(row, ev.Matches); j.changed() {
			jobs = append(jobs, j)
		}
	}
	if dryRun {
		report.PredictionsScored = len(jobs)
		for _, j := range jobs {
			if p, c, e := j.delta(); p != 0 || c != 0 || e != 0 {
				report.StandingsChanged++
			}
		}
		report.Transactions = (len(jobs) + playersPerTransaction - 1) / playersPerTransaction
		return report, nil
	}

	// Read every standing first, then write: reads that do not queue behind transactions
	// are faster, and each batch then costs one transaction unless it conflicts.
	if err := s.readAllStandings(ctx, ev.Season(), jobs); err != nil {
		return report, fmt.Errorf("dynamo: score %s: read standings: %w", event, err)
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(scoringWorkers)
	for start := 0; start < len(jobs); start += playersPerTransaction {
		batch := jobs[start:min(start+playersPerTransaction, len(jobs))]
		g.Go(func() error {
			r, err := s.scoreBatch(gctx, ev, batch)
			mu.Lock()
			report.PredictionsScored += r.PredictionsScored
			report.StandingsChanged += r.StandingsChanged
			report.Transactions += r.Transactions
			mu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return report, err
	}
	return report, s.markScored(ctx, ev, known, report.Transactions > 0)
}

// scoreBatch writes one batch of players in one transaction, re-reading and retrying the
// players whose conditions failed until the batch has nothing left to write.
func (s *Store) scoreBatch(ctx context.Context, ev domain.Event, batch []*scoreJob) (domain.ScoreReport, error) {
	var report domain.ScoreReport
	season := ev.Season()
	rereads := 0
	for attempt := 0; len(batch) > 0; attempt++ {
		if attempt == maxScoreAttempts {
			return report, domain.Errorf(domain.CodeConflict, "scoring event %q kept conflicting with other writes; run it again", ev.ID)
		}
		items := make([]types.TransactWriteItem, 0, 2*len(batch))
		owner := make([]int, 0, 2*len(batch)) // item index → batch index
		standings := 0
		for i, j := range batch {
			pred, st, err := s.scoreItems(j, season)
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
		conflict := false
		for i := range items {
			switch reasonCode(reasons, i) {
			case "ConditionalCheckFailed":
				stale[owner[i]] = true
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				conflict = true
			case "", "None":
			default: // e.g. ValidationError: retrying cannot help
				return report, fmt.Errorf("dynamo: score %s: transaction item %d: %s: %w", ev.ID, i, reasonCode(reasons, i), err)
			}
		}
		// Re-read them all if the engine named no item, or if the batch fails again after a
		// re-read: an engine may name only the first failing item (minidyn), and re-reading
		// one player per attempt would not converge within maxScoreAttempts.
		if (len(stale) == 0 && !conflict) || (len(stale) > 0 && rereads > 0) {
			for i := range batch {
				stale[i] = true
			}
		}
		if len(stale) == 0 {
			if err := sleep(ctx, time.Duration(attempt+1)*10*time.Millisecond); err != nil {
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

// scoreItems builds a job's prediction update and, if the standing moves, its standing
// write (nil otherwise).
func (s *Store) scoreItems(j *scoreJob, season int) (types.TransactWriteItem, *types.TransactWriteItem, error) {
	uid := userID(j.row.UserID)
	sk, err := scoreSK(j.score.Points, uid)
	if err != nil {
		return types.TransactWriteItem{}, nil, err
	}
	cond := expression.AttributeExists(expression.Name(attrPK)).
		And(expression.Name("updatedAt").Equal(expression.Value(j.row.UpdatedAt))).
		And(expression.Name("userNameVersion").Equal(expression.Value(j.row.UserNameVersion)))
	if j.row.Points == nil {
		cond = cond.And(expression.AttributeNotExists(expression.Name("points")))
	} else {
		cond = cond.And(expression.Name("points").Equal(expression.Value(*j.row.Points)))
		if j.row.Correct != nil {
			cond = cond.And(expression.Name("correct").Equal(expression.Value(*j.row.Correct)))
		}
	}
	upd := expression.Set(expression.Name("points"), expression.Value(j.score.Points)).
		Set(expression.Name("correct"), expression.Value(j.score.Correct)).
		Set(expression.Name(attrGSISK), expression.Value(sk))
	if len(j.correctIDs) > 0 {
		upd = upd.Set(expression.Name("correctIds"), expression.Value(j.correctIDs))
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
	if !j.touchesStanding() {
		return pred, nil, nil
	}
	dp, dc, de := j.delta()
	if j.standing == nil {
		row := standingRow{
			keys:      keys{PK: userPK(uid), SK: seasonSK(season)},
			indexKeys: indexKeys{GSIPK: seasonGSIPK(season)},
			Type:      typeStanding, UserID: j.row.UserID, UserName: j.row.UserName, UserNameVersion: j.row.UserNameVersion,
			Season: season, Points: j.score.Points, Correct: j.score.Correct, EventsPlayed: 1, Version: 1,
		}
		if row.GSISK, err = scoreSK(row.Points, uid); err != nil {
			return pred, nil, err
		}
		put, err := s.put(row, false)
		return pred, &put, err
	}
	st := *j.standing
	points := st.Points + dp
	if points < 0 {
		points = 0
	}
	stSK, err := scoreSK(points, uid)
	if err != nil {
		return pred, nil, err
	}
	sexpr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("points"), expression.Value(points)).
			Set(expression.Name("correct"), expression.Value(max(st.Correct+dc, 0))).
			Set(expression.Name("eventsPlayed"), expression.Value(st.EventsPlayed+de)).
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

// readAllStandings loads the season standing of every job's player: consistent
// BatchGetItems of 100 keys, a few at a time.
func (s *Store) readAllStandings(ctx context.Context, season int, jobs []*scoreJob) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(scoringWorkers)
	for start := 0; start < len(jobs); start += 100 {
		chunk := jobs[start:min(start+100, len(jobs))]
		g.Go(func() error { return s.readStandings(gctx, season, chunk) })
	}
	return g.Wait()
}

// readStandings loads the season standing of every player in batch (one consistent
// BatchGetItem of at most 100 keys).
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

// reread reloads the predictions and standings of the stale players of batch and returns
// the batch without the players that no longer need a write.
func (s *Store) reread(ctx context.Context, ev domain.Event, batch []*scoreJob, stale map[int]bool) ([]*scoreJob, error) {
	season := ev.Season()
	var keys []map[string]types.AttributeValue
	byPK := map[string]*scoreJob{}
	for i := range stale {
		j := batch[i]
		keys = append(keys, pkKey(j.row.PK, j.row.SK), pkKey(j.row.PK, seasonSK(season)))
		byPK[j.row.PK] = j
		j.standing = nil
	}
	fresh := map[string]*scoreJob{}
	err := s.batchGet(ctx, keys, func(item map[string]types.AttributeValue) error {
		pk := itemString(item, attrPK)
		switch itemType(item) {
		case typePrediction:
			var row predictionRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			nj := newScoreJob(row, ev.Matches)
			if old := fresh[pk]; old != nil {
				nj.standing = old.standing
			} else if j := byPK[pk]; j != nil {
				nj.standing = j.standing
			}
			fresh[pk] = nj
		case typeStanding:
			var row standingRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return err
			}
			if j := fresh[pk]; j != nil {
				j.standing = &row
			}
			if j := byPK[pk]; j != nil {
				j.standing = &row
			}
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
		nj := fresh[j.row.PK]
		if nj == nil || !nj.changed() {
			continue // gone, or another run already wrote it
		}
		if nj.standing == nil {
			nj.standing = byPK[j.row.PK].standing
		}
		out = append(out, nj)
	}
	return out, nil
}

// batchGet reads keys consistently in requests of at most 100 keys, retrying unprocessed
// keys, and calls fn for every item found.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, fn func(map[string]types.AttributeValue) error) error {
	for start := 0; start < len(keys); start += 100 {
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys[start:min(start+100, len(keys))], ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(req) > 0; attempt++ {
			out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return err
			}
			for _, item := range out.Responses[s.table] {
				if err := fn(item); err != nil {
					return err
				}
			}
			req = out.UnprocessedKeys
			if len(req) > 0 {
				if err := sleep(ctx, time.Duration(attempt+1)*20*time.Millisecond); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// markScored sets the event SCORED unless a prediction this run did not know of is still
// unscored (the GSI may lag behind the writes just made, so known players are not
// re-checked). Returns CONFLICT if the card changed since it was read, also when the event
// was SCORED already (a re-score after a correction): the scores just written follow the
// card as read, which another correction may have overtaken.
//
// An event already SCORED is not written again: if this run wrote scores, one consistent
// read checks that the card is still the one scored; if it wrote nothing, there is nothing
// to check.
func (s *Store) markScored(ctx context.Context, ev domain.Event, known map[string]bool, wrote bool) error {
	eid := eventID(ev.ID)
	q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))).
		And(expression.Key(attrGSISK).BeginsWith(prefixPending)), 0, true)
	if err != nil {
		return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
	}
	unknown := false
	err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		unknown = !known[itemString(item, "userId")]
		return !unknown, nil
	})
	if err != nil {
		return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
	}
	if unknown {
		return domain.Errorf(domain.CodeConflict, "event %q got a new prediction while scoring; run scoreEvent again", ev.ID)
	}
	changed := domain.Errorf(domain.CodeConflict, "the card of event %q changed while scoring; run scoreEvent again", ev.ID)
	if ev.Stored == domain.StateScored {
		if !wrote {
			return nil
		}
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)), ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return fmt.Errorf("dynamo: score %s: check card: %w", ev.ID, err)
		}
		var row eventRow
		if err := attributevalue.UnmarshalMap(out.Item, &row); err != nil {
			return fmt.Errorf("dynamo: score %s: check card: %w", ev.ID, err)
		}
		if row.CardVersion != ev.CardVersion {
			return changed
		}
		return nil
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("state"), expression.Value(string(domain.StateScored)))).
		WithCondition(expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: score %s: %w", ev.ID, err)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if isConditionFailed(err) {
		return changed
	}
	if err != nil {
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
