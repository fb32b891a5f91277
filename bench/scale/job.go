package scale

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/capacity"
)

// The scoring job. The admin calls scoreEvent until it reports complete; each call
// (invocation) reads what it needs (its prologue), does units of work — four at a time
// today, each one BatchGetItem of standings and two transactions — until its time budget
// is spent (always at least one unit), and the last one closes the event (its epilogue).
// The recording runs it with the smallest budget, so that every invocation shows its
// prologue and exactly one unit. The model then needs three things, each checked at the
// two recorded sizes: the number of work units is proportional to the players; each
// prologue read is a line in the players and in the share of work left (bytes = c0 +
// c1·players + c2·players·left: a read of every prediction is c1, a read of what is left to
// score is c2, a fixed read is c0); the epilogue is constant.

// JobModel is the scoring job at some number of players.
type JobModel struct {
	// Workers is how many units an invocation runs at once.
	Workers int
	// Units lists, for every work unit in order, its template (an index into Work).
	Units []int
	Work  []Template
	// Fixed are the prologue's stages of reads that do not grow (e.g. the card).
	Fixed [][]int
	// Reads are the prologue's reads that grow with players or work left, read page by
	// page after Fixed.
	Reads    []GrowingRead
	Epilogue Template

	w     *Workload
	pages map[[2]int]int // (read, bytes) → call id of a page
}

// GrowingRead is a prologue read whose size is a line in the players and the work left.
type GrowingRead struct {
	Group string
	Proto Call // one recorded page
	// C are the line's coefficients: bytes = C[0] + C[1]·players + C[2]·players·left.
	C [3]float64
	// PageBytes is what one page holds: DynamoDB's 1 MB, or what the code's Limit asks.
	PageBytes float64
}

// Bytes is the read's size at players with a share left of the work still to do.
func (g GrowingRead) Bytes(players int, left float64) float64 {
	n := float64(players)
	return math.Max(0, g.C[0]+g.C[1]*n+g.C[2]*n*left)
}

// Prologue returns the stages of an invocation's prologue when a share left of the work
// is still to do: the fixed reads, then each growing read page by page.
func (j *JobModel) Prologue(left float64) [][]int {
	stages := append([][]int(nil), j.Fixed...)
	for i, g := range j.Reads {
		bytes := g.Bytes(j.w.Players, left)
		for bytes > 0 {
			b := math.Min(bytes, g.PageBytes)
			stages = append(stages, []int{j.page(i, b)})
			bytes -= b
		}
	}
	return stages
}

// page returns the call of one page of read i holding bytes.
func (j *JobModel) page(i int, bytes float64) int {
	key := [2]int{i, int(math.Ceil(bytes))}
	if id, ok := j.pages[key]; ok {
		return id
	}
	g := j.Reads[i]
	c := g.Proto
	a := c.Accesses[0]
	if a.Bytes > 0 {
		a.Items = max(1, int(math.Round(float64(a.Items)*bytes/float64(a.Bytes))))
	}
	a.Bytes = key[1]
	a.RCU = capacity.ReadUnits(a.Bytes, c.Consistent)
	c.Accesses = dynamo.TraceAccesses{a}
	j.w.Calls = append(j.w.Calls, c)
	id := len(j.w.Calls) - 1
	j.pages[key] = id
	return id
}

// jobSample is one recorded invocation's prologue, seen from the model.
type jobSample struct {
	players int
	left    float64
	bytes   map[string]float64 // by read group
}

// readGroup names a prologue call's read for fitting: operation, table or index, and
// partition.
func readGroup(c Call) string {
	parts := []string{c.Op}
	for _, a := range c.Accesses {
		parts = append(parts, a.Index+"|"+a.PK)
	}
	return strings.Join(parts, " ")
}

func callBytes(c Call) float64 {
	n := 0
	for _, a := range c.Accesses {
		n += a.Bytes
	}
	return float64(n)
}

// samples lists a recording's invocations with the share of work left when each began.
func samples(r *Recording) []jobSample {
	invs := r.Loads[LoadScore].Job.Invocations
	units := 0
	for _, inv := range invs {
		if len(inv.Work.Stages) > 0 {
			units++
		}
	}
	var out []jobSample
	done := 0
	for _, inv := range invs {
		sm := jobSample{players: r.Players, left: 1, bytes: map[string]float64{}}
		if units > 0 {
			sm.left = float64(units-done) / float64(units)
		}
		for _, st := range inv.Prologue.Stages {
			for _, id := range st {
				sm.bytes[readGroup(r.Calls[id])] += callBytes(r.Calls[id])
			}
		}
		out = append(out, sm)
		if len(inv.Work.Stages) > 0 {
			done++
		}
	}
	return out
}

