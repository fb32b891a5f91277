package scale

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// ScoreGoal is the time one event's scoring must take at most (AWS limits).
const ScoreGoal = 5 * time.Minute

// JobEvaluation is a design's scoring job alone at some number of players: without limits
// (what it asks of each partition) and with them (what the admin gets).
type JobEvaluation struct {
	Players         int
	Demand, Limited *LoadResult
}

// EvaluateJob runs the scoring job of w with and without limits.
func EvaluateJob(w *Workload, p Params) *JobEvaluation {
	dp, lp := p, p
	dp.Limits, lp.Limits = false, true
	return &JobEvaluation{Players: w.Players, Demand: Run(w, LoadScore, dp), Limited: Run(w, LoadScore, lp)}
}

// Met reports whether every prediction was scored within ScoreGoal under AWS's limits.
func (e *JobEvaluation) Met() bool { return scoredInTime(e.Limited) }

func scoredInTime(r *LoadResult) bool { return r.Complete && r.Seconds < ScoreGoal.Seconds() }

// LeaguesReport is the scoring job of the design recorded with every player in Leagues
// leagues, at the report's number of players.
type LeaguesReport struct {
	Leagues   int
	Design    Design
	Soundness Soundness
	At        *JobEvaluation
}

// EvaluateLeagues runs the scoring job of d, recorded with leagues leagues per player, at
// players.
func EvaluateLeagues(d Design, leagues, players int, p Params) (*LeaguesReport, error) {
	lr := &LeaguesReport{Leagues: leagues, Design: d}
	w, s, err := d.JobAt(players)
	lr.Soundness = s
	if err != nil {
		return lr, err
	}
	lr.At = EvaluateJob(w, p)
	return lr, nil
}

// OneShardReport is the largest event the design recorded at one shard scores within
// ScoreGoal: found by bisection over the number of players, the scoring job simulated
// under AWS's limits at each step.
type OneShardReport struct {
	Design    Design
	Soundness Soundness
	// MaxPlayers is the most players (a multiple of Step) whose scoring finishes within
	// ScoreGoal; Low if even Low does not (then Below is set), High if High does.
	MaxPlayers  int
	Low, High   int
	Step        int
	Below       bool
	Steps       []SearchStep
	ScoreBySize []SearchStep // at the plot's sizes
	// At is every load at MaxPlayers (nil if the recordings' views do not extrapolate:
	// AtProblems says why).
	At         *Evaluation
	AtProblems []string
}

// SearchStep is one simulated scoring job of the search.
type SearchStep struct {
	Players  int     `json:"players"`
	Seconds  float64 `json:"seconds"`
	Complete bool    `json:"complete"`
}

