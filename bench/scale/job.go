package scale

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
	"github.com/pickem/api/dynamo/table"
)

// The scoring job. The admin calls scoreEvent until it reports complete. Each call
// (invocation) reads, does units of work — several at once — until its time budget is
// spent (always at least one), reads again, and the last one closes the event. A unit of
// work is what the code does for one batch of players (with the current code: one shard's
// page of predictions from the index, a BatchGetItem of the players' standings and
// profiles, one transaction; each shard one batch at a time).
//
// The recording alternates calls with the smallest budget (one unit) and a moderate one
// (several units), at two numbers of players. For every read (operation and partition)
// the model then fits, over every call but the last of both recordings, the bytes read
// before and during the work as the first of these that misses by at most missTolerance,
// else the better of the other two:
//
//	a0 + u·units                                  (once per call, and per unit of work)
//	a stream: the items still to score, page by page as the units use them (sim.JobRead.Stream)
//	a0 + a1·players + a2·players·left + u·units
//
// and the bytes read after the work as p0 + p1·players + p2·players·left (left: the share
// of units still to do when the call began; units: the units the call did). The last
// call's reads after its work, less p, are the closing reads: a line in the players
// through the two recordings. The number of units is proportional to the players.

// groupText is a read group for reading: a run of the same partition family as one,
// "×N" (a BatchGetItem of 100 lock copies).
func groupText(g string) string {
	parts := strings.Fields(g)
	var out []string
	for i := 0; i < len(parts); {
		j := i
		for j < len(parts) && parts[j] == parts[i] {
			j++
		}
		p := strings.TrimPrefix(parts[i], "|") // the table's partitions have no index name
		if j-i > 1 {
			p += fmt.Sprintf(" ×%d", j-i)
		}
		out = append(out, p)
		i = j
	}
	return strings.Join(out, " ")
}

// jobCall is one recorded scoreEvent call, seen from the model.
type jobCall struct {
	players    int
	left       float64
	units      float64
	last       bool
	tiny       bool
	pre, post  map[string]float64 // bytes by read group (pre includes the reads during the work)
	closeCalls record.Template    // calls after the work that are not reads
}

// workCalls counts the calls of a template that touch players' partitions.
func workCalls(r *record.Recording, t record.Template) int {
	n := 0
	for _, st := range t.Stages {
		for _, id := range st {
			if r.Calls[id].ReadGroup() == "" {
				n++
			}
		}
	}
	return n
}

// jobCalls lists a recording's scoreEvent calls with the units each did and the share of
// units left when it began. A call's units are its work calls over those of the first
// call, which has the smallest budget and so did one unit.
func jobCalls(r *record.Recording) []jobCall {
	invs := r.Loads[record.LoadScore].Job.Invocations
	unitCalls := max(1, workCalls(r, invs[0].Work))
	var out []jobCall
	total := 0.0
	for i, inv := range invs {
		c := jobCall{players: r.Players, last: i == len(invs)-1, tiny: inv.OneUnit(),
			pre: map[string]float64{}, post: map[string]float64{}, closeCalls: record.Template{Stages: [][]int{}}}
		c.units = math.Max(0, math.Round(float64(workCalls(r, inv.Work))/float64(unitCalls)))
		total += c.units
		for _, t := range []record.Template{inv.Pre, inv.Work} {
			for _, st := range t.Stages {
				for _, id := range st {
					if g := r.Calls[id].ReadGroup(); g != "" {
						c.pre[g] += r.Calls[id].Bytes()
					}
				}
			}
		}
		for _, st := range inv.Post.Stages {
			var rest []int
			for _, id := range st {
				if g := r.Calls[id].ReadGroup(); g != "" {
					c.post[g] += r.Calls[id].Bytes()
				} else {
					rest = append(rest, id)
				}
			}
			if len(rest) > 0 {
				c.closeCalls.Stages = append(c.closeCalls.Stages, rest)
			}
		}
		out = append(out, c)
	}
	done := 0.0
	for i := range out {
		out[i].left = 1
		if total > 0 {
			out[i].left = (total - done) / total
		}
		done += out[i].units
	}
	return out
}

