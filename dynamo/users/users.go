package users

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/leagues"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
)

// Accounts holds the use cases of players' accounts on a store's table.
type Accounts struct {
	db           *ddb.Table
	cache        *ddb.Cache
	now          func() time.Time
	leagues      *leagues.Leagues
	scoring      *scoring.Engine
	audit        func(context.Context, domain.AuditEntry) (types.TransactWriteItem, error)
	eventRow     func(context.Context, table.EventID) (table.EventRow, error)
	seasonShards func(context.Context, int) (int, error)
}

// Config is what Accounts work with.
type Config struct {
	// DB is the store's table; Cache its read cache (nil: none); Now its clock.
	DB    *ddb.Table
	Cache *ddb.Cache
	Now   func() time.Time
	// Leagues and Scoring are the store's: an account leaves its leagues, a rename reaches
	// its league rows, and a deletion takes the player's scores out of what scoring counted.
	Leagues *leagues.Leagues
	Scoring *scoring.Engine
	// Audit returns the transaction item writing an audit entry by the caller in ctx.
	Audit func(ctx context.Context, entry domain.AuditEntry) (types.TransactWriteItem, error)
	// EventRow reads an event's row consistently (NOT_FOUND if there is none);
	// SeasonShards is a season's shard count, read consistently.
	EventRow     func(ctx context.Context, e table.EventID) (table.EventRow, error)
	SeasonShards func(ctx context.Context, season int) (int, error)
}

// New returns the accounts of c.
func New(c Config) *Accounts {
	return &Accounts{db: c.DB, cache: c.Cache, now: c.Now, leagues: c.Leagues, scoring: c.Scoring, audit: c.Audit,
		eventRow: c.EventRow, seasonShards: c.SeasonShards}
}

// getUserRow reads a user item, strongly consistent when it decides a write; nil if the user
// never registered.
func (a *Accounts) getUserRow(ctx context.Context, uid table.UserID, consistent bool) (*table.UserRow, error) {
	row, err := ddb.Get[table.UserRow](ctx, a.db, table.Key(table.UserPK(uid), table.UserSK), consistent)
	if err != nil {
		return nil, fmt.Errorf("dynamo: get user %s: %w", uid, err)
	}
	return row, nil
}

// Register creates the caller's profile or renames it, then brings the name up to date on
// every prediction and standing of the user, in transactions of at most 100 items, and on
// their league rows (leagues.Leagues.RenameMember: one transaction). A rename
// cut off halfway is finished by the next Register of the same user.
func (a *Accounts) Register(ctx context.Context, id, name string) (domain.User, error) {
	uid, err := table.ParseUserID(id)
	if err != nil {
		return domain.User{}, err
	}
	if name, err = domain.CleanPlayerName(name); err != nil {
		return domain.User{}, err
	}
	defer a.cache.ForgetPlayerPages(false) // the name is on leaderboard and standings rows
	row, err := a.setUserName(ctx, uid, name, nil)
	if err != nil {
		return domain.User{}, err
	}
	standings, err := a.propagateName(ctx, uid, row)
	if err != nil {
		return domain.User{}, err
	}
	return domain.User{ID: id, Name: row.Name, Standings: standings}, nil
}

// setUserName writes the user item with name, bumping nameVersion on a change. With audit
// (a moderation rename: Rename), the user must exist (else NOT_FOUND) and a change is
// one transaction of the update and audit(the old name).
func (a *Accounts) setUserName(ctx context.Context, uid table.UserID, name string, audit func(old string) (types.TransactWriteItem, error)) (table.UserRow, error) {
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		cur, err := a.getUserRow(ctx, uid, true)
		if err != nil {
			return table.UserRow{}, err
		}
		if cur == nil && audit != nil {
			return table.UserRow{}, domain.Errorf(domain.CodeNotFound, "player %q has no profile", uid)
		}
		if cur == nil {
			row := table.NewUserRow(uid, name, a.now())
			put, err := a.db.Put(row, table.NotExists())
			if err != nil {
				return table.UserRow{}, fmt.Errorf("dynamo: register %s: %w", uid, err)
			}
			_, err = a.db.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: put.Put.TableName, Item: put.Put.Item,
				ConditionExpression: put.Put.ConditionExpression, ExpressionAttributeNames: put.Put.ExpressionAttributeNames,
			})
			if ddb.IsConditionFailed(err) {
				continue
			}
			if err != nil {
				return table.UserRow{}, fmt.Errorf("dynamo: register %s: %w", uid, err)
			}
			return row, nil
		}
		if cur.Name == name {
			return *cur, nil
		}
		expr, err := expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name("name"), expression.Value(name)).
				Set(expression.Name("nameVersion"), expression.Value(cur.NameVersion+1))).
			WithCondition(expression.Name("nameVersion").Equal(expression.Value(cur.NameVersion))).Build()
		if err != nil {
			return table.UserRow{}, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		if audit != nil {
			entry, err := audit(cur.Name)
			if err != nil {
				return table.UserRow{}, fmt.Errorf("dynamo: rename %s: %w", uid, err)
			}
			err = a.db.TransactRetry(ctx, []types.TransactWriteItem{{Update: &types.Update{
				TableName: aws.String(a.db.Name), Key: table.Key(table.UserPK(uid), table.UserSK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}}, entry})
			if _, cancelled := ddb.CancellationReasons(err); cancelled {
				continue
			}
		} else {
			_, err = a.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(a.db.Name), Key: table.Key(table.UserPK(uid), table.UserSK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			})
			if ddb.IsConditionFailed(err) {
				continue
			}
		}
		if err != nil {
			return table.UserRow{}, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		cur.Name, cur.NameVersion = name, cur.NameVersion+1
		return *cur, nil
	}
	return table.UserRow{}, domain.Errorf(domain.CodeConflict, "the profile kept changing; try again")
}

