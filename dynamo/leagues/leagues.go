package leagues

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// Leagues reads and writes leagues on a store's table.
type Leagues struct {
	db      *ddb.Table
	now     func() time.Time
	cursors *table.Cursors
	audit   func(context.Context, domain.AuditEntry) (types.TransactWriteItem, error)
}

// New returns the leagues of the table db, dating joins with now, signing page cursors
// with cursors, and writing moderation's audit entries with audit (the transaction item
// writing an entry by the caller in the context).
func New(db *ddb.Table, now func() time.Time, cursors *table.Cursors, audit func(context.Context, domain.AuditEntry) (types.TransactWriteItem, error)) *Leagues {
	return &Leagues{db: db, now: now, cursors: cursors, audit: audit}
}

// leagueMember is who joins or creates a league: the player and the version of their
// name (their profile's, or 0 for the token's).
type leagueMember struct {
	domain.UserRef
	nameVersion int
}

// newLeagueMember is the player uid as their league rows show them: their profile's name
// when they have one, else their token's when it is a valid player name, else their id.
func newLeagueMember(uid table.UserID, tokenName string, profile *table.UserRow) leagueMember {
	if profile != nil {
		return leagueMember{domain.UserRef{ID: string(uid), Name: profile.Name}, profile.NameVersion}
	}
	name, err := domain.CleanPlayerName(tokenName)
	if err != nil {
		name = string(uid)
	}
	return leagueMember{domain.UserRef{ID: string(uid), Name: name}, 0}
}

// putNew is a Put of row on the condition that no item has its key.
func (lg *Leagues) putNew(row any) (types.TransactWriteItem, error) {
	return lg.db.Put(row, table.NotExists())
}

// countLeagues is the Update of a player's league count (@LEAGUES: how many leagues they
// are in) for joining (delta +1, on the condition that they are in fewer than
// MaxLeaguesPerPlayer leagues) or leaving (delta -1).
func (lg *Leagues) countLeagues(uid table.UserID, delta int) (types.TransactWriteItem, error) {
	key := table.Key(table.UserPK(uid), table.LeagueCountSK)
	upd := expression.Set(expression.Name(table.AttrType), expression.Value(table.TypeLeagueCount)).
		Add(expression.Name("leagues"), expression.Value(delta))
	if delta > 0 {
		return lg.db.UpdateIf(key, upd, expression.AttributeNotExists(expression.Name("leagues")).
			Or(expression.Name("leagues").LessThan(expression.Value(domain.MaxLeaguesPerPlayer))))
	}
	return lg.db.UpdateIf(key, upd, expression.Name("leagues").GreaterThanEqual(expression.Value(1)))
}

// memberItems are the Puts of a new member's rows, in the league and in their partition,
// and the Update of their league count (on the condition that they have room).
func (lg *Leagues) memberItems(lid table.LeagueID, user leagueMember, owner bool, joined time.Time) ([]types.TransactWriteItem, error) {
	uid := table.UserID(user.ID)
	at := joined.UTC().Format(table.JoinTimeLayout)
	var tx ddb.Tx
	tx.Add(lg.putNew(table.MemberRow{Keys: table.Keys{PK: table.LeaguePK(lid), SK: table.MemberSK(uid)}, Type: table.TypeMember,
		LeagueID: string(lid), UserID: user.ID, UserName: user.Name, UserNameVersion: user.nameVersion, JoinedAt: at}))
	tx.Add(lg.putNew(table.MembershipRow{Keys: table.Keys{PK: table.UserPK(uid), SK: table.MembershipSK(lid)}, Type: table.TypeMembership,
		LeagueID: string(lid), UserNameVersion: user.nameVersion, Owner: owner, JoinedAt: at}))
	tx.Add(lg.countLeagues(uid, 1))
	return tx.Items, tx.Err
}

