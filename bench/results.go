package bench

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pickem/api/dynamo/scoring"
)

// ScreenResult is one screen at one size and shard count: its DynamoDB cost (from the
// response's extensions.dynamodb), and its latency through the stack and its floor's,
// measured interleaved in one loop, on DynamoDB Local as it is and in latency mode.
type ScreenResult struct {
	Engine      string         `json:"engine"`
	Shards      int            `json:"shards"`
	Screen      int            `json:"screen"`
	Name        string         `json:"name"`
	Size        string         `json:"size"`
	Predictions int            `json:"predictionsPerEvent,omitempty"`
	N           int            `json:"iterations"`
	Calls       int            `json:"calls"`
	CallsMin    int            `json:"callsMin"` // over the measured iterations of both modes
	CallsMax    int            `json:"callsMax"`
	Operations  map[string]int `json:"operations"`
	RCU         *float64       `json:"readCapacityUnits"`
	WCU         *float64       `json:"writeCapacityUnits"`
	FloorCalls  int            `json:"floorCalls"`
	FloorItems  int            `json:"floorItems"`
	FloorRCU    *float64       `json:"floorReadCapacityUnits"`
	FloorWCU    *float64       `json:"floorWriteCapacityUnits"`
	Stack       latency        `json:"stack"`
	Floor       latency        `json:"floor"`
	RatioP50    float64        `json:"ratioP50"`
	RatioP99    float64        `json:"ratioP99"`
	// The same in latency mode (Options.Latency added to every call on each way).
	StackLatency    latency `json:"stackLatencyMode"`
	FloorLatency    latency `json:"floorLatencyMode"`
	RatioP50Latency float64 `json:"ratioP50Latency"`
	RatioP99Latency float64 `json:"ratioP99Latency"`
}

// ScoringResult is screen 7 for one size and shard count: one run of scoreEvent on fresh
// data through the admin mutation, a second run that must change nothing, and the bare
// floor on two copies of the event.
type ScoringResult struct {
	Shards int `json:"shards"`
	// Game: the event uses every game extra (Options.Game).
	Game                bool           `json:"game"`
	Predictions         int            `json:"predictions"`
	Seconds             float64        `json:"seconds"`
	CPUSeconds          float64        `json:"cpuSeconds"` // this process (API and client)
	Calls               int            `json:"calls"`
	Operations          map[string]int `json:"operations"`
	RCU                 *float64       `json:"readCapacityUnits"`
	WCU                 *float64       `json:"writeCapacityUnits"`
	Transactions        int            `json:"transactions"`
	MaxTransactionItems int            `json:"maxTransactionItems"`
	RerunSeconds        float64        `json:"rerunSeconds"`
	RerunCalls          int            `json:"rerunCalls"`
	RerunOperations     map[string]int `json:"rerunOperations"`
	RerunChanged        int            `json:"rerunChanged"`
	FloorCalls          int            `json:"floorCalls"`
	FloorRuns           []FloorRun     `json:"floorRuns"`
	FloorReadSeconds    float64        `json:"floorReadSeconds"` // mean of FloorRuns
	FloorWriteSeconds   float64        `json:"floorWriteSeconds"`
	FloorCPUSeconds     float64        `json:"floorCpuSeconds"`
	FloorSeconds        float64        `json:"floorSeconds"`
	RatioWrites         float64        `json:"ratioToFloorWrites"`
	RatioFloor          float64        `json:"ratioToFloor"`
}

// FloorRun is one run of the bare scoring floor.
type FloorRun struct {
	Calls        int     `json:"calls"`
	ReadSeconds  float64 `json:"readSeconds"`
	WriteSeconds float64 `json:"writeSeconds"`
	CPUSeconds   float64 `json:"cpuSeconds"`
}

// LoadResult is one screen under concurrent load from vegeta.
type LoadResult struct {
	Shards     int     `json:"shards"`
	Screen     int     `json:"screen"`
	Name       string  `json:"name"`
	Size       string  `json:"size"`
	Workers    int     `json:"workers"`
	Seconds    float64 `json:"seconds"`
	Requests   int     `json:"requests"`
	Throughput float64 `json:"requestsPerSecond"`
	Success    float64 `json:"success"`
	P50        float64 `json:"p50Ms"`
	P99        float64 `json:"p99Ms"`
}

