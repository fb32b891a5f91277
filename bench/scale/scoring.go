package scale

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
)

// scoreGoal is the time one event's scoring must take at most (AWS limits).
const scoreGoal = 5 * time.Minute

// JobEvaluation is a design's scoring job alone at some number of players: without limits
// (what it asks of each partition) and with them (what the admin gets).
type JobEvaluation struct {
	Players         int
	Demand, Limited *sim.LoadResult
}

// evaluateJob runs the scoring job of w with and without limits.
func evaluateJob(w *sim.Workload, p sim.Params) *JobEvaluation {
	dp, lp := p, p
	dp.Limits, lp.Limits = false, true
	return &JobEvaluation{Players: w.Players, Demand: sim.Run(w, record.LoadScore, dp), Limited: sim.Run(w, record.LoadScore, lp)}
}

func scoredInTime(r *sim.LoadResult) bool { return r.Complete && r.Seconds < scoreGoal.Seconds() }

// minutes writes d in minutes: "5 min".
func minutes(d time.Duration) string { return fmt.Sprintf("%g min", d.Minutes()) }

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
func EvaluateLeagues(d Design, leagues, players int, p sim.Params) (*LeaguesReport, error) {
	lr := &LeaguesReport{Leagues: leagues, Design: d}
	w, s, err := d.scoringAt(players)
	lr.Soundness = s
	if err != nil {
		return lr, err
	}
	lr.At = evaluateJob(w, p)
	return lr, nil
}

// OneShardReport is what the design recorded at one shard serves: the largest event it
// scores within scoreGoal, and the largest whose submits at the modelled peak reach no
// player as an error, each found by bisection over the number of players from Low to High
// (to Step), the load simulated under AWS's limits at each step.
type OneShardReport struct {
	Design    Design
	Soundness Soundness
	Low, High int
	Step      int
	Score     Search
	Submits   Search
	// ScoreBySize is the scoring job at the plot's sizes.
	ScoreBySize []SearchStep
	// SubmitProblems says why Submits was not searched: the recordings' other loads do
	// not extrapolate.
	SubmitProblems []string
}

// Search is one bisection over the players from Low to High: Max is the most that meet the
// goal; Low if even Low does not (then Below is set), High if High does.
type Search struct {
	Low, High int
	Max       int
	Below     bool
	Steps     []SearchStep
}

// SearchStep is one simulated load of a search.
type SearchStep struct {
	Players  int
	Seconds  float64 // the scoring job's
	Complete bool    // the scoring job's
	Errors   int     // the submits reaching a player as an error
}

// SearchOneShard runs the searches of OneShardReport on d, and d's scoring at sizes.
func SearchOneShard(d Design, low, high, step int, sizes []int, p sim.Params) (*OneShardReport, error) {
	or := &OneShardReport{Design: d, Low: low, High: high, Step: step}
	var err error
	if or.Score, err = searchScoring(d, low, high, step, p); err != nil {
		return or, err
	}
	for _, n := range sizes {
		st, s, err := scoreJobAt(d, n, p.JobCap, p)
		or.Soundness = s
		if err != nil {
			return or, err
		}
		or.ScoreBySize = append(or.ScoreBySize, st)
	}
	if s := d.check(); len(s.Problems) > 0 {
		or.SubmitProblems = s.Problems
		return or, nil
	}
	or.Soundness = d.check()
	lp := p
	lp.Limits = true
	or.Submits, err = search(low, high, step, func(n int) (SearchStep, bool, error) {
		w, _, err := d.At(n)
		if err != nil {
			return SearchStep{}, false, err
		}
		st := SearchStep{Players: n}
		for _, c := range sim.Run(w, record.LoadSubmit, lp).Errors {
			st.Errors += c
		}
		return st, st.Errors == 0, nil
	})
	return or, err
}