// leaveItems adds to tx the Deletes of a member's rows and the Update of their league
// count.
func (lg *Leagues) leaveItems(tx *ddb.Tx, lid table.LeagueID, uid table.UserID) {
	exists := table.Exists()
	tx.Add(lg.db.DeleteIf(table.Key(table.LeaguePK(lid), table.MemberSK(uid)), exists))
	tx.Add(lg.db.DeleteIf(table.Key(table.UserPK(uid), table.MembershipSK(lid)), exists))
	tx.Add(lg.countLeagues(uid, -1))
}

func errTooManyLeagues() error {
	return domain.Errorf(domain.CodeConflict, "a player can be in at most %d leagues: leave one first", domain.MaxLeaguesPerPlayer)
}

// Create creates a league owned (and so far only joined) by caller, with a fresh
// invite code: a consistent read of the caller's profile (for their name), then one
// transaction. Returns BAD_USER_INPUT for a bad name and
// CONFLICT when the caller is in MaxLeaguesPerPlayer leagues already.
func (lg *Leagues) Create(ctx context.Context, caller domain.UserRef, name string) (domain.League, error) {
	uid, err := table.ParseUserID(caller.ID)
	if err != nil {
		return domain.League{}, err
	}
	if name, err = domain.CleanLeagueName(name); err != nil {
		return domain.League{}, err
	}
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		profile, _, err := lg.readNewMember(ctx, uid, "")
		if err != nil {
			return domain.League{}, fmt.Errorf("dynamo: create league: %w", err)
		}
		owner := newLeagueMember(uid, caller.Name, profile)
		now := lg.now()
		row := table.LeagueRow{Type: table.TypeLeague, ID: domain.NewLeagueID(), Name: name, OwnerID: owner.ID, OwnerName: owner.Name,
			MemberCount: 1, InviteCode: domain.NewInviteCode(), CreatedAt: table.FormatTime(now), Rev: 1}
		lid := table.LeagueID(row.ID)
		row.Keys = table.Keys{PK: table.LeaguePK(lid), SK: table.LeagueSK}
		wrap := func(err error) error { return fmt.Errorf("dynamo: create league %s: %w", lid, err) }
		league, err := lg.putNew(row)
		if err != nil {
			return domain.League{}, wrap(err)
		}
		invite, err := lg.putNew(table.NewInviteRow(row))
		if err != nil {
			return domain.League{}, wrap(err)
		}
		member, err := lg.memberItems(lid, owner, true, now)
		if err != nil {
			return domain.League{}, wrap(err)
		}
		items := append([]types.TransactWriteItem{league, invite}, member...)
		err = lg.db.TransactRetry(ctx, items)
		reasons, cancelled := ddb.CancellationReasons(err)
		switch {
		case err == nil:
			return row.ToDomain(), nil
		case !cancelled:
			return domain.League{}, wrap(err)
		case ddb.Failed(reasons, 4):
			return domain.League{}, errTooManyLeagues()
		}
		// A fresh id or code that exists already (one chance in 2^60 or more): again.
		if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
			return domain.League{}, err
		}
	}
	return domain.League{}, domain.Errorf(domain.CodeConflict, "could not create the league; try again")
}

// readNewMember reads what a new member's rows need with one consistent BatchGetItem: the
// player's profile (nil if none) and the invite item of code (nil if code is "" or
// unknown).
func (lg *Leagues) readNewMember(ctx context.Context, uid table.UserID, code string) (*table.UserRow, *table.InviteRow, error) {
	var (
		profile *table.UserRow
		inv     *table.InviteRow
	)
	ks := []map[string]types.AttributeValue{table.Key(table.UserPK(uid), table.UserSK)}
	if code != "" {
		ks = append(ks, table.Key(table.InvitePK(code), table.InviteSK))
	}
	err := lg.db.BatchGet(ctx, ks, true, func(item map[string]types.AttributeValue) error {
		switch table.ItemType(item) {
		case table.TypeInvite:
			inv = &table.InviteRow{}
			return attributevalue.UnmarshalMap(item, inv)
		case table.TypeUser:
			profile = &table.UserRow{}
			return attributevalue.UnmarshalMap(item, profile)
		}
		return nil
	})
	return profile, inv, err
}

