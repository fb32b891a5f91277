package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/internal/capacity"
)

// job returns a workload whose scoring job is one scoreEvent call running count units of
// each call, all at once (at virtual time 0, so in one second); no retries anywhere.
func job(count int, calls ...record.Call) *Workload {
	w := &Workload{Players: 1, Calls: calls, Rec: &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1},
		FrontDoor: record.FrontDoor{TimeoutSeconds: 30, ScoringBudgetSeconds: 20, ScoringMarginSeconds: 3}}}
	j := &Job{Workers: count * len(calls)}
	for i := range calls {
		j.Work = append(j.Work, record.Template{Count: 1, Stages: [][]int{{i}}})
	}
	for k := 0; k < count; k++ {
		for i := range calls {
			j.Units = append(j.Units, i)
		}
	}
	w.Job = j
	return w
}

func limited() Params { return Params{Latency: DefaultLatency, Seed: 1, Limits: true} }

// put is a PutItem of a 1 KB item in a shared partition.
func put(pk, sk string) record.Call {
	return record.Call{Op: "PutItem", Accesses: record.Accesses{{PK: pk, SK: sk, Kind: "put", Bytes: 1000, WCU: capacity.WriteUnits(1000)}}}
}

func TestPartitionThrottlesAbove1000WCUInOneSecond(t *testing.T) {
	for _, c := range []struct {
		name      string
		calls     int
		throttled int
	}{{"1000WCUServed", 1000, 0}, {"1001WCUThrottlesOne", 1001, 1}} {
		t.Run(c.name, func(t *testing.T) {
			r := Run(job(c.calls, put("EVENT#e", "x")), record.LoadScore, limited())
			if r.Throttled != c.throttled {
				t.Fatalf("%d writes of 1 WCU in one second on one partition: %d throttled, want %d", c.calls, r.Throttled, c.throttled)
			}
			if got := r.Partitions[0].WCU; got != capacity.AWS.Write {
				t.Errorf("busiest second took %g WCU, want %g", got, capacity.AWS.Write)
			}
			demand := Run(job(c.calls, put("EVENT#e", "x")), record.LoadScore, Params{Latency: DefaultLatency, Seed: 1})
			if got := demand.Partitions[0].WCU; got != float64(c.calls) {
				t.Errorf("demand run: busiest second %g WCU, want %d (nothing throttled)", got, c.calls)
			}
		})
	}
}

func TestIndexThrottlesTheTableWriteThatFeedsIt(t *testing.T) {
	// Writes to 1,001 distinct table partitions, all feeding one index partition.
	var calls []record.Call
	for i := 0; i < 1001; i++ {
		calls = append(calls, record.Call{Op: "PutItem", Accesses: record.Accesses{
			{PK: "USER#{p1}", SK: "EVENT#e", Kind: "put", Bytes: 500, WCU: 1},
			{Index: "GSI", PK: "EVENT#e", SK: "UNSCORED#{p1}", Kind: "put", Bytes: 500, WCU: 1},
		}})
	}
	r := Run(job(1, calls...), record.LoadScore, limited())
	if r.Throttled != 1 {
		t.Fatalf("%d table writes throttled, want 1: the index partition is full", r.Throttled)
	}
}

func TestIndexKeyChangeCostsDeleteAndPut(t *testing.T) {
	key := func(sk string) map[string]capacity.IndexKey {
		return map[string]capacity.IndexKey{"GSI": {Partition: "EVENT#e", Sort: sk}}
	}
	before := &capacity.Image{Size: 700, IndexKeys: key("UNSCORED#u")}
	after := &capacity.Image{Size: 1100, IndexKeys: key("SCORE#999999990#u")}
	ws := capacity.IndexWrites(before, after)
	if len(ws) != 2 || ws[0].Kind != capacity.IndexDelete || ws[0].Key.Sort != "UNSCORED#u" || ws[1].Kind != capacity.IndexPut || ws[1].Key.Sort != "SCORE#999999990#u" {
		t.Fatalf("key change: %+v, want a delete of the old key and a put of the new one", ws)
	}
	if ws[0].Units != 1 || ws[1].Units != 2 {
		t.Errorf("units %g + %g, want 1 (old entry < 1 KB) + 2 (new entry > 1 KB)", ws[0].Units, ws[1].Units)
	}
	// The model charges both to the index partition, at standard cost in a transaction.
	c := compile(record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{
		{PK: "USER#{p1}", SK: "EVENT#e", Kind: "update", Txn: true, Bytes: 1100, WCU: capacity.Transaction * capacity.WriteUnits(1100)},
		{Index: "GSI", PK: "EVENT#e", SK: ws[0].Key.Sort, Kind: ws[0].Kind, Txn: true, Bytes: ws[0].Size, WCU: ws[0].Units},
		{Index: "GSI", PK: "EVENT#e", SK: ws[1].Key.Sort, Kind: ws[1].Kind, Txn: true, Bytes: ws[1].Size, WCU: ws[1].Units},
	}}, DefaultLatency)
	if len(c.shared) != 1 || c.shared[0].key != "GSI|EVENT#e" || c.shared[0].wcu != 3 {
		t.Errorf("index partition charged %+v, want 3 WCU on GSI|EVENT#e", c.shared)
	}
	if len(c.own) != 1 || c.own[0].wcu != 4 {
		t.Errorf("the player's partition charged %+v, want 4 WCU (2 KB, doubled by the transaction)", c.own)
	}
}

