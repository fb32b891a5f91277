package scale

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/pickem/api/bench"
	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
	"github.com/pickem/api/bench/scale/watchers"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
)

// Figures are the model's headline numbers for one design at one number of players
// (bench/results/scale.json).
type Figures struct {
	Players int `json:"players"`
	// ScoreSeconds is the time to score every prediction of the event (all calls).
	ScoreSeconds float64 `json:"score_seconds"`
	// SubmitPeakThrottledRequests counts the submits of the peak hour that reached the
	// player as an error (refused at the front door, throttled or conflicting after every
	// retry, timed out).
	SubmitPeakThrottledRequests int `json:"submit_peak_throttled_requests"`
	// MaxPartition*PerS are the most units per second the design asks of any one
	// partition, table or index, across all loads, with nothing throttled.
	MaxPartitionWCUPerS float64 `json:"max_partition_wcu_per_s"`
	MaxPartitionRCUPerS float64 `json:"max_partition_rcu_per_s"`
	// CardCalls, LeaderboardPageCalls and StandingsPageCalls are the DynamoDB calls of
	// one card view, scored-event-with-leaderboard view and standings page on a cache
	// miss, not counting reads of the viewer's own partition (their own picks).
	CardCalls            int `json:"card_calls"`
	LeaderboardPageCalls int `json:"leaderboard_page_calls"`
	StandingsPageCalls   int `json:"standings_page_calls"`
}

// Headline is the "after" object of bench/results/scale.json: the Figures of the current
// code at the report's number of players and shard count, and the scoring figures with
// leagues and at one shard.
type Headline struct {
	Figures
	// Shards is the shard count of the recorded events and season.
	Shards int `json:"shards"`
	// ScoreSeconds20Leagues is ScoreSeconds with every player in 20 leagues.
	ScoreSeconds20Leagues float64 `json:"score_seconds_20_leagues"`
	// OneShardMaxPlayers5Min is the largest event (players) scored within scoreGoal at
	// one shard.
	OneShardMaxPlayers5Min int `json:"one_shard_max_players_5min"`
}

// Evaluation is a design run through every load at one size.
type Evaluation struct {
	Figures Figures
	// Demand are the runs without limits (what the design asks); Limited the runs with
	// AWS's limits and the front door (what players get).
	Demand, Limited map[string]*sim.LoadResult
	// MaxRCUAt and MaxWCUAt say which load and partition gave the Max figures.
	MaxRCUAt, MaxWCUAt string
}

// evaluate runs every load of w with and without limits.
func evaluate(w *sim.Workload, p sim.Params) *Evaluation {
	ev := &Evaluation{Demand: map[string]*sim.LoadResult{}, Limited: map[string]*sim.LoadResult{}}
	for _, load := range record.Loads {
		dp, lp := p, p
		dp.Limits, lp.Limits = false, true
		ev.Demand[load] = sim.Run(w, load, dp)
		ev.Limited[load] = sim.Run(w, load, lp)
	}
	f := Figures{Players: w.Players, ScoreSeconds: round(ev.Limited[record.LoadScore].Seconds, 1)}
	for _, n := range ev.Limited[record.LoadSubmit].Errors {
		f.SubmitPeakThrottledRequests += n
	}
	for _, load := range record.Loads {
		if u, where := ev.Demand[load].MaxRCU(); u > f.MaxPartitionRCUPerS {
			f.MaxPartitionRCUPerS, ev.MaxRCUAt = u, load+": "+where
		}
		if u, where := ev.Demand[load].MaxWCU(); u > f.MaxPartitionWCUPerS {
			f.MaxPartitionWCUPerS, ev.MaxWCUAt = u, load+": "+where
		}
	}
	f.CardCalls = sharedCalls(w, record.LoadCard)
	f.LeaderboardPageCalls = sharedCalls(w, record.LoadLeaderboard)
	f.StandingsPageCalls = sharedCalls(w, record.LoadStandings)
	ev.Figures = f
	return ev
}

