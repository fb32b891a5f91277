package gqlexec

import (
	"context"

	"github.com/pickem/api/domain"
)

// The canned store has one league, LeagueID, of 100 members (the caller among them), with
// their standings; its invite code finds nothing and its league writes are unsupported.

// LeagueID is the canned league.
const LeagueID = "league-canned"

var errNoLeague = domain.Errorf(domain.CodeNotFound, "gqlexec: the canned store has one league, %s", LeagueID)

// GetLeague implements resolvers.Store: the canned league, with its members if asked; every
// caller is a member.
func (s *Store) GetLeague(_ context.Context, id, _ string, members bool) (domain.League, bool, error) {
	if id != LeagueID {
		return domain.League{}, false, errNoLeague
	}
	l := s.league
	if !members {
		l.Members = nil
	}
	return l, true, nil
}

// LeagueByInvite implements resolvers.Store: no league.
func (s *Store) LeagueByInvite(context.Context, string) (domain.League, error) {
	return domain.League{}, errNoLeague
}

// UserLeagues implements resolvers.Store: none.
func (s *Store) UserLeagues(context.Context, string) ([]domain.League, error) {
	return []domain.League{}, nil
}

// LeagueStandings implements resolvers.Store: the first rows of the canned league's.
func (s *Store) LeagueStandings(_ context.Context, l domain.League, _ int, first int, _ string) (domain.Page[domain.Standing], error) {
	if l.ID != LeagueID {
		return domain.Page[domain.Standing]{}, errNoLeague
	}
	return page(s.standings[:len(s.league.Members)], first, "league"), nil
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
