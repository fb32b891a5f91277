package table

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/pickem/api/domain"
)

// Item types of leagues.
const (
	TypeLeague      = "league"
	TypeInvite      = "invite"
	TypeMember      = "leagueMember"
	TypeMembership  = "membership"
	TypeLeagueCount = "leagueCount"
)

// JoinTimeLayout orders join times as strings, to the nanosecond.
const JoinTimeLayout = "2006-01-02T15:04:05.000000000Z"

// LeagueRow is a league's item: name, owner, member count, the current invite code and
// rev, which grows with every change of the league or of its members.
type LeagueRow struct {
	Keys
	Type        string `dynamodbav:"type"`
	ID          string `dynamodbav:"id"`
	Name        string `dynamodbav:"name"`
	OwnerID     string `dynamodbav:"ownerId"`
	OwnerName   string `dynamodbav:"ownerName"`
	MemberCount int    `dynamodbav:"memberCount"`
	InviteCode  string `dynamodbav:"inviteCode"`
	CreatedAt   string `dynamodbav:"createdAt"`
	Rev         int    `dynamodbav:"rev"`
	// Closed: an admin is deleting the league (leagues.Leagues.Delete); it has no invite
	// code and reads as not found.
	Closed bool `dynamodbav:"closed,omitempty"`
}

// ToDomain is the league of the row, without its members.
func (r LeagueRow) ToDomain() domain.League {
	return domain.League{ID: r.ID, Name: r.Name, Owner: domain.UserRef{ID: r.OwnerID, Name: r.OwnerName},
		MemberCount: r.MemberCount, InviteCode: r.InviteCode}
}

// InviteRow is the item of a league's current invite code: a copy of what a player
// joining sees of the league.
type InviteRow struct {
	Keys
	Type        string `dynamodbav:"type"`
	Code        string `dynamodbav:"code"`
	LeagueID    string `dynamodbav:"leagueId"`
	Name        string `dynamodbav:"name"`
	OwnerID     string `dynamodbav:"ownerId"`
	OwnerName   string `dynamodbav:"ownerName"`
	MemberCount int    `dynamodbav:"memberCount"`
}

// NewInviteRow is the invite item of l's invite code.
func NewInviteRow(l LeagueRow) InviteRow {
	return InviteRow{Keys: Keys{PK: InvitePK(l.InviteCode), SK: InviteSK}, Type: TypeInvite, Code: l.InviteCode,
		LeagueID: l.ID, Name: l.Name, OwnerID: l.OwnerID, OwnerName: l.OwnerName, MemberCount: l.MemberCount}
}

// ToDomain is the league as its invite item shows it.
func (r InviteRow) ToDomain() domain.League {
	return domain.League{ID: r.LeagueID, Name: r.Name, Owner: domain.UserRef{ID: r.OwnerID, Name: r.OwnerName},
		MemberCount: r.MemberCount, InviteCode: r.Code}
}

// MemberRow is a member in the league's partition. UserName is the player's profile name
// as of UserNameVersion (0: the token's name; the player had no profile), kept current by
// Register like the names on predictions and standings.
type MemberRow struct {
	Keys
	Type            string `dynamodbav:"type"`
	LeagueID        string `dynamodbav:"leagueId"`
	UserID          string `dynamodbav:"userId"`
	UserName        string `dynamodbav:"userName"`
	UserNameVersion int    `dynamodbav:"userNameVersion"`
	JoinedAt        string `dynamodbav:"joinedAt"`
}

// MembershipRow is a membership in the player's partition: the version of the name the
// league's rows carry, and whether the player owns the league (the league's and its
// invite's owner name are theirs too).
type MembershipRow struct {
	Keys
	Type            string `dynamodbav:"type"`
	LeagueID        string `dynamodbav:"leagueId"`
	UserNameVersion int    `dynamodbav:"userNameVersion"`
	Owner           bool   `dynamodbav:"owner,omitempty"`
	JoinedAt        string `dynamodbav:"joinedAt"`
}

// NextRev is the action moving a league item's rev on by one.
func NextRev() expression.UpdateBuilder {
	return expression.Set(expression.Name("rev"), expression.Name("rev").Plus(expression.Value(1)))
}

// InviteOf is the condition that an invite item is league lid's.
func InviteOf(lid LeagueID) expression.ConditionBuilder {
	return expression.Name("leagueId").Equal(expression.Value(string(lid)))
}
