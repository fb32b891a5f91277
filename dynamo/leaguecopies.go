package dynamo

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

// League copies. Every member row (LEAGUE#<lid> / MEMBER#<uid>) carries a copy of the
// member's season standings — one map attribute per season, s<yyyy> = {points, correct,
// eventsPlayed} — so that a league's standings page is the one Query of the
// league's partition that reads the league (see LeagueStandings). A copy never disagrees
// with the standing it copies:
//
//   - scoring writes the copies in the transaction that writes the standing: it reads
//     the player's league item (@LEAGUES: the ids of their leagues, rev) with their
//     standing (one consistent BatchGetItem), and updates each of their member rows
//     (absolute values, conditioned on the row existing: a member who left is not
//     re-created, the transaction is cancelled and the player read again). A NEW standing
//     also moves the league item's rev on (conditioned on the rev read), because a join
//     cannot condition on a standing it did not see (below);
//   - joining (and creating a league) reads the player's league item, then every standing
//     they have (one consistent Query), copies them all onto the new member row and, in
//     the same transaction, moves each standing's version on (conditioned on the version
//     read) and the league item's rev (conditioned on the rev read): a scoring
//     transaction that read either before is cancelled and reads again; one that
//     committed after the join's reads cancels the join, which reads again;
//   - leaving deletes the member row; renames do not touch the copies.
//
// Member rows written before copies existed have no `copies` marker: their standings are
// read by key, as before (memberStandings); `admin migrate` gives them their copies
// (MigrateLeagueCopies).

// attrCopies marks a member row that holds copies of all the member's season standings.
const attrCopies = "copies"

// seasonTotals is a member row's copy of one season standing.
type seasonTotals struct {
	Points       int `dynamodbav:"points"`
	Correct      int `dynamodbav:"correct"`
	EventsPlayed int `dynamodbav:"eventsPlayed"`
}

// seasonAttr is the member row attribute holding the copy of a season's standing.
func seasonAttr(season int) string { return fmt.Sprintf("s%04d", season) }