// GoBench is one line of `go test -bench` output.
type GoBench struct {
	Name        string  `json:"name"`
	NsPerOp     float64 `json:"nsPerOp"`
	CPUNsPerOp  float64 `json:"cpuNsPerOp,omitempty"`
	BytesPerOp  float64 `json:"bytesPerOp"`
	AllocsPerOp float64 `json:"allocsPerOp"`
}

// LoadInfo says what the data set holds and what loading it cost.
type LoadInfo struct {
	Events       int     `json:"events"`
	Players      int     `json:"players"`
	Predictions  int     `json:"predictions"`
	Items        int     `json:"items"`
	BatchWrites  int     `json:"batchWriteCalls"`
	Seconds      float64 `json:"seconds"`
	ScoreSeconds float64 `json:"scoreSeconds"` // scoring the small events while loading
}

// Machine describes where the run happened.
type Machine struct {
	CPUs          int    `json:"cpus"`
	CPUModel      string `json:"cpuModel"`
	GoVersion     string `json:"goVersion"`
	LoadAvgBefore string `json:"loadAvgBefore"`
	LoadAvgAfter  string `json:"loadAvgAfter"`
	// GC is the Go GC setting the process (API, SDK clients, load generator) ran with.
	GC string `json:"gc,omitempty"`
	// DynamoDBLocalJavaOpts are the JVM flags DynamoDB Local ran with.
	DynamoDBLocalJavaOpts string `json:"dynamoDBLocalJavaOpts,omitempty"`
}

// Goal is one goal of the benchmark and where the run stands.
type Goal struct {
	Goal   string `json:"goal"`
	Met    bool   `json:"met"`
	Detail string `json:"detail"`
}

// Results is everything one run measured: results.json holds it, results.md renders it.
type Results struct {
	Generated time.Time       `json:"generated"`
	Seconds   float64         `json:"seconds"`
	Machine   Machine         `json:"machine"`
	Options   Options         `json:"options"`
	Loading   LoadInfo        `json:"loading"`
	Screens   []ScreenResult  `json:"screens"`
	Scoring   []ScoringResult `json:"scoring"`
	Load      []LoadResult    `json:"load"`
	GoBench   []GoBench       `json:"goBench"`
	Goals     []Goal          `json:"goals"`
}

// ParseGoBench reads `go test -bench` output (other lines are skipped).
func ParseGoBench(r io.Reader) ([]GoBench, error) {
	var out []GoBench
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		b := GoBench{Name: f[0]}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("go bench line %q: %w", sc.Text(), err)
			}
			switch f[i+1] {
			case "ns/op":
				b.NsPerOp = v
			case "cpu-ns/op":
				b.CPUNsPerOp = v
			case "B/op":
				b.BytesPerOp = v
			case "allocs/op":
				b.AllocsPerOp = v
			}
		}
		out = append(out, b)
	}
	return out, sc.Err()
}

