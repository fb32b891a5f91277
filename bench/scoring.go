package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/dynamo/ddb"
)

// Scoring's shape in the store (dynamo/scoring.go): 48 players of one score shard (a
// prediction and a standing each) per transaction, the shards at once. The floor writes
// the same transactions.
const (
	playersPerTransaction = 48
	scoringWorkers        = scoreShards
)

// scoreAPI scores ev through the admin mutation and returns the run's result; then it runs
// it again and checks that the second run changed nothing.
func (e *env) scoreAPI(ctx context.Context, ev *leagueEvent) (ScoringResult, error) {
	r := ScoringResult{Engine: e.eng.name, Predictions: ev.size}
	body := request(frontend.ScoreEvent, map[string]any{"eventId": ev.id})
	run := func() (time.Duration, *gqlResponse, error) {
		d, b, err := e.post(ctx, body, e.adminToken())
		if err != nil {
			return d, nil, err
		}
		resp, err := decode(b)
		return d, resp, err
	}
	// The server runs scoring without a time budget, so one call scores the event; an
	// UNAVAILABLE answer (the engine too slow for the SDK's attempts, on a loaded machine)
	// is called again, as the admin command does, and counted in: the run continues from
	// the shards' checkpoints. The re-run below checks nothing is left.
	var total time.Duration
	scoredTotal := 0
	r.Operations = map[string]int{}
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
		n, _ := path(resp.Data, "scoreEvent", "predictionsScored")
		tx, _ := path(resp.Data, "scoreEvent", "transactions")
		scoredTotal += int(n.(float64))
		r.Transactions += int(tx.(float64))
		break
	}
	r.Seconds = total.Seconds()
	if scoredTotal > ev.size || scoredTotal == 0 {
		return r, fmt.Errorf("score %s: scored %d predictions of %d", ev.name, scoredTotal, ev.size)
	}

	d, resp, err := run()
	if err != nil {
		return r, fmt.Errorf("re-score %s: %w", ev.name, err)
	}
	r.RerunSeconds = d.Seconds()
	scored, _ := path(resp.Data, "scoreEvent", "predictionsScored")
	changed, _ := path(resp.Data, "scoreEvent", "standingsChanged")
	r.RerunChanged = int(scored.(float64)) + int(changed.(float64))
	if c := resp.Ext.DynamoDB; c != nil {
		r.RerunCalls, r.RerunOperations = c.Calls, c.Operations
	}
	if r.RerunChanged != 0 {
		return r, fmt.Errorf("re-score %s changed %d items, want none", ev.name, r.RerunChanged)
	}
	return r, nil
}