// getInvite reads an invite item consistently; nil when the code is unknown or replaced.
func (lg *Leagues) getInvite(ctx context.Context, code string) (*table.InviteRow, error) {
	return ddb.Get[table.InviteRow](ctx, lg.db, table.Key(table.InvitePK(code), table.InviteSK), true)
}

// ByInvite returns the league of an invite code as its invite item shows it (one
// consistent GetItem). Returns BAD_USER_INPUT for a malformed code and NOT_FOUND for an
// unknown or replaced one.
func (lg *Leagues) ByInvite(ctx context.Context, code string) (domain.League, error) {
	code, err := domain.CleanInviteCode(code)
	if err != nil {
		return domain.League{}, err
	}
	inv, err := lg.getInvite(ctx, code)
	if err != nil {
		return domain.League{}, fmt.Errorf("dynamo: league by invite: %w", err)
	}
	if inv == nil {
		return domain.League{}, domain.Errorf(domain.CodeNotFound, "no league has this invite code")
	}
	return inv.ToDomain(), nil
}

// Join makes caller a member of the league of an invite code: a consistent
// BatchGetItem of the code's item and the caller's profile, then one transaction that adds
// one to the league's member count on the condition that the code is still the league's
// and the league has fewer than MaxLeagueMembers members, puts the member's rows on the
// condition that they are not there yet, and adds one to the caller's league count on the
// condition that it is below MaxLeaguesPerPlayer. Joining a league the caller is in
// already returns it unchanged. Returns BAD_USER_INPUT for a malformed code, NOT_FOUND for
// an unknown or replaced one, CONFLICT for a full league or a caller in too many leagues.
func (lg *Leagues) Join(ctx context.Context, caller domain.UserRef, code string) (domain.League, error) {
	uid, err := table.ParseUserID(caller.ID)
	if err != nil {
		return domain.League{}, err
	}
	if code, err = domain.CleanInviteCode(code); err != nil {
		return domain.League{}, err
	}
	profile, inv, err := lg.readNewMember(ctx, uid, code)
	if err != nil {
		return domain.League{}, fmt.Errorf("dynamo: join league: %w", err)
	}
	return lg.joinOnce(ctx, uid, caller.Name, code, inv, profile)
}

// joinOnce is Join's transaction, with what readNewMember read.
func (lg *Leagues) joinOnce(ctx context.Context, uid table.UserID, tokenName, code string, inv *table.InviteRow, profile *table.UserRow) (domain.League, error) {
	notFound := domain.Errorf(domain.CodeNotFound, "no league has this invite code (it may have been replaced)")
	if inv == nil {
		return domain.League{}, notFound
	}
	lid := table.LeagueID(inv.LeagueID)
	wrap := func(err error) error { return fmt.Errorf("dynamo: join league %s: %w", lid, err) }
	var tx ddb.Tx
	tx.Add(lg.db.UpdateIf(table.Key(table.LeaguePK(lid), table.LeagueSK), table.NextRev().Add(expression.Name("memberCount"), expression.Value(1)),
		table.Exists().
			And(expression.Name("inviteCode").Equal(expression.Value(code))).
			And(expression.Name("memberCount").LessThan(expression.Value(domain.MaxLeagueMembers)))))
	tx.Add(lg.db.UpdateIf(table.Key(table.InvitePK(code), table.InviteSK), expression.Add(expression.Name("memberCount"), expression.Value(1)), table.InviteOf(lid)))
	if tx.Err != nil {
		return domain.League{}, wrap(tx.Err)
	}
	member, err := lg.memberItems(lid, newLeagueMember(uid, tokenName, profile), false, lg.now())
	if err != nil {
		return domain.League{}, wrap(err)
	}
	items := append(tx.Items, member...)
	err = lg.db.TransactRetry(ctx, items)
	l := inv.ToDomain()
	if err == nil {
		l.MemberCount++
		return l, nil
	}
	reasons, cancelled := ddb.CancellationReasons(err)
	switch {
	case !cancelled:
		return domain.League{}, wrap(err)
	case ddb.Failed(reasons, 2) || ddb.Failed(reasons, 3):
		return l, nil // a member already
	case ddb.Failed(reasons, 1):
		return domain.League{}, notFound
	case ddb.Failed(reasons, 0):
		var old table.LeagueRow
		if len(reasons[0].Item) == 0 {
			return domain.League{}, notFound
		}
		if err := attributevalue.UnmarshalMap(reasons[0].Item, &old); err != nil {
			return domain.League{}, wrap(err)
		}
		if old.InviteCode != code {
			return domain.League{}, notFound
		}
		return domain.League{}, domain.Errorf(domain.CodeConflict, "the league is full: it has %d members", domain.MaxLeagueMembers)
	case ddb.Failed(reasons, 4):
		return domain.League{}, errTooManyLeagues()
	}
	return domain.League{}, wrap(err)
}

