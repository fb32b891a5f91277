package scale

import (
	"time"

	"github.com/pickem/api/bench/frontend"
)

// Load names, in the order the model runs them.
const (
	LoadSubmit      = "submit"      // every player submits picks in the last hour before the show
	LoadCard        = "card"        // every player opens the card in the 5 minutes before the show
	LoadScore       = "score"       // the admin scores the event (every budgeted scoreEvent call)
	LoadStandings   = "standings"   // every player opens the season standings after scoring
	LoadLeaderboard = "leaderboard" // every player opens the scored event and its leaderboard
)

// Loads lists the loads in order.
var Loads = []string{LoadSubmit, LoadCard, LoadScore, LoadStandings, LoadLeaderboard}

// Screen is the request a player sends in a per-player load: a frontend document, sent as
// the SPA sends it. The recorder sends exactly this through the real handler.
type Screen struct {
	Method   string // "POST" (a GraphQL POST body)
	Route    string // the API Gateway route key it hits, for route throttles
	Document string
	// SignedIn sends the player's bearer token.
	SignedIn bool
}

// Screens are the requests of the per-player loads. A redesign that changes what the
// frontend sends (e.g. a public card over GET with a persisted query hash) changes it here
// and in bench/frontend.
var Screens = map[string]Screen{
	LoadSubmit:      {Method: "POST", Route: "POST /graphql", Document: frontend.SubmitPrediction, SignedIn: true},
	LoadCard:        {Method: "POST", Route: "POST /graphql", Document: frontend.EventCard, SignedIn: true},
	LoadStandings:   {Method: "POST", Route: "POST /graphql", Document: frontend.Standings, SignedIn: true},
	LoadLeaderboard: {Method: "POST", Route: "POST /graphql", Document: frontend.ScoredEvent, SignedIn: true},
}

// PageSize is the `first` of the standings and leaderboard screens.
const PageSize = 50

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
	LoadSubmit:      {Window: time.Hour, PeakFactor: 10, PeakLast: true},
	LoadCard:        {Window: 5 * time.Minute, PeakFactor: 5, PeakLast: true},
	LoadStandings:   {Window: 5 * time.Minute, PeakFactor: 5},
	LoadLeaderboard: {Window: 5 * time.Minute, PeakFactor: 5},
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
