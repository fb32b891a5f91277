package bench

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"

	"golang.org/x/time/rate"

	"github.com/pickem/api/dynamo"
)

// pacer paces the scoring floor exactly as the store paces scoring (dynamo/pace.go): one
// write bucket and one read bucket per partition, refilling at the partition's throughput
// minus the burst a second (dynamo.PartitionWriteUnits − dynamo.PaceWriteBurst, reads
// likewise) and lending at most the burst at once, so that no second asks a partition for
// more than AWS serves it. No implementation can write a partition faster on AWS, so a
// floor that did would not be one.
type pacer struct {
	mu     sync.Mutex
	writes map[string]*rate.Limiter
	reads  map[string]*rate.Limiter
}

func newPacer() *pacer {
	return &pacer{writes: map[string]*rate.Limiter{}, reads: map[string]*rate.Limiter{}}
}

func (p *pacer) bucket(m map[string]*rate.Limiter, partition string, units, burst int) *rate.Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := m[partition]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(units-burst), burst)
		m[partition] = l
	}
	return l
}

// waitWrites waits until every partition of units has the write units asked of it (at
// most a burst: a larger demand waits for a whole burst).
func (p *pacer) waitWrites(ctx context.Context, units map[string]float64) error {
	for _, partition := range slices.Sorted(maps.Keys(units)) {
		n := min(int(math.Ceil(units[partition])), dynamo.PaceWriteBurst)
		if n <= 0 {
			continue
		}
		if err := p.bucket(p.writes, partition, dynamo.PartitionWriteUnits, dynamo.PaceWriteBurst).WaitN(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// chargeRead takes the read units a call used from partition's bucket, waiting if it is
// empty.
func (p *pacer) chargeRead(ctx context.Context, partition string, units float64) error {
	n := min(int(math.Ceil(units)), dynamo.PaceReadBurst)
	if n <= 0 {
		return nil
	}
	return p.bucket(p.reads, partition, dynamo.PartitionReadUnits, dynamo.PaceReadBurst).WaitN(ctx, n)
}