// searchScoring finds the largest event (players from low to high, to step) whose scoring
// d finishes within scoreGoal under AWS's limits.
func searchScoring(d Design, low, high, step int, p sim.Params) (Search, error) {
	return search(low, high, step, func(n int) (SearchStep, bool, error) {
		st, _, err := scoreJobAt(d, n, 2*scoreGoal, p) // a job not done by then never meets the goal
		return st, st.Complete && st.Seconds < scoreGoal.Seconds(), err
	})
}

// scoreJobAt runs d's scoring job at n players under AWS's limits, stopped at jobCap (0:
// DefaultJobCap).
func scoreJobAt(d Design, n int, jobCap time.Duration, p sim.Params) (SearchStep, Soundness, error) {
	w, s, err := d.scoringAt(n)
	if err != nil {
		return SearchStep{}, s, err
	}
	p.Limits, p.JobCap = true, jobCap
	r := sim.Run(w, record.LoadScore, p)
	return SearchStep{Players: n, Seconds: round(r.Seconds, 1), Complete: r.Complete}, s, nil
}

// search bisects the players from low to high (to step) for the most that meet the goal
// (met), keeping every step.
func search(low, high, step int, met func(n int) (SearchStep, bool, error)) (Search, error) {
	out := Search{Low: low, High: high}
	var failed error
	out.Max, out.Below, _ = largestWithin(low, high, step, func(n int) bool {
		if failed != nil {
			return false
		}
		st, ok, err := met(n)
		if err != nil {
			failed = err
			return false
		}
		out.Steps = append(out.Steps, st)
		return ok
	})
	return out, failed
}

