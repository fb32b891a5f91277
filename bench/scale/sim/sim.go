// Package sim is the partition-throughput model's discrete-event simulation: it replays a
// Workload — the recorded calls of every load (package record), extrapolated to some
// number of players by package scale — in virtual time, under AWS's limits (DynamoDB's
// per-partition and per-table throughput, transaction conflicts, the SDK's and the store's
// retries) and the front door's (API Gateway's throttles, Lambda's concurrency and
// timeout, the function's read cache), and paces the scoring job as the recorded code
// paces itself. Run simulates one load and says what each partition was asked and what
// reached the players.
package sim

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/internal/capacity"
)

// Latency is how long DynamoDB and the function take, in virtual time. These are
// assumptions about AWS in one region (DynamoDB Local on a shared machine says nothing
// about them), kept in one place and printed with the results.
type Latency struct {
	ItemMs    float64 `json:"itemMs"`    // GetItem, PutItem, UpdateItem, DeleteItem
	ReadMs    float64 `json:"readMs"`    // Query, BatchGetItem …
	PerMBMs   float64 `json:"perMbMs"`   // … plus this per MB they return
	TxMs      float64 `json:"txMs"`      // TransactWriteItems …
	TxItemMs  float64 `json:"txItemMs"`  // … plus this per item
	FailMs    float64 `json:"failMs"`    // an attempt refused (throttled, conflicting)
	HandlerMs float64 `json:"handlerMs"` // the function's own work per request (auth, GraphQL)
}

// DefaultLatency are typical in-region figures: single-digit milliseconds for an item,
// about twice that for a transaction, a 1 MB page in about 25 ms.
var DefaultLatency = Latency{ItemMs: 4, ReadMs: 5, PerMBMs: 20, TxMs: 12, TxItemMs: 0.15, FailMs: 3, HandlerMs: 3}

// Workload is what the model replays at some number of players.
type Workload struct {
	Players int
	Calls   []record.Call
	// Requests are the per-player loads' request shapes with their weights.
	Requests map[string][]record.Template
	// Job is the scoring job.
	Job *Job
	Rec *record.Recording

	pages map[[2]int]int // (job read, bytes) → the call id of a page (page)
	held  map[int]int    // a fill's call id → the call id of its own reads alone (ownPart)
}

// ownPart returns the id of what call id still reads when the read-cache entry it fills is
// held: its reads of the player's own items, alone (a consistent GetItem of one item, as
// the code makes), or false when it reads nothing of the player's.
func (w *Workload) ownPart(id int) (int, bool) {
	if v, ok := w.held[id]; ok {
		return v, v >= 0
	}
	if w.held == nil {
		w.held = map[int]int{}
	}
	c := w.Calls[id]
	own := record.Call{Op: c.Op, Consistent: c.Consistent}
	items := 0
	for _, a := range c.Accesses {
		if a.Own() {
			own.Accesses = append(own.Accesses, a)
			items += a.Items
		}
	}
	if len(own.Accesses) == 0 {
		w.held[id] = -1
		return -1, false
	}
	if items <= 1 {
		own.Op = "GetItem"
	}
	w.Calls = append(w.Calls, own)
	w.held[id] = len(w.Calls) - 1
	return w.held[id], true
}

// Params are the model's own settings.
type Params struct {
	Latency Latency `json:"latency"`
	Seed    uint64  `json:"seed"`
	// Limits applies AWS's limits (partitions, table, transaction conflicts, front
	// door). Without them every request is served as offered: the demand run.
	Limits bool `json:"limits"`
	// JobCap is how much virtual time the scoring job gets (0: DefaultJobCap); one that
	// has not finished by then is reported unfinished (Complete false, Seconds = JobCap).
	JobCap time.Duration `json:"jobCap,omitempty"`
	// AccountAPIRate and AccountAPIBurst are the account's API Gateway throttle in the
	// region (0: AWS's default, record.AccountAPIRate/AccountAPIBurst): a quota raise's
	// what-if.
	AccountAPIRate  float64 `json:"accountApiRate,omitempty"`
	AccountAPIBurst int     `json:"accountApiBurst,omitempty"`
}

