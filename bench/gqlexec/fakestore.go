// Package gqlexec benchmarks GraphQL execution alone: the real gqlgen handler
// (server.NewGraphQL) called with httptest.NewRecorder over Store, an in-memory
// resolvers.Store that returns canned pages. No network, no DynamoDB: what is left is
// parsing (cached), validation, complexity, resolvers, marshalling and JSON.
package gqlexec

import (
	"context"
	"fmt"
	"time"

	"github.com/pickem/api/domain"
)

// Season is the season of the canned data.
const Season = 2025

// Store is a resolvers.Store over canned data: every read returns the same prebuilt
// page, every write returns a canned result. It is safe for concurrent use (read-only).
type Store struct {
	events      []domain.Event
	card        domain.Event
	scored      domain.Event
	leaderboard []domain.Prediction
	standings   []domain.Standing
	user        domain.User
	profile     []domain.Prediction
	prediction  domain.Prediction
	league      domain.League
}

var start = time.Date(2025, 7, 6, 19, 0, 0, 0, time.UTC)

func name(s string) *string { return &s }
func ptr[T any](v T) *T     { return &v }

// card returns a realistic card of n matches (2–4 teams, some championships, results when
// withResults).
func card(eventID string, n int, withResults bool) []domain.Match {
	ms := make([]domain.Match, n)
	for i := range ms {
		teams := make([]domain.Team, 2+i%3)
		for t := range teams {
			teams[t] = domain.Team{Members: []string{fmt.Sprintf("Wrestler %d-%d", i, t)}}
			if i%4 == 0 {
				teams[t].Name = name(fmt.Sprintf("Stable %d-%d", i, t))
				teams[t].Members = append(teams[t].Members, fmt.Sprintf("Partner %d-%d", i, t))
			}
		}
		teams[0].Champion = i%5 == 0
		m := domain.Match{
			ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Position: i + 1,
			Name: fmt.Sprintf("Match %d of %s", i+1, eventID), Points: 5 + 5*(i%5), Preshow: i == 0,
			Championships: []string{}, Teams: teams,
		}
		if i%5 == 0 {
			m.Championships = []string{"World Championship"}
		}
		if withResults {
			m.Result = &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(i % len(teams))}
			m.PickCounts = make([]int, len(teams)) // 100 predictions, counted by scoring
			for t := range m.PickCounts {
				m.PickCounts[t] = 100 / len(teams)
			}
			m.PickCounts[0] += 100 % len(teams)
		}
		ms[i] = m
	}
	return ms
}

func picks(ms []domain.Match, scored bool) []domain.Pick {
	ps := make([]domain.Pick, len(ms))
	for i, m := range ms {
		ps[i] = domain.Pick{MatchID: m.ID, Team: i % len(m.Teams)}
		if scored {
			ps[i].Correct = ptr(i%2 == 0)
		}
	}
	return ps
}

