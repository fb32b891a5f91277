package push

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pickem/api/domain"
)

// MaxEventBytes bounds an encoded message: the UTF-8 bytes of the event string. AppSync
// Events meters a message in 5 KB units; 5,000 is the stricter reading of 5 KB. The
// largest message the constructors can build (the longest ids, names of MaxUserNameLen
// four-byte characters, LeaderboardRows rows) fits with room to spare.
const MaxEventBytes = 5000

// LeaderboardRows is how many leaderboard rows a scoring message carries at most: the
// first rows the leaderboard shows.
const LeaderboardRows = 10

// Kind names what a message reports.
type Kind string

// Message kinds, one per kind of commit that publishes.
const (
	// KindResult: a match's result was set or cleared (the first result also makes the
	// event BROADCAST).
	KindResult Kind = "RESULT"
	// KindState: the event's state changed.
	KindState Kind = "STATE"
	// KindTiebreaker: the tie-breaker answer was set or cleared. The message does not
	// carry the answer, which stays hidden until a scoring pass counts it.
	KindTiebreaker Kind = "TIEBREAKER"
	// KindScoring: a scoring pass completed (live, final, or a re-score after a
	// correction).
	KindScoring Kind = "SCORING"
)

// Head is what every message carries: the event it is about and the event's live version
// after the commit the message reports. Clients drop a message whose version is at or
// below the one they hold.
type Head struct {
	EventID string
	Version int
}

// header is the JSON of Head and the kind: the members every message has.
type header struct {
	EventID string `json:"eventId"`
	Kind    Kind   `json:"kind"`
	Version int    `json:"version"`
}

type resultMessage struct {
	header
	MatchID string            `json:"matchId"`
	Result  *resultJSON       `json:"result"` // null: cleared
	State   domain.EventState `json:"state"`
}

type resultJSON struct {
	Outcome domain.Outcome        `json:"outcome"`
	Winner  *int                  `json:"winner,omitempty"`
	Method  *domain.VictoryMethod `json:"method,omitempty"`
}

type stateMessage struct {
	header
	State domain.EventState `json:"state"`
}

type scoringMessage struct {
	header
	State         domain.EventState `json:"state"`
	ScoredMatches int               `json:"scoredMatches"`
	Leaderboard   []rowJSON         `json:"leaderboard"`
}

type rowJSON struct {
	UserID string `json:"userId"`
	Name   string `json:"name"`
	Points int    `json:"points"`
	Rank   int    `json:"rank"`
	Place  int    `json:"place"`
}

// Result encodes a RESULT message: matchID's result after the commit (nil: cleared) and
// the event's state.
func Result(h Head, matchID string, result *domain.MatchResult, state domain.EventState) (string, error) {
	if matchID == "" {
		return "", fmt.Errorf("push: result message for %s: no match id", h.EventID)
	}
	if err := checkState(h, state); err != nil {
		return "", err
	}
	m := resultMessage{header: header{h.EventID, KindResult, h.Version}, MatchID: matchID, State: state}
	if result != nil {
		m.Result = &resultJSON{Outcome: result.Outcome, Winner: result.Winner, Method: result.Method}
	}
	return encode(h, m)
}

// State encodes a STATE message: the event's state after the commit.
func State(h Head, state domain.EventState) (string, error) {
	if err := checkState(h, state); err != nil {
		return "", err
	}
	return encode(h, stateMessage{header: header{h.EventID, KindState, h.Version}, State: state})
}

// Tiebreaker encodes a TIEBREAKER message: the answer changed (its value is not sent).
func Tiebreaker(h Head) (string, error) {
	return encode(h, header{h.EventID, KindTiebreaker, h.Version})
}

// Scoring encodes a SCORING message: the event's state and scoredMatches after the pass,
// and the leaderboard's first rows in the order it shows them (empty when it shows none).
// Only the first LeaderboardRows rows are sent; each must have its points, rank and place.
func Scoring(h Head, state domain.EventState, scoredMatches int, rows []domain.Prediction) (string, error) {
	if err := checkState(h, state); err != nil {
		return "", err
	}
	m := scoringMessage{header: header{h.EventID, KindScoring, h.Version}, State: state, ScoredMatches: scoredMatches,
		Leaderboard: make([]rowJSON, 0, min(len(rows), LeaderboardRows))}
	for _, p := range rows[:min(len(rows), LeaderboardRows)] {
		if p.Points == nil || p.Rank == nil || p.Place == nil {
			return "", fmt.Errorf("push: scoring message for %s: row of %s lacks points, rank or place", h.EventID, p.User.ID)
		}
		m.Leaderboard = append(m.Leaderboard, rowJSON{UserID: p.User.ID, Name: p.User.Name, Points: *p.Points, Rank: *p.Rank, Place: *p.Place})
	}
	return encode(h, m)
}

// checkState refuses a state clients do not know.
func checkState(h Head, state domain.EventState) error {
	switch state {
	case domain.StateUpcoming, domain.StateBroadcast, domain.StateScored:
		return nil
	}
	return fmt.Errorf("push: message for %s: unknown state %q", h.EventID, state)
}

// encode checks the head and returns m's JSON, refusing one over MaxEventBytes. HTML
// characters are not escaped: names keep their bytes.
func encode(h Head, m any) (string, error) {
	if h.EventID == "" || h.Version < 1 {
		return "", fmt.Errorf("push: message head %+v: want an event id and a version of at least 1", h)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return "", fmt.Errorf("push: encode message for %s: %w", h.EventID, err)
	}
	event := string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if len(event) > MaxEventBytes {
		return "", fmt.Errorf("push: message for %s has %d bytes, over %d", h.EventID, len(event), MaxEventBytes)
	}
	return event, nil
}
