package scale

import (
	"time"

	"github.com/pickem/api/bench/scale/record"
)

// Profile is when a per-player load's requests arrive: one request per player over Window,
// cut into minutes, the peak minute PeakFactor times the average minute and the other
// minutes sharing the rest evenly (never below zero).
type Profile struct {
	Window     time.Duration
	PeakFactor float64
	// PeakLast puts the peak minute at the end of the window (just before the show);
	// otherwise it opens the window (just after scoring).
	PeakLast bool
}

// Profiles are the loads: 1M submits in the last hour with the peak minute 10×
// the average; 1M card views in the 5 minutes before the show with the peak minute 5× (so
// all of them in one minute); the standings and leaderboard rushes after scoring shaped
// like the card views.
var Profiles = map[string]Profile{
	record.LoadSubmit:      {Window: time.Hour, PeakFactor: 10, PeakLast: true},
	record.LoadCard:        {Window: 5 * time.Minute, PeakFactor: 5, PeakLast: true},
	record.LoadStandings:   {Window: 5 * time.Minute, PeakFactor: 5},
	record.LoadLeaderboard: {Window: 5 * time.Minute, PeakFactor: 5},
}

// minuteShares returns the fraction of the requests arriving in each minute.
func (p Profile) minuteShares() []float64 {
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
