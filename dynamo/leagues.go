package dynamo

import (
	"context"

	"github.com/pickem/api/domain"
)

// The league use cases are package leagues'; the store calls them.

// CreateLeague creates a league owned (and so far only joined) by caller, with a fresh
// invite code: a consistent read of the caller's profile (for their name), then one
// transaction (see leagues.Leagues.Create). Returns BAD_USER_INPUT for a bad name and
// CONFLICT when the caller is in MaxLeaguesPerPlayer leagues already.
func (s *Store) CreateLeague(ctx context.Context, caller domain.UserRef, name string) (domain.League, error) {
	return s.leagues.Create(ctx, caller, name)
}

// LeagueByInvite returns the league of an invite code as its invite item shows it (one
// consistent GetItem) (see leagues.Leagues.ByInvite). Returns BAD_USER_INPUT for a
// malformed code and NOT_FOUND for an unknown or replaced one.
func (s *Store) LeagueByInvite(ctx context.Context, code string) (domain.League, error) {
	return s.leagues.ByInvite(ctx, code)
}

// JoinLeague makes caller a member of the league of an invite code: a consistent
// BatchGetItem of the code's item and the caller's profile, then one transaction that adds
// one to the league's member count on the condition that the code is still the league's and
// the league has fewer than MaxLeagueMembers members, puts the member's rows on the
// condition that they are not there yet, and adds one to the caller's league count on the
// condition that it is below MaxLeaguesPerPlayer (see leagues.Leagues.Join). Returns
// BAD_USER_INPUT for a malformed code, NOT_FOUND for an unknown or replaced one, CONFLICT
// for a full league or a caller in too many leagues.
func (s *Store) JoinLeague(ctx context.Context, caller domain.UserRef, code string) (domain.League, error) {
	return s.leagues.Join(ctx, caller, code)
}

// GetLeague returns a league and whether user (a user id, "" when signed out) is one of its
// members: one consistent BatchGetItem of the league and the user's member row or, with
// members, one consistent Query of the league's partition (the league and every member row:
// one page up to about 5,000 members), which returns the league with its Members (see
// leagues.Leagues.Get). Returns NOT_FOUND if there is no such league.
func (s *Store) GetLeague(ctx context.Context, id, user string, members bool) (domain.League, bool, error) {
	return s.leagues.Get(ctx, id, user, members)
}

// LeaveLeague removes user from a league: a consistent BatchGetItem of the league and the
// user's member row, then one transaction (see leagues.Leagues.Leave). Returns
// NOT_FOUND unless user is a member.
func (s *Store) LeaveLeague(ctx context.Context, user, id string) error {
	return s.leagues.Leave(ctx, user, id)
}

// RotateInviteCode gives a league a new invite code; the old one stops working at once (see
// leagues.Leagues.RotateInviteCode). Returns NOT_FOUND for an unknown league and FORBIDDEN
// unless user is its owner.
func (s *Store) RotateInviteCode(ctx context.Context, user, id string) (domain.League, error) {
	return s.leagues.RotateInviteCode(ctx, user, id)
}

// UserLeagues returns the leagues user is a member of, by name (then id): a consistent
// Query of their membership rows, then one consistent BatchGetItem of the leagues (at most
// MaxLeaguesPerPlayer keys) (see leagues.Leagues.OfPlayer).
func (s *Store) UserLeagues(ctx context.Context, user string) ([]domain.League, error) {
	return s.leagues.OfPlayer(ctx, user)
}

// LeagueStandings returns the season standings of league l's members (each member's whole
// season; a member without a standing that season has 0 points), highest points first, ties
// by user id, ranked as Standings ranks (see leagues.Leagues.Standings).
func (s *Store) LeagueStandings(ctx context.Context, l domain.League, season, first int, after string) (domain.Page[domain.Standing], error) {
	return s.leagues.Standings(ctx, l, season, first, after)
}

// RenameLeague renames a league (admins: the resolver checks): a consistent read of the
// league, then one transaction — the league (conditioned on its rev), its invite item and
// the audit entry (see leagues.Leagues.Rename). Returns BAD_USER_INPUT for a bad name
// and NOT_FOUND for an unknown league (or one being deleted).
func (s *Store) RenameLeague(ctx context.Context, id, name string) (domain.League, error) {
	return s.leagues.Rename(ctx, id, name)
}

// DeleteLeague deletes a league (admins: the resolver checks), in steps that each read the
// league's partition consistently first, so that a call cut off is finished by the next: 1
// (see leagues.Leagues.Delete). Returns NOT_FOUND for an unknown (or already deleted)
// league.
func (s *Store) DeleteLeague(ctx context.Context, id string) error {
	return s.leagues.Delete(ctx, id)
}
