package leagues

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// MembersPerDeleteTx is how many members one transaction of a league deletion removes:
// three items each (member row, membership, league item of the player) and the league's
// count.
const MembersPerDeleteTx = (ddb.MaxTransactItems - 1) / 3

// moderationEntry is the audit entry of a moderation change.
func (lg *Leagues) moderationEntry(ctx context.Context, action, summary string) (types.TransactWriteItem, error) {
	return lg.audit(ctx, domain.AuditEntry{Action: action, EventID: domain.AuditLogModeration, Summary: summary})
}

// Rename renames a league (admins: the resolver checks): a consistent read of the
// league, then one transaction — the league (conditioned on its rev), its invite item and
// the audit entry. Renaming to the same name writes nothing. Returns BAD_USER_INPUT for a
// bad name and NOT_FOUND for an unknown league (or one being deleted).
func (lg *Leagues) Rename(ctx context.Context, id, name string) (domain.League, error) {
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return domain.League{}, err
	}
	if name, err = domain.CleanLeagueName(name); err != nil {
		return domain.League{}, err
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: rename league %s: %w", lid, err) }
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		league, _, err := lg.readLeague(ctx, lid, "")
		if err != nil {
			return domain.League{}, err
		}
		if league == nil || league.Closed {
			return domain.League{}, domain.Errorf(domain.CodeNotFound, "league %q not found", id)
		}
		if league.Name == name {
			return league.ToDomain(), nil
		}
		entry, err := lg.moderationEntry(ctx, domain.ActionRenameLeague, fmt.Sprintf("league %s renamed from %q to %q", lid, league.Name, name))
		if err != nil {
			return domain.League{}, wrap(err)
		}
		var tx ddb.Tx
		tx.Add(lg.db.UpdateIf(table.Key(table.LeaguePK(lid), table.LeagueSK), table.NextRev().Set(expression.Name("name"), expression.Value(name)), table.RevIs(league.Rev)))
		tx.Add(lg.db.UpdateIf(table.Key(table.InvitePK(league.InviteCode), table.InviteSK), expression.Set(expression.Name("name"), expression.Value(name)), table.InviteOf(lid)))
		tx.Add(entry, nil)
		if tx.Err != nil {
			return domain.League{}, wrap(tx.Err)
		}
		err = lg.db.TransactRetry(ctx, tx.Items)
		if _, cancelled := ddb.CancellationReasons(err); !cancelled {
			if err != nil {
				return domain.League{}, wrap(err)
			}
			league.Name = name
			return league.ToDomain(), nil
		}
		if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
			return domain.League{}, err
		}
	}
	return domain.League{}, domain.Errorf(domain.CodeConflict, "the league kept changing; try again")
}

// Delete deletes a league (admins: the resolver checks), in steps that each read the
// league's partition consistently first, so that a call cut off is finished by the next:
//
//  1. close it: one transaction removes its invite code from the league item (marking it
//     closed: joins, rotations, renames and reads see no league any more) and deletes the
//     invite item, conditioned on the league's rev;
//  2. take its members out, MembersPerDeleteTx per transaction: each member's row in the
//     league, their membership and their league count (as Leave), and the league's
//     member count, conditioned on the rows existing (a member leaving meanwhile: read
//     again);
//  3. delete the league item (conditioned on no member being left) with the audit entry.
//
// Returns NOT_FOUND for an unknown (or already deleted) league.
func (lg *Leagues) Delete(ctx context.Context, id string) error {
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return err
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: delete league %s: %w", lid, err) }
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		league, members, err := lg.readLeaguePartition(ctx, lid)
		if err != nil {
			return err
		}
		if league == nil {
			return domain.Errorf(domain.CodeNotFound, "league %q not found", id)
		}
		var cancelled bool
		leagueKey := table.Key(table.LeaguePK(lid), table.LeagueSK)
		closed := expression.Name("closed").Equal(expression.Value(true))
		switch {
		case !league.Closed:
			var tx ddb.Tx
			tx.Add(lg.db.UpdateIf(leagueKey, table.NextRev().Set(expression.Name("closed"), expression.Value(true)).Remove(expression.Name("inviteCode")),
				table.RevIs(league.Rev)))
			tx.Add(lg.db.DeleteIf(table.Key(table.InvitePK(league.InviteCode), table.InviteSK), table.InviteOf(lid)))
			if tx.Err != nil {
				return wrap(tx.Err)
			}
			err = lg.db.TransactRetry(ctx, tx.Items)
		case len(members) > 0:
			for start := 0; start < len(members) && !cancelled && err == nil; start += MembersPerDeleteTx {
				chunk := members[start:min(start+MembersPerDeleteTx, len(members))]
				var tx ddb.Tx
				tx.Add(lg.db.UpdateIf(leagueKey, table.NextRev().Add(expression.Name("memberCount"), expression.Value(-len(chunk))), closed))
				for _, m := range chunk {
					lg.leaveItems(&tx, lid, table.UserID(m.UserID))
				}
				if tx.Err != nil {
					return wrap(tx.Err)
				}
				err = lg.db.TransactRetry(ctx, tx.Items)
				_, cancelled = ddb.CancellationReasons(err)
			}
		default:
			var tx ddb.Tx
			tx.Add(lg.db.DeleteIf(leagueKey, closed.And(expression.Name("memberCount").LessThanEqual(expression.Value(0)))))
			tx.Add(lg.moderationEntry(ctx, domain.ActionDeleteLeague, fmt.Sprintf("league %s (%q, owner %s) deleted", lid, league.Name, league.OwnerID)))
			if tx.Err != nil {
				return wrap(tx.Err)
			}
			err = lg.db.TransactRetry(ctx, tx.Items)
			if err == nil {
				return nil
			}
		}
		if _, c := ddb.CancellationReasons(err); c {
			cancelled = true
		} else if err != nil {
			return wrap(err)
		}
		if cancelled {
			// The league or a member changed since it was read: read again.
			if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
				return err
			}
		}
	}
	return domain.Errorf(domain.CodeConflict, "the league kept changing while it was deleted; call deleteLeague again")
}
