package sim

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/pickem/api/bench/scale/record"
)

// profile is when a per-player load's requests arrive: one request per player over Window,
// cut into minutes, the peak minute PeakFactor times the average minute and the other
// minutes sharing the rest evenly (never below zero).
type profile struct {
	Window     time.Duration
	PeakFactor float64
	// PeakLast puts the peak minute at the end of the window (just before the show);
	// otherwise it opens the window (just after scoring).
	PeakLast bool
}

// profiles are the per-player loads: 1M submits in the last hour with the peak minute 10×
// the average; 1M card views in the 5 minutes before the show with the peak minute 5× (so
// all of them in one minute); the standings and leaderboard rushes after scoring shaped
// like the card views.
var profiles = map[string]profile{
	record.LoadSubmit:      {Window: time.Hour, PeakFactor: 10, PeakLast: true},
	record.LoadCard:        {Window: 5 * time.Minute, PeakFactor: 5, PeakLast: true},
	record.LoadStandings:   {Window: 5 * time.Minute, PeakFactor: 5},
	record.LoadLeaderboard: {Window: 5 * time.Minute, PeakFactor: 5},
}

// minuteShares returns the fraction of the requests arriving in each minute.
func (p profile) minuteShares() []float64 {
	n := int(p.Window / time.Minute)
	if n < 1 {
		n = 1
	}
	shares := make([]float64, n)
	peak := min(1, p.PeakFactor/float64(n))
	rest := 0.0
	if n > 1 {
		rest = (1 - peak) / float64(n-1)
	}
	for i := range shares {
		shares[i] = rest
	}
	if p.PeakLast {
		shares[n-1] = peak
	} else {
		shares[0] = peak
	}
	return shares
}

// arrivals returns the arrival times of n requests following profile, spread at random
// within each minute.
func (s *sim) arrivals(n int, prof profile) ([]int64, int64, int64) {
	shares := prof.minuteShares()
	out := make([]int64, 0, n)
	var peakFrom, peakTo int64
	best := -1.0
	left := n
	for m, share := range shares {
		k := int(math.Round(share * float64(n)))
		if m == len(shares)-1 {
			k = left
		}
		k = min(k, left)
		left -= k
		from := int64(m) * 60 * µsPerSecond
		if share > best {
			best, peakFrom, peakTo = share, from, from+60*µsPerSecond
		}
		start := len(out)
		for i := 0; i < k; i++ {
			out = append(out, from+s.rng.Int64N(60*µsPerSecond))
		}
		slices.Sort(out[start:])
	}
	return out, peakFrom, peakTo
}

// runRequests simulates one per-player load: every player sends one request.
func (s *sim) runRequests(load string, prof profile) *LoadResult {
	s.res = &LoadResult{Load: load, Players: s.w.Players, Limits: s.p.Limits, Errors: map[string]int{}, Seconds: prof.Window.Seconds()}
	templates := s.w.Requests[load]
	var counts [][2]int
	for i, t := range templates {
		counts = append(counts, [2]int{i, t.Count})
	}
	order := interleave(counts, 1)
	times, peakFrom, peakTo := s.arrivals(s.w.Players, prof)
	fd := s.w.Rec.FrontDoor
	route := fd.Stage
	if t, ok := fd.Routes[record.Screens[load].Route]; ok {
		route = t
	}
	stage, account := newBucket(route), newBucket(s.p.Account())
	timeout := int64(fd.TimeoutSeconds) * µsPerSecond
	if timeout <= 0 || timeout > record.GatewayTimeoutSeconds*µsPerSecond {
		timeout = record.GatewayTimeoutSeconds * µsPerSecond
	}
	fail := func(arrived int64, cause string) {
		s.res.Errors[cause]++
		if arrived >= peakFrom && arrived < peakTo {
			s.res.PeakMinuteErrors++
		}
	}
	var next func(i int)
	next = func(i int) {
		if i+1 < len(times) {
			s.at(times[i+1], func() { next(i + 1) })
		}
		s.res.Requests++
		arrived := s.now
		if s.p.Limits {
			switch {
			case !stage.take(s.now):
				fail(arrived, "429 API stage throttle")
				return
			case !account.take(s.now):
				fail(arrived, "429 API account throttle")
				return
			case s.lambda >= fd.Concurrency():
				fail(arrived, "429 Lambda concurrency")
				return
			}
		}
		s.lambda++
		s.res.MaxLambda = max(s.res.MaxLambda, s.lambda)
		inst := s.instance()
		tpl := templates[order[i%len(order)]]
		stages, fills := s.cached(inst, tpl.Stages)
		// A request still running at the function's timeout fails then (its function
		// instance is counted busy until its calls end: they rarely take that long).
		end := func(code string) {
			s.lambda--
			s.idle = append(s.idle, inst)
			if code == "" {
				for _, key := range fills {
					inst.filled[key] = s.now
				}
			}
			if code == "" && s.p.Limits && s.now-arrived > timeout {
				code = "504 function timeout"
			}
			if code != "" {
				fail(arrived, code)
				return
			}
			s.res.OK++
			s.res.latencies = append(s.res.latencies, s.now-arrived)
		}
		shift := s.rng.IntN(s.period)
		s.after(ms(s.p.Latency.HandlerMs), func() { s.runStages(load, stages, shift, false, nil, end) })
	}
	if len(times) > 0 && len(order) > 0 {
		s.at(times[0], func() { next(0) })
	}
	s.run()
	return s.finish()
}

// instance returns an idle function instance, the most recently used, or a new one.
func (s *sim) instance() *instance {
	if n := len(s.idle); n > 0 {
		inst := s.idle[n-1]
		s.idle = s.idle[:n-1]
		return inst
	}
	s.res.Instances++
	return &instance{filled: map[string]int64{}}
}

// cached returns a request's stages without the calls that fill read-cache entries inst
// holds fresh (filled less than the TTL ago), but for their reads of the player's own
// items (ownPart), and the entries the request fills.
func (s *sim) cached(inst *instance, stages [][]int) ([][]int, []string) {
	ttl := int64(s.w.Rec.FrontDoor.ReadCacheTTLSeconds * µsPerSecond)
	var fills []string
	var out [][]int
	for _, st := range stages {
		var keep []int
		for _, id := range st {
			key := s.w.Calls[id].Cache
			if key == "" || ttl <= 0 {
				keep = append(keep, id)
				continue
			}
			if t, ok := inst.filled[key]; ok && s.now-t < ttl {
				s.res.CacheHits++
				if own, ok := s.w.ownPart(id); ok {
					keep = append(keep, own)
				}
				continue
			}
			keep = append(keep, id)
			if !slices.Contains(fills, key) {
				fills = append(fills, key)
			}
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out, fills
}

// interleave lists round(count×f) copies of each id, spread evenly.
func interleave(calls [][2]int, f float64) []int {
	type slot struct {
		at float64
		id int
	}
	var slots []slot
	for _, c := range calls {
		n := int(math.Round(float64(c[1]) * f))
		for k := 0; k < n; k++ {
			slots = append(slots, slot{(float64(k) + 0.5) / float64(n), c[0]})
		}
	}
	sort.SliceStable(slots, func(i, j int) bool { return slots[i].at < slots[j].at })
	out := make([]int, len(slots))
	for i, s := range slots {
		out[i] = s.id
	}
	return out
}
