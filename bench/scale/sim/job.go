package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/internal/capacity"
)

// The scoring job. The admin calls scoreEvent until it reports complete. Each call
// (invocation) reads, does units of work — several at once — until its time budget is
// spent (always at least one), reads again, and the last one closes the event. A unit of
// work is what the code does for one batch of players. The model (package scale) fits the
// reads from the recordings and lays the job out at some number of players (Job); the
// simulator replays it (runJob).

// Job is the scoring job at some number of players, as the model lays it out.
type Job struct {
	// Workers is how many units a call runs at once.
	Workers int
	// Shards is the event's shard count (record.Recording.Shards): unit u works on shard u
	// mod Shards, one unit per shard at a time; 0 for code without a per-event count.
	Shards int
	// Units lists, for every unit of work in order, its template (an index into Work).
	Units []int
	Work  []record.Template
	// Reads are the fitted reads; Closing the last call's calls that are not reads (e.g.
	// the transaction that marks the event scored).
	Reads   []JobRead
	Closing record.Template
}

// JobRead is one read of the scoring job (an operation on one partition) as fitted.
type JobRead struct {
	Group string
	Proto record.Call // a recorded call of the read, the largest
	// Pre, PerUnit and Post are the bytes read before and during the work, per unit of
	// work, and after the work: Pre and Post as c0 + c1·players + c2·players·left.
	Pre     [3]float64
	PerUnit float64
	Post    [3]float64
	// Close is the last call's extra read after its work: c0 + c1·players.
	Close [2]float64
	// Stream, when set, replaces Pre and PerUnit: the read walks the items still to score
	// (BytesPerPlayer each) page by page as the work consumes them — one page before the
	// first unit, another whenever the units started have used what was read ("reads only
	// as far as it writes").
	Stream         bool
	BytesPerPlayer float64
	// PageBytes is what one call of the read returns at most: DynamoDB's 1 MB for a
	// Query (or the page the code's Limit asks for), everything for other reads.
	PageBytes float64
}

// PostBytes is what the read takes after the work of a call at players that began with a
// share left of the units to do.
func (g JobRead) PostBytes(players int, left float64) float64 { return line3(g.Post, players, left) }

func line3(c [3]float64, players int, left float64) float64 {
	n := float64(players)
	return math.Max(0, c[0]+c[1]*n+c[2]*n*left)
}

// readStages lists pages of the job's read i holding bytes, one stage each.
func (w *Workload) readStages(i int, bytes float64) [][]int {
	var out [][]int
	g := w.Job.Reads[i]
	for bytes >= 1 {
		b := math.Min(bytes, g.PageBytes)
		out = append(out, []int{w.page(i, b)})
		bytes -= b
	}
	return out
}

// callReads is what one call has read of each streamed read: bytes read not yet used by
// a unit, and bytes still to read.
type callReads struct {
	buf, rest []float64
}

// startCall returns a call's reads before its work when a share left of the units is to
// do, and the state its units' reads go on from.
func (w *Workload) startCall(left float64) (*callReads, [][]int) {
	cr := &callReads{buf: make([]float64, len(w.Job.Reads)), rest: make([]float64, len(w.Job.Reads))}
	var out [][]int
	for i, g := range w.Job.Reads {
		if !g.Stream {
			out = append(out, w.readStages(i, line3(g.Pre, w.Players, left))...)
			continue
		}
		cr.rest[i] = g.BytesPerPlayer * float64(w.Players) * left
		out = append(out, w.nextPage(cr, i)...)
	}
	return cr, out
}

// nextPage reads the next page of streamed read i, if anything is left.
func (w *Workload) nextPage(cr *callReads, i int) [][]int {
	b := math.Min(cr.rest[i], w.Job.Reads[i].PageBytes)
	if b < 1 {
		return nil
	}
	cr.rest[i] -= b
	cr.buf[i] += b
	return [][]int{{w.page(i, b)}}
}

