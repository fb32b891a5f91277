package dynamo

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/dynamotest"
)

// TestScoreEventExactUnderThrottlingAndConflicts scores two events of one season with two
// concurrent runs each, through the AWS-faithful engine with the production client settings
// (RetryOption; attempts may take longer than production's 2 s, see
// dynamotest.PatientAttempts: this test is about throttling and conflicts, not timeouts):
// partitions get 100 WCU per second of the engine's virtual clock (every scoring batch
// moves 50 items in each of two index partitions, the event's and the season's standings',
// a delete and a put each, at standard cost in a transaction, so batches running together
// are throttled), and every transaction stays in flight 20 ms (so overlapping ones
// conflict). Both faults are also forced, so that they happen whatever the machine's load:
// the engine's clock stands still until a first request is throttled, and the first
// scoring transaction of the first event is held in flight until another transaction has
// conflicted with it. Runs that give up (UNAVAILABLE) or stop short are run again, as the
// admin command does. The table must end exactly as the oracle says: every standing the
// sum of its player's scored predictions.
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

	// The engine's clock stands still until a request has been throttled: scoring an event
	// writes its scoreShards checkpoints (in the event's partition, in transactions: 2 WCU
	// each at least) and then checks all of them in the transaction that marks it SCORED
	// (as much again): about 64 WCU in a partition whose bucket holds 50 (enough for the
	// largest single request) and does not refill meanwhile, so a throttle is certain. From
	// then on the clock moves 25 ms each time it is read (a few times per request), so that
	// capacity refills with the requests made, not with the machine's speed.
	var engine atomic.Pointer[awsfaithful.Engine]
	var ticks atomic.Int64
	virtual := func() time.Time {
		if eng := engine.Load(); eng == nil || eng.Faults().Throttled == 0 {
			return scAfter
		}
		return scAfter.Add(time.Duration(ticks.Add(1)) * 25 * time.Millisecond)
	}
	eng := awsfaithful.New(t, awsfaithful.Config{
		Now:             virtual,
		Capacity:        capacity.Uniform(capacity.Rate{Read: capacity.AWS.Read, Write: 50}),
		TransactionHold: 20 * time.Millisecond,
	})
	engine.Store(eng)
	// The first event's scoring transactions are held in flight until one transaction has
	// conflicted: the event's other run writes the same first batch (the same players,
	// never scored, in key order), so it conflicts with the held one.
	firstEvent := table.EventSK(table.EventID(events[0].ev.ID))
	gate := eng.PauseTransactions(func(tx awsfaithful.Tx) bool {
		return eng.Faults().Conflicts == 0 && slices.ContainsFunc(tx.Items, func(it awsfaithful.TxItem) bool { return it.Key.S(table.AttrSK) == firstEvent })
	})
	defer gate.Release()
	go func() {
		_ = eng.WaitFaults(scCtx(t), func(f awsfaithful.FaultCounts) bool { return f.Conflicts > 0 })
		gate.Release()
	}()
	client := eng.Client(t, ddb.CostOption, ddb.RetryOption, dynamotest.PatientAttempts)
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