// propagateName copies user's name onto every item of their partition whose copy is older,
// until a read finds none; it returns the user's standings as last read.
func (a *Accounts) propagateName(ctx context.Context, uid table.UserID, user table.UserRow) ([]domain.Standing, error) {
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		q, err := a.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))), 0, false)
		if err != nil {
			return nil, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		q.ConsistentRead = aws.Bool(true)
		var (
			stale   []map[string]types.AttributeValue
			leagues []table.MembershipRow // league rows with an older name (leagues.Leagues.RenameMember)
		)
		standings := []domain.Standing{}
		err = a.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			t := table.ItemType(item)
			if t == table.TypeMembership {
				var m table.MembershipRow
				err := attributevalue.UnmarshalMap(item, &m)
				if err == nil && m.UserNameVersion < user.NameVersion {
					leagues = append(leagues, m)
				}
				return err == nil, err
			}
			if t != table.TypePrediction && t != table.TypeStanding {
				return true, nil
			}
			var row struct {
				table.Keys
				UserNameVersion int `dynamodbav:"userNameVersion"`
			}
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			if row.UserNameVersion < user.NameVersion {
				stale = append(stale, table.Key(row.PK, row.SK))
			}
			if t == table.TypeStanding {
				var st table.StandingRow
				if err := attributevalue.UnmarshalMap(item, &st); err != nil {
					return false, err
				}
				st.UserName = user.Name
				standings = append(standings, st.ToDomain())
			}
			return true, nil
		})
		if err != nil {
			return nil, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		if len(stale) == 0 && len(leagues) == 0 {
			return standings, nil
		}
		if len(leagues) > 0 {
			err := a.leagues.RenameMember(ctx, uid, user, leagues)
			if _, cancelled := ddb.CancellationReasons(err); err != nil && !cancelled {
				return nil, fmt.Errorf("dynamo: rename %s in leagues: %w", uid, err)
			}
		}
		expr, err := expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name("userName"), expression.Value(user.Name)).
				Set(expression.Name("userNameVersion"), expression.Value(user.NameVersion))).
			WithCondition(expression.Name("userNameVersion").LessThan(expression.Value(user.NameVersion))).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		err = a.db.UpdateEach(ctx, stale, expr)
		if _, cancelled := ddb.CancellationReasons(err); err != nil && !cancelled {
			return nil, fmt.Errorf("dynamo: rename %s: %w", uid, err)
		}
		// Done, or something changed under us: read again until nothing is stale.
	}
	return nil, domain.Errorf(domain.CodeConflict, "the profile kept changing; try again")
}

// Profile returns a user's profile alone (id and name; no standings, no predictions):
// one eventually consistent GetItem of the profile item, for a selection that asks for
// nothing else (`me { id name }`). NOT_FOUND if the user never registered, as GetUser.
func (a *Accounts) Profile(ctx context.Context, id string) (domain.User, error) {
	uid, err := table.ParseUserID(id)
	if err != nil {
		return domain.User{}, err
	}
	row, err := a.getUserRow(ctx, uid, false)
	if err != nil {
		return domain.User{}, err
	}
	if row == nil {
		return domain.User{}, domain.Errorf(domain.CodeNotFound, "user %q not found", id)
	}
	return domain.User{ID: id, Name: row.Name, Standings: []domain.Standing{}}, nil
}