// unitStages are the stages of unit u: what the code reads for it, then its work.
func (w *Workload) unitStages(cr *callReads, u int) [][]int {
	var out [][]int
	for i, g := range w.Job.Reads {
		if !g.Stream {
			out = append(out, w.readStages(i, g.PerUnit)...)
			continue
		}
		need := g.BytesPerPlayer * w.playersPerUnit()
		for cr.buf[i] < need && cr.rest[i] >= 1 {
			out = append(out, w.nextPage(cr, i)...)
		}
		cr.buf[i] = math.Max(0, cr.buf[i]-need)
	}
	return append(out, w.Job.Work[w.Job.Units[u]].Stages...)
}

func (w *Workload) playersPerUnit() float64 {
	return float64(w.Players) / float64(max(1, len(w.Job.Units)))
}

// postStages are a call's reads after its work.
func (w *Workload) postStages(left float64) [][]int {
	var out [][]int
	for i, g := range w.Job.Reads {
		out = append(out, w.readStages(i, line3(g.Post, w.Players, left))...)
	}
	return out
}

// closeStages are the last call's closing reads and calls.
func (w *Workload) closeStages() [][]int {
	var out [][]int
	for i, g := range w.Job.Reads {
		out = append(out, w.readStages(i, math.Max(0, g.Close[0]+g.Close[1]*float64(w.Players)))...)
	}
	return append(out, w.Job.Closing.Stages...)
}

// page returns the call of one page of read i holding bytes.
func (w *Workload) page(i int, bytes float64) int {
	key := [2]int{i, int(math.Ceil(bytes))}
	if id, ok := w.pages[key]; ok {
		return id
	}
	g := w.Job.Reads[i]
	c := g.Proto
	total := c.Bytes()
	var as record.Accesses
	for _, a := range c.Accesses {
		share := 1.0
		if total > 0 {
			share = float64(a.Bytes) / total
		}
		n := int(math.Ceil(share * float64(key[1])))
		if a.Bytes > 0 {
			a.Items = max(1, int(math.Round(float64(a.Items)*float64(n)/float64(a.Bytes))))
		}
		a.Bytes = n
		a.RCU = capacity.ReadUnits(n, c.Consistent)
		as = append(as, a)
	}
	c.Accesses = as
	w.Calls = append(w.Calls, c)
	id := len(w.Calls) - 1
	if w.pages == nil {
		w.pages = map[[2]int]int{}
	}
	w.pages[key] = id
	return id
}

// adminRerun is how long the admin's loop waits before calling scoreEvent again after a
// failed call.
const adminRerun = time.Second

// DefaultJobCap is the virtual time a scoring job gets by default.
const DefaultJobCap = 24 * time.Hour

// jobCap is p's JobCap or the default.
func (p Params) jobCap() time.Duration {
	if p.JobCap > 0 {
		return p.JobCap
	}
	return DefaultJobCap
}

