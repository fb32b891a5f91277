package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// GetEventState returns an event without its card (Matches nil) from one strongly
// consistent GetItem of its row: what deciding who may see picks needs (a cached card could
// show a start since moved later). Returns NOT_FOUND if there is no such event.
func (s *Store) GetEventState(ctx context.Context, id string) (domain.Event, error) {
	eid, err := table.ParseEventID(id)
	if err != nil {
		return domain.Event{}, err
	}
	row, err := s.getEventRow(ctx, eid)
	if err != nil {
		return domain.Event{}, err
	}
	return row.ToDomain()
}

// profilePage gathers one page of a profile's predictions, newest event first, as the
// viewer may see them (domain.PredictionVisible): all of them for the owner; for anyone
// else the scored ones and those of locked events. Most are known visible without their
// event (domain.PredictionVisibleWithoutEvent); for the others — events of today and
// later, the top of a newest-first list — the event rows decide (resolve: one consistent BatchGetItem, only when there are such rows).
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
// BatchGetItem (fillRanksWith), so another viewer's profile costs no more calls than the
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
	err := p.s.fillRanksWith(ctx, rows, standings, keys, func(item map[string]types.AttributeValue) error {
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