// seasonCopies decodes the season copies of a member row's item (by season).
func seasonCopies(item map[string]types.AttributeValue) (map[int]seasonTotals, error) {
	out := map[int]seasonTotals{}
	for name, v := range item {
		if len(name) != 5 || name[0] != 's' {
			continue
		}
		season, err := strconv.Atoi(name[1:])
		if err != nil {
			continue
		}
		var t seasonTotals
		if err := attributevalue.Unmarshal(v, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[season] = t
	}
	return out, nil
}

// leaguesRow is a player's league item (USER#<uid> / @LEAGUES): how many leagues they are
// in, their ids, and rev, which every join, leave and new season standing moves on.
type leaguesRow struct {
	keys
	Leagues int      `dynamodbav:"leagues"`
	IDs     []string `dynamodbav:"ids"`
	Rev     int      `dynamodbav:"rev"`
}

// decodeLeagues decodes a league item.
func decodeLeagues(item map[string]types.AttributeValue) (*leaguesRow, error) {
	var row leaguesRow
	if err := attributevalue.UnmarshalMap(item, &row); err != nil {
		return nil, err
	}
	return &row, nil
}

// leaguesRevIs is the condition that a league item's rev is still rev (0: there is none).
func leaguesRevIs(rev int) (string, map[string]types.AttributeValue) {
	if rev == 0 {
		return "attribute_not_exists(rev)", map[string]types.AttributeValue{}
	}
	return "rev = :rev", map[string]types.AttributeValue{":rev": num(rev)}
}

// standingAfter is what j's standing holds once its write lands; nil if j writes none
// (or the standing does not add up: scoreWrites reports that).
func standingAfter(j *scoreJob) *seasonTotals {
	d := j.rescore.Delta
	if j.standing == nil {
		if j.row.Points != nil {
			return nil
		}
		return &seasonTotals{Points: d.Points, Correct: d.Correct, EventsPlayed: d.EventsPlayed}
	}
	if d.Zero() {
		return nil
	}
	next, err := domain.ApplyDelta(j.standing.toDomain(), d)
	if err != nil {
		return nil
	}
	return &seasonTotals{Points: next.Points, Correct: next.Correct, EventsPlayed: next.EventsPlayed}
}

// leagueCopyItems are the items that go with j's standing write in its scoring
// transaction: for a new standing, the move of the player's league item's rev
// (conditioned on the rev read); for every league of theirs, the update of their member
// row's copy of the season (conditioned on the row existing). None if j writes no
// standing.
func (s *Store) leagueCopyItems(j *scoreJob, season int) ([]types.TransactWriteItem, error) {
	t := standingAfter(j)
	if t == nil {
		return nil, nil
	}
	uid := userID(j.row.UserID)
	var items []types.TransactWriteItem
	var ids []string
	rev := 0
	if j.leagues != nil {
		ids, rev = j.leagues.IDs, j.leagues.Rev
	}
	if j.standing == nil {
		cond, values := leaguesRevIs(rev)
		values[":t"], values[":zero"], values[":one"] = str(typeLeagueCount), num(0), num(1)
		items = append(items, s.txUpdate(pkKey(userPK(uid), leagueCountSK), "SET #t = :t, rev = if_not_exists(rev, :zero) + :one",
			cond, map[string]string{"#t": attrType}, values))
	}
	if len(ids) == 0 {
		return items, nil
	}
	copied, err := attributevalue.Marshal(t)
	if err != nil {
		return nil, err
	}
	for _, lid := range ids {
		items = append(items, s.txUpdate(pkKey(leaguePK(leagueID(lid)), memberSK(uid)), "SET #s = :s", "attribute_exists(PK)",
			map[string]string{"#s": seasonAttr(season)}, map[string]types.AttributeValue{":s": copied}))
	}
	return items, nil
}

// jobItems is how many transaction items scoring j takes: its prediction, and with a
// standing write the standing and leagueCopyItems, and for a first standing the check of
// the name it takes (nameCheck).
func jobItems(j *scoreJob) int {
	if standingAfter(j) == nil {
		return 1
	}
	n := 2
	if j.standing == nil {
		n += 2
	}
	if j.leagues != nil {
		n += len(j.leagues.IDs)
	}
	return n
}

// scoringBatchItems is how many items of a scoring transaction its players may take:
// the rest holds the shard's checkpoint, its two histograms and one spare.
const scoringBatchItems = maxTransactItems - 4

// pageChunk is a part of a page of a shard written in one transaction, and the index key
// the checkpoint moves to with it.
type pageChunk struct {
	jobs  []*scoreJob
	after string
}

// splitPage splits a page (whose last index key is last) into transactions of at most
// scoringBatchItems items, in index order: every chunk but the last moves the checkpoint
// to the index key of its last player, the last one to last. A page is one chunk unless
// its players' leagues (or new standings) make it too big.
func splitPage(page []*scoreJob, last string) []pageChunk {
	var (
		out   []pageChunk
		cur   []*scoreJob
		items int
	)
	for _, j := range page {
		n := jobItems(j)
		if len(cur) > 0 && items+n > scoringBatchItems {
			out = append(out, pageChunk{jobs: cur, after: cur[len(cur)-1].row.GSISK})
			cur, items = nil, 0
		}
		cur = append(cur, j)
		items += n
	}
	return append(out, pageChunk{jobs: cur, after: last})
}

// tooManyItems reports whether a scoring transaction's items exceed DynamoDB's limit
// (players re-read since the page was split joined leagues): the caller reads the page
// again and splits it anew.
func tooManyItems(items []types.TransactWriteItem) bool { return len(items) > maxTransactItems }

// joinerCopies is what a new member row copies: the player's league item's rev as read
// (0: none), their season standings (attribute → copy) and, for the same transaction, the
// move of each standing's version (conditioned on the version read).
type joinerCopies struct {
	rev     int
	seasons map[string]types.AttributeValue
	bumps   []types.TransactWriteItem
}

// readJoinerCopies reads, after the player's league item (leagues, nil if none), every
// season standing of uid (one consistent Query) and returns what their new member row
// copies. See the comment at the top of this file for why the order matters.
func (s *Store) readJoinerCopies(ctx context.Context, uid userID, leagues *leaguesRow) (joinerCopies, error) {
	c := joinerCopies{seasons: map[string]types.AttributeValue{}}
	if leagues != nil {
		c.rev = leagues.Rev
	}
	q, err := s.newQueryBetween(userPK(uid), prefixSeason)
	if err != nil {
		return c, err
	}
	q.ConsistentRead = aws.Bool(true)
	err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		if itemType(item) != typeStanding {
			return true, nil
		}
		var row standingRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return false, err
		}
		v, err := attributevalue.Marshal(seasonTotals{Points: row.Points, Correct: row.Correct, EventsPlayed: row.EventsPlayed})
		if err != nil {
			return false, err
		}
		c.seasons[seasonAttr(row.Season)] = v
		c.bumps = append(c.bumps, s.txUpdate(pkKey(row.PK, row.SK), "SET version = :next", "version = :v", nil,
			map[string]types.AttributeValue{":next": num(row.Version + 1), ":v": num(row.Version)}))
		return true, nil
	})
	return c, err
}

