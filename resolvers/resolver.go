// Package resolvers implements the GraphQL schema: thin resolvers that read arguments and
// the caller, call one store method and return.
package resolvers

import (
	"context"
	"time"

	"github.com/pickem/api/domain"
)

// Store is what the resolvers need from storage. *dynamo.Store implements it. Errors carry
// domain codes; NOT_FOUND from a query becomes null where the schema allows it.
type Store interface {
	ListEvents(ctx context.Context, season *int, first int, after string) (domain.Page[domain.Event], error)
	GetEvent(ctx context.Context, id string) (domain.Event, error)
	// GetEventWithLeaderboard and Leaderboard read the rows without their picks (Picks
	// empty) unless picks is set.
	GetEventWithLeaderboard(ctx context.Context, id string, first int, picks bool) (domain.Event, domain.Page[domain.Prediction], error)
	// EventLeaderboard reads a page of the leaderboard of ev, the event as the caller read
	// it (its counted tie-breaker answer orders the rows); it reads nothing of the event.
	EventLeaderboard(ctx context.Context, ev domain.Event, first int, after string, picks bool) (domain.Page[domain.Prediction], error)
	// GetPrediction reads the prediction's rank only with withRank.
	GetPrediction(ctx context.Context, user, event string, withRank bool) (domain.Prediction, error)
	// GetEventState is an event without its card from a consistent read (who may see picks).
	GetEventState(ctx context.Context, id string) (domain.Event, error)
	Standings(ctx context.Context, season, first int, after string) (domain.Page[domain.Standing], error)
	GetUser(ctx context.Context, id string, first int, own bool) (domain.User, domain.Page[domain.Prediction], error)
	// GetProfile is a user's id and name alone (no standings, no predictions, no ranks).
	GetProfile(ctx context.Context, id string) (domain.User, error)
	UserPredictions(ctx context.Context, id string, first int, after string, own bool) (domain.Page[domain.Prediction], error)

	Register(ctx context.Context, id, name string) (domain.User, error)
	SubmitPrediction(ctx context.Context, caller domain.UserRef, event string, entry domain.Entry) (domain.Prediction, error)
	CreateEvent(ctx context.Context, spec domain.EventSpec) (domain.Event, error)
	UpdateEvent(ctx context.Context, id string, u domain.EventUpdate) (domain.Event, error)
	AddMatch(ctx context.Context, event string, spec domain.MatchSpec) (domain.Match, error)
	UpdateMatch(ctx context.Context, event, match string, u domain.MatchUpdate) (domain.Match, error)
	RemoveMatch(ctx context.Context, event, match string) error
	ReorderMatches(ctx context.Context, event string, ids []string) ([]domain.Match, error)
	SetResult(ctx context.Context, event, match string, r *domain.MatchResult) (domain.Match, error)
	SetTiebreakerAnswer(ctx context.Context, event string, answer *int) (domain.Event, error)
	ScoreEvent(ctx context.Context, event string, dryRun bool) (domain.ScoreReport, error)
	AuditLog(ctx context.Context, event string, first int, after string) (domain.Page[domain.AuditEntry], error)

	GetLeague(ctx context.Context, id, user string, members bool) (domain.League, bool, error)
	LeagueByInvite(ctx context.Context, code string) (domain.League, error)
	UserLeagues(ctx context.Context, user string) ([]domain.League, error)
	LeagueStandings(ctx context.Context, l domain.League, season, first int, after string) (domain.Page[domain.Standing], error)
	CreateLeague(ctx context.Context, caller domain.UserRef, name string) (domain.League, error)
	JoinLeague(ctx context.Context, caller domain.UserRef, code string) (domain.League, error)
	LeaveLeague(ctx context.Context, user, id string) error
	RotateInviteCode(ctx context.Context, user, id string) (domain.League, error)
	DeleteUser(ctx context.Context, user string) error
	// Moderation (admins; the store writes an entry in the moderation audit log).
	RenameLeague(ctx context.Context, id, name string) (domain.League, error)
	DeleteLeague(ctx context.Context, id string) error
	RenamePlayer(ctx context.Context, id, name string) (domain.User, error)
}

// Resolver is the root resolver.
type Resolver struct {
	Store Store
	// Now is the clock for event state (default time.Now).
	Now func() time.Time
	// LiveNamespace is the channel namespace of the events' live channels
	// (Event.liveChannel); empty: push is off and liveChannel is null.
	LiveNamespace string
}

func (r *Resolver) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}
