package awsfaithful

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// holder is a request holding items: a transaction in flight (tx), or a plain write
// (whose items are held only so that the stream records of its write can be told apart
// from others' for capacity accounting).
type holder struct {
	tx      bool
	keys    []string
	done    chan struct{}
	records []*change // stream records of held items, handed over by ingest (under e.mu)
}

func lockKey(table, item string) string { return table + "\x00" + item }

// lockTx takes every key for a transaction, or none: it returns the keys another
// request holds (a TransactionConflict each) and takes nothing if there is one.
func (e *Engine) lockTx(keys []string) (*holder, map[string]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var busy map[string]bool
	for _, k := range keys {
		if e.locks[k] != nil {
			if busy == nil {
				busy = map[string]bool{}
			}
			busy[k] = true
		}
	}
	if busy != nil {
		return nil, busy
	}
	h := &holder{tx: true, keys: dedupe(keys), done: make(chan struct{})}
	for _, k := range h.keys {
		e.locks[k] = h
	}
	return h, nil
}

// lockPlain takes keys for a plain write, waiting for other plain writes to finish. Keys
// held by a transaction in flight are not taken: they are returned (the caller answers
// TransactionConflictException, or leaves them unprocessed in a batch).
func (e *Engine) lockPlain(ctx context.Context, keys []string) (*holder, map[string]bool, error) {
	h := &holder{done: make(chan struct{})}
	var busy map[string]bool
	for _, k := range dedupe(keys) {
		for {
			e.mu.Lock()
			cur := e.locks[k]
			if cur == nil {
				e.locks[k] = h
				h.keys = append(h.keys, k)
				e.mu.Unlock()
				break
			}
			e.mu.Unlock()
			if cur.tx {
				if busy == nil {
					busy = map[string]bool{}
				}
				busy[k] = true
				break
			}
			select {
			case <-cur.done:
			case <-ctx.Done():
				e.unlock(h)
				return nil, nil, ctx.Err()
			}
		}
	}
	return h, busy, nil
}

// unlock releases h's keys and wakes the requests waiting for them.
func (e *Engine) unlock(h *holder) {
	if h == nil {
		return
	}
	e.mu.Lock()
	for _, k := range h.keys {
		if e.locks[k] == h {
			delete(e.locks, k)
		}
	}
	e.mu.Unlock()
	close(h.done)
}

// takeRecords returns the stream records handed to h so far.
func (e *Engine) takeRecords(h *holder) []*change {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := h.records
	h.records = nil
	return r
}

func dedupe(keys []string) []string {
	out := append([]string(nil), keys...)
	sort.Strings(out)
	n := 0
	for i, k := range out {
		if i == 0 || k != out[n-1] {
			out[n] = k
			n++
		}
	}
	return out[:n]
}

// Tx describes a transaction for PauseTransactions' predicate.
type Tx struct{ Items []TxItem }

// TxItem is one item of a transaction.
type TxItem struct {
	Op    string // "Put", "Update", "Delete" or "ConditionCheck"
	Table string
	Key   Item // the item's primary key
	Item  Item // the whole item, for a Put
}

// TxGate pauses the transactions it matches in flight, holding their items, until
// released. See PauseTransactions.
type TxGate struct {
	e                       *Engine
	match                   func(Tx) bool
	paused                  chan struct{} // closed when the first matching transaction pauses
	release                 chan struct{}
	pausedOnce, releaseOnce sync.Once
}

// txHook is a function OnTransaction runs.
type txHook struct {
	match func(Tx) bool
	fn    func(Tx)
}

// OnTransaction calls fn with every TransactWriteItems that match accepts, when it
// arrives: before it takes its items and before anything of it is evaluated, so that what
// fn writes lands between the caller's reads and its transaction (a write of another
// process overtaking it). fn runs on the request's goroutine and must not send requests
// through the engine that wait for this transaction. The returned function stops it.
func (e *Engine) OnTransaction(match func(Tx) bool, fn func(Tx)) (stop func()) {
	h := &txHook{match: match, fn: fn}
	e.mu.Lock()
	e.hooks = append(e.hooks, h)
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.hooks = slices.DeleteFunc(e.hooks, func(x *txHook) bool { return x == h })
	}
}

// runHooks runs the OnTransaction functions that match tx.
func (e *Engine) runHooks(tx Tx) {
	e.mu.Lock()
	var run []*txHook
	for _, h := range e.hooks {
		if h.match(tx) {
			run = append(run, h)
		}
	}
	e.mu.Unlock()
	for _, h := range run {
		h.fn(tx)
	}
}

// PauseTransactions pauses, from now on, every TransactWriteItems that match accepts
// after it has taken its items and before it is applied, until the gate is released.
// Meanwhile a transaction touching one of its items is cancelled with
// TransactionConflict and a plain write to one gets TransactionConflictException.
//
//	g := eng.PauseTransactions(awsfaithful.Touches("EVENT", "EVENT#e1"))
//	go submit()                 // its transaction holds the event item
//	g.Paused(ctx)               // it is in flight now
//	... another write to the event item conflicts ...
//	g.Release()
func (e *Engine) PauseTransactions(match func(Tx) bool) *TxGate {
	g := &TxGate{e: e, match: match, paused: make(chan struct{}), release: make(chan struct{})}
	e.mu.Lock()
	e.gates = append(e.gates, g)
	e.mu.Unlock()
	return g
}

// Paused waits until a matching transaction is paused in flight.
func (g *TxGate) Paused(ctx context.Context) error {
	select {
	case <-g.paused:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release lets the paused transactions go on and stops pausing new ones.
func (g *TxGate) Release() {
	g.e.mu.Lock()
	for i, x := range g.e.gates {
		if x == g {
			g.e.gates = append(g.e.gates[:i], g.e.gates[i+1:]...)
			break
		}
	}
	g.e.mu.Unlock()
	g.releaseOnce.Do(func() { close(g.release) })
}

// Touches matches transactions with an item whose primary key attribute values are
// values, in key schema order (e.g. PK then SK).
func Touches(values ...string) func(Tx) bool {
	return func(tx Tx) bool {
		for _, it := range tx.Items {
			if keyHas(it.Key, values) {
				return true
			}
		}
		return false
	}
}

// keyHas reports whether key's attribute values are exactly values (in any order).
func keyHas(key Item, values []string) bool {
	if len(key) != len(values) {
		return false
	}
	left := map[string]int{}
	for _, v := range values {
		left[v]++
	}
	for name := range key {
		v := key.S(name)
		if left[v] == 0 {
			return false
		}
		left[v]--
	}
	return true
}

// inFlight keeps a transaction in flight: paused by every matching gate, then for the
// configured hold.
func (e *Engine) inFlight(ctx context.Context, tx Tx) error {
	e.mu.Lock()
	var gates []*TxGate
	for _, g := range e.gates {
		if g.match(tx) {
			gates = append(gates, g)
		}
	}
	hold := e.txHold
	e.mu.Unlock()
	for _, g := range gates {
		g.pausedOnce.Do(func() { close(g.paused) })
	}
	for _, g := range gates {
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if hold > 0 {
		t := time.NewTimer(hold)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