func TestConcurrentTransactionsOnOneItemConflict(t *testing.T) {
	tx := func(pk string) record.Call {
		return record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{
			{PK: "EVENT", SK: "EVENT#e", Kind: "check", Txn: true, Bytes: 200, WCU: 2},
			{PK: pk, SK: "EVENT#e", Kind: "put", Txn: true, Bytes: 500, WCU: 2},
		}}
	}
	// Two players' submits at the same instant: both check the one event item.
	r := Run(job(1, tx("USER#{p1}"), tx("USER#{p2}")), record.LoadScore, limited())
	if r.Conflicts != 1 {
		t.Fatalf("two in-flight transactions on one item: %d conflicts, want 1 (the later one)", r.Conflicts)
	}
	if r.Errors[record.ErrTxConflict] != 1 {
		t.Errorf("errors %v, want one %s (no retries configured)", r.Errors, record.ErrTxConflict)
	}
	// One after the other: no conflict.
	w := job(1, tx("USER#{p1}"), tx("USER#{p2}"))
	w.Job.Workers = 1
	if r := Run(w, record.LoadScore, limited()); r.Conflicts != 0 {
		t.Errorf("sequential transactions: %d conflicts, want 0", r.Conflicts)
	}
	// Players' own items never conflict with each other.
	own := func(pk string) record.Call {
		return record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{{PK: pk, SK: "EVENT#e", Kind: "put", Txn: true, Bytes: 500, WCU: 2}}}
	}
	if r := Run(job(1, own("USER#{p1}"), own("USER#{p1}")), record.LoadScore, limited()); r.Conflicts != 0 {
		t.Errorf("own items: %d conflicts, want 0", r.Conflicts)
	}
}

func TestStoreRetriesAConflictAsProbed(t *testing.T) {
	tx := record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{{PK: "EVENT", SK: "EVENT#e", Kind: "check", Txn: true, Bytes: 200, WCU: 2}}}
	w := job(2, tx)
	w.Rec.StoreRetries = []record.StoreRetry{{Load: record.LoadScore, Op: "TransactWriteItems", Error: record.ErrTxConflict, Attempts: 3, GapsMs: []float64{50, 50}}}
	r := Run(w, record.LoadScore, limited())
	if r.Conflicts != 1 || len(r.Errors) != 0 {
		t.Fatalf("conflicts %d, errors %v: want 1 conflict retried by the store and no error", r.Conflicts, r.Errors)
	}
}

func TestFrontDoorStageThrottle(t *testing.T) {
	w := &Workload{Players: 1000, Calls: []record.Call{{Op: "GetItem", Accesses: record.Accesses{{PK: "USER#{p1}", SK: "USER", Kind: "read", Items: 1, Bytes: 100, RCU: 1}}}},
		Requests: map[string][]record.Template{record.LoadCard: {{Count: 1, Stages: [][]int{{0}}}}},
		Rec:      &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1}, FrontDoor: record.FrontDoor{Stage: record.Throttle{Rate: 10, Burst: 20}, TimeoutSeconds: 10}}}
	r := Run(w, record.LoadCard, limited())
	// 1,000 requests in one minute through a bucket of 20 refilled at 10/s: about 620 pass.
	if served := r.OK; served < 600 || served > 640 {
		t.Errorf("%d of 1,000 served through a 10/s burst-20 stage throttle in one minute, want about 620", served)
	}
	if r.Errors["429 API stage throttle"] != r.Requests-r.OK {
		t.Errorf("errors %v", r.Errors)
	}
}

func TestProfileShares(t *testing.T) {
	sum := 0.0
	s := profiles[record.LoadSubmit].minuteShares()
	for _, v := range s {
		sum += v
	}
	if len(s) != 60 || s[59] != 10.0/60 || sum < 0.999999 || sum > 1.000001 {
		t.Errorf("submit: %d minutes, last %g, total %g; want 60, 1/6 (10× the average), 1", len(s), s[59], sum)
	}
	if c := profiles[record.LoadCard].minuteShares(); c[4] != 1 || c[0] != 0 {
		t.Errorf("card views: %v, want all in the peak minute (5× the 5-minute average)", c)
	}
}

