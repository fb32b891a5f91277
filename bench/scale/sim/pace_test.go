package sim

import (
	"math"
	"testing"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/internal/capacity"
)

func TestPaceWaitsForADemandAboveTheBurstAsTheCodeDoes(t *testing.T) {
	// 1,000 units a second, a burst of 250: the bucket starts full and refills at 750.
	p := newPacer(&record.Pace{WriteUnits: 1000, WriteBurst: 250})
	for i, step := range []struct {
		atMs   int64
		n      float64
		waitUs int64
	}{
		{0, 600, 466_667}, // 250 at once, 350 more at 750 a second (the code: two waits of a burst, then 100)
		{466, 1, 2_000},   // half a unit short of zero: 1.5 units at 750 a second
		{10_000, 0.2, 0},  // a part of a unit is a whole one, and the bucket is full again
	} {
		if got := p.reserve(p.writes, "k", 1000, 250, step.atMs*1000, step.n); got != step.waitUs {
			t.Errorf("reservation %d (%g units at %d ms): wait %d µs, want %d", i, step.n, step.atMs, got, step.waitUs)
		}
	}
}

// pacedTx is a scoring transaction as recorded: n players' predictions, each an index key
// change in one event shard partition (the old entry oldBytes, the new one newBytes).
func pacedTx(n, oldBytes, newBytes int) record.Call {
	var as record.Accesses
	for range n {
		as = append(as,
			record.Access{PK: "USER#{p1}", SK: "EVENT#e", Kind: "update", Txn: true, Bytes: newBytes, WCU: capacity.Transaction * capacity.WriteUnits(newBytes)},
			record.Access{Index: "GSI", PK: "EVENT#e#00", SK: "UNSCORED#{p1}", Kind: "delete", Txn: true, Bytes: oldBytes, WCU: capacity.WriteUnits(oldBytes)},
			record.Access{Index: "GSI", PK: "EVENT#e#00", SK: "SCORE#{n}#{p1}", Kind: "put", Txn: true, Bytes: newBytes, WCU: capacity.WriteUnits(newBytes)})
	}
	as = append(as, record.Access{PK: "EVENT#e#00", SK: "SCORING", Kind: "update", Txn: true, Bytes: 800, WCU: 2})
	return record.Call{Op: "TransactWriteItems", Accesses: as}
}

func TestPaceEstimatesAnIndexKeyChangeAsTheOldEntrysDeleteAndTheNewOnesPut(t *testing.T) {
	got := paceWrites(pacedTx(10, 819, 1201))
	want := []paceUse{{"EVENT#e#00", 2}, {"GSI|EVENT#e#00", 30}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("pace estimate %+v, want %+v: the old entry's delete (1 unit) and the new one's put (2 units) a player, the checkpoint as recorded", got, want)
	}
	// The index partition is charged what the writes take: 1 + 2 units a player.
	for _, u := range compile(pacedTx(10, 819, 1201), DefaultLatency).shared {
		if u.key == "GSI|EVENT#e#00" && u.wcu != 30 {
			t.Errorf("recorded %g WCU on the index partition, want 30", u.wcu)
		}
	}
}

// pacedJob is a scoring job of units transactions of 48 players (~1 KB entries), one
// worker, by code that paces itself.
func pacedJob(units, oldBytes, newBytes int) *Workload {
	w := job(units, pacedTx(48, oldBytes, newBytes))
	w.Job.Workers = 1
	w.Rec.Pace = &record.Pace{WriteUnits: scoring.PartitionWriteUnits, ReadUnits: scoring.PartitionReadUnits,
		WriteBurst: scoring.PaceWriteBurst, ReadBurst: scoring.PaceReadBurst}
	return w
}

func TestPaceKeepsThePartitionWithinItsLimit(t *testing.T) {
	// 96 WCU a transaction as estimated and as taken: 750 a second after the first burst.
	w := pacedJob(100, 800, 800)
	r := Run(w, record.LoadScore, Params{Latency: DefaultLatency, Seed: 1})
	if !r.Complete {
		t.Fatalf("not complete: %v", r.Errors)
	}
	busiest, where := r.MaxWCU()
	if busiest > scoring.PartitionWriteUnits || busiest < 0.9*scoring.PartitionWriteUnits || where != "GSI EVENT#e#00" {
		t.Errorf("busiest second %g WCU on %s, want just under %d on the index partition", busiest, where, scoring.PartitionWriteUnits)
	}
	// 9,600 units at 750 a second after a burst of 250: about 12.5 s.
	if want := (9600.0 - 250) / 750; math.Abs(r.Seconds-want) > 0.5 {
		t.Errorf("scored in %.1f s, want about %.1f s (the pace's rate)", r.Seconds, want)
	}
	// Without the pace the same job asks far more of the partition.
	w.Rec.Pace = nil
	if r := Run(w, record.LoadScore, Params{Latency: DefaultLatency, Seed: 1}); r.Partitions[0].WCU < 2*scoring.PartitionWriteUnits {
		t.Errorf("unpaced: busiest second %g WCU, want well over the limit", r.Partitions[0].WCU)
	}
}

func TestPaceLetsThroughWhatItUnderestimates(t *testing.T) {
	// Index puts recorded at 3 WCU where their 800 bytes make the code estimate 1: 4 units
	// a player taken where 2 are paced.
	w := pacedJob(100, 800, 800)
	for i, a := range w.Calls[0].Accesses {
		if a.Index != "" && a.Kind == "put" {
			w.Calls[0].Accesses[i].WCU = 3
		}
	}
	r := Run(w, record.LoadScore, Params{Latency: DefaultLatency, Seed: 1})
	if busiest, _ := r.MaxWCU(); busiest <= scoring.PartitionWriteUnits {
		t.Errorf("busiest second %g WCU: the model must charge what the writes take, not what the pace estimates", busiest)
	}
}

func TestOneUnitPerShardAtATime(t *testing.T) {
	q := newUnitQueue(6, 2)
	a, _ := q.take()
	b, _ := q.take()
	if _, ok := q.take(); ok || a%2 == b%2 {
		t.Fatalf("took units %d and %d and then another: want one of each shard, then none", a, b)
	}
	q.release(a, true) // to do again, first of its shard
	if c, ok := q.take(); !ok || c != a {
		t.Fatalf("after a failed unit %d: took %d, %v", a, c, ok)
	}
	for _, u := range []int{a, b} {
		q.release(u, false)
	}
	for !q.empty() {
		u, ok := q.take()
		if !ok {
			t.Fatal("units left but none to take")
		}
		q.release(u, false)
	}
	// Without shards, any number at once.
	q = newUnitQueue(3, 0)
	for range 3 {
		if _, ok := q.take(); !ok {
			t.Fatal("no shards: every unit may run at once")
		}
	}
}
