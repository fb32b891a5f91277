package sim

import (
	"math"
	"sort"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/internal/capacity"
)

// Scoring's pace. Code that paces itself (record.Recording.Pace, dynamo/scoring/pace.go)
// waits, before each transaction of a scoring batch, until every shared partition the
// transaction writes has the write units the code estimates it takes there, and charges
// each page Query's read units to the partition read, waiting while its bucket is empty.
// The buckets are the process's: one scoring call at a time in the admin's loop, so one
// pacer for the whole job. The simulator does the same (runStages with paced set): the
// waits come from the code's estimates, the partitions are charged what the recording says
// the calls took, so a partition's busiest second shows whether the pace keeps it within
// AWS's limit.

// paceUse is what the pacer asks of one partition.
type paceUse struct {
	key   string // the code's name: "<index>|<partition key>" on the index, the key on the table
	units float64
}

// paceWrites is the code's estimate of what a scoring transaction asks of each shared
// partition it writes (scoring's writeDemand): an index entry whose key changes as the
// delete of the old entry and the put of the new one, each at its own size (the code
// estimates the scored size; the recording has it); an entry written in place or new as a
// delete and a put of its size; a shared table item at its recorded units (the shard's
// checkpoint and histograms, transactional). Sorted by key, as the code waits on them.
func paceWrites(c record.Call) []paceUse {
	if !c.Transactional() {
		return nil
	}
	units := map[string]float64{}
	// An item's index writes follow its table write in a recorded call; per index partition,
	// the size of the entry deleted and of the entry written.
	type entry struct {
		deleted, written int // bytes; -1: none
		partition        string
	}
	var item map[string]*entry
	flush := func() {
		for _, e := range item {
			switch {
			case e.deleted >= 0 && e.written >= 0:
				units[e.partition] += capacity.WriteUnits(e.deleted) + capacity.WriteUnits(e.written)
			case e.deleted >= 0:
				units[e.partition] += 2 * capacity.WriteUnits(e.deleted)
			default:
				units[e.partition] += 2 * capacity.WriteUnits(e.written)
			}
		}
		item = nil
	}
	for _, a := range c.Accesses {
		if a.Index == "" {
			flush()
			if a.IsWrite() && !a.Own() {
				units[a.PK] += a.WCU
			}
			continue
		}
		if a.Own() {
			continue
		}
		if item == nil {
			item = map[string]*entry{}
		}
		e := item[a.Index]
		if e == nil {
			e = &entry{deleted: -1, written: -1}
			item[a.Index] = e
		}
		if a.Kind == record.AccessDelete {
			e.deleted = a.Bytes
			if e.partition == "" {
				e.partition = a.Index + "|" + a.PK
			}
			continue
		}
		e.written, e.partition = a.Bytes, a.Index+"|"+a.PK // the entry's partition now
	}
	flush()
	return sortedPace(units)
}

// paceRead is what the code charges after a page Query: its read units, on the index
// partition read (nil for any other call).
func paceRead(c record.Call) []paceUse {
	if c.Op != "Query" {
		return nil
	}
	units := map[string]float64{}
	for _, a := range c.Accesses {
		if a.Index != "" && !a.Own() {
			units[a.Index+"|"+a.PK] += a.RCU
		}
	}
	return sortedPace(units)
}