// Account is the account's API throttle the run applies.
func (p Params) Account() record.Throttle {
	t := record.Throttle{Rate: record.AccountAPIRate, Burst: record.AccountAPIBurst}
	if p.AccountAPIRate > 0 {
		t.Rate = p.AccountAPIRate
	}
	if p.AccountAPIBurst > 0 {
		t.Burst = p.AccountAPIBurst
	}
	return t
}

const µsPerSecond = 1_000_000

func ms(v float64) int64 { return int64(math.Round(v * 1000)) }

// window counts the units served in one-second windows of virtual time, for reporting the
// busiest second (admission is capacity.Meter's).
type window struct {
	sec  int64
	used float64
	peak float64 // the most used in any second
}

func (m *window) add(t int64, units float64) {
	if s := t / µsPerSecond; s != m.sec {
		m.sec, m.used = s, 0
	}
	m.used += units
	m.peak = math.Max(m.peak, m.used)
}

// partition is one shared partition of the table or an index.
type partition struct {
	key       string // "<index or table>|<partition key value>"
	r, w      window
	throttled int
}

// use is what one call asks of one partition.
type use struct {
	key      string
	rcu, wcu float64
	index    string
}

// compiledCall is a record.Call prepared for the simulator.
type compiledCall struct {
	op      string
	txn     bool
	latency int64
	shared  []use // units per shared partition
	own     []use // units per player-owned partition
	items   []string
	write   bool
	table   [2]float64            // table rcu, wcu
	indexes map[string][2]float64 // per index rcu, wcu
	// demand is what the call asks of capacity.Meter: every shared partition, and the
	// table and each index as a whole (key tableWide).
	demand capacity.Demand
	// paceWrites and paceRead are what code that paces its scoring waits for before the
	// call and charges after it (pace.go).
	paceWrites, paceRead []paceUse
}

// The model's table, as capacity names partitions; tableWide is the key of the table (or
// an index) as a whole, for its on-demand throughput.
const (
	modelTable = "pickem"
	tableWide  = ""
)

func compile(c record.Call, lat Latency) compiledCall {
	cc := compiledCall{op: c.Op, txn: c.Transactional(), indexes: map[string][2]float64{}}
	shared, mine := map[string]*use{}, map[string]*use{}
	bytes := 0
	for _, a := range c.Accesses {
		bytes += a.Bytes
		m := shared
		if a.Own() {
			m = mine
		}
		k := a.Index + "|" + a.PK
		if m[k] == nil {
			m[k] = &use{key: k, index: a.Index}
		}
		m[k].rcu += a.RCU
		m[k].wcu += a.WCU
		if a.Index == "" {
			cc.table[0] += a.RCU
			cc.table[1] += a.WCU
		} else {
			u := cc.indexes[a.Index]
			u[0] += a.RCU
			u[1] += a.WCU
			cc.indexes[a.Index] = u
		}
		if a.IsWrite() && a.Index == "" {
			cc.write = true
			if !a.OwnItem() {
				cc.items = append(cc.items, a.PK+"\x00"+a.SK)
			}
		}
	}
	cc.shared, cc.own = sortedUses(shared), sortedUses(mine)
	cc.paceWrites, cc.paceRead = paceWrites(c), paceRead(c)
	cc.demand = capacity.Demand{}
	for _, u := range cc.shared {
		p := capacity.Partition{Table: modelTable, Index: u.index, Key: strings.TrimPrefix(u.key, u.index+"|")}
		cc.demand.AddRead(p, u.rcu)
		cc.demand.AddWrite(p, u.wcu)
	}
	cc.demand.AddRead(capacity.Partition{Table: modelTable, Key: tableWide}, cc.table[0])
	cc.demand.AddWrite(capacity.Partition{Table: modelTable, Key: tableWide}, cc.table[1])
	for name, u := range cc.indexes {
		p := capacity.Partition{Table: modelTable, Index: name, Key: tableWide}
		cc.demand.AddRead(p, u[0])
		cc.demand.AddWrite(p, u[1])
	}
	switch {
	case cc.txn:
		cc.latency = ms(lat.TxMs + lat.TxItemMs*float64(len(c.Accesses)))
	case c.Op == "Query" || c.Op == "BatchGetItem" || c.Op == "Scan":
		cc.latency = ms(lat.ReadMs + lat.PerMBMs*float64(bytes)/float64(1<<20))
	default:
		cc.latency = ms(lat.ItemMs)
	}
	return cc
}