// SearchOneShard finds the largest number of players between low and high (to step) whose
// scoring d finishes within ScoreGoal, and evaluates d there and at sizes.
func SearchOneShard(d Design, low, high, step int, sizes []int, p Params) (*OneShardReport, error) {
	or := &OneShardReport{Design: d, Low: low, High: high, Step: step}
	lp := p
	lp.Limits = true
	run := func(n int, jobCap time.Duration) (SearchStep, error) {
		w, s, err := d.JobAt(n)
		or.Soundness = s
		if err != nil {
			return SearchStep{}, err
		}
		cp := lp
		cp.JobCap = jobCap
		r := Run(w, LoadScore, cp)
		return SearchStep{Players: n, Seconds: round(r.Seconds, 1), Complete: r.Complete}, nil
	}
	met := func(st SearchStep) bool { return st.Complete && st.Seconds < ScoreGoal.Seconds() }
	try := func(n int) (bool, error) {
		st, err := run(n, 2*ScoreGoal) // a job not done by then never meets the goal

		if err != nil {
			return false, err
		}
		or.Steps = append(or.Steps, st)
		return met(st), nil
	}
	lo, hi := low, high
	switch ok, err := try(lo); {
	case err != nil:
		return or, err
	case !ok:
		or.MaxPlayers, or.Below = lo, true
		hi = lo
	}
	if !or.Below {
		ok, err := try(hi)
		if err != nil {
			return or, err
		}
		if ok {
			lo = hi
		}
	}
	for hi-lo > step {
		mid := (lo + hi) / 2 / step * step
		if mid <= lo {
			mid = lo + step
		}
		ok, err := try(mid)
		if err != nil {
			return or, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	if !or.Below {
		or.MaxPlayers = lo
	}
	for _, n := range sizes {
		st, err := run(n, p.JobCap)
		if err != nil {
			return or, err
		}
		or.ScoreBySize = append(or.ScoreBySize, st)
	}
	if s := d.Check(); len(s.Problems) > 0 {
		or.AtProblems = s.Problems
		return or, nil
	}
	w, _, err := d.At(or.MaxPlayers)
	if err != nil {
		return or, err
	}
	or.At = Evaluate(w, p)
	return or, nil
}

// paceCheck compares, per family of partitions, what the code's pace estimates a scoring
// transaction asks (pace.go) with what the recording says it took, over the transactions
// of the job's units of work.
type paceCheck struct {
	Family              string
	Estimated, Recorded float64 // write units per transaction
}

func paceChecks(w *Workload) []paceCheck {
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
	var out []paceCheck
	for f := range rec {
		out = append(out, paceCheck{Family: f, Estimated: est[f] / float64(max(txns, 1)), Recorded: rec[f] / float64(max(txns, 1))})
	}
	for f := range est {
		if _, ok := rec[f]; !ok {
			out = append(out, paceCheck{Family: f, Estimated: est[f] / float64(max(txns, 1))})
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
	return where + " " + familyKey(pk)
}

// scoringFamilies lists the partition families (table or index, key with {%K}) the
// scoring job's calls of r touch outside players' own partitions, sorted.
func scoringFamilies(r *Recording) []string {
	seen := map[string]bool{}
	for _, inv := range r.Loads[LoadScore].Job.Invocations {
		for _, t := range []Template{inv.Pre, inv.Work, inv.Post} {
			for _, st := range t.Stages {
				for _, id := range st {
					for _, a := range r.Calls[id].Accesses {
						if own(a) {
							continue
						}
						where := a.Index
						if where == "" {
							where = "table"
						}
						seen[where+" "+familyKey(a.PK)] = true
					}
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// scoringPerPlayer is the DynamoDB calls and units of a recording's scoring work per
// player (its units' calls).
func scoringPerPlayer(r *Recording) (calls, units float64) {
	for _, inv := range r.Loads[LoadScore].Job.Invocations {
		for _, st := range inv.Work.Stages {
			for _, id := range st {
				if c := r.Calls[id]; readGroup(c) == "" {
					calls++
					units += c.RCU() + c.WCU()
				}
			}
		}
	}
	n := float64(max(r.Players, 1))
	return calls / n, units / n
}

// leaguesMarkdown is the section on scoring with leagues.
func (r *Report) leaguesMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	l := r.Leagues
	p("\n## Scoring with every player in %d leagues\n\n", l.Leagues)
	p("Recorded at %s shards with every player in %d leagues (joined through the API before the show is scored), at %s and %s players; the scoring job alone, extrapolated to %s players. ",
		num(float64(l.Design.Large.Shards)), l.Leagues, num(float64(l.Design.Small.Players)), num(float64(l.Design.Large.Players)), num(float64(r.Players)))
	ac, au := scoringPerPlayer(r.After.Design.Large)
	lc, lu := scoringPerPlayer(l.Design.Large)
	af, lf := scoringFamilies(r.After.Design.Large), scoringFamilies(l.Design.Large)
	same := "the same"
	if strings.Join(af, "|") != strings.Join(lf, "|") {
		same = "**not the same**"
	}
	p("The scoring work per player is %.3g calls and %.3g units with no league (%s players) and %.3g calls and %.3g units with %d leagues (%s players); the shared partitions scoring touches are %s (`%s`).\n\n",
		ac, au, num(float64(r.After.Design.Large.Players)), lc, lu, l.Leagues, num(float64(l.Design.Large.Players)), same, strings.Join(lf, "`, `"))
	p("| run | complete | seconds | scoreEvent calls | units of work done | busiest partition WCU/s | busiest partition RCU/s | errors |\n|---|---|---|---|---|---|---|---|\n")
	for _, run := range []struct {
		name string
		r    *LoadResult
	}{{"no limits", l.At.Demand}, {"AWS limits", l.At.Limited}} {
		x := run.r
		w, _ := x.MaxWCU()
		rr, _ := x.MaxRCU()
		p("| %s | %v | %s | %s | %s of %s | %s | %s | %s |\n", run.name, x.Complete, num(x.Seconds), num(float64(x.Invocations)),
			num(float64(x.UnitsDone)), num(float64(x.Units)), num(w), num(rr), errorsText(x.Errors))
	}
	soundnessMarkdown(b, l.Design, l.Soundness)
}

// oneShardMarkdown is the section on the largest event one shard scores in time.
func (r *Report) oneShardMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	o := r.OneShard
	p("\n## One shard: the largest event scored in under %v\n\n", ScoreGoal)
	p("Recorded at 1 shard (`PICKEM_SCORE_SHARDS` unset) at %s and %s players. The scoring job, under AWS's limits, simulated for a number of players found by bisection between %s and %s (to %s): ",
		num(float64(o.Design.Small.Players)), num(float64(o.Design.Large.Players)), num(float64(o.Low)), num(float64(o.High)), num(float64(o.Step)))
	switch {
	case o.Below:
		p("even %s players take longer.\n\n", num(float64(o.Low)))
	case o.MaxPlayers == o.High:
		p("%s players or more.\n\n", num(float64(o.MaxPlayers)))
	default:
		p("**%s players**.\n\n", num(float64(o.MaxPlayers)))
	}
	p("| players | seconds | complete |\n|---|---|---|\n")
	steps := append([]SearchStep(nil), o.Steps...)
	sort.Slice(steps, func(i, j int) bool { return steps[i].Players < steps[j].Players })
	for _, st := range steps {
		secs := num(st.Seconds)
		if !st.Complete {
			secs = fmt.Sprintf("> %s (stopped)", num(2*ScoreGoal.Seconds()))
		}
		p("| %s | %s | %v |\n", num(float64(st.Players)), secs, st.Complete)
	}
	if o.At == nil {
		p("\nThe other loads at 1 shard are not evaluated: the recordings' views do not extrapolate (%s).\n", strings.Join(o.AtProblems, "; "))
	} else {
		f := o.At.Figures
		p("\nAt %s players and 1 shard: submits of the peak hour reaching a player as an error %s; busiest partition %s WCU/s (%s) and %s RCU/s (%s), nothing throttled; a card view %d call(s), a leaderboard page %d, a standings page %d.\n",
			num(float64(f.Players)), num(float64(f.SubmitPeakThrottledRequests)), num(f.MaxPartitionWCUPerS), o.At.MaxWCUAt, num(f.MaxPartitionRCUPerS), o.At.MaxRCUAt,
			f.CardCalls, f.LeaderboardPageCalls, f.StandingsPageCalls)
	}
	soundnessMarkdown(b, o.Design, o.Soundness)
}

// paceMarkdown is the section on scoring's pace in the design's scoring job.
func (r *Report) paceMarkdown(b *strings.Builder, w *Workload) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	pace := w.Rec.Pace
	if pace == nil {
		return
	}
	p("\n### Scoring's pace\n\n")
	p("The code paces its scoring (dynamo/pace.go): per partition, a write bucket of %s units refilled at %s a second and a read bucket of %s refilled at %s, one pacer for the admin's loop; before a transaction it waits for the write units it estimates, after a page it charges the read units. The model waits as the code does and charges each partition what the recording says the calls took. Per scoring transaction, what the code estimates against what was recorded (partition families, {%%K}: one of K):\n\n",
		num(pace.WriteBurst), num(pace.WriteUnits-pace.WriteBurst), num(pace.ReadBurst), num(pace.ReadUnits-pace.ReadBurst))
	p("| partitions | estimated WCU | recorded WCU | recorded / estimated |\n|---|---|---|---|\n")
	for _, c := range paceChecks(w) {
		ratio := "–"
		if c.Estimated > 0 {
			ratio = fmt.Sprintf("%.2f", c.Recorded/c.Estimated)
		}
		p("| `%s` | %.1f | %.1f | %s |\n", c.Family, c.Estimated, c.Recorded, ratio)
	}
	d, l := r.After.At.Demand[LoadScore], r.After.At.Limited[LoadScore]
	wcu, where := d.MaxWCU()
	p("\nWithout limits the busiest partition of scoring takes %s WCU/s (%s); the workers waited %s s for the pace in all (%s s under AWS's limits).",
		num(wcu), where, num(math.Round(d.PaceWaitSeconds)), num(math.Round(l.PaceWaitSeconds)))
	if wcu > pace.WriteUnits {
		p(" More than %s: the code's estimate is below what its transactions take on that partition (see the table), so its pace lets more through than the limit.", num(pace.WriteUnits))
	}
	p("\n")
}

// soundnessMarkdown is a design's soundness table.
func soundnessMarkdown(b *strings.Builder, d Design, s Soundness) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n### Is the extrapolation sound? (%s at %s and %s players)\n\n", d.Name, num(float64(d.Small.Players)), num(float64(d.Large.Players)))
	p("| load | figure | at %s | at %s | verdict |\n|---|---|---|---|---|\n", num(float64(d.Small.Players)), num(float64(d.Large.Players)))
	for _, row := range s.Rows {
		p("| %s | %s | %.4g | %.4g | %s |\n", row.Load, row.What, row.Small, row.Large, row.Class)
	}
}
