package dynamo

import (
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
)

// BenchmarkScoreEvent scores one event with 1,000 and with 10,000 predictions on DynamoDB
// Local. It is meant to run once per size, on fresh data:
//
//	go test ./dynamo/ -run '^$' -bench ScoreEvent -benchtime 1x
//
// (`make bench` measures scoring through the full stack instead; see bench/.) Each
// iteration builds a fresh table outside the timer: the event with its results, n unscored
// predictions, and for half the players a scored prior event and its standing, so scoring
// both updates and creates standings. The timer covers one ScoreEvent only. Then, outside
// the timer, a second run on the same data must change nothing and the table must satisfy
// the scoring invariant; before it, the same writes are made bare on a twin table
// (scBareWrite: the same 100-item transactions of the same Updates and Puts, with no reads,
// no conditions and no retries) to give the cost of scoring's reads, conditions and
// bookkeeping as a ratio.
//
// Metrics per run: transactions, calls, read and write capacity units (as DynamoDB Local
// reports them; it is known to misreport transactions, so compare WCU across runs of this
// benchmark, not with AWS bills), the bare write time in seconds and scoring/bare.
//
// -short skips the 10,000 case.
func BenchmarkScoreEvent(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("predictions=%d", n), func(b *testing.B) {
			if testing.Short() && n > 1000 {
				b.Skip("-short: 10,000 predictions take minutes")
			}
			var tx, calls, rcu, wcu, scoring, bare float64
			for range b.N {
				b.StopTimer()
				// The bare writes run first, on a twin table, so that neither side profits
				// from the engine's JIT warming up on the other.
				twin := newScEnv(b)
				twinEv, twinEntries := scBenchData(twin, n)
				d, _ := scBareWrite(b, twin, twinEv, twinEntries)
				bare += d.Seconds()

				e := newScEnv(b)
				ev, _ := scBenchData(e, n)
				ctx, cost := ddb.WithCost(scCtx(b))
				start := time.Now()
				b.StartTimer()
				rep, err := e.after.ScoreEvent(ctx, ev.ID, false)
				b.StopTimer()
				scoring += time.Since(start).Seconds()
				scOK(b, err)
				if rep.PredictionsScored != n {
					b.Fatalf("scored %d predictions, want %d", rep.PredictionsScored, n)
				}
				snap := cost.Snapshot()
				tx += float64(rep.Transactions)
				calls += float64(snap.Calls)
				if snap.ReadCapacityUnits != nil {
					rcu += *snap.ReadCapacityUnits
				}
				if snap.WriteCapacityUnits != nil {
					wcu += *snap.WriteCapacityUnits
				}

				again := scScoreRun(b, e.after, ev.ID, false)
				if again != (domain.ScoreReport{EventID: ev.ID, Complete: true, ScoredMatches: len(ev.Matches), Final: true}) {
					b.Fatalf("a second run changed something: %+v", again)
				}
				e.snapshot().checkSums(b)
			}
			N := float64(b.N)
			b.ReportMetric(tx/N, "transactions/op")
			b.ReportMetric(calls/N, "calls/op")
			b.ReportMetric(rcu/N, "RCU/op")
			b.ReportMetric(wcu/N, "WCU/op")
			b.ReportMetric(bare/N, "bare-s/op")
			b.ReportMetric(scoring/bare, "scoring/bare")
		})
	}
}