func machine() Machine {
	m := Machine{GoVersion: goVersion(), LoadAvgBefore: LoadAverage()}
	m.CPUs = numCPU()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// LoadAverage is the machine's 1, 5 and 15 minute load averages ("" if unknown).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// RefreshGoals re-evaluates the goals (after adding GoBench results).
func (r *Results) RefreshGoals() { r.Goals = r.goals() }

// LatencyGoal is the most the full stack may take over its floor, at the median, in
// latency mode.
const LatencyGoal = 1.15

// ScoringGoal is the most scoreEvent may take over its floor's writes.
const ScoringGoal = 1.5

// goals evaluates the benchmark's goals on r.
func (r *Results) goals() []Goal {
	var gs []Goal
	add := func(met bool, detail, format string, a ...any) {
		gs = append(gs, Goal{Goal: fmt.Sprintf(format, a...), Met: met, Detail: detail})
	}
	ms := fmt.Sprintf("%g ms", float64(r.Options.Latency.Microseconds())/1000)
	for _, k := range r.Options.Shards {
		var over []string
		worst, at := 0.0, ""
		for _, s := range r.screens(k, 0) {
			if s.RatioP50Latency > worst {
				worst, at = s.RatioP50Latency, fmt.Sprintf("screen %d, %s", s.Screen, s.Size)
			}
			if s.RatioP50Latency > LatencyGoal {
				over = append(over, fmt.Sprintf("screen %d (%s) %.2f× (%.2f vs %.2f ms)", s.Screen, s.Size, s.RatioP50Latency, s.StackLatency.P50, s.FloorLatency.P50))
			}
		}
		if at == "" {
			continue
		}
		detail := fmt.Sprintf("worst %.2f× (%s)", worst, at)
		if len(over) > 0 {
			detail += "; over: " + strings.Join(over, "; ")
		}
		add(len(over) == 0, detail, "%s: full-stack p50 ≤ %.2f× its floor in latency mode (%s each way), screens 1–6 and 8, every size", shardsText(k), LatencyGoal, ms)
	}

	for _, b := range r.GoBench {
		if !strings.Contains(b.Name, "Standings100") {
			continue
		}
		gc := "Go's default GC settings"
		if strings.Contains(b.Name, "DeployedGC") {
			gc = "the GC settings of deploy/template.yaml"
		}
		add(b.CPUNsPerOp > 0 && b.CPUNsPerOp < 1e6, fmt.Sprintf("%.0f µs/op CPU, %.0f µs/op wall, %.0f allocs/op (%s)", b.CPUNsPerOp/1e3, b.NsPerOp/1e3, b.AllocsPerOp, b.Name),
			"GraphQL execution of a 100-row standings page < 1 ms CPU (%s)", gc)
	}

	var bad []string
	for _, s := range r.Screens {
		if s.CallsMin != s.CallsMax || s.Calls != s.FloorCalls || cu(s.RCU) != cu(s.FloorRCU) || cu(s.WCU) != cu(s.FloorWCU) {
			bad = append(bad, fmt.Sprintf("%s, screen %d (%s): %s calls, RCU %s, WCU %s; floor %d calls, RCU %s, WCU %s",
				shardsText(s.Shards), s.Screen, s.Size, callsText(s), cu(s.RCU), cu(s.WCU), s.FloorCalls, cu(s.FloorRCU), cu(s.FloorWCU)))
		}
	}
	if len(r.Screens) > 0 {
		detail := "every screen makes its floor's calls and reads and writes its capacity"
		if len(bad) > 0 {
			detail = strings.Join(bad, "; ")
		}
		add(len(bad) == 0, detail, "DynamoDB calls and capacity per screen at its floor (screens 1–6 and 8, every size, both shard counts)")
	}

	// The call counts the design promises.
	check := func(k, screen int, filter func(ScreenResult) bool, want func(ScreenResult) (int, string), goal string) {
		rows := r.screens(k, screen)
		var figures, off []string
		for _, s := range rows {
			if filter != nil && !filter(s) {
				continue
			}
			n, what := want(s)
			figures = append(figures, fmt.Sprintf("%s: %s", s.Size, callsText(s)))
			if s.CallsMax > n || s.CallsMin != s.CallsMax {
				off = append(off, fmt.Sprintf("%s: %s calls (%s), want %s", s.Size, callsText(s), ops(s.Operations), what))
			}
		}
		if len(figures) == 0 {
			return
		}
		detail := strings.Join(figures, "; ")
		if len(off) > 0 {
			detail = strings.Join(off, "; ")
		}
		add(len(off) == 0, detail, "%s", goal)
	}
	one := func(ScreenResult) (int, string) { return 1, "1 Query" }
	check(1, 3, nil, one, "1 shard: the scored event + top 50 is ONE Query (GSI_SK BETWEEN CardFirst AND ScoreLast, Limit 1 + card + 50 + 1), at every size")
	check(1, 4, nil, one, "1 shard: a standings page is ONE Query (BETWEEN SeasonInfo AND ScoreLast, Limit first + 2)")
	for _, k := range r.Options.Shards {
		check(k, 2, nil, func(ScreenResult) (int, string) { return 2, "≤ 2: the card's Query and the caller's GetItem" },
			fmt.Sprintf("%s: the card + my picks is at most 2 calls in every state (UPCOMING, BROADCAST, SCORED)", shardsText(k)))
		check(k, 8, nil, func(s ScreenResult) (int, string) {
			var shown, members int
			fmt.Sscanf(s.Size, "%d of %d members", &shown, &members)
			n := 1 + (members+99)/100
			return n, fmt.Sprintf("1 + ⌈%d/100⌉ = %d", members, n)
		}, fmt.Sprintf("%s: the league page costs 1 + ⌈members/100⌉ calls", shardsText(k)))
	}

	for _, s := range r.Scoring {
		if s.Predictions != r.Options.Scale.maxSize() {
			continue
		}
		add(s.RatioWrites <= ScoringGoal,
			fmt.Sprintf("%.2fs vs %.2fs of paced bare writes (runs before and after: %s) = %.2f× (reads and writes: %.2fs, %.2f×); this process's CPU %.2fs vs the floor's %.2fs",
				s.Seconds, s.FloorWriteSeconds, floorRuns(s), s.RatioWrites, s.FloorSeconds, s.RatioFloor, s.CPUSeconds, s.FloorCPUSeconds),
			"%s: scoreEvent of %d predictions%s ≤ %.1f× its floor (the same writes bare, paced per partition as the store paces)", shardsText(s.Shards), s.Predictions, gameText(s.Game), ScoringGoal)
	}
	return gs
}

// gameText says an event uses every game extra.
func gameText(game bool) string {
	if game {
		return " (every game extra)"
	}
	return ""
}

// shardsText is "1 shard" or "k shards".
func shardsText(k int) string {
	if k == 1 {
		return "1 shard"
	}
	return fmt.Sprintf("%d shards", k)
}

// screens are the rows of r at k shards, of screen (0: all).
func (r *Results) screens(k, screen int) []ScreenResult {
	var out []ScreenResult
	for _, s := range r.Screens {
		if s.Shards == k && (screen == 0 || s.Screen == screen) {
			out = append(out, s)
		}
	}
	return out
}

func callsText(s ScreenResult) string {
	if s.CallsMin != s.CallsMax {
		return fmt.Sprintf("%d–%d", s.CallsMin, s.CallsMax)
	}
	return strconv.Itoa(s.Calls)
}

func floorRuns(s ScoringResult) string {
	var runs []string
	for _, f := range s.FloorRuns {
		runs = append(runs, fmt.Sprintf("%.2fs", f.WriteSeconds))
	}
	return strings.Join(runs, ", ")
}

func cu(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

func ops(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// Markdown renders the results.
func (r *Results) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	sc := r.Options.Scale
	ms := float64(r.Options.Latency.Microseconds()) / 1000
	p("# Benchmark results\n\n")
	p("Written by `make bench` (`go run ./bench/cmd/screens`); do not edit. Generated %s in %.0f s on %d CPUs (%s), %s. ",
		r.Generated.UTC().Format(time.RFC3339), r.Seconds, r.Machine.CPUs, r.Machine.CPUModel, r.Machine.GoVersion)
	p("Load average before/after: %s / %s (a shared machine: compare latencies only within one run; the stack/floor ratios, measured interleaved, are the robust figures).",
		r.Machine.LoadAvgBefore, r.Machine.LoadAvgAfter)
	if r.Machine.DynamoDBLocalJavaOpts != "" {
		p(" DynamoDB Local ran with `%s`.", r.Machine.DynamoDBLocalJavaOpts)
	}
	if r.Machine.GC != "" {
		p(" Go's GC settings: %s.", r.Machine.GC)
	}
	p("\n\n")
	p("Every screen is the frontend's document (bench/frontend) sent over HTTP (127.0.0.1, keep-alive) to the real handler (`server.New`, cost extension on) as a signed-in player; ")
	p("its floor is the bare SDK call(s) the screen cannot avoid (bench/floor.go), timed in the same loop, alternating which goes first, %d times after %d warm-up rounds. ", sc.Iterations, sc.Warmup)
	p("Each screen is measured twice: on DynamoDB Local as it is, and in **latency mode**, where every DynamoDB call of the stack and of the floor crosses a proxy (toxiproxy) that adds %g ms to the request and %g ms to the answer, about an in-region call on AWS. Latencies in ms.\n\n", ms, ms)
	var seasons []string
	for i, k := range r.Options.Shards {
		seasons = append(seasons, fmt.Sprintf("%s: %d", shardsText(k), r.Options.Now.Year()-i))
	}
	p("Data: %d players; per shard count a season (%s) of past events of 8–12 matches and 6 open events, with a standing for every player; events with %s predictions measured; %d events, %d predictions in all; %d items loaded in %.0f s.\n",
		r.Loading.Players, strings.Join(seasons, ", "), sc.sizesText(), r.Loading.Events, r.Loading.Predictions, r.Loading.Items, r.Loading.Seconds)

	p("\n## Goals\n\n| goal | met | where it stands |\n|---|---|---|\n")
	for _, g := range r.Goals {
		mark := "yes"
		if !g.Met {
			mark = "**no**"
		}
		p("| %s | %s | %s |\n", g.Goal, mark, g.Detail)
	}

	for _, k := range r.Options.Shards {
		rows := r.screens(k, 0)
		if len(rows) == 0 {
			continue
		}
		p("\n## Screens 1–6 and 8 at %s\n\n", shardsText(k))
		p("| # | screen | size | calls | operations | RCU | WCU | floor calls | floor items | floor RCU | floor WCU | p50 | floor p50 | ×p50 | latency mode p50 | floor p50 | ×p50 | p99 | floor p99 | ×p99 |\n")
		p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range rows {
			p("| %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | **%.2f** | %.2f | %.2f | %.2f |\n",
				s.Screen, s.Name, s.Size, callsText(s), ops(s.Operations), cu(s.RCU), cu(s.WCU), s.FloorCalls, s.FloorItems, cu(s.FloorRCU), cu(s.FloorWCU),
				s.Stack.P50, s.Floor.P50, s.RatioP50, s.StackLatency.P50, s.FloorLatency.P50, s.RatioP50Latency,
				s.StackLatency.P99, s.FloorLatency.P99, s.RatioP99Latency)
		}
	}
	p("\n(p99 columns: latency mode.)\n")
	if r.PlotSVG() != "" {
		p("\n![p50 latency in latency mode vs predictions per event, screens 2 and 3](latency.svg)\n")
	}

	if len(r.Scoring) > 0 {
		p("\n## Screen 7: scoreEvent (one run per size on fresh data, then a re-run)\n\n")
		p("Through the admin mutation over HTTP, on DynamoDB Local as it is. The floor (bench/scoring.go) reads every prediction and standing and writes the store's own writes for each player (`scoring.ScoringWrites`), 50 players per transaction, one worker per shard, paced per partition exactly as the store paces (`scoring.PartitionWriteUnits` = %d WCU a second per partition; no implementation can write a partition faster on AWS); it runs on two identical copies of the event, before and after the stack's run, averaged. CPU s is this process's CPU time (the API and its SDK client, or the floor's client).\n\n", scoring.PartitionWriteUnits)
		p("| shards | predictions | game extras | time s | CPU s | calls | operations | tx | max tx items | floor calls | floor reads s | floor writes s (before / after) | floor CPU s | × writes | × floor | re-run s | re-run calls | re-run changed |\n")
		p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range r.Scoring {
			var runs []string
			for _, f := range s.FloorRuns {
				runs = append(runs, fmt.Sprintf("%.2f", f.WriteSeconds))
			}
			p("| %d | %d | %t | %.2f | %.2f | %d | %s | %d | %d | %d | %.2f | %.2f (%s) | %.2f | %.2f | %.2f | %.2f | %d | %d |\n",
				s.Shards, s.Predictions, s.Game, s.Seconds, s.CPUSeconds, s.Calls, ops(s.Operations), s.Transactions, s.MaxTransactionItems,
				s.FloorCalls, s.FloorReadSeconds, s.FloorWriteSeconds, strings.Join(runs, " / "), s.FloorCPUSeconds, s.RatioWrites, s.RatioFloor, s.RerunSeconds, s.RerunCalls, s.RerunChanged)
		}
	}

	if len(r.Load) > 0 {
		p("\n## Throughput under load (vegeta, closed loop, DynamoDB Local as it is)\n\n")
		p("Load generator, API and engine share the machine's cores: these compare screens, they are not production capacity.\n\n")
		p("| shards | # | screen | size | workers | s | requests | req/s | p50 | p99 |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, l := range r.Load {
			p("| %d | %d | %s | %s | %d | %.1f | %d | %.0f | %.2f | %.2f |\n", l.Shards, l.Screen, l.Name, l.Size, l.Workers, l.Seconds, l.Requests, l.Throughput, l.P50, l.P99)
		}
	}

	if len(r.GoBench) > 0 {
		p("\n## GraphQL execution alone (`go test -bench ./bench/gqlexec`, canned store, no network)\n\n")
		p("The gqlgen handler (`server.NewGraphQL`) called with httptest.NewRecorder over canned pages. cpu-ns/op is the process's CPU time per op. BenchmarkGraphQL runs with Go's default GC settings, BenchmarkGraphQLDeployedGC with the Lambda function's (GOGC and GOMEMLIMIT in deploy/template.yaml).\n\n")
		p("| benchmark | µs/op | CPU µs/op | B/op | allocs/op |\n|---|---|---|---|---|\n")
		for _, g := range r.GoBench {
			p("| %s | %.1f | %.1f | %.0f | %.0f |\n", g.Name, g.NsPerOp/1e3, g.CPUNsPerOp/1e3, g.BytesPerOp, g.AllocsPerOp)
		}
	}
	return b.String()
}
