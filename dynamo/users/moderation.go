package users

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// Rename renames a player's profile (admins: the resolver checks) as Register does
// — the profile and the audit entry in one transaction, then the name on every copy of it
// (predictions, standings, league rows: propagateName, finished by the player's next
// register if cut off). Renaming to the same name writes nothing. Returns BAD_USER_INPUT
// for a bad id or name and NOT_FOUND for a player without a profile.
func (a *Accounts) Rename(ctx context.Context, id, name string) (domain.User, error) {
	uid, err := table.ParseUserID(id)
	if err != nil {
		return domain.User{}, err
	}
	if name, err = domain.CleanPlayerName(name); err != nil {
		return domain.User{}, err
	}
	defer a.cache.ForgetPlayerPages(false) // the name is on leaderboard and standings rows
	row, err := a.setUserName(ctx, uid, name, func(old string) (types.TransactWriteItem, error) {
		return a.audit(ctx, domain.AuditEntry{Action: domain.ActionRenamePlayer, EventID: domain.AuditLogModeration,
			Summary: fmt.Sprintf("player %s renamed from %q to %q", uid, old, name)})
	})
	if err != nil {
		return domain.User{}, err
	}
	standings, err := a.propagateName(ctx, uid, row)
	if err != nil {
		return domain.User{}, err
	}
	return domain.User{ID: id, Name: row.Name, Standings: standings}, nil
}
