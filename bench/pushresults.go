package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// PushDelayGoal is the most the 99th percentile of the delay from a mutation's answer to a
// subscriber's receipt may be.
const PushDelayGoal = 500 * time.Millisecond

// PushScreensGoal is the most a screen's GraphQL p50 with the sockets open may be over its
// p50 without them.
const PushScreensGoal = 1.10

// PushDelays summarises the delays of one kind of message (or of all): from the answer of
// the mutation that published it to each subscriber's receipt, 0 when the message came
// first.
type PushDelays struct {
	Kind       string  `json:"kind"`
	Pushes     int     `json:"pushes"`
	Deliveries int     `json:"deliveries"`
	Early      int     `json:"deliveredBeforeTheAnswer"`
	P50        float64 `json:"p50Ms"`
	P99        float64 `json:"p99Ms"`
	Max        float64 `json:"maxMs"`
	// MutationP50 is the median round trip of the mutations (with the subscribers).
	MutationP50 float64 `json:"mutationP50Ms,omitempty"`
}

// PushCPU is the local server's CPU time (user and system, all threads, from /proc) over
// the same mutations with the subscribers and without any socket open; the difference is
// what fanning a message out to the subscribers costs.
type PushCPU struct {
	Pushes int `json:"pushes"` // mutations in each window
	// WithSubscribersMs is the server's CPU per mutation with every subscriber.
	WithSubscribersMs float64 `json:"withSubscribersMsPerPush"`
	// WithoutSocketsMs is the server's CPU per mutation with no socket open.
	WithoutSocketsMs float64 `json:"withoutSocketsMsPerPush"`
	// FanOutMs is the difference: the publisher's CPU per push to every subscriber.
	FanOutMs float64 `json:"fanOutMsPerPush"`
	// PerDeliveryUs is FanOutMs per subscriber, in µs.
	PerDeliveryUs float64 `json:"fanOutUsPerDelivery"`
}

// PushScreen is one screen's GraphQL latency through the local server, without any socket
// open and with every subscriber's socket open (idle).
type PushScreen struct {
	Screen     int     `json:"screen"`
	Name       string  `json:"name"`
	Size       string  `json:"size"`
	N          int     `json:"requestsPerMode"`
	WithoutP50 float64 `json:"withoutSocketsP50Ms"`
	WithP50    float64 `json:"withSocketsP50Ms"`
	Ratio      float64 `json:"ratioP50"`
}