// readLeague reads a league item and whether uid is a member (uid "": nobody) with one
// consistent BatchGetItem; nil when there is no such league.
func (lg *Leagues) readLeague(ctx context.Context, lid table.LeagueID, uid table.UserID) (*table.LeagueRow, bool, error) {
	ks := []map[string]types.AttributeValue{table.Key(table.LeaguePK(lid), table.LeagueSK)}
	if uid != "" {
		ks = append(ks, table.Key(table.LeaguePK(lid), table.MemberSK(uid)))
	}
	var (
		league *table.LeagueRow
		member bool
	)
	err := lg.db.BatchGet(ctx, ks, true, func(item map[string]types.AttributeValue) error {
		switch table.ItemType(item) {
		case table.TypeLeague:
			league = &table.LeagueRow{}
			return attributevalue.UnmarshalMap(item, league)
		case table.TypeMember:
			member = true
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("dynamo: get league %s: %w", lid, err)
	}
	return league, member && league != nil, nil
}

// Get returns a league and whether user (a user id, "" when signed out) is one of its
// members: one consistent BatchGetItem of the league and the user's member row or, with
// members, one consistent Query of the league's partition (the league and every member
// row: one page up to about 5,000 members), which returns the league with its Members.
// Returns NOT_FOUND if there is no such league.
func (lg *Leagues) Get(ctx context.Context, id, user string, members bool) (domain.League, bool, error) {
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return domain.League{}, false, err
	}
	var uid table.UserID
	if user != "" {
		if uid, err = table.ParseUserID(user); err != nil {
			return domain.League{}, false, err
		}
	}
	var (
		row    *table.LeagueRow
		member bool
		rows   []table.MemberRow
	)
	if members {
		row, rows, err = lg.readLeaguePartition(ctx, lid)
		member = row != nil && slices.ContainsFunc(rows, func(m table.MemberRow) bool { return m.UserID == string(uid) })
	} else {
		row, member, err = lg.readLeague(ctx, lid, uid)
	}
	if err != nil {
		return domain.League{}, false, err
	}
	if row == nil || row.Closed {
		return domain.League{}, false, domain.Errorf(domain.CodeNotFound, "league %q not found", id)
	}
	l := row.ToDomain()
	if members {
		if l.Members, err = membersOf(rows); err != nil {
			return domain.League{}, false, fmt.Errorf("dynamo: get league %s: %w", lid, err)
		}
	}
	return l, member, nil
}

// readLeaguePartition reads a league item and its member rows with one consistent Query
// (following pages); the league is nil when there is none.
func (lg *Leagues) readLeaguePartition(ctx context.Context, lid table.LeagueID) (*table.LeagueRow, []table.MemberRow, error) {
	q, err := lg.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.LeaguePK(lid))), 0, true)
	if err != nil {
		return nil, nil, fmt.Errorf("dynamo: get league %s: %w", lid, err)
	}
	q.ConsistentRead = aws.Bool(true)
	var (
		league  *table.LeagueRow
		members []table.MemberRow
	)
	err = lg.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		switch table.ItemType(item) {
		case table.TypeLeague:
			league = &table.LeagueRow{}
			return true, attributevalue.UnmarshalMap(item, league)
		case table.TypeMember:
			var m table.MemberRow
			err := attributevalue.UnmarshalMap(item, &m)
			members = append(members, m)
			return true, err
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("dynamo: get league %s: %w", lid, err)
	}
	return league, members, nil
}