// BenchmarkScoreEventBudget scores 10,000 predictions (the data of BenchmarkScoreEvent) in
// calls of a time budget — PICKEM_SCORING_BUDGET from the environment, default 2s — until a
// call reports complete, as the admin command does:
//
//	flock /work/.bench.lock go test ./dynamo/ -run '^$' -bench ScoreEventBudget -benchtime 1x
//
// Outside the timer a twin table holding the very same items (copied) is scored by one
// unbudgeted call first; after the budgeted calls the two tables must be identical, item
// for item. Metrics: scoreEvent calls, DynamoDB calls and capacity of the budgeted calls,
// the longest call (budget + the chunks in flight), and the unbudgeted run's time and
// DynamoDB calls.
func BenchmarkScoreEventBudget(b *testing.B) {
	const n = 10000
	budget := 2 * time.Second
	if v := os.Getenv("PICKEM_SCORING_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("PICKEM_SCORING_BUDGET: %v", err)
		}
		budget = d
	}
	var calls, dbCalls, rcu, wcu, longest, whole, wholeCalls float64
	for range b.N {
		b.StopTimer()
		e := newScEnv(b)
		ev, _ := scBenchData(e, n)
		twin := newScEnv(b)
		scBatchWrite(b, twin.client, twin.table, e.snapshot().items)
		tctx, tcost := ddb.WithCost(scCtx(b))
		start := time.Now()
		rep, err := twin.after.ScoreEvent(tctx, ev.ID, false)
		scOK(b, err)
		whole += time.Since(start).Seconds()
		wholeCalls += float64(tcost.Snapshot().Calls)
		if !rep.Complete || rep.PredictionsScored != n {
			b.Fatalf("unbudgeted run: %+v", rep)
		}

		s := New(e.client, e.table, WithClock(func() time.Time { return scAfter }), WithScoringBudget(budget))
		ctx, cost := ddb.WithCost(scCtx(b))
		b.StartTimer()
		for {
			began := time.Now()
			rep, err := s.ScoreEvent(ctx, ev.ID, false)
			longest = max(longest, time.Since(began).Seconds())
			calls++
			scOK(b, err)
			b.Logf("call %d: %.2fs, %d predictions, %d transactions, %d remaining, complete %v",
				int(calls), time.Since(began).Seconds(), rep.PredictionsScored, rep.Transactions, rep.Remaining, rep.Complete)
			if rep.Complete {
				break
			}
		}
		b.StopTimer()
		snap := cost.Snapshot()
		dbCalls += float64(snap.Calls)
		if snap.ReadCapacityUnits != nil {
			rcu += *snap.ReadCapacityUnits
		}
		if snap.WriteCapacityUnits != nil {
			wcu += *snap.WriteCapacityUnits
		}
		got, want := e.snapshot(), twin.snapshot()
		got.checkSums(b)
		if !reflect.DeepEqual(got.items, want.items) {
			b.Fatalf("the budgeted calls left a table different from one unbudgeted call")
		}
		b.Logf("table identical to the unbudgeted twin: %d items", len(got.items))
	}
	N := float64(b.N)
	b.ReportMetric(calls/N, "scoreEvent-calls/op")
	b.ReportMetric(dbCalls/N, "calls/op")
	b.ReportMetric(rcu/N, "RCU/op")
	b.ReportMetric(wcu/N, "WCU/op")
	b.ReportMetric(longest, "longest-call-s")
	b.ReportMetric(whole/N, "unbudgeted-s/op")
	b.ReportMetric(wholeCalls/N, "unbudgeted-calls/op")
}

// BenchmarkScoreEventBare times the bare writes alone (see BenchmarkScoreEvent), for the
// same sizes; run it the same way, with -benchtime 1x.
func BenchmarkScoreEventBare(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("predictions=%d", n), func(b *testing.B) {
			if testing.Short() && n > 1000 {
				b.Skip("-short: 10,000 predictions take minutes")
			}
			var tx float64
			for range b.N {
				b.StopTimer()
				e := newScEnv(b)
				ev, entries := scBenchData(e, n)
				b.StartTimer()
				_, t := scBareWrite(b, e, ev, entries)
				b.StopTimer()
				tx += float64(t)
			}
			b.ReportMetric(tx/float64(b.N), "transactions/op")
		})
	}
}

// scBenchData builds a benchmark table: a prior event whose first n/2 players have a scored
// prediction and a standing (written directly, consistent with each other), and a locked
// event with results and n unscored predictions.
func scBenchData(e *scEnv, n int) (domain.Event, []scEntry) {
	e.t.Helper()
	prior := e.createEvent("2025-03-01-prior-event", scCard())
	ev := e.createEvent("2025-04-20-wrestlemania-night-two", scCard())
	entries := scGenEntries(n, scTeamCounts(ev), 11)
	e.writeEntries(ev, entries)

	items := make([]map[string]types.AttributeValue, 0, n)
	for k, en := range scGenEntries(n/2, scTeamCounts(prior), 12) {
		points, correct := (k%7)*5, k%3
		uid, eid := table.UserID(en.User), table.EventID(prior.ID)
		sk, err := table.ScoreSK(points, uid)
		if err != nil {
			e.t.Fatal(err)
		}
		pred := table.PredictionRow{
			Keys: table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)}, IndexKeys: table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(scShards), scShards), GSISK: sk},
			Type: table.TypePrediction, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1,
			EventID: prior.ID, EventName: prior.Name, EventStartsAt: table.FormatTime(prior.StartsAt), Season: prior.Season(),
			Picks:  []table.PickRow{{MatchID: prior.Matches[0].ID, Team: 0}},
			Points: &points, Correct: &correct, UpdatedAt: table.FormatTime(scBefore),
		}
		for i := range correct {
			pred.CorrectIDs = append(pred.CorrectIDs, prior.Matches[i].ID)
		}
		st := table.StandingRow{
			Keys: table.Keys{PK: table.UserPK(uid), SK: table.StandingSK(scSeason)}, IndexKeys: table.IndexKeys{GSIPK: table.SeasonShardPK(scSeason, uid.Shard(scShards), scShards), GSISK: sk},
			Type: table.TypeStanding, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1, Season: scSeason,
			Points: points, Correct: correct, EventsPlayed: 1, Version: 1,
		}
		for _, row := range []any{pred, st} {
			item, err := attributevalue.MarshalMap(row)
			if err != nil {
				e.t.Fatal(err)
			}
			items = append(items, item)
		}
	}
	scBatchWrite(e.t, e.client, e.table, items)
	return e.setResults(ev, scResults()), entries
}

