// Package scale is the partition-throughput model: it says what one event with a million
// players does on AWS from what the project's code did on DynamoDB Local at two small
// numbers of players (package record). A Design is two recordings of one version of the
// code; the model checks that they extrapolate (the same pattern per player at both sizes,
// the scoring job's reads fitted as lines in the players and the work), lays them out at
// any number of players (a sim.Workload), runs every load through the simulation (package
// sim) with and without AWS's limits, searches for the largest event a design serves, and
// writes the report of `make scale` (Report: bench/results/scale.{md,json,svg}).
package scale

import (
	"fmt"
	"math"
	"strings"

	"github.com/pickem/api/bench/scale/record"
	"github.com/pickem/api/bench/scale/sim"
)

// Design is one version of the code as the model sees it: two recordings of it at
// different numbers of players. The smaller one only serves to check that the larger
// one extrapolates (the per-player pattern is the same at both sizes).
type Design struct {
	Name         string
	Small, Large *record.Recording
}

// pageBytes is DynamoDB's limit on what one Query page reads.
const pageBytes = 1 << 20

// Soundness compares a design's two recordings: per-player loads must cost the same per
// request at both sizes, and the scoring job's work must be proportional to the players
// and its per-call reads fit a line in the players and the work left (fitReads).
type Soundness struct {
	Rows []SoundnessRow
	// Problems lists what does not extrapolate; empty when the model may extrapolate.
	Problems []string
}

// SoundnessRow is one figure of a load at the two sizes.
type SoundnessRow struct {
	Load, What   string
	Small, Large float64 // per request (per-player loads), or as the row says (scoring)
	Class        string  // "per player", "constant", "proportional", "fitted", or what is wrong
}

// tolerance is the relative difference allowed between the two sizes' per-player
// figures (item sizes differ a little with names and picks; pages round up).
const tolerance = 0.10

func near(a, b float64) bool {
	return math.Abs(a-b) <= tolerance*math.Max(math.Abs(a), math.Abs(b))+1e-9
}

// requestStats are per-request means of a per-player load.
type requestStats struct {
	calls, stages, rcu, wcu float64
	hot                     string  // the shared partition most requests touch
	hotShare                float64 // the share of requests touching it
	shared                  float64 // shared partitions touched by any request
}

func statsOf(r *record.Recording, load string) requestStats {
	lt := r.Loads[load]
	var s requestStats
	touch := map[string]int{}
	total := 0
	for _, t := range lt.Templates {
		total += t.Count
		seen := map[string]bool{}
		for _, st := range t.Stages {
			s.stages += float64(t.Count) / float64(len(t.Stages)) // mean over requests, below
			for _, ci := range st {
				c := r.Calls[ci]
				s.calls += float64(t.Count)
				s.rcu += float64(t.Count) * c.RCU()
				s.wcu += float64(t.Count) * c.WCU()
				for _, a := range c.Accesses {
					if !a.Own() { // a family of shards counts once (record.Family)
						seen[a.Index+"|"+record.Family(a.PK)] = true
					}
				}
			}
		}
		for p := range seen {
			touch[p] += t.Count
		}
	}
	if total == 0 {
		return s
	}
	n := float64(total)
	s.calls, s.rcu, s.wcu = s.calls/n, s.rcu/n, s.wcu/n
	s.stages = 0
	for _, t := range lt.Templates {
		s.stages += float64(t.Count*len(t.Stages)) / n
	}
	s.shared = float64(len(touch))
	for p, c := range touch {
		if share := float64(c) / n; share > s.hotShare || (share == s.hotShare && p < s.hot) {
			s.hot, s.hotShare = p, share
		}
	}
	return s
}

// check compares the design's recordings, every load.
func (d Design) check() Soundness { return d.checkLoads(record.Loads...) }