// membersOf turns member rows into members.
func membersOf(rows []table.MemberRow) ([]domain.LeagueMember, error) {
	out := make([]domain.LeagueMember, len(rows))
	for i, m := range rows {
		at, err := time.Parse(table.JoinTimeLayout, m.JoinedAt)
		if err != nil {
			return nil, fmt.Errorf("member %s: joinedAt: %w", m.UserID, err)
		}
		out[i] = domain.LeagueMember{User: domain.UserRef{ID: m.UserID, Name: m.UserName}, JoinedAt: at}
	}
	return out, nil
}

// leagueMembers reads a league's member rows (consistently or not), following pages: one
// Query up to about 5,000 members.
func (lg *Leagues) leagueMembers(ctx context.Context, lid table.LeagueID, consistent bool) ([]table.MemberRow, error) {
	q, err := lg.db.NewQuery("", table.PrefixRange(table.LeaguePK(lid), table.MemberKeyPrefix), 0, true)
	if err != nil {
		return nil, err
	}
	q.ConsistentRead = aws.Bool(consistent)
	var members []table.MemberRow
	err = lg.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		var m table.MemberRow
		err := attributevalue.UnmarshalMap(item, &m)
		members = append(members, m)
		return err == nil, err
	})
	return members, err
}

// Leave removes user from a league: a consistent BatchGetItem of the league and the
// user's member row, then one transaction. The last member leaving deletes the league and
// its invite code; an owner leaving hands the league to domain.NextOwner (the members read
// with one consistent Query), conditioned on the league not having
// changed since. Returns NOT_FOUND unless user is a member.
func (lg *Leagues) Leave(ctx context.Context, user, id string) error {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return err
	}
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return err
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: leave league %s: %w", lid, err) }
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		league, member, err := lg.readLeague(ctx, lid, uid)
		if err != nil {
			return err
		}
		if !member {
			return domain.Errorf(domain.CodeNotFound, "you are not a member of league %q", id)
		}
		var tx ddb.Tx
		leagueKey, inviteKey := table.Key(table.LeaguePK(lid), table.LeagueSK), table.Key(table.InvitePK(league.InviteCode), table.InviteSK)
		leaves := table.NextRev().Add(expression.Name("memberCount"), expression.Value(-1))
		switch {
		case league.Closed:
			// An admin is deleting it (Delete): no hand-over, no invite code; the
			// deletion removes the league once nobody is left.
			tx.Add(lg.db.UpdateIf(leagueKey, leaves, expression.Name("closed").Equal(expression.Value(true))))
		case league.MemberCount <= 1:
			tx.Add(lg.db.DeleteIf(leagueKey, table.RevIs(league.Rev)))
			tx.Add(lg.db.DeleteIf(inviteKey, table.InviteOf(lid)))
		case league.OwnerID == string(uid):
			members, err := lg.leagueMembers(ctx, lid, true)
			if err != nil {
				return wrap(err)
			}
			all, err := membersOf(members)
			if err != nil {
				return wrap(err)
			}
			next, ok := domain.NextOwner(all, string(uid))
			if !ok { // the count says others are there, the rows say not: read again
				continue
			}
			owner := func(upd expression.UpdateBuilder) expression.UpdateBuilder {
				return upd.Set(expression.Name("ownerId"), expression.Value(next.User.ID)).
					Set(expression.Name("ownerName"), expression.Value(next.User.Name)).
					Add(expression.Name("memberCount"), expression.Value(-1))
			}
			tx.Add(lg.db.UpdateIf(leagueKey, owner(table.NextRev()), table.RevIs(league.Rev)))
			tx.Add(lg.db.UpdateIf(inviteKey, owner(expression.UpdateBuilder{}), table.InviteOf(lid)))
			tx.Add(lg.db.UpdateIf(table.Key(table.UserPK(table.UserID(next.User.ID)), table.MembershipSK(lid)),
				expression.Set(expression.Name("owner"), expression.Value(true)), table.Exists()))
		default:
			tx.Add(lg.db.UpdateIf(leagueKey, leaves,
				expression.Name("ownerId").NotEqual(expression.Value(string(uid))).And(expression.Name("memberCount").GreaterThan(expression.Value(1)))))
			tx.Add(lg.db.UpdateIf(inviteKey, expression.Add(expression.Name("memberCount"), expression.Value(-1)), table.InviteOf(lid)))
		}
		lg.leaveItems(&tx, lid, uid)
		if tx.Err != nil {
			return wrap(tx.Err)
		}
		err = lg.db.TransactRetry(ctx, tx.Items)
		if _, cancelled := ddb.CancellationReasons(err); !cancelled {
			if err != nil {
				return wrap(err)
			}
			return nil
		}
		// The league changed since it was read (a join, a leave, a new code): read again,
		// after a short wait so that a busy league lets this one through.
		if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
			return err
		}
	}
	return domain.Errorf(domain.CodeConflict, "the league kept changing; try again")
}