// largestWithin returns the largest n from low to high, to step, for which met holds,
// by bisection (met holding for every n up to some number and for none beyond); low with
// below set if met does not hold for low. steps counts the calls of met.
func largestWithin(low, high, step int, met func(int) bool) (n int, below bool, steps int) {
	try := func(n int) bool { steps++; return met(n) }
	if !try(low) {
		return low, true, steps
	}
	if try(high) {
		return high, false, steps
	}
	lo, hi := low, high // met(lo), !met(hi)
	for hi-lo > step {
		mid := max(lo+step, (lo+hi)/2/step*step)
		if try(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, false, steps
}

// scoringFamilies lists the partition families (table or index, key with {%K}) the
// scoring job's calls of r touch outside players' own partitions, sorted.
func scoringFamilies(r *record.Recording) []string {
	seen := map[string]bool{}
	for _, inv := range r.Loads[record.LoadScore].Job.Invocations {
		for _, t := range []record.Template{inv.Pre, inv.Work, inv.Post} {
			for _, st := range t.Stages {
				for _, id := range st {
					for _, a := range r.Calls[id].Accesses {
						if a.Own() {
							continue
						}
						where := a.Index
						if where == "" {
							where = "table"
						}
						seen[where+" "+record.Family(a.PK)] = true
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
func scoringPerPlayer(r *record.Recording) (calls, units float64) {
	for _, inv := range r.Loads[record.LoadScore].Job.Invocations {
		for _, st := range inv.Work.Stages {
			for _, id := range st {
				if c := r.Calls[id]; c.ReadGroup() == "" {
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
		r    *sim.LoadResult
	}{{"no limits", l.At.Demand}, {"AWS limits", l.At.Limited}} {
		x := run.r
		w, _ := x.MaxWCU()
		rr, _ := x.MaxRCU()
		p("| %s | %v | %s | %s | %s of %s | %s | %s | %s |\n", run.name, x.Complete, num(x.Seconds), num(float64(x.Invocations)),
			num(float64(x.UnitsDone)), num(float64(x.Units)), num(w), num(rr), errorsText(x.Errors))
	}
	soundnessMarkdown(b, l.Design, l.Soundness)
}

// oneShardMarkdown is the section on what one shard serves.
func (r *Report) oneShardMarkdown(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	o := r.OneShard
	p("\n## One shard: the largest event it serves\n\n")
	p("Recorded at 1 shard (`PICKEM_SCORE_SHARDS` unset: one lock copy, an event's predictions in its own index partition, a season's standings in its own) at %s and %s players. The number of players found by bisection between %s and %s (to %s), the load simulated under AWS's limits at each step: ",
		num(float64(o.Design.Small.Players)), num(float64(o.Design.Large.Players)), num(float64(o.Low)), num(float64(o.High)), num(float64(o.Step)))
	p("every prediction scored in < %s up to %s; the peak hour's submits (10× peak minute) reaching no player as an error ", minutes(scoreGoal), searchText(o.Score))
	if o.SubmitProblems != nil {
		p("not simulated: the recordings' other loads do not extrapolate (%s).\n\n", strings.Join(o.SubmitProblems, "; "))
	} else {
		p("up to %s.\n\n", searchText(o.Submits))
	}
	p("| players | scoring s (AWS limits) | submits reaching a player as an error |\n|---|---|---|\n")
	rows := map[int]*SearchStep{}
	var ns []int
	row := func(n int) *SearchStep {
		if rows[n] == nil {
			rows[n] = &SearchStep{Players: n, Errors: -1, Seconds: -1}
			ns = append(ns, n)
		}
		return rows[n]
	}
	for _, st := range o.Score.Steps {
		row(st.Players).Seconds, row(st.Players).Complete = st.Seconds, st.Complete
	}
	for _, st := range o.Submits.Steps {
		row(st.Players).Errors = st.Errors
	}
	sort.Ints(ns)
	for _, n := range ns {
		st := rows[n]
		secs, errs := "–", "–"
		switch {
		case st.Seconds < 0:
		case !st.Complete:
			secs = fmt.Sprintf("> %s (stopped)", num(2*scoreGoal.Seconds()))
		default:
			secs = num(st.Seconds)
		}
		if st.Errors >= 0 {
			errs = num(float64(st.Errors))
		}
		p("| %s | %s | %s |\n", num(float64(n)), secs, errs)
	}
	soundnessMarkdown(b, o.Design, o.Soundness)
}

// searchText says what a search found.
func searchText(s Search) string {
	switch {
	case s.Below:
		return fmt.Sprintf("fewer than %s players", num(float64(s.Low)))
	case s.Max == s.High:
		return fmt.Sprintf("%s players or more", num(float64(s.Max)))
	}
	return fmt.Sprintf("**%s players**", num(float64(s.Max)))
}

// paceMarkdown is the section on scoring's pace in the design's scoring job.
func (r *Report) paceMarkdown(b *strings.Builder, w *sim.Workload) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	pace := w.Rec.Pace
	if pace == nil {
		return
	}
	p("\n### Scoring's pace\n\n")
	p("The code paces its scoring (dynamo/scoring/pace.go): per partition, a write bucket of %s units refilled at %s a second and a read bucket of %s refilled at %s, one pacer for the admin's loop; before a transaction it waits for the write units it estimates, after a page it charges the read units. The model waits as the code does and charges each partition what the recording says the calls took. Per scoring transaction, what the code estimates against what was recorded (partition families, {%%K}: one of K):\n\n",
		num(pace.WriteBurst), num(pace.WriteUnits-pace.WriteBurst), num(pace.ReadBurst), num(pace.ReadUnits-pace.ReadBurst))
	p("| partitions | estimated WCU | recorded WCU | recorded / estimated |\n|---|---|---|---|\n")
	for _, c := range sim.PaceChecks(w) {
		ratio := "–"
		if c.Estimated > 0 {
			ratio = fmt.Sprintf("%.2f", c.Recorded/c.Estimated)
		}
		p("| `%s` | %.1f | %.1f | %s |\n", c.Family, c.Estimated, c.Recorded, ratio)
	}
	d, l := r.After.At.Demand[record.LoadScore], r.After.At.Limited[record.LoadScore]
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
