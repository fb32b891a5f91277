package dynamo

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
)

// TestScoreEventExactUnderThrottlingAndConflicts scores two events of one season with two
// concurrent runs each, through the AWS-faithful engine with the production client settings
// (RetryOption): partitions get 100 WCU per second of the engine's virtual clock (every
// scoring batch moves 50 items in each of two index partitions, the event's and the
// season's standings', a delete and a put each, at standard cost in a transaction, so
// batches running together are throttled), and every transaction stays in flight 20 ms (so overlapping ones
// conflict). Runs that give up (UNAVAILABLE) or stop short are run again, as the admin
// command does. The table must end exactly as the oracle says: every standing the sum of
// its player's scored predictions.
func TestScoreEventExactUnderThrottlingAndConflicts(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	var events []scScoredEvent
	for i, id := range []string{"2025-04-19-night-one", "2025-04-20-night-two"} {
		ev := e.createEvent(id, scCard())
		entries := scGenEntries(70, scTeamCounts(ev), i)[i*10:] // mostly the same players
		e.writeEntries(ev, entries)
		events = append(events, scScoredEvent{e.setResults(ev, scResults()), entries})
	}

	// The engine's clock moves 25 ms each time it is read (a few times per request), so
	// that capacity refills with the requests made, not with the machine's speed: the
	// throttling does not depend on how loaded the machine is.
	var ticks atomic.Int64
	virtual := func() time.Time { return scAfter.Add(time.Duration(ticks.Add(1)) * 25 * time.Millisecond) }
	eng := awsfaithful.New(t, awsfaithful.Config{
		Now:             virtual,
		Capacity:        capacity.Uniform(capacity.Rate{Read: capacity.AWS.Read, Write: 100}),
		TransactionHold: 20 * time.Millisecond,
	})
	client := eng.Client(t, CostOption, RetryOption)
	const runsPerEvent, maxCalls = 2, 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	unavailable := 0
	for _, se := range events {
		for range runsPerEvent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := New(client, e.table, WithClock(func() time.Time { return scAfter }))
				for call := 1; ; call++ {
					r, err := s.ScoreEvent(scCtx(t), se.ev.ID, false)
					switch domain.ErrorCode(err) {
					case "":
						if r.Complete {
							return
						}
					case domain.CodeUnavailable, domain.CodeConflict:
						mu.Lock()
						unavailable++
						mu.Unlock()
					default:
						t.Errorf("score %s: %v", se.ev.ID, err)
						return
					}
					if call == maxCalls {
						t.Errorf("score %s: not complete after %d calls", se.ev.ID, maxCalls)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	faults := eng.Faults()
	t.Logf("engine refused %d requests for throttling and %d for TransactionConflict; runs answered UNAVAILABLE or CONFLICT %d times",
		faults.Throttled, faults.Conflicts, unavailable)
	if faults.Throttled == 0 || faults.Conflicts == 0 {
		t.Errorf("the engine throttled %d and refused %d for conflicts: the test did not exercise both", faults.Throttled, faults.Conflicts)
	}
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(events...))
	for _, se := range events {
		snap.checkScored(t, se)
		if snap.state(se.ev.ID) != domain.StateScored {
			t.Errorf("%s is %s, want SCORED", se.ev.ID, snap.state(se.ev.ID))
		}
	}
}