// workStats are a recording's work units: how many, and their mean units.
func workStats(r *Recording) (units int, perUnit float64) {
	for _, inv := range r.Loads[LoadScore].Job.Invocations {
		if len(inv.Work.Stages) == 0 {
			continue
		}
		units++
		for _, st := range inv.Work.Stages {
			for _, id := range st {
				perUnit += r.Calls[id].RCU() + r.Calls[id].WCU()
			}
		}
	}
	if units > 0 {
		perUnit /= float64(units)
	}
	return units, perUnit
}

func templateUnits(r *Recording, t Template) float64 {
	u := 0.0
	for _, st := range t.Stages {
		for _, id := range st {
			u += r.Calls[id].RCU() + r.Calls[id].WCU()
		}
	}
	return u
}

// fit returns the least-squares line bytes = c0 + c1·players + c2·players·left of group
// over the samples, and its worst miss relative to the largest read.
func fit(group string, ss []jobSample) (c [3]float64, miss float64) {
	var a [3][4]float64 // normal equations, augmented
	top := 0.0
	for _, s := range ss {
		x := [3]float64{1, float64(s.players), float64(s.players) * s.left}
		y := s.bytes[group]
		top = math.Max(top, y)
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				a[i][k] += x[i] * x[k]
			}
			a[i][3] += x[i] * y
		}
	}
	c = solve3(a)
	for _, s := range ss {
		pred := c[0] + c[1]*float64(s.players) + c[2]*float64(s.players)*s.left
		miss = math.Max(miss, math.Abs(pred-s.bytes[group]))
	}
	if top > 0 {
		miss /= top
	}
	return c, miss
}

// solve3 solves a 3×3 linear system given augmented, by Gaussian elimination with partial
// pivoting; a singular column gets coefficient 0.
func solve3(a [3][4]float64) [3]float64 {
	for col := 0; col < 3; col++ {
		p := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		if math.Abs(a[col][col]) < 1e-12 {
			continue
		}
		for r := 0; r < 3; r++ {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for k := col; k < 4; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	var c [3]float64
	for i := 0; i < 3; i++ {
		if math.Abs(a[i][i]) >= 1e-12 {
			c[i] = a[i][3] / a[i][i]
		}
	}
	return c
}

// readGroups lists the prologue read groups of both recordings, sorted.
func readGroups(ss []jobSample) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		for g := range s.bytes {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	sort.Strings(out)
	return out
}

// constantRead reports whether a read group is the same size in every invocation.
func constantRead(group string, ss []jobSample) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		lo, hi = math.Min(lo, s.bytes[group]), math.Max(hi, s.bytes[group])
	}
	return near(lo, hi)
}

// checkJob checks that the scoring job extrapolates.
func (s *Soundness) checkJob(d Design) {
	ja, jb := d.Small.Loads[LoadScore].Job, d.Large.Loads[LoadScore].Job
	if ja == nil || jb == nil || len(ja.Invocations) == 0 || len(jb.Invocations) == 0 {
		s.Problems = append(s.Problems, "score: no scoring job recorded")
		return
	}
	ua, pa := workStats(d.Small)
	ub, pb := workStats(d.Large)
	row := func(what string, a, b float64, ok bool, class string) {
		r := SoundnessRow{Load: LoadScore, What: what, Small: a, Large: b, Class: class}
		if !ok {
			r.Class = "differs"
			s.Problems = append(s.Problems, fmt.Sprintf("score: %s is %.4g at %d players but %.4g at %d", what, a, d.Small.Players, b, d.Large.Players))
		}
		s.Rows = append(s.Rows, r)
	}
	fa, fb := float64(ua)/float64(d.Small.Players), float64(ub)/float64(d.Large.Players)
	// Units hold a fixed number of players: allow one unit of rounding at the small size.
	row("work units per player", fa, fb, math.Abs(fa-fb) <= 1/float64(d.Small.Players)+tolerance*fb, "proportional")
	// Units of work hold a fixed number of players but the last one holds the rest: compare
	// their units per player.
	wa, wb := pa*float64(ua)/float64(d.Small.Players), pb*float64(ub)/float64(d.Large.Players)
	row("read and write units of the work per player", wa, wb, near(wa, wb), "proportional")
	// A run with fewer units than workers shows only as many at once as it has.
	row("work units at once", float64(ja.Workers), float64(jb.Workers), ja.Workers == jb.Workers || ja.Workers >= ua, "constant")
	last := func(j *JobTrace) Template { return j.Invocations[len(j.Invocations)-1].Epilogue }
	ea, eb := templateUnits(d.Small, last(ja)), templateUnits(d.Large, last(jb))
	row("units of the closing calls", ea, eb, near(ea, eb), "constant")
	ss := append(samples(d.Small), samples(d.Large)...)
	for _, g := range readGroups(ss) {
		if constantRead(g, ss) {
			row("bytes read per call: "+g, meanBytes(g, samples(d.Small)), meanBytes(g, samples(d.Large)), true, "constant")
			continue
		}
		c, miss := fit(g, ss)
		r := SoundnessRow{Load: LoadScore, What: fmt.Sprintf("bytes read per call: %s ≈ %.0f + %.1f·players + %.1f·players·left (worst miss %.1f%%)", g, tidy(c[0]), tidy(c[1]), tidy(c[2]), 100*miss),
			Small: meanBytes(g, samples(d.Small)), Large: meanBytes(g, samples(d.Large)), Class: "fitted"}
		if miss > tolerance {
			r.Class = "does not fit"
			s.Problems = append(s.Problems, fmt.Sprintf("score: the read %s per scoreEvent call is not a line in the players and the work left (worst miss %.0f%%)", g, 100*miss))
		}
		s.Rows = append(s.Rows, r)
	}
}

