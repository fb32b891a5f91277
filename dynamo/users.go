package dynamo

import (
	"context"

	"github.com/pickem/api/domain"
)

// The use cases of players' accounts are package users'; the store calls them.

// Register creates the caller's profile or renames it, then brings the name up to date on
// every copy of it (predictions, standings, league rows); a rename cut off halfway is
// finished by the next Register of the same user (see users.Accounts.Register). Returns
// BAD_USER_INPUT for a bad id or name.
func (s *Store) Register(ctx context.Context, id, name string) (domain.User, error) {
	return s.accounts.Register(ctx, id, name)
}

// GetProfile returns a user's profile alone (id and name; no standings, no predictions):
// one eventually consistent GetItem of the profile item, for a selection that asks for
// nothing else (`me { id name }`). NOT_FOUND if the user never registered, as GetUser.
func (s *Store) GetProfile(ctx context.Context, id string) (domain.User, error) {
	return s.accounts.Profile(ctx, id)
}

// RenamePlayer renames a player's profile (admins: the resolver checks) as Register does,
// with an audit entry (see users.Accounts.RenamePlayer). Renaming to the same name writes
// nothing. Returns BAD_USER_INPUT for a bad id or name and NOT_FOUND for a player without
// a profile.
func (s *Store) RenamePlayer(ctx context.Context, id, name string) (domain.User, error) {
	return s.accounts.Rename(ctx, id, name)
}

// DeleteUser deletes a player's account: it leaves their leagues, deletes each prediction
// and standing with what counts it, rebuilds the rank tables it touched and deletes the
// profile; scored results of others do not change, and a call cut off halfway is finished
// by the next (see users.Accounts.DeleteUser).
func (s *Store) DeleteUser(ctx context.Context, user string) error {
	return s.accounts.Delete(ctx, user)
}