func sortedUses(m map[string]*use) []use {
	var list []use
	for _, u := range m {
		list = append(list, *u)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	return list
}

// tick is a scheduled callback.
type tick struct {
	at  int64
	seq uint64
	fn  func()
}

// events is a binary min-heap of ticks by time, then order of scheduling.
type events []tick

func (e events) less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}

func (e *events) push(t tick) {
	*e = append(*e, t)
	h := *e
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *events) pop() tick {
	h := *e
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = tick{}
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*e = h
	return top
}

// bucket is an API Gateway token bucket.
type bucket struct {
	rate, burst, tokens float64
	last                int64
}

func newBucket(t record.Throttle) *bucket {
	if t.Rate <= 0 {
		return nil
	}
	return &bucket{rate: t.Rate, burst: float64(max(t.Burst, 1)), tokens: float64(max(t.Burst, 1))}
}

func (b *bucket) take(t int64) bool {
	if b == nil {
		return true
	}
	b.tokens = math.Min(b.burst, b.tokens+b.rate*float64(t-b.last)/µsPerSecond)
	b.last = t
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// sim is one run of one load.
type sim struct {
	now    int64
	seq    uint64
	q      events
	rng    *rand.Rand
	p      Params
	w      *Workload
	calls  []compiledCall
	parts  map[string]*partition
	meter  *capacity.Meter
	table  [2]window
	index  map[string]*[2]window
	locks  map[string]int64
	retry  map[string]record.StoreRetry
	res    *LoadResult
	lambda int // function instances busy
	// idle are the function instances waiting for a request, the most recent last.
	idle []*instance
	// period is the shard shifts' modulus (record.ShardPeriod); shifted the calls compiled at a
	// shift other than 0.
	period  int
	shifted map[[2]int]*compiledCall
	// pacer paces the scoring job of code that paces itself (nil: none).
	pacer *pacer
}

// instance is one function instance: its read cache, entry → when it was filled.
type instance struct {
	filled map[string]int64
}

func newSim(w *Workload, p Params) *sim {
	s := &sim{rng: rand.New(rand.NewPCG(p.Seed, 0x5ca1e)), p: p, w: w, parts: map[string]*partition{},
		index: map[string]*[2]window{}, locks: map[string]int64{}, retry: map[string]record.StoreRetry{},
		period: record.ShardPeriod(w.Calls), shifted: map[[2]int]*compiledCall{}, pacer: newPacer(w.Rec.Pace)}
	fd := w.Rec.FrontDoor
	tableRate := capacity.Rate{Read: fd.TableRCU(), Write: fd.TableWCU()}
	s.meter = capacity.NewMeter(func(p capacity.Partition) capacity.Rate {
		if p.Key == tableWide && p.Index != "" {
			return fd.IndexRate(p.Index)
		}
		if p.Key == tableWide {
			return tableRate
		}
		return capacity.AWS
	}, func() time.Time { return time.Unix(0, 0).Add(time.Duration(s.now) * time.Microsecond) })
	for _, c := range w.Calls {
		s.calls = append(s.calls, compile(c, p.Latency))
	}
	for _, sr := range w.Rec.StoreRetries {
		s.retry[sr.Load+"|"+sr.Op+"|"+sr.Error] = sr
	}
	return s
}

func (s *sim) at(t int64, fn func()) {
	s.seq++
	s.q.push(tick{at: t, seq: s.seq, fn: fn})
}

func (s *sim) after(d int64, fn func()) { s.at(s.now+d, fn) }

func (s *sim) run() {
	for len(s.q) > 0 {
		e := s.q.pop()
		s.now = e.at
		e.fn()
	}
}

func (s *sim) partition(key string) *partition {
	p := s.parts[key]
	if p == nil {
		p = &partition{key: key}
		s.parts[key] = p
	}
	return p
}

func (s *sim) indexWindows(name string) *[2]window {
	m := s.index[name]
	if m == nil {
		m = &[2]window{}
		s.index[name] = m
	}
	return m
}

// admit checks a call against AWS's limits at the current time: conflicts with in-flight
// transactions, then partition and table capacity. It returns the error class, or "".
func (s *sim) admit(cc *compiledCall) (string, *partition) {
	if !s.p.Limits {
		return "", nil
	}
	if cc.write {
		for _, it := range cc.items {
			if s.locks[it] > s.now {
				if cc.txn {
					return record.ErrTxConflict, nil
				}
				return record.ErrConflict, nil
			}
		}
	}
	class := record.ErrThrottle
	if cc.txn {
		class = record.ErrTxThrottle
	}
	for _, u := range cc.own { // a player's own partition: only this call uses it
		if u.rcu > capacity.AWS.Read || u.wcu > capacity.AWS.Write {
			return class, nil
		}
	}
	if short := s.meter.Reserve(cc.demand); short != nil {
		if short.Partition.Key == tableWide {
			return class, nil
		}
		return class, s.partition(short.Partition.Index + "|" + short.Partition.Key)
	}
	return "", nil
}

// charge books a served call's units.
func (s *sim) charge(cc *compiledCall) {
	for _, u := range cc.shared {
		p := s.partition(u.key)
		if u.rcu > 0 {
			p.r.add(s.now, u.rcu)
		}
		if u.wcu > 0 {
			p.w.add(s.now, u.wcu)
		}
	}
	for _, u := range cc.own {
		s.res.OwnRCU = math.Max(s.res.OwnRCU, u.rcu)
		s.res.OwnWCU = math.Max(s.res.OwnWCU, u.wcu)
	}
	s.table[0].add(s.now, cc.table[0])
	s.table[1].add(s.now, cc.table[1])
	for name, u := range cc.indexes {
		m := s.indexWindows(name)
		m[0].add(s.now, u[0])
		m[1].add(s.now, u[1])
	}
	if cc.txn {
		for _, it := range cc.items {
			s.locks[it] = s.now + cc.latency
		}
	}
}

// callRun is one call of a request or of the job, across its retries.
type callRun struct {
	load       string
	id         int
	shift      int  // of its shard numbers (record.Call.Shift)
	paced      bool // a scoring call the code paces (pace.go)
	sdkAttempt int  // attempts made by the SDK for the current store attempt
	storeTries int  // times the store issued the call
	done       func(errCode string)
}

// call returns call id compiled (the job adds page calls as it lays reads out).
func (s *sim) call(id int) *compiledCall {
	for len(s.calls) <= id {
		s.calls = append(s.calls, compile(s.w.Calls[len(s.calls)], s.p.Latency))
	}
	return &s.calls[id]
}

// callAt returns call id compiled with its shard numbers shifted by d.
func (s *sim) callAt(id, d int) *compiledCall {
	if d %= s.period; d == 0 {
		return s.call(id)
	}
	if cc, ok := s.shifted[[2]int{id, d}]; ok {
		return cc
	}
	cc := compile(s.w.Calls[id].Shift(d), s.p.Latency)
	s.shifted[[2]int{id, d}] = &cc
	return &cc
}

// issue makes a store attempt of c, after the pace's wait if it has one.
func (s *sim) issue(c *callRun) {
	c.storeTries++
	c.sdkAttempt = 0
	if c.paced {
		s.waitWrites(s.callAt(c.id, c.shift).paceWrites, func() { s.attempt(c) })
		return
	}
	s.attempt(c)
}

func (s *sim) attempt(c *callRun) {
	cc := s.callAt(c.id, c.shift)
	c.sdkAttempt++
	s.res.Attempts++
	class, p := s.admit(cc)
	if class == "" {
		s.charge(cc)
		s.after(cc.latency, func() { c.done("") })
		return
	}
	if class == record.ErrTxConflict || class == record.ErrConflict {
		s.res.Conflicts++
	} else {
		s.res.Throttled++
		if p != nil {
			p.throttled++
		}
	}
	s.after(ms(s.p.Latency.FailMs), func() { s.retryAfter(c, class) })
}

// retryAfter applies the SDK's retries, then the store's, to a refused attempt.
func (s *sim) retryAfter(c *callRun, class string) {
	sdk := s.w.Rec.SDK
	if sdk.Retryable[class] && c.sdkAttempt < sdk.MaxAttempts {
		capMs := 0.0
		if len(sdk.BackoffCapMs) > 0 {
			capMs = sdk.BackoffCapMs[min(c.sdkAttempt-1, len(sdk.BackoffCapMs)-1)]
		}
		s.after(ms(s.rng.Float64()*capMs), func() { s.attempt(c) })
		return
	}
	sr, known := s.retry[c.load+"|"+s.call(c.id).op+"|"+class]
	if known && (sr.Unbounded || c.storeTries < sr.Attempts) {
		gap := 0.0
		if len(sr.GapsMs) > 0 {
			gap = sr.GapsMs[min(c.storeTries-1, len(sr.GapsMs)-1)]
		}
		s.after(ms(gap), func() { s.issue(c) })
		return
	}
	code := class
	if known && sr.Outcome != "" {
		code = sr.Outcome
	}
	c.done(code)
}

// LoadResult is what the model found for one load.
type LoadResult struct {
	Load    string `json:"load"`
	Players int    `json:"players"`
	Limits  bool   `json:"limits"`
	// Requests offered, served and refused (by cause: front door, or the error code the
	// player got).
	Requests int            `json:"requests"`
	OK       int            `json:"ok"`
	Errors   map[string]int `json:"errors,omitempty"`
	// PeakMinuteErrors counts the errors of requests that arrived in the load's peak
	// minute.
	PeakMinuteErrors int `json:"peakMinuteErrors,omitempty"`
	// Seconds is how long the load took: its window, or the scoring job from start to
	// finish.
	Seconds float64 `json:"seconds"`
	// P50Ms and P99Ms are the latencies of served requests.
	P50Ms float64 `json:"p50Ms,omitempty"`
	P99Ms float64 `json:"p99Ms,omitempty"`
	// Attempts are DynamoDB attempts made; Throttled and Conflicts those refused.
	Attempts  int `json:"attempts"`
	Throttled int `json:"throttled"`
	Conflicts int `json:"conflicts"`
	// MaxLambda is the most function instances busy at once; Instances how many were
	// started; CacheHits the calls their read caches saved.
	MaxLambda int `json:"maxLambda,omitempty"`
	Instances int `json:"instances,omitempty"`
	CacheHits int `json:"cacheHits,omitempty"`
	// Partitions are the shared partitions, busiest first; OwnRCU and OwnWCU the most
	// units one call asked of one player's own partition.
	Partitions []PartitionPeak `json:"partitions"`
	OwnRCU     float64         `json:"ownRcu"`
	OwnWCU     float64         `json:"ownWcu"`
	// TableRCU and TableWCU are the table's busiest second (each index likewise in
	// IndexRCU/IndexWCU).
	TableRCU float64 `json:"tableRcu"`
	TableWCU float64 `json:"tableWcu"`
	IndexRCU float64 `json:"indexRcu"`
	IndexWCU float64 `json:"indexWcu"`
	// The scoring job: scoreEvent calls made, whether every unit of work was done (and the
	// event closed) before JobCap, the time spent in the calls' prologues, units done.
	Invocations     int     `json:"invocations,omitempty"`
	Complete        bool    `json:"complete,omitempty"`
	PrologueSeconds float64 `json:"prologueSeconds,omitempty"`
	UnitsDone       int     `json:"unitsDone,omitempty"`
	Units           int     `json:"units,omitempty"`
	// CloseMB is what the call that closes the event reads after its work.
	CloseMB float64 `json:"closeMb,omitempty"`
	// PaceWaitSeconds adds up the waits of the code's pace (pace.go), over all workers.
	PaceWaitSeconds float64 `json:"paceWaitSeconds,omitempty"`

	latencies []int64
}

// PartitionPeak is a partition's busiest second.
type PartitionPeak struct {
	Partition string  `json:"partition"` // "GSI EVENT#…", "table EVENT"
	RCU       float64 `json:"rcu"`
	WCU       float64 `json:"wcu"`
	Throttled int     `json:"throttled,omitempty"`
}

func (s *sim) finish() *LoadResult {
	r := s.res
	for _, p := range s.parts {
		where, pk, _ := strings.Cut(p.key, "|")
		if where == "" {
			where = "table"
		}
		r.Partitions = append(r.Partitions, PartitionPeak{Partition: where + " " + pk, RCU: p.r.peak, WCU: p.w.peak, Throttled: p.throttled})
	}
	sort.Slice(r.Partitions, func(i, j int) bool {
		a, b := r.Partitions[i], r.Partitions[j]
		if a.WCU+a.RCU != b.WCU+b.RCU {
			return a.WCU+a.RCU > b.WCU+b.RCU
		}
		return a.Partition < b.Partition
	})
	r.TableRCU, r.TableWCU = s.table[0].peak, s.table[1].peak
	for _, m := range s.index {
		r.IndexRCU = math.Max(r.IndexRCU, m[0].peak)
		r.IndexWCU = math.Max(r.IndexWCU, m[1].peak)
	}
	sort.Slice(r.latencies, func(i, j int) bool { return r.latencies[i] < r.latencies[j] })
	if n := len(r.latencies); n > 0 {
		r.P50Ms = float64(r.latencies[n/2]) / 1000
		r.P99Ms = float64(r.latencies[min(n-1, n*99/100)]) / 1000
	}
	r.latencies = nil
	return r
}

// MaxRCU and MaxWCU are the most units any one partition (shared or a player's own) got
// in one second, and where.
func (r *LoadResult) MaxRCU() (float64, string) {
	return r.busiest(r.OwnRCU, func(p PartitionPeak) float64 { return p.RCU })
}

// MaxWCU is the write counterpart of MaxRCU.
func (r *LoadResult) MaxWCU() (float64, string) {
	return r.busiest(r.OwnWCU, func(p PartitionPeak) float64 { return p.WCU })
}

func (r *LoadResult) busiest(own float64, units func(PartitionPeak) float64) (float64, string) {
	best, where := own, "a player's own partition"
	for _, p := range r.Partitions {
		if units(p) > best {
			best, where = units(p), p.Partition
		}
	}
	return best, where
}

// runStages runs stages one after the other, the calls of a stage at once (their shard
// numbers shifted by shift), then calls done with the first error code ("" for none).
// stop, if not nil, is asked before each stage: an answer other than "" ends the run with
// that code. With paced, the calls are the scoring calls the code paces (pace.go).
func (s *sim) runStages(load string, stages [][]int, shift int, paced bool, stop func() string, done func(code string)) {
	var at func(k int)
	at = func(k int) {
		if k == len(stages) {
			done("")
			return
		}
		if stop != nil {
			if code := stop(); code != "" {
				done(code)
				return
			}
		}
		if len(stages[k]) == 0 {
			at(k + 1)
			return
		}
		pending, errCode := len(stages[k]), ""
		for _, id := range stages[k] {
			finish := func(code string) {
				if code != "" && errCode == "" {
					errCode = code
				}
				if pending--; pending == 0 {
					if errCode != "" {
						done(errCode)
					} else {
						at(k + 1)
					}
				}
			}
			c := &callRun{load: load, id: id, shift: shift, paced: paced}
			c.done = func(code string) {
				if code != "" || !paced {
					finish(code)
					return
				}
				s.chargeReads(s.callAt(id, shift).paceRead, func() { finish("") })
			}
			s.issue(c)
		}
	}
	at(0)
}

// Run simulates one load of the workload.
func Run(w *Workload, load string, p Params) *LoadResult {
	s := newSim(w, p)
	if load == record.LoadScore {
		return s.runJob()
	}
	return s.runRequests(load, profiles[load])
}