// tidy rounds what prints as zero to zero (no "-0").
func tidy(v float64) float64 {
	if math.Abs(v) < 0.05 {
		return 0
	}
	return v
}

func meanBytes(group string, ss []jobSample) float64 {
	t := 0.0
	for _, s := range ss {
		t += s.bytes[group]
	}
	return t / float64(max(1, len(ss)))
}

// jobAt lays the scoring job of recording r out for players.
func jobAt(d Design, r *Recording, w *Workload, players int) *JobModel {
	jt := r.Loads[LoadScore].Job
	j := &JobModel{Workers: max(1, jt.Workers, d.Large.Loads[LoadScore].Job.Workers), w: w, pages: map[[2]int]int{}}
	for _, inv := range jt.Invocations {
		if len(inv.Work.Stages) > 0 {
			j.Work = append(j.Work, inv.Work)
		}
	}
	if len(j.Work) > 0 {
		n := int(math.Round(float64(len(j.Work)) * float64(players) / float64(r.Players)))
		for i := 0; i < max(n, 1); i++ {
			j.Units = append(j.Units, i%len(j.Work))
		}
	}
	j.Epilogue = jt.Invocations[len(jt.Invocations)-1].Epilogue
	// The prologue's groups are fitted on both recordings; its fixed stages are the first
	// invocation's, without the growing reads.
	ss := append(samples(d.Small), samples(d.Large)...)
	growing := map[string]int{} // group → index in Reads
	for _, g := range readGroups(ss) {
		if constantRead(g, ss) {
			continue
		}
		c, _ := fit(g, ss)
		growing[g] = len(j.Reads)
		j.Reads = append(j.Reads, GrowingRead{Group: g, C: c, PageBytes: pageBytes})
	}
	for _, st := range jt.Invocations[0].Prologue.Stages {
		var fixed []int
		for _, id := range st {
			c := r.Calls[id]
			gi, ok := growing[readGroup(c)]
			if !ok {
				fixed = append(fixed, id)
				continue
			}
			g := &j.Reads[gi]
			if len(g.Proto.Accesses) == 0 || callBytes(c) > callBytes(g.Proto) {
				g.Proto = c
			}
		}
		if len(fixed) > 0 {
			j.Fixed = append(j.Fixed, fixed)
		}
	}
	// A read cut into pages smaller than 1 MB is paged by the code's Limit: keep its page.
	for i := range j.Reads {
		g := &j.Reads[i]
		calls := 0
		for _, st := range jt.Invocations[0].Prologue.Stages {
			for _, id := range st {
				if readGroup(r.Calls[id]) == g.Group {
					calls++
				}
			}
		}
		if b := callBytes(g.Proto); calls > 1 && b < pageBytes*9/10 && b > 0 {
			g.PageBytes = b
		}
		if g.Proto.Op != "Query" { // not paged: one call of whatever size
			g.PageBytes = math.Inf(1)
		}
	}
	return j
}