// lsq returns the least-squares coefficients of y over the feature rows x, and the worst
// miss relative to the largest y (1 when nothing was read).
func lsq(x [][]float64, y []float64) ([]float64, float64) {
	k := 0
	if len(x) > 0 {
		k = len(x[0])
	}
	a := make([][]float64, k)
	for i := range a {
		a[i] = make([]float64, k+1)
	}
	top := 0.0
	for r := range x {
		top = math.Max(top, math.Abs(y[r]))
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				a[i][j] += x[r][i] * x[r][j]
			}
			a[i][k] += x[r][i] * y[r]
		}
	}
	c := solve(a)
	miss := 0.0
	for r := range x {
		p := 0.0
		for i := range c {
			p += c[i] * x[r][i]
		}
		miss = math.Max(miss, math.Abs(p-y[r]))
	}
	if top == 0 {
		return c, 0
	}
	return c, miss / top
}

// solve solves a linear system given augmented, by Gaussian elimination with partial
// pivoting; a column with no information gets coefficient 0.
func solve(a [][]float64) []float64 {
	k := len(a)
	for col := 0; col < k; col++ {
		p := col
		for r := col + 1; r < k; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		if math.Abs(a[col][col]) < 1e-9 {
			continue
		}
		for r := 0; r < k; r++ {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for j := col; j <= k; j++ {
				a[r][j] -= f * a[col][j]
			}
		}
	}
	c := make([]float64, k)
	for i := 0; i < k; i++ {
		if math.Abs(a[i][i]) >= 1e-9 {
			c[i] = a[i][k] / a[i][i]
		}
	}
	return c
}

