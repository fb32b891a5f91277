package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// seasonsPerProfile is how many standings items a profile's first read expects before the
// predictions start; more only cost another page.
const seasonsPerProfile = 4

// GetUser returns a user with their standings (newest season first) and the first page of
// their predictions (newest event first) from one descending Query of their partition.
// Predictions of events still open for picks are left out unless own (the caller is the
// user): others see them once the event has locked (profilePage: the rows of events
// dated today or later are read in the rank tables' BatchGetItem). Standings and scored
// predictions carry their ranks where their season or event has a rank table (rankTables: one
// BatchGetItem of the tables not in the read cache). Returns NOT_FOUND if the user never
// registered nor played.
func (s *Store) GetUser(ctx context.Context, id string, first int, own bool) (domain.User, domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	uid, err := table.ParseUserID(id)
	if err != nil {
		return domain.User{}, page, err
	}
	// SK ≥ "EVENT#": the profile, standings and predictions, never the league rows
	// ("@…": package table) that sort below them.
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))).
		And(expression.Key(table.AttrSK).GreaterThanEqual(expression.Value(table.EventKeyPrefix))), 1+seasonsPerProfile+first+1, false)
	if err != nil {
		return domain.User{}, page, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	user := domain.User{ID: id, Standings: []domain.Standing{}}
	found := false
	pp := newProfilePage(s, id, first, own)
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		switch table.ItemType(item) {
		case table.TypeUser:
			var row table.UserRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			user.Name, found = row.Name, true
		case table.TypeStanding:
			var row table.StandingRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			user.Standings = append(user.Standings, row.ToDomain())
		case table.TypePrediction:
			return pp.add(item)
		}
		return true, nil
	})
	if err != nil {
		return domain.User{}, domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	if !found {
		return domain.User{}, domain.Page[domain.Prediction]{}, domain.Errorf(domain.CodeNotFound, "user %q not found", id)
	}
	if page, err = pp.resolve(ctx, user.Standings); err != nil {
		return domain.User{}, domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: get user %s: %w", id, err)
	}
	return user, page, nil
}

// UserPredictions returns the page of a user's predictions (newest event first) after
// cursor after, ranked as in GetUser. Predictions of events still open for picks are left
// out unless own, as in GetUser.
func (s *Store) UserPredictions(ctx context.Context, id string, first int, after string, own bool) (domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	uid, err := table.ParseUserID(id)
	if err != nil {
		return page, err
	}
	c, err := s.cursors.Decode(after, table.CursorPredictions, id)
	if err != nil {
		return page, err
	}
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.UserPK(uid))).
		And(expression.Key(table.AttrSK).BeginsWith(table.EventKeyPrefix)), first+1, false)
	if err != nil {
		return page, fmt.Errorf("dynamo: user predictions %s: %w", id, err)
	}
	q.ExclusiveStartKey = table.Key(table.UserPK(uid), table.EventSK(table.EventID(c.ID)))
	pp := newProfilePage(s, id, first, own)
	err = s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		return pp.add(item)
	})
	if err == nil {
		page, err = pp.resolve(ctx, nil)
	}
	if err != nil {
		return domain.Page[domain.Prediction]{}, fmt.Errorf("dynamo: user predictions %s: %w", id, err)
	}
	return page, nil
}

// profilePage gathers one page of a profile's predictions, newest event first, as the
// viewer may see them (domain.PredictionVisible): all of them for the owner; for anyone
// else the scored ones and those of locked events. Most are known visible without their
// event (domain.PredictionVisibleWithoutEvent); for the others — events of today and later,
// the top of a newest-first list — the event rows decide (resolve: one consistent
// BatchGetItem, only when there are such rows).
type profilePage struct {
	s     *Store
	owner string
	own   bool
	first int

	rows    []table.PredictionRow // read, in order: visible or pending
	pending map[string]bool       // event ids whose rows decide
	sure    int                   // rows known visible
}

func newProfilePage(s *Store, owner string, first int, own bool) *profilePage {
	return &profilePage{s: s, owner: owner, own: own, first: first, pending: map[string]bool{}}
}

// add takes the next prediction item of the owner's partition; it returns whether to read
// on (until first+1 rows are known visible: the page and whether there is a next one).
func (p *profilePage) add(item map[string]types.AttributeValue) (bool, error) {
	var row table.PredictionRow
	if err := attributevalue.UnmarshalMap(item, &row); err != nil {
		return false, err
	}
	if domain.PredictionVisibleWithoutEvent(row.EventID, p.own, row.Points != nil, p.s.now()) {
		p.sure++
	} else {
		p.pending[row.EventID] = true
	}
	p.rows = append(p.rows, row)
	return p.sure <= p.first, nil
}

// resolve returns the page, with ranks on its scored predictions and on standings (the
// profile's seasons, if any): the pending events' rows are read in the rank tables'
// BatchGetItem (fillRanks), so another viewer's profile costs no more calls than the
// owner's.
func (p *profilePage) resolve(ctx context.Context, standings []domain.Standing) (domain.Page[domain.Prediction], error) {
	var page domain.Page[domain.Prediction]
	rows := make([]domain.Prediction, len(p.rows))
	for i, row := range p.rows {
		var err error
		if rows[i], err = row.ToDomain(); err != nil {
			return page, err
		}
	}
	keys := make([]map[string]types.AttributeValue, 0, len(p.pending))
	for id := range p.pending {
		keys = append(keys, table.Key(table.EventsPartition, table.EventSK(table.EventID(id))))
	}
	locked := map[string]bool{}
	now := p.s.now()
	err := p.s.fillRanks(ctx, rows, standings, keys, func(item map[string]types.AttributeValue) error {
		var row table.EventRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		ev, err := row.ToDomain()
		if err != nil {
			return err
		}
		locked[ev.ID] = ev.PicksVisible(now)
		return nil
	})
	if err != nil {
		return page, err
	}
	for _, pr := range rows {
		if p.pending[pr.EventID] && !locked[pr.EventID] {
			continue
		}
		if len(page.Items) == p.first {
			page.HasNext = true
			break
		}
		page.Items = append(page.Items, pr)
		page.Cursors = append(page.Cursors, p.s.cursors.Encode(table.Cursor{Kind: table.CursorPredictions, Owner: p.owner, ID: pr.EventID}))
	}
	return page, nil
}