// runJob simulates the admin's scoring loop: scoreEvent calls one after the other, each
// reading what it reads once per call, then starting units of work (Workers at once, one
// per shard when the code has shards, the first always; each unit with what the code reads
// per unit, paced as the code paces them) until its deadline (record.FrontDoor.ScoringDeadline),
// then reading what it reads after its work; the call that finds nothing left closes the
// event. A call still running at the function's timeout starts nothing more and fails; the
// admin calls again.
func (s *sim) runJob() *LoadResult {
	j := s.w.Job
	fd := s.w.Rec.FrontDoor
	res := &LoadResult{Load: record.LoadScore, Players: s.w.Players, Limits: s.p.Limits, Errors: map[string]int{}, Units: len(j.Units)}
	for _, st := range s.w.closeStages() {
		for _, id := range st {
			if s.w.Calls[id].ReadGroup() != "" {
				res.CloseMB += s.w.Calls[id].Bytes() / (1 << 20)
			}
		}
	}
	s.res = res
	deadline := fd.ScoringDeadline().Microseconds()
	timeout := int64(min(max(fd.TimeoutSeconds, 1), record.GatewayTimeoutSeconds)) * µsPerSecond
	capAt := s.p.jobCap().Microseconds()
	todo := newUnitQueue(len(j.Units), j.Shards)
	total := len(j.Units)
	var invoke func()
	invoke = func() {
		if s.now >= capAt {
			res.Seconds = float64(capAt) / µsPerSecond
			return
		}
		res.Invocations++
		t0 := s.now
		killed := func() string {
			if s.now-t0 >= timeout {
				return "504 function timeout"
			}
			return ""
		}
		again := func(code string) {
			res.Errors[code]++
			s.after(int64(adminRerun/time.Microsecond), invoke)
		}
		left := float64(total-res.UnitsDone) / float64(max(total, 1))
		cr, pre := s.w.startCall(left)
		s.runStages(record.LoadScore, pre, 0, true, killed, func(code string) {
			res.PrologueSeconds += float64(s.now-t0) / µsPerSecond
			if code != "" {
				again(code)
				return
			}
			inflight, started, failed := 0, 0, ""
			var pump func()
			pump = func() {
				for inflight < j.Workers && failed == "" && killed() == "" && (started == 0 || s.now-t0 < deadline) {
					u, ok := todo.take()
					if !ok {
						break
					}
					started++
					inflight++
					s.runStages(record.LoadScore, s.w.unitStages(cr, u), u, true, killed, func(code string) {
						inflight--
						if code != "" {
							todo.release(u, true) // not done: a later call does it
							if failed == "" {
								failed = code
							}
						} else {
							todo.release(u, false)
							res.UnitsDone++
						}
						pump()
					})
				}
				if inflight > 0 {
					return
				}
				if failed != "" {
					again(failed)
					return
				}
				after := s.w.postStages(float64(total-res.UnitsDone) / float64(max(total, 1)))
				if todo.empty() {
					after = append(after, s.w.closeStages()...)
				}
				s.runStages(record.LoadScore, after, 0, false, killed, func(code string) {
					switch {
					case code != "":
						again(code)
					case !todo.empty():
						s.after(ms(s.p.Latency.HandlerMs), invoke)
					default:
						res.Complete, res.OK, res.Requests = true, 1, 1
						res.Seconds = float64(s.now) / µsPerSecond
					}
				})
			}
			pump()
		})
	}
	s.at(0, invoke)
	s.run()
	if !res.Complete {
		res.Requests = 1
		res.Errors[fmt.Sprintf("unfinished after %v", s.p.jobCap())]++
	}
	return s.finish()
}

// unitQueue hands out the job's units of work: with shards (the event's shard count), unit
// u is of shard u mod shards and a shard runs one unit at a time, as the code's one worker
// per shard does; without (0), any unit at any time.
type unitQueue struct {
	queues [][]int
	busy   []bool
	next   int // the shard to look at first
	left   int // units not done
}

func newUnitQueue(units, shards int) *unitQueue {
	q := &unitQueue{queues: make([][]int, max(1, shards)), left: units}
	if shards > 0 {
		q.busy = make([]bool, shards)
	}
	for u := range units {
		q.queues[u%len(q.queues)] = append(q.queues[u%len(q.queues)], u)
	}
	return q
}

// take returns the next unit of a shard that is not running one, the shards in turn.
func (q *unitQueue) take() (int, bool) {
	for i := range q.queues {
		sh := (q.next + i) % len(q.queues)
		if len(q.queues[sh]) == 0 || (q.busy != nil && q.busy[sh]) {
			continue
		}
		u := q.queues[sh][0]
		q.queues[sh] = q.queues[sh][1:]
		if q.busy != nil {
			q.busy[sh] = true
		}
		q.next = sh + 1
		return u, true
	}
	return 0, false
}

// release ends unit u: done, or to do again (first of its shard).
func (q *unitQueue) release(u int, again bool) {
	sh := u % len(q.queues)
	if q.busy != nil {
		q.busy[sh] = false
	}
	if again {
		q.queues[sh] = append([]int{u}, q.queues[sh]...)
		return
	}
	q.left--
}

func (q *unitQueue) empty() bool { return q.left == 0 }