// RotateInviteCode gives a league a new invite code; the old one stops working at once.
// Only the owner may: a consistent read of the league (BatchGetItem), then one transaction
// (the league's code, conditioned on its rev; the old code's item deleted; the new one
// put). Returns NOT_FOUND for an unknown league and FORBIDDEN unless user is its owner.
func (lg *Leagues) RotateInviteCode(ctx context.Context, user, id string) (domain.League, error) {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return domain.League{}, err
	}
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return domain.League{}, err
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: rotate invite code %s: %w", lid, err) }
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		league, _, err := lg.readLeague(ctx, lid, "")
		if err != nil {
			return domain.League{}, err
		}
		if league == nil || league.Closed {
			return domain.League{}, domain.Errorf(domain.CodeNotFound, "league %q not found", id)
		}
		if league.OwnerID != string(uid) {
			return domain.League{}, domain.Errorf(domain.CodeForbidden, "only the league's owner can replace its invite code")
		}
		old := league.InviteCode
		league.InviteCode = domain.NewInviteCode()
		invite, err := lg.putNew(table.NewInviteRow(*league))
		if err != nil {
			return domain.League{}, wrap(err)
		}
		var tx ddb.Tx
		tx.Add(lg.db.UpdateIf(table.Key(table.LeaguePK(lid), table.LeagueSK), table.NextRev().Set(expression.Name("inviteCode"), expression.Value(league.InviteCode)),
			table.RevIs(league.Rev)))
		tx.Add(lg.db.DeleteIf(table.Key(table.InvitePK(old), table.InviteSK), table.InviteOf(lid)))
		tx.Add(invite, nil)
		if tx.Err != nil {
			return domain.League{}, wrap(tx.Err)
		}
		err = lg.db.TransactRetry(ctx, tx.Items)
		if _, cancelled := ddb.CancellationReasons(err); !cancelled {
			if err != nil {
				return domain.League{}, wrap(err)
			}
			return league.ToDomain(), nil
		}
		// The league changed since it was read (or the new code exists already): again.
		if err := ddb.Sleep(ctx, ddb.Backoff(attempt+1)); err != nil {
			return domain.League{}, err
		}
	}
	return domain.League{}, domain.Errorf(domain.CodeConflict, "the league kept changing; try again")
}