// checkLoads compares the design's recordings of loads.
func (d Design) checkLoads(loads ...string) Soundness {
	var s Soundness
	if d.Small == nil || d.Large == nil || d.Small.Players >= d.Large.Players {
		s.Problems = append(s.Problems, "need two recordings of the design, the second with more players")
		return s
	}
	if d.Small.Shards != d.Large.Shards {
		s.Problems = append(s.Problems, fmt.Sprintf("recorded at %d and %d shards", d.Small.Shards, d.Large.Shards))
	}
	for _, load := range loads {
		a, b := d.Small.Loads[load], d.Large.Loads[load]
		if a == nil || b == nil {
			s.Problems = append(s.Problems, fmt.Sprintf("%s: not recorded at both sizes", load))
			continue
		}
		for _, rec := range []*record.Recording{d.Small, d.Large} {
			if n := sumErrors(rec.Loads[load]); n > 0 {
				s.Problems = append(s.Problems, fmt.Sprintf("%s at %d players: %d requests failed while recording (%v)", load, rec.Players, n, rec.Loads[load].Errors))
			}
		}
		if load == record.LoadScore {
			s.checkJob(d)
			continue
		}
		sa, sb := statsOf(d.Small, load), statsOf(d.Large, load)
		rows := []SoundnessRow{
			{Load: load, What: "calls per request", Small: sa.calls, Large: sb.calls},
			{Load: load, What: "read units per request", Small: sa.rcu, Large: sb.rcu},
			{Load: load, What: "write units per request", Small: sa.wcu, Large: sb.wcu},
			{Load: load, What: "share of requests on the busiest shared partition", Small: sa.hotShare, Large: sb.hotShare},
			{Load: load, What: "shared partitions touched", Small: sa.shared, Large: sb.shared},
		}
		for i, r := range rows {
			r.Class = "per player"
			ok := near(r.Small, r.Large)
			switch i {
			case 3: // a sample share: allow four standard deviations at the small size
				sd := math.Sqrt(sa.hotShare * (1 - sa.hotShare) / float64(max(1, d.Small.Loads[load].Requests)))
				ok = math.Abs(r.Small-r.Large) <= 4*sd+0.02
			case 4: // shards may be missed at the small size; a count growing with players
				// means a key holds a player id the model does not recognise
				ok = r.Large <= 2*r.Small || r.Large-r.Small <= 8
			}
			if !ok {
				r.Class = "differs"
				s.Problems = append(s.Problems, fmt.Sprintf("%s: %s is %.3g at %d players but %.3g at %d", load, r.What,
					r.Small, d.Small.Players, r.Large, d.Large.Players))
			}
			s.Rows = append(s.Rows, r)
		}
	}
	return s
}

func sumErrors(lt *record.LoadTrace) int {
	n := 0
	for _, c := range lt.Errors {
		n += c
	}
	return n
}

// At extrapolates the design to players from its larger recording: per-player loads keep
// the recorded request shapes; the scoring job gets players/N times the work units and
// its per-call reads as fitted (sim.Job). It refuses a design that does not extrapolate.
func (d Design) At(players int) (*sim.Workload, Soundness, error) {
	s := d.check()
	if len(s.Problems) > 0 {
		return nil, s, fmt.Errorf("scale: %s does not extrapolate: %s", d.Name, strings.Join(s.Problems, "; "))
	}
	return extrapolate(d, d.Large, players), s, nil
}

// scoringAt is At for the scoring job alone: it checks only the scoring load of the
// recordings, and the workload it returns is for sim.Run(w, record.LoadScore, …).
func (d Design) scoringAt(players int) (*sim.Workload, Soundness, error) {
	s := d.checkLoads(record.LoadScore)
	if len(s.Problems) > 0 {
		return nil, s, fmt.Errorf("scale: the scoring of %s does not extrapolate: %s", d.Name, strings.Join(s.Problems, "; "))
	}
	return extrapolate(d, d.Large, players), s, nil
}

// crossCheck extrapolates the smaller recording to the larger one's size, and the larger
// one to its own size, for comparing what the model makes of each.
func (d Design) crossCheck() (fromSmall, fromLarge *sim.Workload, err error) {
	s := d.check()
	if len(s.Problems) > 0 {
		return nil, nil, fmt.Errorf("scale: %s does not extrapolate: %s", d.Name, strings.Join(s.Problems, "; "))
	}
	return extrapolate(d, d.Small, d.Large.Players), extrapolate(d, d.Large, d.Large.Players), nil
}

// extrapolate replays r (one of d's recordings) at players. What the code does besides
// its calls (retries, the front door, how many work units it runs at once) is the larger
// recording's: the smaller one has no probes, and may have had fewer units than workers.
func extrapolate(d Design, r *record.Recording, players int) *sim.Workload {
	rc := *r
	rc.SDK, rc.StoreRetries, rc.FrontDoor = d.Large.SDK, d.Large.StoreRetries, d.Large.FrontDoor
	w := &sim.Workload{Players: players, Calls: append([]record.Call(nil), r.Calls...), Requests: map[string][]record.Template{}, Rec: &rc}
	for load, lt := range r.Loads {
		if load != record.LoadScore {
			w.Requests[load] = lt.Templates
		}
	}
	w.Job = jobAt(d, r, w, players)
	return w
}