// NewStore builds the canned data: 20 events, a 10-match card, a scored event with a
// leaderboard of 100 rows, standings of 100 rows, a profile with 20 scored predictions and
// a league of 100 members (the standings' players).
func NewStore() *Store {
	s := &Store{}
	for i := range 20 {
		at := start.AddDate(0, 0, -7*i)
		e := domain.Event{ID: fmt.Sprintf("%s-event-%02d", domain.EventDate(at), i), Name: fmt.Sprintf("Event %d", i),
			StartsAt: at, Stored: domain.StateScored, CardVersion: 3}
		if i < 2 {
			e.Stored = domain.StateUpcoming
		}
		s.events = append(s.events, e)
	}
	s.card = s.events[0]
	s.card.Matches = card(s.card.ID, 10, false)
	s.prediction = domain.Prediction{EventID: s.card.ID, Event: domain.EventRef{ID: s.card.ID, Name: s.card.Name, StartsAt: s.card.StartsAt},
		User: domain.UserRef{ID: "u00003", Name: "Player 3"}, Picks: picks(s.card.Matches, false), UpdatedAt: start.AddDate(0, 0, -1)}
	s.scored = s.events[2]
	s.scored.Matches = card(s.scored.ID, 10, true)
	s.scored.ScoredMatches = len(s.scored.Matches)
	for i := range domain.MaxPageSize {
		s.leaderboard = append(s.leaderboard, domain.Prediction{EventID: s.scored.ID,
			Event: domain.EventRef{ID: s.scored.ID, Name: s.scored.Name, StartsAt: s.scored.StartsAt},
			User:  domain.UserRef{ID: fmt.Sprintf("u%05d", i), Name: fmt.Sprintf("Player %d", i)},
			Picks: picks(s.scored.Matches, true), Points: ptr(100 - i), Correct: ptr(10 - i/10), Rank: ptr(i + 1),
			UpdatedAt: s.scored.StartsAt.Add(-time.Hour)})
		s.standings = append(s.standings, domain.Standing{Rank: ptr(i + 1), Season: Season,
			User:   domain.UserRef{ID: fmt.Sprintf("u%05d", i), Name: fmt.Sprintf("Player %d", i)},
			Points: 1000 - i, Correct: 100 - i/2, EventsPlayed: 14})
	}
	s.user = domain.User{ID: "u00007", Name: "Player 7", Standings: []domain.Standing{{Season: Season,
		User: domain.UserRef{ID: "u00007", Name: "Player 7"}, Points: 420, Correct: 60, EventsPlayed: 14}}}
	for i := range 20 {
		e := s.events[i]
		s.profile = append(s.profile, domain.Prediction{EventID: e.ID, Event: domain.EventRef{ID: e.ID, Name: e.Name, StartsAt: e.StartsAt},
			User: domain.UserRef{ID: s.user.ID, Name: s.user.Name}, Picks: picks(s.scored.Matches, true),
			Points: ptr(40 + i), Correct: ptr(5), UpdatedAt: e.StartsAt.Add(-time.Hour)})
	}
	s.league = domain.League{ID: LeagueID, Name: "The Canned League", Owner: s.standings[0].User, MemberCount: len(s.standings), InviteCode: "CANNED42"}
	for i, st := range s.standings {
		s.league.Members = append(s.league.Members, domain.LeagueMember{User: st.User, JoinedAt: start.AddDate(0, -1, 0).Add(time.Duration(i) * time.Minute)})
	}
	return s
}

func page[T any](items []T, first int, prefix string) domain.Page[T] {
	n := min(first, len(items))
	p := domain.Page[T]{Items: items[:n:n], Cursors: make([]string, n), HasNext: n < len(items)}
	for i := range n {
		p.Cursors[i] = fmt.Sprintf("%s-cursor-%04d-eyJpZCI6InUwMDAwMSJ9", prefix, i)
	}
	return p
}

// ListEvents implements resolvers.Store.
func (s *Store) ListEvents(_ context.Context, _ *int, first int, _ string) (domain.Page[domain.Event], error) {
	return page(s.events, first, "events"), nil
}

// GetEvent implements resolvers.Store.
func (s *Store) GetEvent(_ context.Context, id string) (domain.Event, error) {
	if id == s.scored.ID {
		return s.scored, nil
	}
	return s.card, nil
}

// GetEventWithLeaderboard implements resolvers.Store (rows with their picks either way:
// execution never reads what the selection does not ask for).
func (s *Store) GetEventWithLeaderboard(_ context.Context, _ string, first int, _ bool) (domain.Event, domain.Page[domain.Prediction], error) {
	return s.scored, page(s.leaderboard, first, "leaderboard"), nil
}

// EventLeaderboard implements resolvers.Store.
func (s *Store) EventLeaderboard(_ context.Context, _ domain.Event, first int, _ string, _ bool) (domain.Page[domain.Prediction], error) {
	return page(s.leaderboard, first, "leaderboard"), nil
}

// GetPrediction implements resolvers.Store.
func (s *Store) GetPrediction(context.Context, string, string, bool) (domain.Prediction, error) {
	return s.prediction, nil
}

// GetEventState implements resolvers.Store.
func (s *Store) GetEventState(ctx context.Context, id string) (domain.Event, error) {
	ev, err := s.GetEvent(ctx, id)
	ev.Matches = nil
	return ev, err
}