// PushResults is what RunPush measured: push.json holds it, push.md renders it.
type PushResults struct {
	Generated time.Time   `json:"generated"`
	Seconds   float64     `json:"seconds"`
	Machine   Machine     `json:"machine"`
	Options   PushOptions `json:"options"`
	Loading   LoadInfo    `json:"loading"`
	// OpenFileLimit is the benchmark process's open-file limit during the run.
	OpenFileLimit uint64 `json:"openFileLimit"`
	// SubscribeSeconds is how long opening and subscribing every socket took, per cycle.
	SubscribeSeconds []float64    `json:"subscribeSeconds"`
	Event            string       `json:"event"`
	Channel          string       `json:"channel"`
	Delays           []PushDelays `json:"delays"` // by kind, then all
	CPU              PushCPU      `json:"cpu"`
	Screens          []PushScreen `json:"screens"`
	Goals            []Goal       `json:"goals"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile returns the q quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(0, int(math.Ceil(q*float64(len(sorted))))-1)]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return percentile(s, 0.5)
}

// summariseDelays is one row of PushResults.Delays.
func summariseDelays(kind string, pushes, early int, ds, took []time.Duration) PushDelays {
	s := slices.Clone(ds)
	slices.Sort(s)
	out := PushDelays{Kind: kind, Pushes: pushes, Deliveries: len(s), Early: early,
		P50: ms(percentile(s, 0.5)), P99: ms(percentile(s, 0.99))}
	if len(s) > 0 {
		out.Max = ms(s[len(s)-1])
	}
	if len(took) > 0 {
		out.MutationP50 = ms(median(took))
	}
	return out
}

// summarise fills the results from a finished run.
func (res *PushResults) summarise(r *pushRun) {
	res.Event, res.Channel, res.SubscribeSeconds = r.ev.id, r.ev.channel, r.subscribeSeconds
	pushes, early := 0, 0
	var took []time.Duration
	for _, k := range pushKinds {
		s := r.kinds[k]
		if s == nil {
			continue
		}
		res.Delays = append(res.Delays, summariseDelays(string(k), s.pushes, s.early, s.delays, s.took))
		pushes, early = pushes+s.pushes, early+s.early
		took = append(took, s.took...)
	}
	all := summariseDelays("all", pushes, early, r.allDelays(), took)
	res.Delays = append(res.Delays, all)

	c := PushCPU{Pushes: r.stepsWith}
	if r.stepsWith > 0 && r.stepsAlone > 0 {
		c.WithSubscribersMs = ms(r.cpuWith) / float64(r.stepsWith)
		c.WithoutSocketsMs = ms(r.cpuAlone) / float64(r.stepsAlone)
		c.FanOutMs = c.WithSubscribersMs - c.WithoutSocketsMs
		c.PerDeliveryUs = 1000 * c.FanOutMs / float64(r.opts.Subscribers)
	}
	res.CPU = c

	for i, p := range r.probes {
		s := PushScreen{Screen: p.screen, Name: p.name, Size: p.size, N: len(r.with[i]),
			WithoutP50: ms(median(r.without[i])), WithP50: ms(median(r.with[i]))}
		s.Ratio = ratio(s.WithP50, s.WithoutP50)
		res.Screens = append(res.Screens, s)
	}
	res.Goals = res.goals()
}

func (res *PushResults) goals() []Goal {
	var gs []Goal
	n := res.Options.Subscribers
	if len(res.Delays) > 0 {
		all := res.Delays[len(res.Delays)-1]
		gs = append(gs, Goal{
			Goal:   fmt.Sprintf("p99 delay from a mutation's answer to each of %d subscribers' receipt ≤ %d ms (every push)", n, PushDelayGoal.Milliseconds()),
			Met:    all.Deliveries > 0 && all.P99 <= ms(PushDelayGoal),
			Detail: fmt.Sprintf("p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d deliveries of %d pushes", all.P50, all.P99, all.Max, all.Deliveries, all.Pushes),
		})
	}
	worst, at := 0.0, ""
	var over []string
	for _, s := range res.Screens {
		if s.Ratio > worst {
			worst, at = s.Ratio, fmt.Sprintf("screen %d, %s", s.Screen, s.Size)
		}
		if s.Ratio > PushScreensGoal {
			over = append(over, fmt.Sprintf("screen %d (%s) %.2f× (%.2f vs %.2f ms)", s.Screen, s.Size, s.Ratio, s.WithP50, s.WithoutP50))
		}
	}
	if at != "" {
		detail := fmt.Sprintf("worst %.2f× (%s)", worst, at)
		if len(over) > 0 {
			detail += "; over: " + strings.Join(over, "; ")
		}
		gs = append(gs, Goal{
			Goal:   fmt.Sprintf("GraphQL p50 of every screen with %d sockets open ≤ %.2f× its p50 without", n, PushScreensGoal),
			Met:    len(over) == 0,
			Detail: detail,
		})
	}
	return gs
}

// Markdown renders the results.
func (res *PushResults) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	o := res.Options
	p("# Push benchmark results\n\n")
	p("Written by `make bench` (`go run ./bench/cmd/push`); do not edit. Generated %s in %.0f s on %d CPUs (%s), %s. Load average before/after: %s / %s (a shared machine).\n\n",
		res.Generated.UTC().Format(time.RFC3339), res.Seconds, res.Machine.CPUs, res.Machine.CPUModel, res.Machine.GoVersion, res.Machine.LoadAvgBefore, res.Machine.LoadAvgAfter)
	p("The local server (package `local`, built and run as a child process: its realtime hub, handler and store wired as `make run` wires them) on DynamoDB Local; %d WebSockets on 127.0.0.1 (open-file limit %d) speak AppSync Events' protocol to it, each subscribed to the channel of event `%s` (`%s`, its `liveChannel`). ",
		o.Subscribers, res.OpenFileLimit, res.Event, res.Channel)
	p("%d cycles of two modes, alternating which comes first (with, without; without, with; …): with every socket open — the screens, then the admin mutations, each sent through GraphQL and waited for until every subscriber has its message — and without any socket — the same screens and mutations. ", o.Cycles)
	p("A mode's mutations: %d `setResult`, one `setTiebreakerAnswer`, one `scoreEvent` completing a live pass (%d predictions); the first mode with sockets opens with the lock (`updateEvent` to BROADCAST). ", o.ResultsPerCycle, o.Predictions)
	p("The subscribers, the admin client, the server and DynamoDB Local share the machine's cores: a delay includes the subscriber goroutines' scheduling. Opening and subscribing %d sockets took %s s.\n\n", o.Subscribers, floats(res.SubscribeSeconds))

	p("## Goals\n\n| goal | met | where it stands |\n|---|---|---|\n")
	for _, g := range res.Goals {
		mark := "yes"
		if !g.Met {
			mark = "**no**"
		}
		p("| %s | %s | %s |\n", g.Goal, mark, g.Detail)
	}

	p("\n## Delay from the mutation's answer to each subscriber's receipt\n\n")
	p("Measured from the moment the admin client has read the mutation's whole answer; a message that arrived before it counts as 0 (\"before the answer\"). Latencies in ms.\n\n")
	p("| message | pushes | deliveries | before the answer | p50 | p99 | max | mutation p50 |\n|---|---|---|---|---|---|---|---|\n")
	for _, d := range res.Delays {
		kind := "`" + d.Kind + "`"
		if d.Kind == "all" {
			kind = "**all**"
		}
		p("| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f |\n", kind, d.Pushes, d.Deliveries, d.Early, d.P50, d.P99, d.Max, d.MutationP50)
	}

	c := res.CPU
	p("\n## The publisher's CPU per push\n\n")
	p("The local server's CPU time (user and system, every thread: `/proc/<pid>/stat`, 10 ms ticks) over the same %d mutations with the %d subscribers and with no socket open; the difference is what the hub's fan-out costs.\n\n", c.Pushes, o.Subscribers)
	p("| with %d subscribers, per push | without sockets, per mutation | fan-out per push | fan-out per delivery |\n|---|---|---|---|\n", o.Subscribers)
	p("| %.2f ms | %.2f ms | %.2f ms | %.1f µs |\n", c.WithSubscribersMs, c.WithoutSocketsMs, c.FanOutMs, c.PerDeliveryUs)

	p("\n## The screens with and without the sockets open\n\n")
	p("Each screen is the frontend's document (bench/frontend) sent to the local server over HTTP (keep-alive) as a signed-in player, %d times per cycle and mode after %d warm-up rounds, round robin; the sockets are open and subscribed but idle while the screens are measured. p50 in ms.\n\n", o.Scale.Iterations, o.Scale.Warmup)
	p("| # | screen | size | requests per mode | p50 without sockets | p50 with %d sockets | ×p50 |\n|---|---|---|---|---|---|---|\n", o.Subscribers)
	for _, s := range res.Screens {
		p("| %d | %s | %s | %d | %.2f | %.2f | %.2f |\n", s.Screen, s.Name, s.Size, s.N, s.WithoutP50, s.WithP50, s.Ratio)
	}
	return b.String()
}

func floats(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%.1f", f)
	}
	return strings.Join(parts, " / ")
}