// scBareWrite makes the writes a first scoring run of entries makes — per player, the
// prediction's Update (points, correct, correctIds, GSI_SK) and the standing's Update (or Put
// of a new standing) — as transactions of scoring.PlayersPerTransaction players, scShards at a
// time, with no reads, no conditions and no retries. The standings' new totals are computed
// from the data scBenchData wrote, before the clock starts. It returns the time the writes
// took and the number of transactions.
func scBareWrite(tb testing.TB, e *scEnv, ev domain.Event, entries []scEntry) (time.Duration, int) {
	tb.Helper()
	prior := map[string]scTotal{}
	for k, en := range scGenEntries(len(entries)/2, nil, 12) {
		prior[en.User] = scTotal{(k % 7) * 5, k % 3, 1}
	}
	var txs [][]types.TransactWriteItem
	var cur []types.TransactWriteItem
	for _, en := range entries {
		uid := table.UserID(en.User)
		s := scOracle(ev, en)
		sk, err := table.ScoreSK(s.Points, uid)
		if err != nil {
			tb.Fatal(err)
		}
		upd := expression.Set(expression.Name("points"), expression.Value(s.Points)).
			Set(expression.Name("correct"), expression.Value(s.Correct)).
			Set(expression.Name(table.AttrGSISK), expression.Value(sk))
		if len(s.CorrectIDs) > 0 {
			upd = upd.Set(expression.Name("correctIds"), expression.Value(s.CorrectIDs))
		}
		cur = append(cur, scBareUpdate(tb, e.table, table.Key(table.UserPK(uid), table.EventSK(table.EventID(ev.ID))), upd))

		p, ok := prior[en.User]
		total := scTotal{p.Points + s.Points, p.Correct + s.Correct, p.EventsPlayed + 1}
		stSK, err := table.ScoreSK(total.Points, uid)
		if err != nil {
			tb.Fatal(err)
		}
		if ok {
			cur = append(cur, scBareUpdate(tb, e.table, table.Key(table.UserPK(uid), table.StandingSK(scSeason)),
				expression.Set(expression.Name("points"), expression.Value(total.Points)).
					Set(expression.Name("correct"), expression.Value(total.Correct)).
					Set(expression.Name("eventsPlayed"), expression.Value(total.EventsPlayed)).
					Set(expression.Name(table.AttrGSISK), expression.Value(stSK)).
					Set(expression.Name("version"), expression.Value(2))))
		} else {
			item, err := attributevalue.MarshalMap(table.StandingRow{
				Keys: table.Keys{PK: table.UserPK(uid), SK: table.StandingSK(scSeason)}, IndexKeys: table.IndexKeys{GSIPK: table.SeasonShardPK(scSeason, uid.Shard(scShards), scShards), GSISK: stSK},
				Type: table.TypeStanding, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1, Season: scSeason,
				Points: total.Points, Correct: total.Correct, EventsPlayed: 1, Version: 1,
			})
			if err != nil {
				tb.Fatal(err)
			}
			cur = append(cur, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(e.table), Item: item}})
		}
		if len(cur) == 2*scoring.PlayersPerTransaction {
			txs, cur = append(txs, cur), nil
		}
	}
	if len(cur) > 0 {
		txs = append(txs, cur)
	}

	store := e.after
	g, ctx := errgroup.WithContext(scCtx(tb))
	g.SetLimit(scShards)
	start := time.Now()
	for _, items := range txs {
		g.Go(func() error { return store.db.Transact(ctx, items) })
	}
	if err := g.Wait(); err != nil {
		tb.Fatalf("bare write: %v", err)
	}
	return time.Since(start), len(txs)
}

func scBareUpdate(tb testing.TB, tableName string, key map[string]types.AttributeValue, upd expression.UpdateBuilder) types.TransactWriteItem {
	tb.Helper()
	expr, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		tb.Fatal(err)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(tableName), Key: key, UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}
}