// fitReads fits every read of both recordings' calls (see the comment at the top).
func fitReads(d Design) (reads []sim.JobRead, misses map[string][2]float64) {
	calls := append(jobCalls(d.Small), jobCalls(d.Large)...)
	groups := map[string]bool{}
	for _, c := range calls {
		for g := range c.pre {
			groups[g] = true
		}
		for g := range c.post {
			groups[g] = true
		}
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	misses = map[string][2]float64{}
	for _, g := range names {
		var xa, xu, xp [][]float64
		var ya, yp []float64
		for _, c := range calls {
			if c.last {
				continue
			}
			n := float64(c.players)
			xa = append(xa, []float64{1, n, n * c.left, c.units})
			xu = append(xu, []float64{1, c.units})
			ya = append(ya, c.pre[g])
			xp = append(xp, []float64{1, n, n * c.left})
			yp = append(yp, c.post[g])
		}
		ca, ma := lsq(xa, ya)
		cp, mp := lsq(xp, yp)
		ma, mp = smallMiss(ma, ya), smallMiss(mp, yp)
		r := sim.JobRead{Group: g, PageBytes: math.Inf(1)}
		if len(ca) == 4 {
			r.Pre, r.PerUnit = [3]float64{tidy(ca[0]), tidy(ca[1]), tidy(ca[2])}, math.Max(0, tidy(ca[3]))
		}
		if len(cp) == 3 {
			r.Post = [3]float64{tidy(cp[0]), tidy(cp[1]), tidy(cp[2])}
		}
		// The closing read: what the last call read after its work beyond Post, a line
		// through the two recordings.
		var pts [][2]float64
		for _, c := range calls {
			if c.last {
				pts = append(pts, [2]float64{float64(c.players), c.post[g] - r.PostBytes(c.players, c.left)})
			}
		}
		if len(pts) == 2 && pts[1][0] != pts[0][0] {
			slope := (pts[1][1] - pts[0][1]) / (pts[1][0] - pts[0][0])
			r.Close = [2]float64{tidy(pts[0][1] - slope*pts[0][0]), tidy(slope)}
		}
		// The simplest that fits: a read per call and one per unit of work (whatever the
		// players); else a stream, or the whole line, whichever misses less.
		cu, mu := lsq(xu, ya)
		page, _ := groupPage(g, d.Small, d.Large)
		if mu = smallMiss(mu, ya); len(cu) == 2 && mu <= missTolerance {
			r.Pre, r.PerUnit, ma = [3]float64{tidy(cu[0]), 0, 0}, math.Max(0, tidy(cu[1])), mu
		} else if beta, mb, ok := fitStream(g, calls, page); ok && mb < ma {
			r.Stream, r.BytesPerPlayer, r.Pre, r.PerUnit = true, beta, [3]float64{}, 0
			ma = mb
		}
		misses[g] = [2]float64{ma, mp}
		reads = append(reads, r)
	}
	return reads, misses
}

// fitStream tests whether read g, before and during the work, walks the items still to
// score in pages of page bytes as the work uses them (JobRead.Stream): bytes per player
// from the calls whose read was not cut by DynamoDB's 1 MB, then the predicted bytes of
// every call but the last — one page, or as many as its units used, never more than is
// left. It returns the bytes per player and the worst miss, relative to the largest read.
func fitStream(g string, calls []jobCall, page float64) (beta, miss float64, ok bool) {
	units := map[int]float64{} // units of each recording
	for _, c := range calls {
		units[c.players] += c.units
	}
	for _, c := range calls {
		if b := c.pre[g]; !c.last && b > 0 && b < pageBytes*0.99 && c.left > 0 {
			beta = math.Max(beta, b/(float64(c.players)*c.left))
		}
	}
	if beta == 0 {
		return 0, 0, false
	}
	top := 0.0
	for _, c := range calls {
		if c.last {
			continue
		}
		rest := beta * float64(c.players) * c.left
		used := c.units * beta * float64(c.players) / math.Max(1, units[c.players])
		pred := math.Min(rest, math.Max(1, math.Ceil(used/page))*page)
		miss = math.Max(miss, math.Abs(pred-c.pre[g]))
		top = math.Max(top, c.pre[g])
	}
	if top == 0 {
		return 0, 0, false
	}
	return beta, miss / top, true
}

// tidy rounds what prints as zero to zero (no "-0").
func tidy(v float64) float64 {
	if math.Abs(v) < 0.05 {
		return 0
	}
	return v
}

// minFitCalls is the fewest calls (besides each recording's last) the reads are fitted
// over; tooFewCalls starts the problem reported when there are fewer.
const (
	minFitCalls = 6
	tooFewCalls = "score: only"
)

// missTolerance is the worst miss allowed of a fitted read, relative to its largest value;
// reads of a few KB are let off (a page's rounding).
const missTolerance = 0.10

// smallMissBytes is a miss that does not count: four 4 KB read units. The shards' scoring
// checkpoints, read at the start of every call, carry the pass's pick counts (bounded by
// the card's teams, not by the players) once their shard's first batch is written: a step
// and not a line; missing it costs at most 4 read units a call, in a job of a few calls.
const smallMissBytes = 4 * 4096

// smallMiss returns miss (relative to the largest of ys), or 0 when it is under
// smallMissBytes.
func smallMiss(miss float64, ys []float64) float64 {
	top := 0.0
	for _, y := range ys {
		top = math.Max(top, math.Abs(y))
	}
	if miss*top < smallMissBytes {
		return 0
	}
	return miss
}

// checkJob checks that the scoring job extrapolates.
func (s *Soundness) checkJob(d Design) {
	ja, jb := d.Small.Loads[record.LoadScore].Job, d.Large.Loads[record.LoadScore].Job
	if ja == nil || jb == nil || len(ja.Invocations) == 0 || len(jb.Invocations) == 0 {
		s.Problems = append(s.Problems, "score: no scoring job recorded")
		return
	}
	if n := len(ja.Invocations) + len(jb.Invocations) - 2; n < minFitCalls {
		s.Problems = append(s.Problems, fmt.Sprintf("%s %d scoreEvent calls besides the last ones: too few to fit their reads (want %d; record more players)", tooFewCalls, n, minFitCalls))
	}
	row := func(what string, a, b float64, ok bool, class string) {
		r := SoundnessRow{Load: record.LoadScore, What: what, Small: a, Large: b, Class: class}
		if !ok {
			r.Class = "differs"
			s.Problems = append(s.Problems, fmt.Sprintf("score: %s is %.4g at %d players but %.4g at %d", what, a, d.Small.Players, b, d.Large.Players))
		}
		s.Rows = append(s.Rows, r)
	}
	units := func(r *record.Recording) (n, work float64) {
		return units1(r) / float64(r.Players), workPerPlayer(r)
	}
	ua, wa := units(d.Small)
	ub, wb := units(d.Large)
	// Units hold up to a fixed number of players, of one shard when the design shards
	// them: with few players per shard, more units than players/size. Not a problem: the
	// model sizes the job by its work per player (jobAt), which must be the same.
	row("units of work per player", ua, ub, true, "informational")
	row("read and write units of the work per player", wa, wb, near(wa, wb), "proportional")
	nu := func(r *record.Recording) int { return int(math.Round(units1(r))) }
	// Measured: units finishing at different times (a few players per shard at the small
	// sizes) may show fewer at once than the code runs, never more.
	row("units of work at once", float64(ja.Workers), float64(jb.Workers), ja.Workers == jb.Workers || ja.Workers >= nu(d.Small) ||
		max(ja.Workers, jb.Workers) <= table.MaxShards, "constant")
	ca, cb := jobCalls(d.Small), jobCalls(d.Large)
	closeUnits := func(r *record.Recording, c jobCall) float64 { return templateUnits(r.Calls, c.closeCalls) }
	ea, eb := closeUnits(d.Small, ca[len(ca)-1]), closeUnits(d.Large, cb[len(cb)-1])
	row("units of the last call's closing writes", ea, eb, near(ea, eb), "constant")
	reads, misses := fitReads(d)
	for _, r := range reads {
		m := misses[r.Group]
		before := fmt.Sprintf("%.0f + %.1f·players + %.1f·players·left + %.0f·units", r.Pre[0], r.Pre[1], r.Pre[2], r.PerUnit)
		if r.Stream {
			before = fmt.Sprintf("the items left (%.0f bytes a player) in 1 MB pages as the units use them", r.BytesPerPlayer)
		}
		what := fmt.Sprintf("read %s, bytes per call: before and during the work %s; after it %.0f + %.1f·players + %.1f·players·left; closing %.0f + %.1f·players (worst miss %.0f%% / %.0f%%)",
			groupText(r.Group), before, r.Post[0], r.Post[1], r.Post[2], r.Close[0], r.Close[1], 100*m[0], 100*m[1])
		row := SoundnessRow{Load: record.LoadScore, What: what, Small: meanRead(r.Group, ca), Large: meanRead(r.Group, cb), Class: "fitted"}
		if m[0] > missTolerance || m[1] > missTolerance {
			row.Class = "does not fit"
			s.Problems = append(s.Problems, fmt.Sprintf("score: the read %s of a scoreEvent call is not a line in the players, the work left and the units done (worst miss %.0f%%, %.0f%%)", r.Group, 100*m[0], 100*m[1]))
		}
		s.Rows = append(s.Rows, row)
	}
}

// units1 is a recording's units of work.
func units1(r *record.Recording) float64 {
	n := 0.0
	for _, c := range jobCalls(r) {
		n += c.units
	}
	return n
}

func meanRead(group string, cs []jobCall) float64 {
	t := 0.0
	for _, c := range cs {
		t += c.pre[group] + c.post[group]
	}
	return t / float64(max(1, len(cs)))
}

func templateUnits(calls []record.Call, t record.Template) float64 {
	u := 0.0
	for _, st := range t.Stages {
		for _, id := range st {
			u += calls[id].RCU() + calls[id].WCU()
		}
	}
	return u
}

// workPerPlayer is the read and write units of a recording's scoring work (its units'
// calls, not the reads fitted apart) per player.
func workPerPlayer(r *record.Recording) float64 {
	work := 0.0
	for _, inv := range r.Loads[record.LoadScore].Job.Invocations {
		for _, st := range inv.Work.Stages {
			for _, id := range st {
				if r.Calls[id].ReadGroup() == "" {
					work += r.Calls[id].RCU() + r.Calls[id].WCU()
				}
			}
		}
	}
	return work / float64(r.Players)
}

// jobAt lays the scoring job of recording r (one of d's) out for players.
func jobAt(d Design, r *record.Recording, w *sim.Workload, players int) *sim.Job {
	jt := r.Loads[record.LoadScore].Job
	j := &sim.Job{Workers: max(1, jt.Workers, d.Large.Loads[record.LoadScore].Job.Workers), Shards: r.Shards}
	calls := jobCalls(r)
	for i, inv := range jt.Invocations {
		if calls[i].tiny && calls[i].units == 1 {
			var st [][]int
			for _, s := range inv.Work.Stages {
				var work []int
				for _, id := range s {
					if r.Calls[id].ReadGroup() == "" {
						work = append(work, id)
					}
				}
				if len(work) > 0 {
					st = append(st, work)
				}
			}
			j.Work = append(j.Work, canonical(w, record.Template{Count: 1, Stages: st}))
		}
	}
	// As many units as it takes the recorded units of one call to do the work of players
	// (units may hold fewer players than their size at the recorded sizes).
	if len(j.Work) > 0 {
		mean := 0.0
		for _, t := range j.Work {
			mean += templateUnits(w.Calls, t) / float64(len(j.Work))
		}
		n := int(math.Round(units1(r) * float64(players) / float64(r.Players)))
		if mean > 0 {
			n = int(math.Round(workPerPlayer(r) * float64(players) / mean))
		}
		// Unit i works on shard i mod K (runJob): the templates go round shard by shard,
		// so that every shard gets the same mix.
		for i := 0; i < max(n, 1); i++ {
			j.Units = append(j.Units, i/max(1, r.Shards)%len(j.Work))
		}
	}
	j.Closing = calls[len(calls)-1].closeCalls
	j.Reads, _ = fitReads(d)
	for i := range j.Reads {
		g := &j.Reads[i]
		g.PageBytes, g.Proto = groupPage(g.Group, r)
		if n, ok := g.Proto.FirstShard(); ok { // canonical: a unit's shift is its shard
			g.Proto = g.Proto.Shift(-n)
		}
	}
	return j
}

// groupPage is what one call of read group g returns at most in recs, and the largest such
// call: for a Query, DynamoDB's 1 MB, or the largest page recorded when a scoreEvent call
// read several pages well short of 1 MB (the code pages by a Limit); for any other read,
// everything.
func groupPage(g string, recs ...*record.Recording) (float64, record.Call) {
	var proto record.Call
	largest, most := 0.0, 0.0 // the largest call; the most one scoreEvent call read
	for _, r := range recs {
		for _, inv := range r.Loads[record.LoadScore].Job.Invocations {
			read := 0.0
			for _, t := range []record.Template{inv.Pre, inv.Work, inv.Post} {
				for _, st := range t.Stages {
					for _, id := range st {
						if c := r.Calls[id]; c.ReadGroup() == g {
							b := c.Bytes()
							read += b
							if b >= largest {
								largest, proto = b, c
							}
						}
					}
				}
			}
			most = math.Max(most, read)
		}
	}
	if proto.Op != "Query" {
		return math.Inf(1), proto
	}
	if largest > 0 && largest < pageBytes*9/10 && most > 1.5*largest {
		return largest, proto
	}
	return pageBytes, proto
}

// canonical returns the template of one unit of work with its shard numbers shifted so
// that its first is 0 (record.Call.Shift): unit u then works on shard u (mod K). Shifted
// calls are added to w.
func canonical(w *sim.Workload, t record.Template) record.Template {
	for _, st := range t.Stages {
		for _, id := range st {
			n, ok := w.Calls[id].FirstShard()
			if !ok {
				continue
			}
			if n == 0 {
				return t
			}
			out := record.Template{Count: t.Count}
			for _, st := range t.Stages {
				var ids []int
				for _, id := range st {
					w.Calls = append(w.Calls, w.Calls[id].Shift(-n))
					ids = append(ids, len(w.Calls)-1)
				}
				out.Stages = append(out.Stages, ids)
			}
			return out
		}
	}
	return t
}