// scoringJob is a job of units work units (each one transaction on a player's partition),
// workers at once, whose every scoreEvent call first reads mb MB of a shared partition.
func scoringJob(units, workers int, mb float64) *Workload {
	read := record.Call{Op: "Query", Accesses: record.Accesses{{Index: "GSI", PK: "EVENT#e", Kind: "read", Items: 1000, Bytes: 1 << 20, RCU: 128}}}
	unit := record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{{PK: "USER#{p1}", SK: "EVENT#e", Kind: "update", Txn: true, Bytes: 800, WCU: 2}}}
	w := &Workload{Players: 1000, Calls: []record.Call{read, unit}, Rec: &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1},
		FrontDoor: record.FrontDoor{TimeoutSeconds: 29, ScoringBudgetSeconds: 20, ScoringMarginSeconds: 3}}}
	j := &Job{Workers: workers, Work: []record.Template{{Count: 1, Stages: [][]int{{1}}}},
		Reads: []JobRead{{Group: "read", Proto: read, Pre: [3]float64{0, mb * (1 << 20) / 1000, 0}, PageBytes: 1 << 20}}}
	for i := 0; i < units; i++ {
		j.Units = append(j.Units, 0)
	}
	w.Job = j
	return w
}

func TestScoringCallsStopStartingWorkAtTheirBudget(t *testing.T) {
	p := limited()
	p.Latency.TxMs, p.Latency.TxItemMs = 1000, 0 // one unit per second per worker
	r := Run(scoringJob(200, 4, 10), record.LoadScore, p)
	// Each call reads 10 pages, then starts 4 units a second until 20 s: 80 units a call.
	if !r.Complete || r.Invocations != 3 || r.UnitsDone != 200 {
		t.Errorf("complete %v after %d calls, %d units done: want complete after 3 calls (80 + 80 + 40 units)", r.Complete, r.Invocations, r.UnitsDone)
	}
}

func TestScoringNeverFinishesWhenItsReadOutlastsTheTimeout(t *testing.T) {
	// 1,000 MB a call at 3,000 RCU/s (128 RCU a page) is 43 s: past the 29 s timeout.
	// (The SDK retries the throttled pages.)
	w := scoringJob(10, 4, 1000)
	w.Rec.SDK = record.SDKRetry{MaxAttempts: 20, Retryable: map[string]bool{record.ErrThrottle: true}, BackoffCapMs: []float64{100}}
	p := limited()
	p.JobCap = 10 * time.Minute
	r := Run(w, record.LoadScore, p)
	if r.Complete || r.UnitsDone != 0 || r.Errors["504 function timeout"] < 15 || r.Seconds != p.JobCap.Seconds() {
		t.Errorf("complete %v, %d units done, errors %v, %g s: want no unit done, every call timed out, unfinished at %v", r.Complete, r.UnitsDone, r.Errors, r.Seconds, p.JobCap)
	}
	// The same read with no throttling takes 25 s: it finishes.
	if r := Run(scoringJob(10, 4, 1000), record.LoadScore, Params{Latency: DefaultLatency, Seed: 1}); !r.Complete {
		t.Errorf("without limits: complete %v, errors %v", r.Complete, r.Errors)
	}
}

// lockTx is a submit's transaction as the sharded layout records it: the player's lock copy
// (shard 5 of 64) updated, their prediction put, its index entry in shard 5 of 16.
func lockTx() record.Call {
	return record.Call{Op: "TransactWriteItems", Accesses: record.Accesses{
		{PK: "EVENT#e#{05%64}", SK: "LOCK", Kind: "update", Txn: true, Bytes: 250, WCU: 2},
		{PK: "USER#{p1}", SK: "EVENT#e", Kind: "put", Txn: true, Bytes: 800, WCU: 2},
		{Index: "GSI", PK: "EVENT#e#{05%16}", SK: "UNSCORED#{p1}", Kind: "put", Txn: true, Bytes: 800, WCU: 1},
	}}
}

func TestShardsAreEachAPartition(t *testing.T) {
	w := &Workload{Players: 160_000, Calls: []record.Call{lockTx()},
		Requests: map[string][]record.Template{record.LoadSubmit: {{Count: 1, Stages: [][]int{{0}}}}},
		Rec:      &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1}, FrontDoor: record.FrontDoor{TimeoutSeconds: 10}}}
	r := Run(w, record.LoadSubmit, Params{Latency: DefaultLatency, Seed: 1})
	copies, shards, busiest := 0, 0, 0.0
	for _, p := range r.Partitions {
		switch {
		case strings.HasPrefix(p.Partition, "table EVENT#e#"):
			copies++
		case strings.HasPrefix(p.Partition, "GSI EVENT#e#"):
			shards++
			busiest = max(busiest, p.WCU)
		}
	}
	if copies != 64 || shards != 16 {
		t.Fatalf("%d lock copy partitions and %d index shard partitions, want 64 and 16: %v", copies, shards, r.Partitions)
	}
	// 444 submits a second at the peak over 16 shards: no shard takes a quarter of them.
	if busiest <= 0 || busiest > r.IndexWCU/4 {
		t.Errorf("busiest index shard %g WCU in a second of the index's %g: the load is not spread", busiest, r.IndexWCU)
	}
}

