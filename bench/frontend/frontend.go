// Package frontend holds the request types the benchmarks send and names the frontend's
// documents they send (package operations holds the documents).
package frontend

import "github.com/pickem/api/operations"

// The frontend's documents, by screen.
var (
	EventList        = operations.EventList
	EventCard        = operations.EventCard
	ScoredEvent      = operations.ScoredEvent
	Standings        = operations.Standings
	Profile          = operations.Profile
	SubmitPrediction = operations.SubmitPrediction
	ScoreEvent       = operations.ScoreEvent
	LeagueStandings  = operations.LeagueStandings
)

// Request is the JSON body of a GraphQL POST.
type Request struct {
	OperationName string         `json:"operationName,omitempty"`
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables,omitempty"`
}

// Pick is one element of SubmitPrediction's $picks.
type Pick struct {
	MatchID string `json:"matchId"`
	Team    int    `json:"team"`
}
