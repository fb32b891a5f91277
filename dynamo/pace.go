package dynamo

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
	// second.
	PartitionWriteUnits = 1000
	PartitionReadUnits  = 3000
	// PaceWriteBurst and PaceReadBurst are the most units a partition's bucket lends at
	// once; the buckets refill at the partition's throughput minus the burst, so that no
	// second sees more than the throughput.
	PaceWriteBurst = 250
	PaceReadBurst  = 500
)

// pacer holds one write bucket and one read bucket per partition paced.
type pacer struct {
	mu     sync.Mutex
	writes map[string]*rate.Limiter
	reads  map[string]*rate.Limiter
}

// maxPacedPartitions bounds the buckets kept; past it the pacer starts over (the
// partitions of events scored long ago need none).
const maxPacedPartitions = 10_000

func newPacer() *pacer {
	return &pacer{writes: map[string]*rate.Limiter{}, reads: map[string]*rate.Limiter{}}
}

func (p *pacer) bucket(m map[string]*rate.Limiter, partition string, units, burst int) *rate.Limiter {
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

// waitWrites waits until every partition of units has the write units units asks of it. A
// demand above the burst waits for a whole burst (it cannot be split).
func (p *pacer) waitWrites(ctx context.Context, units map[string]float64) error {
	for _, partition := range slices.Sorted(maps.Keys(units)) {
		n := min(int(math.Ceil(units[partition])), PaceWriteBurst)
		if n <= 0 {
			continue
		}
		if err := p.bucket(p.writes, partition, PartitionWriteUnits, PaceWriteBurst).WaitN(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// chargeRead takes the read units a call used from partition's bucket, waiting if it is
// empty, so that the next read waits its turn.
func (p *pacer) chargeRead(ctx context.Context, partition string, units float64) error {
	n := min(int(math.Ceil(units)), PaceReadBurst)
	if n <= 0 {
		return nil
	}
	return p.bucket(p.reads, partition, PartitionReadUnits, PaceReadBurst).WaitN(ctx, n)
}

// writeDemand adds up what a scoring transaction asks of the partitions it shares.
type writeDemand map[string]float64

// indexMove adds an index entry of size bytes whose key changes (a delete and a put) in
// partition.
func (d writeDemand) indexMove(partition string, size int) {
	d[partition] += 2 * capacity.WriteUnits(size)
}

// transactional adds a transaction's write of an item of size bytes in partition.
func (d writeDemand) transactional(partition string, size int) {
	d[partition] += capacity.Transaction * capacity.WriteUnits(size)
}