// sharedCalls is the most calls a request of load made outside the player's own
// partition.
func sharedCalls(w *sim.Workload, load string) int {
	best := 0
	for _, t := range w.Requests[load] {
		n := 0
		for _, st := range t.Stages {
			for _, id := range st {
				c := w.Calls[id]
				mine := len(c.Accesses) > 0
				for _, a := range c.Accesses {
					mine = mine && a.Own()
				}
				if !mine {
					n++
				}
			}
		}
		best = max(best, n)
	}
	return best
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// DesignReport is one design in the report.
type DesignReport struct {
	Name      string
	Design    Design
	Soundness Soundness
	// At is the evaluation at the report's number of players; BySize at every size of
	// the plot.
	At     *Evaluation
	BySize []Figures
	// Cross is the check of the extrapolation: the larger size predicted from the
	// smaller recording, and from the larger one.
	CrossSmall, CrossLarge Figures
	// Note explains a stand-in design (e.g. "after" making the same calls as "before").
	Note string
	// Workload is the design at the report's number of players.
	Workload *sim.Workload
}

// Report is what `make scale` writes.
type Report struct {
	Generated   time.Time
	LoadAverage string
	Players     int
	Sizes       []int
	Params      sim.Params
	Before      *DesignReport
	After       *DesignReport
	// Leagues is the current code's scoring with every player in leagues; OneShard what it
	// serves at one shard; AfterScoring the largest event "after" scores in time (players
	// from the report's up).
	Leagues      *LeaguesReport
	OneShard     *OneShardReport
	AfterScoring Search
	// Watchers is the audience model of push (package watchers): scale.json's "watchers"
	// and scale.md's last section.
	Watchers *watchers.Result
}

// headline returns the "after" object of scale.json.
func (r *Report) headline() Headline {
	return Headline{Figures: r.After.At.Figures, Shards: r.After.Design.Large.Shards,
		ScoreSeconds20Leagues: round(r.Leagues.At.Limited.Seconds, 1), OneShardMaxPlayers5Min: r.OneShard.Score.Max}
}

// afterScoringStep is the resolution of Report.AfterScoring.
const afterScoringStep = 10_000

// SearchAfterScoring is Report.AfterScoring: the largest event d scores within scoreGoal,
// from players to four times as many.
func SearchAfterScoring(d Design, players int, p sim.Params) (Search, error) {
	return searchScoring(d, players, 4*players, afterScoringStep, p)
}

// Sizes are the numbers of players of the plot.
var Sizes = []int{1_000, 10_000, 100_000, 1_000_000}

// EvaluateDesign runs a design at players and at every size.
func EvaluateDesign(name string, d Design, players int, sizes []int, p sim.Params) (*DesignReport, error) {
	dr := &DesignReport{Name: name, Design: d}
	w, s, err := d.At(players)
	dr.Soundness = s
	if err != nil {
		return dr, err
	}
	dr.Workload = w
	dr.At = evaluate(w, p)
	for _, n := range sizes {
		if n == players {
			dr.BySize = append(dr.BySize, dr.At.Figures)
			continue
		}
		wn, _, err := d.At(n)
		if err != nil {
			return dr, err
		}
		dr.BySize = append(dr.BySize, evaluate(wn, p).Figures)
	}
	small, large, err := d.crossCheck()
	if err != nil {
		return dr, err
	}
	dr.CrossSmall, dr.CrossLarge = evaluate(small, p).Figures, evaluate(large, p).Figures
	return dr, nil
}

// JSON is bench/results/scale.json: the figures at the report's number of players, and
// by number of players under other keys.
func (r *Report) JSON() ([]byte, error) {
	out := map[string]any{
		"before":            r.Before.At.Figures,
		"after":             r.headline(),
		"before_by_players": r.Before.BySize,
		"after_by_players":  r.After.BySize,
	}
	if r.After.Note != "" {
		out["after_note"] = r.After.Note
	}
	if r.Watchers != nil {
		out["watchers"] = r.Watchers
	}
	// score_seconds of a job that did not finish is the model's cap: say so.
	for _, d := range []*DesignReport{r.Before, r.After} {
		if !d.At.Limited[record.LoadScore].Complete {
			out[d.Name+"_score_note"] = fmt.Sprintf("scoring did not finish within the model's %v of virtual time: score_seconds is that cap", sim.DefaultJobCap)
		}
	}
	if !r.Leagues.At.Limited.Complete {
		out["after_score_20_leagues_note"] = fmt.Sprintf("scoring with leagues did not finish within the model's %v of virtual time: score_seconds_20_leagues is that cap", sim.DefaultJobCap)
	}
	switch o := r.OneShard; {
	case o.Score.Below:
		out["after_one_shard_note"] = fmt.Sprintf("one shard does not score even %d players within %s: one_shard_max_players_5min is that bound", o.Low, minutes(scoreGoal))
	case o.Score.Max == o.High:
		out["after_one_shard_note"] = fmt.Sprintf("one shard scores %d players, the top of the search, within %s", o.High, minutes(scoreGoal))
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// SVG plots scoring time and peak partition units against players, before and after.
func (r *Report) SVG() string {
	line := func(d *DesignReport, label, color string, dashed bool, y func(Figures) float64) bench.Series {
		s := bench.Series{Label: strings.TrimSpace(d.Name + " " + label), Color: color, Dashed: dashed}
		for _, f := range d.BySize {
			s.Points = append(s.Points, [2]float64{float64(f.Players), y(f)})
		}
		return s
	}
	flat := func(label string, v float64) bench.Series {
		s := bench.Series{Label: label, Color: "#999999", Dashed: true}
		for _, f := range r.Before.BySize {
			s.Points = append(s.Points, [2]float64{float64(f.Players), v})
		}
		return s
	}
	score := func(f Figures) float64 { return f.ScoreSeconds }
	oneShard := bench.Series{Label: "after, 1 shard", Color: "#9467bd", Dashed: true}
	for _, st := range r.OneShard.ScoreBySize {
		oneShard.Points = append(oneShard.Points, [2]float64{float64(st.Players), st.Seconds})
	}
	wcu := func(f Figures) float64 { return f.MaxPartitionWCUPerS }
	rcu := func(f Figures) float64 { return f.MaxPartitionRCUPerS }
	return bench.LineChart([]bench.Panel{
		{Title: "Scoring one event (model, AWS limits)", XLabel: "players (log scale)", YLabel: "seconds (log scale)", LogY: true, Series: []bench.Series{
			line(r.Before, "", "#d62728", false, score), line(r.After, fmt.Sprintf("%d shards", r.After.Design.Large.Shards), "#1f77b4", true, score), oneShard,
			flat("the goal: 5 minutes", scoreGoal.Seconds())}},
		{Title: "Busiest partition, units/s demanded", XLabel: "players (log scale)", YLabel: "units per second (log scale)", LogY: true, Series: []bench.Series{
			line(r.Before, "WCU", "#d62728", false, wcu), line(r.After, "WCU", "#1f77b4", true, wcu),
			line(r.Before, "RCU", "#ff7f0e", false, rcu), line(r.After, "RCU", "#2ca02c", true, rcu),
			flat("partition limit: 1,000 WCU, 3,000 RCU", capacity.AWS.Write), flat("", capacity.AWS.Read)}},
	})
}

func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return commas(int64(v))
	case math.Abs(v) >= 100:
		return commas(int64(math.Round(v)))
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// commas prints n with a comma between thousands (1,000,000).
func commas(n int64) string { return english.Sprint(n) }

// english groups digits as the reports write them.
var english = message.NewPrinter(language.English)

func errorsText(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range m {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v || (kvs[i].v == kvs[j].v && kvs[i].k < kvs[j].k) })
	var parts []string
	for _, e := range kvs {
		parts = append(parts, fmt.Sprintf("%s %s", num(float64(e.v)), e.k))
	}
	return strings.Join(parts, ", ")
}

// Markdown is bench/results/scale.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# One event, %s players: the partition-throughput model\n\n", num(float64(r.Players)))
	p("Written by `make scale` (`go run ./bench/cmd/scale`) on %s, load average %s. ", r.Generated.UTC().Format("2006-01-02 15:04 UTC"), r.LoadAverage)
	p("The model replays what the project's own code did on DynamoDB Local — every DynamoDB call, partition, item and unit, recorded by package `bench/scale/record` — for %s players in virtual time, under AWS's limits. How it works, what it assumes and what it leaves out: [bench/README.md](../README.md#the-partition-throughput-model-make-scale).\n\n", num(float64(r.Players)))
	for _, d := range []*DesignReport{r.Before, r.After} {
		p("- **%s**: %s, recorded at %s and %s players (commit %s, fingerprint %s).", d.Name, recordingSource(d), num(float64(d.Design.Small.Players)),
			num(float64(d.Design.Large.Players)), d.Design.Large.Commit, d.Design.Large.Fingerprint())
		if fs := d.Design.Large.ShardFamilies(); len(fs) > 0 {
			p(" Sharded partitions ({%%K}: one of K): `%s`.", strings.Join(fs, "`, `"))
		}
		if d.Note != "" {
			p(" %s", d.Note)
		}
		p("\n")
	}
	for _, x := range []struct {
		d    Design
		what string
	}{{r.Leagues.Design, fmt.Sprintf("the current code at %d shards, every player in %d leagues (its scoring only)", r.Leagues.Design.Large.Shards, r.Leagues.Leagues)},
		{r.OneShard.Design, "the current code at 1 shard"}} {
		p("- **%s**: %s, recorded at %s and %s players (commit %s, fingerprint %s).\n", x.d.Name, x.what,
			num(float64(x.d.Small.Players)), num(float64(x.d.Large.Players)), x.d.Large.Commit, x.d.Large.Fingerprint())
	}
	p("\n## Headline (bench/results/scale.json)\n\n| figure | before | after | what it is |\n|---|---|---|---|\n")
	fb, fa := r.Before.At.Figures, r.After.At.Figures
	rows := []struct {
		name, what string
		b, a       float64
	}{
		{"score_seconds", "time to score every prediction of the event (all calls), AWS limits", fb.ScoreSeconds, fa.ScoreSeconds},
		{"submit_peak_throttled_requests", "submits of the peak hour that reached a player as an error", float64(fb.SubmitPeakThrottledRequests), float64(fa.SubmitPeakThrottledRequests)},
		{"max_partition_wcu_per_s", "most write units per second asked of one partition, nothing throttled", fb.MaxPartitionWCUPerS, fa.MaxPartitionWCUPerS},
		{"max_partition_rcu_per_s", "most read units per second asked of one partition, nothing throttled", fb.MaxPartitionRCUPerS, fa.MaxPartitionRCUPerS},
		{"card_calls", "DynamoDB calls of a card view (cache miss), own picks not counted", float64(fb.CardCalls), float64(fa.CardCalls)},
		{"leaderboard_page_calls", "calls of a scored event + leaderboard page view", float64(fb.LeaderboardPageCalls), float64(fa.LeaderboardPageCalls)},
		{"standings_page_calls", "calls of a standings page view", float64(fb.StandingsPageCalls), float64(fa.StandingsPageCalls)},
	}
	scoreText := func(d *DesignReport) string {
		if !d.At.Limited[record.LoadScore].Complete {
			return fmt.Sprintf("does not finish (cap %s)", num(d.At.Figures.ScoreSeconds))
		}
		return num(d.At.Figures.ScoreSeconds)
	}
	for i, row := range rows {
		b, a := num(row.b), num(row.a)
		if i == 0 {
			b, a = scoreText(r.Before), scoreText(r.After)
		}
		p("| `%s` | %s | %s | %s |\n", row.name, b, a, row.what)
	}
	h := r.headline()
	p("| `shards` | – | %d | shard count of the events and season recorded (`PICKEM_SCORE_SHARDS`) |\n", h.Shards)
	p("| `score_seconds_20_leagues` | – | %s | `score_seconds` with every player in %d leagues |\n", num(h.ScoreSeconds20Leagues), r.Leagues.Leagues)
	p("| `one_shard_max_players_5min` | – | %s | the largest event (players) scored in < %s at 1 shard |\n", num(float64(h.OneShardMaxPlayers5Min)), minutes(scoreGoal))
	p("\nBusiest partitions: before %s WCU/s (%s), %s RCU/s (%s); after %s WCU/s (%s), %s RCU/s (%s).\n\n",
		num(fb.MaxPartitionWCUPerS), r.Before.At.MaxWCUAt, num(fb.MaxPartitionRCUPerS), r.Before.At.MaxRCUAt,
		num(fa.MaxPartitionWCUPerS), r.After.At.MaxWCUAt, num(fa.MaxPartitionRCUPerS), r.After.At.MaxRCUAt)
	r.targets(&b)
	p("![scoring time and busiest partition against players, before and after](scale.svg)\n\n")
	p("| players | before: score s | before: max WCU/s | before: max RCU/s | after: score s | after: max WCU/s | after: max RCU/s | after, 1 shard: score s |\n|---|---|---|---|---|---|---|---|\n")
	for i := range r.Before.BySize {
		b1, a1, o := r.Before.BySize[i], r.After.BySize[i], "–"
		if i < len(r.OneShard.ScoreBySize) {
			o = num(r.OneShard.ScoreBySize[i].Seconds)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", num(float64(b1.Players)), num(b1.ScoreSeconds), num(b1.MaxPartitionWCUPerS),
			num(b1.MaxPartitionRCUPerS), num(a1.ScoreSeconds), num(a1.MaxPartitionWCUPerS), num(a1.MaxPartitionRCUPerS), o)
	}
	for _, d := range []*DesignReport{r.Before, r.After} {
		d.markdown(&b, r.Players)
		if d == r.After {
			r.paceMarkdown(&b, d.Workload)
		}
	}
	r.leaguesMarkdown(&b)
	r.oneShardMarkdown(&b)
	r.inputs(&b)
	if r.Watchers != nil {
		p("\n%s", r.Watchers.Markdown())
	}
	return b.String()
}

// goal is one of the model's goals, checked on a design at the report's size.
type goal struct {
	Goal, Figure string
	Met          bool
}

// goals checks the goals at the report's number of players on the current code: every
// prediction scored within scoreGoal with no league and with every player in leagues; no
// partition asked more than AWS serves (nothing throttled: the code's own pace and spread);
// no submit of the peak hour reaching a player as an error.
func (r *Report) goals() []goal {
	a := r.After.At
	score, leagues := a.Limited[record.LoadScore], r.Leagues.At.Limited
	f := a.Figures
	sub := a.Limited[record.LoadSubmit]
	return []goal{
		{Goal: fmt.Sprintf("every prediction scored in < %s, no league (AWS limits)", minutes(scoreGoal)), Met: scoredInTime(score),
			Figure: fmt.Sprintf("%s s, complete %v", num(score.Seconds), score.Complete)},
		{Goal: fmt.Sprintf("every prediction scored in < %s, every player in %d leagues (AWS limits)", minutes(scoreGoal), r.Leagues.Leagues), Met: scoredInTime(leagues),
			Figure: fmt.Sprintf("%s s, complete %v", num(leagues.Seconds), leagues.Complete)},
		{Goal: fmt.Sprintf("no partition asked more than %s WCU in a second (every load, nothing throttled)", num(capacity.AWS.Write)), Met: f.MaxPartitionWCUPerS <= capacity.AWS.Write,
			Figure: fmt.Sprintf("%s WCU/s (%s)", num(f.MaxPartitionWCUPerS), a.MaxWCUAt)},
		{Goal: fmt.Sprintf("no partition asked more than %s RCU in a second (every load, nothing throttled)", num(capacity.AWS.Read)), Met: f.MaxPartitionRCUPerS <= capacity.AWS.Read,
			Figure: fmt.Sprintf("%s RCU/s (%s)", num(f.MaxPartitionRCUPerS), a.MaxRCUAt)},
		{Goal: fmt.Sprintf("%s submits in the last hour, 10× peak minute: no error reaches a player", num(float64(r.Players))), Met: f.SubmitPeakThrottledRequests == 0,
			Figure: fmt.Sprintf("%s errors (%s); %s DynamoDB attempts refused (%s throttled, %s conflicting), retried", num(float64(f.SubmitPeakThrottledRequests)),
				errorsText(sub.Errors), num(float64(sub.Throttled+sub.Conflicts)), num(float64(sub.Throttled)), num(float64(sub.Conflicts)))},
	}
}

// targets writes the goals' table for "after".
func (r *Report) targets(b *strings.Builder) {
	fmt.Fprintf(b, "### The goals at %s players, %d shards (after)\n\n| goal | met | figure |\n|---|---|---|\n", num(float64(r.Players)), r.After.Design.Large.Shards)
	for _, t := range r.goals() {
		met := "**no**"
		if t.Met {
			met = "yes"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", t.Goal, met, t.Figure)
	}
	o := r.OneShard
	fmt.Fprintf(b, "\nAt %d shards, every prediction scored in < %s up to %s (the scoring job alone, bisected to %s players).\n",
		r.After.Design.Large.Shards, minutes(scoreGoal), searchText(r.AfterScoring), num(float64(afterScoringStep)))
	fmt.Fprintf(b, "At 1 shard (below): every prediction scored in < %s up to %s", minutes(scoreGoal), searchText(o.Score))
	if o.SubmitProblems == nil {
		fmt.Fprintf(b, "; the peak hour's submits reach no player as an error up to %s", searchText(o.Submits))
	}
	fmt.Fprintf(b, ".\n")
	acct := r.Params.Account()
	fmt.Fprintf(b, "\n**Front door: sized by an account quota raise** (README \"Front door\"). The card, standings and "+
		"leaderboard rushes (1M views in 5 minutes, the peak minute 5×) peak at %s requests/s, over the account's API "+
		"Gateway throttle, which caps every stage of the account in the region (AWS's default: %s/s, bursts of %s; this "+
		"run: %s/s, bursts of %s) — whatever the stage throttle says. The quota raise's what-if: `go run ./bench/cmd/scale "+
		"-account-api-rate 20000 -account-api-burst 10000 -template <the template with the stage throttle at 20,000>`.\n\n",
		num(float64(r.Players)/300*5), num(record.AccountAPIRate), num(record.AccountAPIBurst), num(acct.Rate), num(float64(acct.Burst)))
}

func recordingSource(d *DesignReport) string {
	if d.Name == "before" && d.Note == "" {
		return "the code before the redesign (the committed recordings in bench/scale/testdata)"
	}
	if d.Design.Large.Game {
		return "the current code, the show using every game extra (jokers, a perfect-card bonus, method picks, the tie-breaker answer set before the final pass)"
	}
	return "the current code"
}

func (d *DesignReport) markdown(b *strings.Builder, players int) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## %s: the loads at %s players\n\n", titleCase(d.Name), num(float64(players)))
	p("| load | requests | served | refused or failed (reached the player) | peak-minute errors | p50 / p99 ms | Lambda: most busy / started / read-cache hits | DynamoDB attempts: throttled / conflicting |\n|---|---|---|---|---|---|---|---|\n")
	for _, load := range record.Loads {
		l := d.At.Limited[load]
		lat := "–"
		if l.P50Ms > 0 {
			lat = fmt.Sprintf("%.0f / %.0f", l.P50Ms, l.P99Ms)
		}
		reqs := num(float64(l.Requests))
		if load == record.LoadScore {
			reqs = fmt.Sprintf("1 job, %.0f s", l.Seconds)
		}
		p("| %s | %s | %s | %s | %s | %s | %s / %s / %s | %s: %s / %s |\n", load, reqs, num(float64(l.OK)), errorsText(l.Errors),
			num(float64(l.PeakMinuteErrors)), lat, num(float64(l.MaxLambda)), num(float64(l.Instances)), num(float64(l.CacheHits)),
			num(float64(l.Attempts)), num(float64(l.Throttled)), num(float64(l.Conflicts)))
	}
	p("\nBusiest partitions per load — units per second demanded (nothing throttled) and, under AWS's limits, attempts refused there:\n\n")
	p("| load | partition | demand RCU/s | demand WCU/s | limited: refused attempts | table demand RCU/s / WCU/s | index demand RCU/s / WCU/s |\n|---|---|---|---|---|---|---|\n")
	for _, load := range record.Loads {
		dm, lm := d.At.Demand[load], d.At.Limited[load]
		refused := map[string]int{}
		for _, pp := range lm.Partitions {
			refused[pp.Partition] = pp.Throttled
		}
		for i, pp := range dm.Partitions {
			if i == 3 {
				break
			}
			p("| %s | `%s` | %s | %s | %s | %s / %s | %s / %s |\n", load, pp.Partition, num(pp.RCU), num(pp.WCU), num(float64(refused[pp.Partition])),
				num(dm.TableRCU), num(dm.TableWCU), num(dm.IndexRCU), num(dm.IndexWCU))
		}
		p("| %s | a player's own (`USER#…`) | %s | %s | – | | |\n", load, num(dm.OwnRCU), num(dm.OwnWCU))
	}
	fd := d.Design.Large.FrontDoor
	p("\nScoring (the admin calls scoreEvent until complete; each call's budget %.0f s, function timeout %d s, %d units of work at once):\n\n",
		fd.ScoringDeadline().Seconds(), fd.TimeoutSeconds, d.Workload.Job.Workers)
	p("| run | complete | seconds | scoreEvent calls | seconds before the first unit, per call | units of work done | errors |\n|---|---|---|---|---|---|---|\n")
	for _, run := range []struct {
		name string
		r    *sim.LoadResult
	}{{"no limits", d.At.Demand[record.LoadScore]}, {"AWS limits", d.At.Limited[record.LoadScore]}} {
		r := run.r
		p("| %s | %v | %s | %s | %.1f | %s of %s | %s |\n", run.name, r.Complete, num(r.Seconds), num(float64(r.Invocations)),
			r.PrologueSeconds/float64(max(1, r.Invocations)), num(float64(r.UnitsDone)), num(float64(r.Units)), errorsText(r.Errors))
	}
	p("\n%s\n", d.dominates())
	soundnessMarkdown(b, d.Design, d.Soundness)
	retried := 0
	for _, rec := range []*record.Recording{d.Design.Small, d.Design.Large} {
		for _, lt := range rec.Loads {
			retried += lt.RetriedWhileRecording
		}
	}
	if retried > 0 {
		p("\nWhile recording, %d requests answered UNAVAILABLE by a slow DynamoDB Local (the client's per-attempt timeout) were sent again; the failed tries are not in the recordings.\n", retried)
	}
	cs, cl := d.CrossSmall, d.CrossLarge
	p("\nThe %s-player run predicted from the %s-player recording, against the %s-player recording itself: scoring %.1f s vs %.1f s; busiest partition %s vs %s WCU/s and %s vs %s RCU/s; submit errors %s vs %s.\n",
		num(float64(d.Design.Large.Players)), num(float64(d.Design.Small.Players)), num(float64(d.Design.Large.Players)),
		cs.ScoreSeconds, cl.ScoreSeconds, num(cs.MaxPartitionWCUPerS), num(cl.MaxPartitionWCUPerS), num(cs.MaxPartitionRCUPerS), num(cl.MaxPartitionRCUPerS),
		num(float64(cs.SubmitPeakThrottledRequests)), num(float64(cl.SubmitPeakThrottledRequests)))
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// dominates says, per load, what limits it.
func (d *DesignReport) dominates() string {
	var out []string
	fd := d.Design.Large.FrontDoor
	for _, load := range record.Loads {
		l, dm := d.At.Limited[load], d.At.Demand[load]
		var why []string
		top := ""
		if len(dm.Partitions) > 0 {
			pp := dm.Partitions[0]
			top = fmt.Sprintf("`%s` is asked %s RCU/s and %s WCU/s at peak (limits %g and %g)", pp.Partition, num(pp.RCU), num(pp.WCU), capacity.AWS.Read, capacity.AWS.Write)
		}
		if n := l.Errors["429 API stage throttle"]; n > 0 {
			why = append(why, fmt.Sprintf("the API stage throttle (%g requests/s, burst %d) refuses %s of %s requests", fd.Stage.Rate, fd.Stage.Burst, num(float64(n)), num(float64(l.Requests))))
		}
		if n := l.Errors["429 Lambda concurrency"]; n > 0 {
			why = append(why, fmt.Sprintf("Lambda concurrency (%d) refuses %s", fd.Concurrency(), num(float64(n))))
		}
		if l.Conflicts > 0 {
			why = append(why, fmt.Sprintf("%s transaction attempts conflict on a shared item", num(float64(l.Conflicts))))
		}
		if l.Throttled > 0 {
			why = append(why, fmt.Sprintf("%s DynamoDB attempts are throttled", num(float64(l.Throttled))))
		}
		if top != "" {
			why = append(why, top)
		}
		if load == record.LoadScore {
			per := l.PrologueSeconds / float64(max(1, l.Invocations))
			if l.Complete {
				why = append(why, fmt.Sprintf("%s scoreEvent calls, each reading for %.1f s before its work", num(float64(l.Invocations)), per))
			} else if l.UnitsDone == l.Units {
				why = append(why, fmt.Sprintf("it does not finish in %v: %s scoreEvent calls did every unit of work, but the call that closes the event reads %s MB after its work and never ends within the function's %d s",
					sim.DefaultJobCap, num(float64(l.Invocations)), num(l.CloseMB), fd.TimeoutSeconds))
			} else {
				why = append(why, fmt.Sprintf("it does not finish in %v: %s scoreEvent calls did %s of %s units of work, each reading for %.1f s before its first (budget %.0f s, timeout %d s)",
					sim.DefaultJobCap, num(float64(l.Invocations)), num(float64(l.UnitsDone)), num(float64(l.Units)), per, fd.ScoringDeadline().Seconds(), fd.TimeoutSeconds))
			}
		}
		if len(why) == 0 {
			why = append(why, "nothing limits it")
		}
		out = append(out, fmt.Sprintf("- **%s**: %s.", load, strings.Join(why, "; ")))
	}
	return "What dominates each load:\n\n" + strings.Join(out, "\n")
}

func (r *Report) inputs(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## Inputs\n\n")
	for _, d := range []*DesignReport{r.Before, r.After} {
		rec := d.Design.Large
		fd := rec.FrontDoor
		p("**%s** — front door (deploy/template.yaml): stage throttle %g requests/s, burst %d", d.Name, fd.Stage.Rate, fd.Stage.Burst)
		for k, v := range fd.Routes {
			p("; route %s %g/s burst %d", k, v.Rate, v.Burst)
		}
		ix := fd.IndexRate(table.IndexName)
		p("; Lambda concurrency %d; function timeout %d s; table throughput %s RCU/s, %s WCU/s; index %s RCU/s, %s WCU/s. ", fd.Concurrency(), fd.TimeoutSeconds,
			num(fd.TableRCU()), num(fd.TableWCU()), num(ix.Read), num(ix.Write))
		p("SDK (ddb.NewClient's retryer): %d attempts, backoff up to %v ms, retries %s. ", rec.SDK.MaxAttempts, rec.SDK.BackoffCapMs, retryableText(rec.SDK.Retryable))
		p("The store's own retries (fault probes: every call of one operation failing):\n\n| load | operation | error | store attempts | waits between them (ms) | the player gets |\n|---|---|---|---|---|---|\n")
		for _, sr := range rec.StoreRetries {
			att := fmt.Sprint(sr.Attempts)
			if sr.Unbounded {
				att = fmt.Sprintf("≥ %d (no bound)", record.ProbeCap)
			}
			p("| %s | %s | %s | %s | %s | %s |\n", sr.Load, sr.Op, sr.Error, att, gapsText(sr.GapsMs), orDash(sr.Outcome))
		}
		p("\n")
	}
	l := r.Params.Latency
	p("Assumed latencies (virtual time): GetItem/PutItem/UpdateItem %g ms; Query/BatchGetItem %g ms + %g ms per MB; TransactWriteItems %g ms + %g ms per item; a refused attempt %g ms; the function's own work %g ms per request. Seed %d.\n",
		l.ItemMs, l.ReadMs, l.PerMBMs, l.TxMs, l.TxItemMs, l.FailMs, l.HandlerMs, r.Params.Seed)
}

func retryableText(m map[string]bool) string {
	var yes, no []string
	for k, v := range m {
		if v {
			yes = append(yes, k)
		} else {
			no = append(no, k)
		}
	}
	sort.Strings(yes)
	sort.Strings(no)
	return strings.Join(yes, ", ") + " (not " + strings.Join(no, ", ") + ")"
}

func gapsText(g []float64) string {
	if len(g) == 0 {
		return "–"
	}
	if len(g) <= 4 {
		return fmt.Sprint(g)
	}
	return fmt.Sprintf("%g, %g, … %g", g[0], g[1], g[len(g)-1])
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