// floorScore writes what scoring ev needs, bare: read the event's GSI partitions (the card
// with results, then every prediction, shard by shard, paginated), read every player's standing (consistent
// BatchGetItems of 100 keys, scoringWorkers at a time), then write each batch of 48
// players of a shard, predictions and standings, in one TransactWriteItems with the
// store's conditions, scoringWorkers at a time, and mark the event scored. Reads and writes are timed apart: the writes alone are the floor the
// scoring goal compares with.
func (e *env) floorScore(ctx context.Context, l *league, ev *leagueEvent) (read, write time.Duration, calls int, err error) {
	began := time.Now()
	ctx, c := ddb.WithCost(ctx)
	made := func() int { return c.Snapshot().Calls }
	var items []map[string]types.AttributeValue
	for _, pk := range append([]string{eventGSIPK(ev.id)}, shardPKs(ev.id)...) {
		got, err := e.query(ctx, &dynamodb.QueryInput{
			TableName:                 aws.String(e.table),
			IndexName:                 aws.String(indexName),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrGSIPK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": sv(pk)},
			ScanIndexForward:          aws.Bool(true),
		}, always)
		if err != nil {
			return 0, 0, made(), err
		}
		items = append(items, got...)
	}
	var event eventItem
	matches := map[string]matchItem{}
	var preds []predictionItem
	for _, it := range items {
		t, _ := it["type"].(*types.AttributeValueMemberS)
		switch {
		case t == nil:
		case t.Value == "event":
			err = attributevalue.UnmarshalMap(it, &event)
		case t.Value == "match":
			var m matchItem
			err = attributevalue.UnmarshalMap(it, &m)
			matches[m.ID] = m
		case t.Value == "prediction":
			var p predictionItem
			err = attributevalue.UnmarshalMap(it, &p)
			if p.Points == nil {
				preds = append(preds, p)
			}
		}
		if err != nil {
			return 0, 0, made(), err
		}
	}
	if len(preds) != ev.size {
		return 0, 0, made(), fmt.Errorf("floor score %s: %d unscored predictions, want %d", ev.name, len(preds), ev.size)
	}

	// Every standing first, in consistent BatchGetItems of 100 keys, 4 at a time.
	standings := make(map[string]standingItem, len(preds))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(scoringWorkers)
	for start := 0; start < len(preds); start += 100 {
		chunk := preds[start:min(start+100, len(preds))]
		g.Go(func() error {
			keys := make([]map[string]types.AttributeValue, len(chunk))
			for i, p := range chunk {
				keys[i] = map[string]types.AttributeValue{attrPK: sv(p.PK), attrSK: sv(seasonSK(l.season))}
			}
			req := map[string]types.KeysAndAttributes{e.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
			for len(req) > 0 {
				out, err := e.db.BatchGetItem(gctx, &dynamodb.BatchGetItemInput{RequestItems: req})
				if err != nil {
					return err
				}
				mu.Lock()
				for _, it := range out.Responses[e.table] {
					var s standingItem
					if err = attributevalue.UnmarshalMap(it, &s); err != nil {
						break
					}
					standings[s.PK] = s
				}
				mu.Unlock()
				if err != nil {
					return err
				}
				req = out.UnprocessedKeys
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, made(), err
	}
	read = time.Since(began)
	type batch struct{ preds []predictionItem }
	var batches []*batch
	byShard := make([][]predictionItem, scoreShards)
	for _, p := range preds {
		byShard[scoreShard(p.UserID)] = append(byShard[scoreShard(p.UserID)], p)
	}
	for _, sp := range byShard {
		for start := 0; start < len(sp); start += playersPerTransaction {
			batches = append(batches, &batch{preds: sp[start:min(start+playersPerTransaction, len(sp))]})
		}
	}

	// The transactions.
	began = time.Now()
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(scoringWorkers)
	for _, b := range batches {
		g.Go(func() error {
			tx := make([]types.TransactWriteItem, 0, 2*len(b.preds))
			for _, p := range b.preds {
				points, correct, ids := 0, 0, []string{}
				for _, pk := range p.Picks {
					m := matches[pk.MatchID]
					if m.Result != nil && m.Result.Outcome == "WIN" && m.Result.Winner != nil && *m.Result.Winner == pk.Team {
						points += m.Points
						correct++
						ids = append(ids, pk.MatchID)
					}
				}
				set := "SET #pts = :pts, #cor = :cor, #gsk = :gsk, #sw = :sw, #ver = :next"
				names := map[string]string{"#pts": "points", "#cor": "correct", "#gsk": attrGSISK, "#pk": attrPK, "#sw": "scoredWith", "#ver": "version"}
				vals := map[string]types.AttributeValue{":pts": nv(points), ":cor": nv(correct), ":gsk": sv(scoreSK(points, p.UserID)),
					":sw": nv(event.CardVersion), ":ver": nv(p.Version), ":next": nv(p.Version + 1)}
				upd := set
				if len(ids) > 0 {
					upd += ", #cids = :cids"
					names["#cids"] = "correctIds"
					vals[":cids"] = &types.AttributeValueMemberL{Value: strs(ids)}
				} else {
					upd += " REMOVE #cids"
					names["#cids"] = "correctIds"
				}
				tx = append(tx, types.TransactWriteItem{Update: &types.Update{
					TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(p.PK), attrSK: sv(p.SK)},
					UpdateExpression:          aws.String(upd),
					ConditionExpression:       aws.String("attribute_exists(#pk) AND #ver = :ver"),
					ExpressionAttributeNames:  names,
					ExpressionAttributeValues: vals,
				}})
				s, ok := standings[p.PK]
				if !ok {
					return fmt.Errorf("floor score: no standing for %s", p.PK)
				}
				tx = append(tx, types.TransactWriteItem{Update: &types.Update{
					TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(s.PK), attrSK: sv(s.SK)},
					UpdateExpression:         aws.String("SET #pts = :pts, #cor = :cor, #ep = :ep, #gsk = :gsk, #ver = :next"),
					ConditionExpression:      aws.String("#ver = :ver"),
					ExpressionAttributeNames: map[string]string{"#pts": "points", "#cor": "correct", "#ep": "eventsPlayed", "#gsk": attrGSISK, "#ver": "version"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":pts": nv(s.Points + points), ":cor": nv(s.Correct + correct),
						":ep": nv(s.EventsPlayed + 1), ":gsk": sv(scoreSK(s.Points+points, s.UserID)), ":next": nv(s.Version + 1), ":ver": nv(s.Version)},
				}})
			}
			_, err := e.db.TransactWriteItems(gctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return read, 0, made(), fmt.Errorf("floor score %s: %w", ev.name, err)
	}
	_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.table), Key: map[string]types.AttributeValue{attrPK: sv(eventsPK), attrSK: sv(eventSK(ev.id))},
		UpdateExpression:          aws.String("SET #st = :scored"),
		ConditionExpression:       aws.String("#cv = :cv"),
		ExpressionAttributeNames:  map[string]string{"#st": "state", "#cv": "cardVersion"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":scored": sv("SCORED"), ":cv": nv(event.CardVersion)},
	})
	if err != nil {
		return read, 0, made(), fmt.Errorf("floor score %s: mark scored: %w", ev.name, err)
	}
	return read, time.Since(began), made(), nil
}

func strs(ss []string) []types.AttributeValue {
	out := make([]types.AttributeValue, len(ss))
	for i, s := range ss {
		out[i] = sv(s)
	}
	return out
}

// scoring runs screen 7 for every size but the smallest, once each on fresh data: the
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
		r, err := e.scoreAPI(ctx, l.event(roleScored, size))
		if err != nil {
			return out, err
		}
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
		logf("  screen 7 scoreEvent %6d predictions: %.2fs (%d calls, %.2fs CPU) | floor before %.2fs (writes %.2fs, %.2fs CPU), after %.2fs (writes %.2fs) | re-run %.2fs changed %d",
			size, r.Seconds, r.Calls, r.CPUSeconds, floors[0].ReadSeconds+floors[0].WriteSeconds, floors[0].WriteSeconds, floors[0].CPUSeconds,
			floors[1].ReadSeconds+floors[1].WriteSeconds, floors[1].WriteSeconds, r.RerunSeconds, r.RerunChanged)
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
