package record

import "github.com/pickem/api/bench/frontend"

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

// Screens are the requests of the per-player loads, as bench/frontend sends them: a change
// of what the frontend sends (e.g. a public card over GET with a persisted query hash) is
// made in both.
var Screens = map[string]Screen{
	LoadSubmit:      {Method: "POST", Route: "POST /graphql", Document: frontend.SubmitPrediction, SignedIn: true},
	LoadCard:        {Method: "POST", Route: "POST /graphql", Document: frontend.EventCard, SignedIn: true},
	LoadStandings:   {Method: "POST", Route: "POST /graphql", Document: frontend.Standings, SignedIn: true},
	LoadLeaderboard: {Method: "POST", Route: "POST /graphql", Document: frontend.ScoredEvent, SignedIn: true},
}

// pageSize is the `first` of the standings and leaderboard screens.
const pageSize = 50
