package scoring

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"

	"golang.org/x/time/rate"

	"github.com/pickem/api/internal/capacity"
)

// Scoring paces itself, so that it never asks a partition for more than AWS serves one:
// PartitionWriteUnits write units and PartitionReadUnits read units a second, on the table
// and on the index alike. Before each of its transactions a scoring run waits until every
// partition the transaction writes much of has the units the writes take there; after each
// of its Queries it charges the partition read with the units the answer took. Throttling
// and its retries are then the exception, not the way the pace is found.
//
// The units are estimated as AWS bills them (internal/capacity): an item of a transaction
// twice on the table, an index entry whose key changes as a delete and a put, from the
// sizes of the items as read. Only the partitions a scoring batch shares are paced: the
// index partitions of the event's shard and of the season's shards it writes, and the
// main-table partitions of the shard's checkpoint and histograms. (Each player's own items
// are in their own partition.)
//
// The buckets belong to the store, so they pace the scoring runs of one process together;
// runs of one event in several processes at once (concurrent admin calls) each take their
// own share.
const (
	// PartitionWriteUnits and PartitionReadUnits are AWS's throughput of one partition, per
	// second: what scoring paces itself to unless configured otherwise
	// (WithPartitionThroughput).
	PartitionWriteUnits = 1000
	PartitionReadUnits  = 3000
	// PaceBurstShare is the share of a second's units a partition's bucket lends at once;
	// the bucket refills at the rest, so that no second sees more than the throughput. A
	// demand larger than the burst is taken in bursts.
	PaceBurstShare = 4 // a quarter
	// PaceWriteBurst and PaceReadBurst are the bursts at AWS's throughput.
	PaceWriteBurst = PartitionWriteUnits / PaceBurstShare
	PaceReadBurst  = PartitionReadUnits / PaceBurstShare
)

// Pacer holds one write bucket and one read bucket per partition paced. A store's runs
// share one, so that they pace together.
type Pacer struct {
	writeUnits, readUnits int
	mu                    sync.Mutex
	writes                map[string]*rate.Limiter
	reads                 map[string]*rate.Limiter
}

// maxPacedPartitions bounds the buckets kept; past it the pacer starts over (the
// partitions of events scored long ago need none).
const maxPacedPartitions = 10_000

// NewPacer returns a pacer to writeUnits write units and readUnits read units a second
// per partition.
func NewPacer(writeUnits, readUnits int) *Pacer {
	return &Pacer{writeUnits: writeUnits, readUnits: readUnits, writes: map[string]*rate.Limiter{}, reads: map[string]*rate.Limiter{}}
}

// take takes n units from partition's bucket of m (of units a second), waiting as long as
// needed, a burst at a time.
func (p *Pacer) take(ctx context.Context, m map[string]*rate.Limiter, partition string, units int, n float64) error {
	burst := units / PaceBurstShare
	l := p.bucket(m, partition, units, burst)
	for left := int(math.Ceil(n)); left > 0; left -= burst {
		if err := l.WaitN(ctx, min(left, burst)); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pacer) bucket(m map[string]*rate.Limiter, partition string, units, burst int) *rate.Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.writes)+len(p.reads) >= maxPacedPartitions {
		clear(p.writes)
		clear(p.reads)
	}
	l := m[partition]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(units-burst), burst)
		m[partition] = l
	}
	return l
}

// waitWrites waits until every partition of units has the write units units asks of it.
func (p *Pacer) waitWrites(ctx context.Context, units map[string]float64) error {
	for _, partition := range slices.Sorted(maps.Keys(units)) {
		if err := p.take(ctx, p.writes, partition, p.writeUnits, units[partition]); err != nil {
			return err
		}
	}
	return nil
}

// chargeRead takes the read units a call used from partition's bucket, waiting if it is
// empty, so that the next read waits its turn.
func (p *Pacer) chargeRead(ctx context.Context, partition string, units float64) error {
	return p.take(ctx, p.reads, partition, p.readUnits, units)
}

// writeDemand adds up what a scoring transaction asks of the partitions it shares.
type writeDemand map[string]float64

// indexMove adds an index entry whose key changes in partition: the delete of the entry as
// it was (before bytes) and the put of the new one (after bytes).
func (d writeDemand) indexMove(partition string, before, after int) {
	d[partition] += capacity.WriteUnits(before) + capacity.WriteUnits(after)
}

// transactional adds a transaction's write of an item of size bytes in partition.
func (d writeDemand) transactional(partition string, size int) {
	d[partition] += capacity.Transaction * capacity.WriteUnits(size)
}
