package bench

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"

	"golang.org/x/time/rate"

	"github.com/pickem/api/dynamo/scoring"
)

// pacer paces the scoring floor exactly as the store paces scoring at AWS's throughput
// (dynamo/scoring/pace.go): one write bucket and one read bucket per partition, refilling at the
// partition's throughput minus the burst a second (scoring.PartitionWriteUnits −
// scoring.PaceWriteBurst, reads likewise) and lending at most the burst at once (a larger
// demand is taken a burst at a time), so that no second asks a partition for more than AWS
// serves it. No implementation can write a partition faster on AWS, so a floor that did
// would not be one.
type pacer struct {
	mu     sync.Mutex
	writes map[string]*rate.Limiter
	reads  map[string]*rate.Limiter
}

func newPacer() *pacer {
	return &pacer{writes: map[string]*rate.Limiter{}, reads: map[string]*rate.Limiter{}}
}

// take takes n units from partition's bucket of m (units a second, lending burst at once),
// waiting as long as needed, a burst at a time.
func (p *pacer) take(ctx context.Context, m map[string]*rate.Limiter, partition string, units, burst int, n float64) error {
	p.mu.Lock()
	l := m[partition]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(units-burst), burst)
		m[partition] = l
	}
	p.mu.Unlock()
	for left := int(math.Ceil(n)); left > 0; left -= burst {
		if err := l.WaitN(ctx, min(left, burst)); err != nil {
			return err
		}
	}
	return nil
}

// waitWrites waits until every partition of units has the write units asked of it.
func (p *pacer) waitWrites(ctx context.Context, units map[string]float64) error {
	for _, partition := range slices.Sorted(maps.Keys(units)) {
		if err := p.take(ctx, p.writes, partition, scoring.PartitionWriteUnits, scoring.PaceWriteBurst, units[partition]); err != nil {
			return err
		}
	}
	return nil
}

// chargeRead takes the read units a call used from partition's bucket, waiting if it is
// empty.
func (p *pacer) chargeRead(ctx context.Context, partition string, units float64) error {
	return p.take(ctx, p.reads, partition, scoring.PartitionReadUnits, scoring.PaceReadBurst, units)
}
