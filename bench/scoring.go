package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
)

// Screen 7: scoring an event, through the admin mutation, against the same writes made
// bare (floorScore).

// maxTransactItems is DynamoDB's limit on the items of one transaction: the floor writes
// as many players per transaction as it allows (a prediction and a standing each).
const maxTransactItems = 100

// scoreAPI scores ev through the admin mutation and returns the run's result; then it runs
// it again and checks that the second run changed nothing.
func (e *env) scoreAPI(ctx context.Context, l *league, ev *leagueEvent) (ScoringResult, error) {
	r := ScoringResult{Shards: l.shards, Game: ev.game, Predictions: ev.size, Operations: map[string]int{}}
	body := request(frontend.ScoreEvent, map[string]any{"eventId": ev.id})
	run := func() (time.Duration, *gqlResponse, error) {
		d, b, err := e.post(ctx, e.direct, body, e.adminToken())
		if err != nil {
			return d, nil, err
		}
		resp, err := decode(b)
		return d, resp, err
	}
	// The server scores without a time budget, so one call scores the event; an
	// UNAVAILABLE answer (the engine too slow for the SDK's attempts on a loaded machine) is
	// called again, as the admin command does, and counted in: the run continues from the
	// shards' checkpoints. The re-run below checks nothing is left.
	var total time.Duration
	scored := 0
	for attempt := 1; ; attempt++ {
		d, resp, err := run()
		total += d
		if resp != nil && resp.Ext.DynamoDB != nil {
			c := resp.Ext.DynamoDB
			r.Calls += c.Calls
			for op, n := range c.Operations {
				r.Operations[op] += n
			}
			r.RCU, r.WCU = addUnits(r.RCU, c.ReadCapacityUnits), addUnits(r.WCU, c.WriteCapacityUnits)
			r.MaxTransactionItems = max(r.MaxTransactionItems, c.MaxTransactionItems)
		}
		if err != nil && resp != nil && errorCode(resp) == "UNAVAILABLE" && attempt < 10 {
			continue
		}
		if err != nil {
			return r, fmt.Errorf("score %s: %w", ev.name, err)
		}
		n, _ := dig(resp.Data, "scoreEvent", "predictionsScored")
		tx, _ := dig(resp.Data, "scoreEvent", "transactions")
		scored += int(n.(float64))
		r.Transactions += int(tx.(float64))
		break
	}
	r.Seconds = total.Seconds()
	if scored > ev.size || scored == 0 {
		return r, fmt.Errorf("score %s: scored %d predictions of %d", ev.name, scored, ev.size)
	}

	d, resp, err := run()
	if err != nil {
		return r, fmt.Errorf("re-score %s: %w", ev.name, err)
	}
	r.RerunSeconds = d.Seconds()
	again, _ := dig(resp.Data, "scoreEvent", "predictionsScored")
	changed, _ := dig(resp.Data, "scoreEvent", "standingsChanged")
	r.RerunChanged = int(again.(float64)) + int(changed.(float64))
	if c := resp.Ext.DynamoDB; c != nil {
		r.RerunCalls, r.RerunOperations = c.Calls, c.Operations
	}
	if r.RerunChanged != 0 {
		return r, fmt.Errorf("re-score %s changed %d items, want none", ev.name, r.RerunChanged)
	}
	return r, nil
}

