package gqlexec

import (
	"context"

	"github.com/pickem/api/domain"
)

// The canned store has no leagues: its league reads find none, its league writes are
// unsupported. (The league screens are measured on DynamoDB Local: bench/cmd/screens.)

var errNoLeague = domain.Errorf(domain.CodeNotFound, "gqlexec: the canned store has no leagues")

// GetLeague implements resolvers.Store: no league.
func (s *Store) GetLeague(context.Context, string, string, bool) (domain.League, bool, error) {
	return domain.League{}, false, errNoLeague
}

// LeagueByInvite implements resolvers.Store: no league.
func (s *Store) LeagueByInvite(context.Context, string) (domain.League, error) {
	return domain.League{}, errNoLeague
}

// UserLeagues implements resolvers.Store: none.
func (s *Store) UserLeagues(context.Context, string) ([]domain.League, error) {
	return []domain.League{}, nil
}

// LeagueStandings implements resolvers.Store: no league.
func (s *Store) LeagueStandings(context.Context, domain.League, int, int, string) (domain.Page[domain.Standing], error) {
	return domain.Page[domain.Standing]{}, errNoLeague
}

// CreateLeague implements resolvers.Store (unsupported).
func (s *Store) CreateLeague(context.Context, domain.UserRef, string) (domain.League, error) {
	return domain.League{}, errReadOnly
}

// JoinLeague implements resolvers.Store (unsupported).
func (s *Store) JoinLeague(context.Context, domain.UserRef, string) (domain.League, error) {
	return domain.League{}, errReadOnly
}

// LeaveLeague implements resolvers.Store (unsupported).
func (s *Store) LeaveLeague(context.Context, string, string) error { return errReadOnly }

// DeleteUser implements resolvers.Store (unsupported).
func (s *Store) DeleteUser(context.Context, string) error { return errReadOnly }

// RenameLeague implements resolvers.Store (unsupported).
func (s *Store) RenameLeague(context.Context, string, string) (domain.League, error) {
	return domain.League{}, errReadOnly
}

// DeleteLeague implements resolvers.Store (unsupported).
func (s *Store) DeleteLeague(context.Context, string) error { return errReadOnly }

// RenamePlayer implements resolvers.Store (unsupported).
func (s *Store) RenamePlayer(context.Context, string, string) (domain.User, error) {
	return domain.User{}, errReadOnly
}

// RotateInviteCode implements resolvers.Store (unsupported).
func (s *Store) RotateInviteCode(context.Context, string, string) (domain.League, error) {
	return domain.League{}, errReadOnly
}