func sortedPace(m map[string]float64) []paceUse {
	var out []paceUse
	for k, v := range m {
		if v > 0 {
			out = append(out, paceUse{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// pacer holds the write and read buckets of the job's partitions: golang.org/x/time/rate
// Limiters, as the code's, reserving at the simulator's virtual time.
type pacer struct {
	pace          record.Pace
	writes, reads map[string]*rate.Limiter
}

func newPacer(p *record.Pace) *pacer {
	if p == nil {
		return nil
	}
	return &pacer{pace: *p, writes: map[string]*rate.Limiter{}, reads: map[string]*rate.Limiter{}}
}

// reserve takes n whole units from the bucket of key in m (units a second, burst) at time
// now (µs) and returns the wait in µs. The code waits for a demand above the burst a burst
// at a time; reserving the bursts at once adds up to the same wait.
func (p *pacer) reserve(m map[string]*rate.Limiter, key string, units, burst float64, now int64, n float64) int64 {
	l := m[key]
	if l == nil {
		l = rate.NewLimiter(rate.Limit(units-burst), int(burst))
		m[key] = l
	}
	at := time.UnixMicro(now)
	var wait time.Duration
	for left := int(math.Ceil(n)); left > 0; left -= l.Burst() {
		wait = l.ReserveN(at, min(left, l.Burst())).DelayFrom(at)
	}
	return (wait + time.Microsecond - 1).Microseconds()
}

// waitWrites waits, partition after partition, for the write units of uses, then calls
// next.
func (s *sim) waitWrites(uses []paceUse, next func()) {
	if s.pacer != nil {
		s.pace(s.pacer.writes, s.pacer.pace.WriteUnits, s.pacer.pace.WriteBurst, uses, next)
		return
	}
	next()
}

// chargeReads charges the read units of uses, waiting while a bucket is empty, then calls
// next.
func (s *sim) chargeReads(uses []paceUse, next func()) {
	if s.pacer != nil {
		s.pace(s.pacer.reads, s.pacer.pace.ReadUnits, s.pacer.pace.ReadBurst, uses, next)
		return
	}
	next()
}

// pace takes the units of uses, whole units, from the buckets of m (units a second, burst),
// one after the other, then calls next. The code takes a demand above the burst a burst at
// a time; one reservation of the whole demand waits as long.
func (s *sim) pace(m map[string]*rate.Limiter, units, burst float64, uses []paceUse, next func()) {
	if len(uses) == 0 {
		next()
		return
	}
	wait := s.pacer.reserve(m, uses[0].key, units, burst, s.now, uses[0].units)
	s.res.PaceWaitSeconds += float64(wait) / µsPerSecond
	s.after(wait, func() { s.pace(m, units, burst, uses[1:], next) })
}

// PaceCheck compares, for one family of partitions, what the code's pace estimates a
// scoring transaction asks with what the recording says it took, over the transactions of
// the job's units of work.
type PaceCheck struct {
	Family              string
	Estimated, Recorded float64 // write units per transaction
}

// PaceChecks are w's pace checks, the most recorded units first (nil: w's code does not
// pace its scoring).
func PaceChecks(w *Workload) []PaceCheck {
	if w.Job == nil || w.Rec.Pace == nil {
		return nil
	}
	est, rec := map[string]float64{}, map[string]float64{}
	txns := 0
	for _, t := range w.Job.Work {
		for _, st := range t.Stages {
			for _, id := range st {
				c := w.Calls[id]
				if !c.Transactional() {
					continue
				}
				txns++
				for _, u := range paceWrites(c) {
					est[paceFamily(u.key)] += u.units
				}
				for _, u := range compile(c, DefaultLatency).shared {
					if u.wcu > 0 {
						rec[paceFamily(strings.TrimPrefix(u.key, "|"))] += u.wcu
					}
				}
			}
		}
	}
	var out []PaceCheck
	for f := range rec {
		out = append(out, PaceCheck{Family: f, Estimated: est[f] / float64(max(txns, 1)), Recorded: rec[f] / float64(max(txns, 1))})
	}
	for f := range est {
		if _, ok := rec[f]; !ok {
			out = append(out, PaceCheck{Family: f, Estimated: est[f] / float64(max(txns, 1))})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Recorded > out[j].Recorded || (out[i].Recorded == out[j].Recorded && out[i].Family < out[j].Family)
	})
	return out
}

// paceFamily names a pacer key's partition family for reports: "GSI EVENT#…#{%16}",
// "table EVENT#…#{%16}".
func paceFamily(key string) string {
	where, pk, ok := strings.Cut(key, "|")
	if !ok {
		where, pk = "table", key
	}
	return where + " " + record.Family(pk)
}