// floorScore writes bare what scoring ev needs, paced per partition as the store paces
// (pacer). Reads: every prediction after the card in each of the event's index partitions
// (all at once, 1 MB pages, each page's read units charged to its partition), then every
// player's standing (consistent BatchGetItems of 100 keys, 16 at a time). Writes: the
// store's writes for each player (scoring.ScoringWrites: the prediction's update and the
// standing's), 50 players of one shard per transaction (100 items, DynamoDB's most), one
// worker per shard as the store has, each transaction waiting for its write units on the
// index partitions it moves entries in. Reads and writes are timed apart. The card, with
// its results, is read through the store before the clock starts; the store's own
// checkpoints, score histograms and rank tables are not written.
func (e *env) floorScore(ctx context.Context, l *league, ev *leagueEvent) (read, write time.Duration, calls int, err error) {
	db := e.direct.db
	event, err := e.direct.store.GetEvent(ctx, ev.id)
	if err != nil {
		return 0, 0, 0, err
	}
	began := time.Now()
	ctx, cost := ddb.WithCost(ctx)
	made := func() int { return cost.Snapshot().Calls }
	pace := newPacer()

	parts := table.EventShardPartitions(ev.id, l.shards)
	byShard := make([][]map[string]types.AttributeValue, len(parts))
	g, gctx := errgroup.WithContext(ctx)
	for i, pk := range parts {
		g.Go(func() error {
			q := &dynamodb.QueryInput{
				TableName:                 aws.String(e.table),
				IndexName:                 aws.String(table.IndexName),
				KeyConditionExpression:    aws.String("#pk = :pk AND #sk > :card"),
				ExpressionAttributeNames:  map[string]string{"#pk": table.AttrGSIPK, "#sk": table.AttrGSISK},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(pk), ":card": sv(table.CardLast)},
			}
			for {
				out, err := db.Query(gctx, q)
				if err != nil {
					return err
				}
				bytes := 0
				for _, it := range out.Items {
					bytes += table.ItemSize(it)
				}
				byShard[i] = append(byShard[i], out.Items...)
				if err := pace.chargeRead(gctx, pk, capacity.ReadUnits(bytes, false)); err != nil {
					return err
				}
				if len(out.LastEvaluatedKey) == 0 {
					return nil
				}
				q.ExclusiveStartKey = out.LastEvaluatedKey
			}
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, made(), err
	}
	var keys []map[string]types.AttributeValue
	standingSK := str(table.StandingKey(playerID(0), l.season), table.AttrSK)
	for _, preds := range byShard {
		for _, p := range preds {
			keys = append(keys, keyOf(str(p, table.AttrPK), standingSK))
		}
	}
	if len(keys) != ev.size {
		return 0, 0, made(), fmt.Errorf("floor score %s: %d predictions, want %d", ev.name, len(keys), ev.size)
	}
	standings := make(map[string]map[string]types.AttributeValue, len(keys)) // by PK
	var mu sync.Mutex
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(16)
	for start := 0; start < len(keys); start += 100 {
		chunk := keys[start:min(start+100, len(keys))]
		g.Go(func() error {
			req := map[string]types.KeysAndAttributes{e.table: {Keys: chunk, ConsistentRead: aws.Bool(true)}}
			for len(req) > 0 {
				out, err := db.BatchGetItem(gctx, &dynamodb.BatchGetItemInput{RequestItems: req})
				if err != nil {
					return err
				}
				mu.Lock()
				for _, it := range out.Responses[e.table] {
					standings[str(it, table.AttrPK)] = it
				}
				mu.Unlock()
				req = out.UnprocessedKeys
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, made(), err
	}
	read = time.Since(began)

	began = time.Now()
	const perTransaction = maxTransactItems / 2
	g, gctx = errgroup.WithContext(ctx)
	for _, preds := range byShard {
		g.Go(func() error {
			for start := 0; start < len(preds); start += perTransaction {
				var items []types.TransactWriteItem
				units := map[string]float64{}
				for _, p := range preds[start:min(start+perTransaction, len(preds))] {
					st := standings[str(p, table.AttrPK)]
					ws, demand, err := scoring.ScoringWrites(e.table, event, l.shards, l.shards, p, st)
					if err != nil {
						return err
					}
					items = append(items, ws...)
					for partition, u := range demand { // as the store paces them
						units[partition] += u
					}
				}
				if err := pace.waitWrites(gctx, units); err != nil {
					return err
				}
				if _, err := db.TransactWriteItems(gctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return read, 0, made(), fmt.Errorf("floor score %s: %w", ev.name, err)
	}
	return read, time.Since(began), made(), nil
}

// scoring runs screen 7 of l for every size but the smallest, once each on fresh data: the
// floor on one copy of the event, the stack on the event, the floor again on a second copy
// (so that neither side always meets the engine in a warmer or fuller state); the floor is
// the mean of its two runs.
func (e *env) scoring(ctx context.Context, l *league, logf func(string, ...any)) ([]ScoringResult, error) {
	var out []ScoringResult
	for _, size := range l.sizes[1:] {
		var floors []FloorRun
		floor := func(n int) error {
			cpu := cpuTime()
			read, write, calls, err := e.floorScore(ctx, l, l.eventCopy(roleFloor, size, n))
			floors = append(floors, FloorRun{Calls: calls, ReadSeconds: read.Seconds(), WriteSeconds: write.Seconds(),
				CPUSeconds: (cpuTime() - cpu).Seconds()})
			return err
		}
		if err := floor(0); err != nil {
			return out, err
		}
		cpu := cpuTime()
		ev := l.event(roleScored, size)
		r, err := e.scoreAPI(ctx, l, ev)
		if err != nil {
			return out, err
		}
		ev.ranked = true
		r.CPUSeconds = (cpuTime() - cpu).Seconds()
		if err := floor(1); err != nil {
			return out, err
		}
		r.FloorRuns = floors
		r.FloorCalls = floors[0].Calls
		for _, f := range floors {
			r.FloorReadSeconds += f.ReadSeconds / float64(len(floors))
			r.FloorWriteSeconds += f.WriteSeconds / float64(len(floors))
			r.FloorCPUSeconds += f.CPUSeconds / float64(len(floors))
		}
		r.FloorSeconds = r.FloorReadSeconds + r.FloorWriteSeconds
		r.RatioWrites = r.Seconds / r.FloorWriteSeconds
		r.RatioFloor = r.Seconds / r.FloorSeconds
		logf("  %2d shards screen 7 scoreEvent %6d predictions: %.2fs (%d calls, %.2fs CPU) | floor writes %.2fs / %.2fs, reads %.2fs / %.2fs | ×%.2f | re-run %.2fs changed %d",
			l.shards, size, r.Seconds, r.Calls, r.CPUSeconds, floors[0].WriteSeconds, floors[1].WriteSeconds,
			floors[0].ReadSeconds, floors[1].ReadSeconds, r.RatioWrites, r.RerunSeconds, r.RerunChanged)
		out = append(out, r)
	}
	return out, nil
}

// cpuTime is this process's user+system CPU time so far: with DynamoDB Local in its own
// process, the API's (and the client's) own work, without the engine's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// addUnits adds capacity units, nil (not reported) staying nil.
func addUnits(sum, u *float64) *float64 {
	if u == nil {
		return sum
	}
	v := *u
	if sum != nil {
		v += *sum
	}
	return &v
}

// errorCode is the extensions.code of an answer's first error, "" without one.
func errorCode(resp *gqlResponse) string {
	if len(resp.Errors) == 0 {
		return ""
	}
	var e struct {
		Extensions struct {
			Code string `json:"code"`
		} `json:"extensions"`
	}
	_ = json.Unmarshal(resp.Errors[0], &e)
	return e.Extensions.Code
}