func TestConcurrentTransactionsConflictOnlyOnTheSameLockCopy(t *testing.T) {
	// Units take their number as shift: 64 at once use 64 different copies; a 65th uses
	// unit 0's copy while it is in flight.
	for _, c := range []struct{ units, conflicts int }{{64, 0}, {65, 1}} {
		r := Run(job(c.units, lockTx()), record.LoadScore, limited())
		if r.Conflicts != c.conflicts {
			t.Errorf("%d transactions at once over 64 lock copies: %d conflicts, want %d", c.units, r.Conflicts, c.conflicts)
		}
	}
}

func TestReadCacheFillsOncePerInstancePerTTL(t *testing.T) {
	card := record.Call{Op: "Query", Cache: "card|e", Accesses: record.Accesses{{Index: "GSI", PK: "EVENT#e", Kind: "read", Items: 10, Bytes: 3000, RCU: 0.5}}}
	mine := record.Call{Op: "GetItem", Accesses: record.Accesses{{PK: "USER#{p1}", SK: "EVENT#e", Kind: "read", Items: 1, Bytes: 800, RCU: 0.5}}}
	w := func(ttl float64) *Workload {
		return &Workload{Players: 100_000, Calls: []record.Call{card, mine},
			Requests: map[string][]record.Template{record.LoadCard: {{Count: 1, Stages: [][]int{{0, 1}}}}},
			Rec:      &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1}, FrontDoor: record.FrontDoor{TimeoutSeconds: 10, ReadCacheTTLSeconds: ttl}}}
	}
	r := Run(w(2), record.LoadCard, limited())
	fills := r.Requests - r.CacheHits
	// Every request arrives in one minute: an instance fills the card at most 31 times.
	if r.OK != r.Requests || r.CacheHits == 0 || fills > 31*r.Instances {
		t.Errorf("%d requests, %d ok, %d cache hits, %d instances: %d fills, want at most 31 per instance", r.Requests, r.OK, r.CacheHits, r.Instances, fills)
	}
	if card := r.Partitions[0]; card.Partition != "GSI EVENT#e" || card.RCU > 0.5*float64(r.Instances)/2+0.5*float64(r.MaxLambda) {
		t.Errorf("card partition %+v: more than each instance filling once per TTL", card)
	}
	if r := Run(w(0), record.LoadCard, limited()); r.CacheHits != 0 {
		t.Errorf("no cache: %d hits", r.CacheHits)
	}
}

func TestAHeldEntryLeavesAFillsOwnReads(t *testing.T) {
	// The caller's prediction and the event's rank table in one consistent BatchGetItem
	// that fills the rank table's entry: with the entry held, the prediction alone.
	fill := record.Call{Op: "BatchGetItem", Consistent: true, Cache: "rank|e", Accesses: record.Accesses{
		{PK: "USER#{p1}", SK: "EVENT#e", Kind: "read", Items: 1, Bytes: 800, RCU: 1},
		{PK: "EVENT#e", SK: "RANKS", Kind: "read", Items: 1, Bytes: 2000, RCU: 1}}}
	w := &Workload{Players: 100_000, Calls: []record.Call{fill},
		Requests: map[string][]record.Template{record.LoadCard: {{Count: 1, Stages: [][]int{{0}}}}},
		Rec:      &record.Recording{SDK: record.SDKRetry{MaxAttempts: 1}, FrontDoor: record.FrontDoor{TimeoutSeconds: 10, ReadCacheTTLSeconds: 2}}}
	r := Run(w, record.LoadCard, limited())
	if r.OK != r.Requests || r.CacheHits == 0 || r.Attempts != r.Requests {
		t.Errorf("%d requests, %d ok, %d cache hits, %d attempts: want every request to read the player's prediction, hit or not", r.Requests, r.OK, r.CacheHits, r.Attempts)
	}
	if p := r.Partitions[0]; p.Partition != "table EVENT#e" || p.RCU > float64(r.Instances)/2+float64(r.MaxLambda) {
		t.Errorf("rank table's partition %+v: more than each instance filling once per TTL", p)
	}
	if got := w.Calls[len(w.Calls)-1]; got.Op != "GetItem" || len(got.Accesses) != 1 || !got.Accesses[0].Own() {
		t.Errorf("what a hit reads: %+v, want the GetItem of the player's prediction", got)
	}
}