// Standings implements resolvers.Store.
func (s *Store) Standings(_ context.Context, _ int, first int, _ string) (domain.Page[domain.Standing], error) {
	return page(s.standings, first, "standings"), nil
}

// GetUser implements resolvers.Store.
func (s *Store) GetUser(_ context.Context, _ string, first int, _ bool) (domain.User, domain.Page[domain.Prediction], error) {
	return s.user, page(s.profile, first, "predictions"), nil
}

// GetProfile implements resolvers.Store.
func (s *Store) GetProfile(context.Context, string) (domain.User, error) {
	return domain.User{ID: s.user.ID, Name: s.user.Name, Standings: []domain.Standing{}}, nil
}

// UserPredictions implements resolvers.Store.
func (s *Store) UserPredictions(_ context.Context, _ string, first int, _ string, _ bool) (domain.Page[domain.Prediction], error) {
	return page(s.profile, first, "predictions"), nil
}

// SubmitPrediction implements resolvers.Store: it echoes the entry as a fresh prediction.
func (s *Store) SubmitPrediction(_ context.Context, caller domain.UserRef, event string, e domain.Entry) (domain.Prediction, error) {
	p := s.prediction
	p.EventID, p.User, p.Picks, p.Joker, p.Tiebreaker = event, caller, e.Picks, e.Joker, e.Tiebreaker
	return p, nil
}

// ScoreEvent implements resolvers.Store with a canned report.
func (s *Store) ScoreEvent(_ context.Context, event string, dryRun bool) (domain.ScoreReport, error) {
	return domain.ScoreReport{EventID: event, DryRun: dryRun, PredictionsScored: 10000, StandingsChanged: 10000, Transactions: 200}, nil
}

var errReadOnly = domain.Errorf(domain.CodeInternal, "gqlexec: the canned store is read-only")

// Register implements resolvers.Store (unsupported).
func (s *Store) Register(context.Context, string, string) (domain.User, error) {
	return domain.User{}, errReadOnly
}

// CreateEvent implements resolvers.Store (unsupported).
func (s *Store) CreateEvent(context.Context, domain.EventSpec) (domain.Event, error) {
	return domain.Event{}, errReadOnly
}

// UpdateEvent implements resolvers.Store (unsupported).
func (s *Store) UpdateEvent(context.Context, string, domain.EventUpdate) (domain.Event, error) {
	return domain.Event{}, errReadOnly
}

// AddMatch implements resolvers.Store (unsupported).
func (s *Store) AddMatch(context.Context, string, domain.MatchSpec) (domain.Match, error) {
	return domain.Match{}, errReadOnly
}

// UpdateMatch implements resolvers.Store (unsupported).
func (s *Store) UpdateMatch(context.Context, string, string, domain.MatchUpdate) (domain.Match, error) {
	return domain.Match{}, errReadOnly
}

// RemoveMatch implements resolvers.Store (unsupported).
func (s *Store) RemoveMatch(context.Context, string, string) error { return errReadOnly }

// SetTiebreakerAnswer implements resolvers.Store (unsupported).
func (s *Store) SetTiebreakerAnswer(context.Context, string, *int) (domain.Event, error) {
	return domain.Event{}, errReadOnly
}

// ReorderMatches implements resolvers.Store (unsupported).
func (s *Store) ReorderMatches(context.Context, string, []string) ([]domain.Match, error) {
	return nil, errReadOnly
}

// SetResult implements resolvers.Store (unsupported).
func (s *Store) SetResult(context.Context, string, string, *domain.MatchResult) (domain.Match, error) {
	return domain.Match{}, errReadOnly
}

// CardEventID is the id of the canned upcoming event (screen 2).
func (s *Store) CardEventID() string { return s.card.ID }

// ScoredEventID is the id of the canned scored event (screen 3).
func (s *Store) ScoredEventID() string { return s.scored.ID }

// CardMatches is the card of the canned upcoming event (screen 6 picks).
func (s *Store) CardMatches() []domain.Match { return s.card.Matches }