// OfPlayer returns the leagues user is a member of, by name (then id): a consistent
// Query of their membership rows, then one consistent BatchGetItem of the leagues (at most
// MaxLeaguesPerPlayer keys). Leagues an admin is deleting are left out.
func (lg *Leagues) OfPlayer(ctx context.Context, user string) ([]domain.League, error) {
	rows, err := lg.userLeagueRows(ctx, user)
	if err != nil {
		return nil, err
	}
	leagues := []domain.League{}
	for _, row := range rows {
		if !row.Closed {
			leagues = append(leagues, row.ToDomain())
		}
	}
	slices.SortFunc(leagues, func(a, b domain.League) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return leagues, nil
}

// userLeagueRows reads the league items of user's memberships (see OfPlayer), closed
// ones included.
func (lg *Leagues) userLeagueRows(ctx context.Context, user string) ([]table.LeagueRow, error) {
	uid, err := table.ParseUserID(user)
	if err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: leagues of %s: %w", uid, err) }
	q, err := lg.db.NewQuery("", table.PrefixRange(table.UserPK(uid), table.MembershipKeyPrefix), 0, true)
	if err != nil {
		return nil, wrap(err)
	}
	q.ConsistentRead = aws.Bool(true)
	var ks []map[string]types.AttributeValue
	err = lg.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		lid, err := table.ParseLeagueID(table.ItemString(item, "leagueId"))
		if err != nil {
			return false, err
		}
		ks = append(ks, table.Key(table.LeaguePK(lid), table.LeagueSK))
		return true, nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	var rows []table.LeagueRow
	err = lg.db.BatchGet(ctx, ks, true, func(item map[string]types.AttributeValue) error {
		var row table.LeagueRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	return rows, nil
}

// Standings returns the season standings of league l's members (each member's whole
// season; a member without a standing that season has 0 points), highest points first,
// ties by user id, ranked as Standings ranks. It reads every member's standing for every
// page: the member rows (l.Members when they were read with the league, else one Query),
// then BatchGetItems of their standings, 100 keys each, in parallel (not consistent: like
// Standings, what scoring wrote a moment ago may show a moment later). The caller checks
// who may read it.
func (lg *Leagues) Standings(ctx context.Context, l domain.League, season, first int, after string) (domain.Page[domain.Standing], error) {
	var page domain.Page[domain.Standing]
	id := l.ID
	lid, err := table.ParseLeagueID(id)
	if err != nil {
		return page, err
	}
	if err := domain.ValidateSeason(season); err != nil {
		return page, err
	}
	owner := id + "/" + strconv.Itoa(season)
	var from *table.Cursor
	if after != "" {
		c, err := lg.cursors.Decode(after, table.CursorLeague, owner)
		if err != nil {
			return page, err
		}
		from = &c
	}
	wrap := func(err error) error { return fmt.Errorf("dynamo: league standings %s/%d: %w", lid, season, err) }
	members := l.Members
	if members == nil {
		rows, err := lg.leagueMembers(ctx, lid, false)
		if err != nil {
			return page, wrap(err)
		}
		if members, err = membersOf(rows); err != nil {
			return page, wrap(err)
		}
	}
	rows, err := lg.memberStandings(ctx, members, season)
	if err != nil {
		return page, wrap(err)
	}
	slices.SortFunc(rows, func(a, b domain.Standing) int {
		return domain.CompareStandings(a.Points, a.User.ID, b.Points, b.User.ID)
	})
	var r domain.Ranker
	for i := range rows {
		rank := r.Next(rows[i].Points)
		rows[i].Rank = &rank
		if from != nil && domain.CompareStandings(rows[i].Points, rows[i].User.ID, from.Points, from.ID) <= 0 {
			continue // on an earlier page
		}
		if len(page.Items) == first {
			page.HasNext = true
			break
		}
		page.Items = append(page.Items, rows[i])
		page.Cursors = append(page.Cursors, lg.cursors.Encode(table.Cursor{Kind: table.CursorLeague, Owner: owner, ID: rows[i].User.ID,
			Points: rows[i].Points, Index: r.Index, Rank: r.Rank}))
	}
	return page, nil
}

// memberStandings returns the season standings of members, read by key: BatchGetItems of
// at most 100 keys, all at once, eventually consistent (UnprocessedKeys retried). A member
// without one gets a zero standing. Every row carries the member's name as their member
// row has it.
func (lg *Leagues) memberStandings(ctx context.Context, members []domain.LeagueMember, season int) ([]domain.Standing, error) {
	ks := make([]map[string]types.AttributeValue, len(members))
	for i, m := range members {
		uid, err := table.ParseUserID(m.User.ID)
		if err != nil {
			return nil, err
		}
		ks[i] = table.Key(table.UserPK(uid), table.StandingSK(season))
	}
	var mu sync.Mutex
	found := make(map[string]domain.Standing, len(members))
	g, gctx := errgroup.WithContext(ctx)
	for start := 0; start < len(ks); start += ddb.MaxBatchGetKeys {
		chunk := ks[start:min(start+ddb.MaxBatchGetKeys, len(ks))]
		g.Go(func() error {
			return lg.db.BatchGet(gctx, chunk, false, func(item map[string]types.AttributeValue) error {
				var row table.StandingRow
				if err := attributevalue.UnmarshalMap(item, &row); err != nil {
					return err
				}
				mu.Lock()
				found[row.UserID] = row.ToDomain()
				mu.Unlock()
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rows := make([]domain.Standing, len(members))
	for i, m := range members {
		st, ok := found[m.User.ID]
		if !ok {
			st = domain.Standing{Season: season}
		}
		st.User = m.User
		rows[i] = st
	}
	return rows, nil
}

// RenameMember brings user's name (as of their profile's nameVersion) to their rows in
// the leagues of stale (memberships whose copy is older): member rows and memberships
// and, for the leagues they own, the league's and its invite item's owner name. A
// consistent BatchGetItem of the owned leagues (for their invite codes), then one
// transaction of at most 4 items per league (80), every update conditioned on the copy
// being older or the player still owning the league. A cancelled transaction (a rename,
// hand-over or new code in between) is returned as it is: the caller reads again.
func (lg *Leagues) RenameMember(ctx context.Context, uid table.UserID, user table.UserRow, stale []table.MembershipRow) error {
	var owned []map[string]types.AttributeValue
	for _, m := range stale {
		if m.Owner {
			owned = append(owned, table.Key(table.LeaguePK(table.LeagueID(m.LeagueID)), table.LeagueSK))
		}
	}
	codes := map[string]string{} // league id → invite code, for the leagues uid owns
	err := lg.db.BatchGet(ctx, owned, true, func(item map[string]types.AttributeValue) error {
		var row table.LeagueRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		if row.OwnerID == string(uid) {
			codes[row.ID] = row.InviteCode
		}
		return nil
	})
	if err != nil {
		return err
	}
	older := table.Exists().
		And(expression.Name("userNameVersion").LessThan(expression.Value(user.NameVersion)))
	version := expression.Set(expression.Name("userNameVersion"), expression.Value(user.NameVersion))
	member := expression.Set(expression.Name("userName"), expression.Value(user.Name)).
		Set(expression.Name("userNameVersion"), expression.Value(user.NameVersion))
	ownerName := expression.Set(expression.Name("ownerName"), expression.Value(user.Name))
	isOwner := expression.Name("ownerId").Equal(expression.Value(string(uid)))
	var tx ddb.Tx
	for _, m := range stale {
		lid := table.LeagueID(m.LeagueID)
		tx.Add(lg.db.UpdateIf(table.Key(table.LeaguePK(lid), table.MemberSK(uid)), member, older))
		tx.Add(lg.db.UpdateIf(table.Key(table.UserPK(uid), table.MembershipSK(lid)), version, older))
		if code, ok := codes[m.LeagueID]; ok {
			tx.Add(lg.db.UpdateIf(table.Key(table.LeaguePK(lid), table.LeagueSK), ownerName, isOwner))
			tx.Add(lg.db.UpdateIf(table.Key(table.InvitePK(code), table.InviteSK), ownerName, table.InviteOf(lid).And(isOwner)))
		}
	}
	if tx.Err != nil {
		return tx.Err
	}
	return lg.db.TransactRetry(ctx, tx.Items)
}

// MemberOf returns the ids of the leagues user is a member of, those an admin is deleting
// included (their members leave as usual).
func (lg *Leagues) MemberOf(ctx context.Context, user string) ([]string, error) {
	rows, err := lg.userLeagueRows(ctx, user)
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, err
}