// tooManyLeaguesIn reports whether a cancelled join's league item update failed because
// the player is in MaxLeaguesPerPlayer leagues (rather than because its rev moved on).
func tooManyLeaguesIn(reasons []types.CancellationReason, i int) bool {
	if !failed(reasons, i) || len(reasons[i].Item) == 0 {
		return false
	}
	row, err := decodeLeagues(reasons[i].Item)
	return err == nil && row.Leagues >= domain.MaxLeaguesPerPlayer
}

// MigrateLeagueCopies gives the member rows written before copies existed (no `copies`
// attribute) their copies, as a join would (admin migrate): it Scans the table for them,
// and for each reads the member's league item and standings (readJoinerCopies) and writes,
// in one transaction, the copies and the marker onto the row (conditioned on it still
// existing without the marker), the moves of the standings' versions and of the league
// item's rev (conditioned on what was read: a scoring transaction in between cancels one
// of the two; this one reads again). Idempotent and resumable; returns how many rows it
// gave copies.
func (s *Store) MigrateLeagueCopies(ctx context.Context) (int, error) {
	in := &dynamodb.ScanInput{
		TableName:                 aws.String(s.table),
		FilterExpression:          aws.String("#t = :member AND attribute_not_exists(copies)"),
		ExpressionAttributeNames:  map[string]string{"#t": attrType},
		ExpressionAttributeValues: map[string]types.AttributeValue{":member": str(typeMember)},
		ConsistentRead:            aws.Bool(true),
	}
	done := 0
	for {
		out, err := s.db.Scan(ctx, in)
		if err != nil {
			return done, fmt.Errorf("dynamo: migrate league copies: %w", err)
		}
		for _, item := range out.Items {
			m, err := decodeMember(item)
			if err != nil {
				return done, fmt.Errorf("dynamo: migrate league copies: %w", err)
			}
			if err := s.copyOntoMember(ctx, m); err != nil {
				return done, err
			}
			done++
		}
		if len(out.LastEvaluatedKey) == 0 {
			return done, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// copyOntoMember gives one member row without copies its copies (MigrateLeagueCopies).
func (s *Store) copyOntoMember(ctx context.Context, m memberRow) error {
	uid := userID(m.UserID)
	wrap := func(err error) error {
		return fmt.Errorf("dynamo: migrate league copies of %s in %s: %w", uid, m.LeagueID, err)
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var leagues *leaguesRow
		err := s.batchGetItems(ctx, []map[string]types.AttributeValue{pkKey(userPK(uid), leagueCountSK)}, true,
			func(item map[string]types.AttributeValue) (err error) {
				leagues, err = decodeLeagues(item)
				return err
			})
		if err != nil {
			return wrap(err)
		}
		copies, err := s.readJoinerCopies(ctx, uid, leagues)
		if err != nil {
			return wrap(err)
		}
		set := "SET copies = :t"
		values := map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}
		names := map[string]string{}
		i := 0
		for attr, v := range copies.seasons {
			set += fmt.Sprintf(", #s%d = :s%d", i, i)
			names[fmt.Sprintf("#s%d", i)], values[fmt.Sprintf(":s%d", i)] = attr, v
			i++
		}
		if len(names) == 0 {
			names = nil
		}
		cond, revValues := leaguesRevIs(copies.rev)
		revValues[":t"], revValues[":zero"], revValues[":one"] = str(typeLeagueCount), num(0), num(1)
		items := []types.TransactWriteItem{
			s.txUpdate(pkKey(m.PK, m.SK), set, "attribute_exists(PK) AND attribute_not_exists(copies)", names, values),
			s.txUpdate(pkKey(userPK(uid), leagueCountSK), "SET #t = :t, rev = if_not_exists(rev, :zero) + :one", cond,
				map[string]string{"#t": attrType}, revValues),
		}
		err = s.transactRetry(ctx, append(items, copies.bumps...))
		reasons, cancelled := cancellationReasons(err)
		switch {
		case err == nil:
			return nil
		case !cancelled:
			return wrap(err)
		case failed(reasons, 0):
			return nil // left, or copied meanwhile
		}
		if err := sleep(ctx, backoff(attempt+1)); err != nil {
			return err
		}
	}
	return wrap(domain.Errorf(domain.CodeConflict, "the player's standings kept changing; run admin migrate again"))
}
