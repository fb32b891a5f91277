package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// ListEvents returns events newest first, of one season or (season nil) all seasons.
// One Query per page of DynamoDB results; it stops as soon as it has first+1 events.
func (s *Store) ListEvents(ctx context.Context, season *int, first int, after string) (domain.Page[domain.Event], error) {
	var page domain.Page[domain.Event]
	prefix, owner := table.EventKeyPrefix, "all"
	if season != nil {
		if err := domain.ValidateSeason(*season); err != nil {
			return page, err
		}
		prefix, owner = table.SeasonEventsPrefix(*season), strconv.Itoa(*season)
	}
	q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventsPartition)).
		And(expression.Key(table.AttrSK).BeginsWith(prefix)), first+1, false)
	if err != nil {
		return page, fmt.Errorf("dynamo: list events: %w", err)
	}
	if after != "" {
		c, err := s.cursors.Decode(after, table.CursorEvents, owner)
		if err != nil {
			return page, err
		}
		if !strings.HasPrefix(table.EventSK(table.EventID(c.ID)), prefix) { // forged: outside the season
			return page, domain.BadInput("invalid cursor for this list")
		}
		q.ExclusiveStartKey = table.Key(table.EventsPartition, table.EventSK(table.EventID(c.ID)))
	}
	page, err = queryPage(ctx, s.db, q, first, func(row *table.EventRow) (domain.Event, string, error) {
		e, err := row.ToDomain()
		return e, s.cursors.Encode(table.Cursor{Kind: table.CursorEvents, Owner: owner, ID: e.ID}), err
	})
	if err != nil {
		return page, fmt.Errorf("dynamo: list events: %w", err)
	}
	return page, nil
}

// queryPage reads a page of at most first items with q (its Limit first+1): each row of R
// becomes an item and its cursor through item; a row beyond first only sets HasNext.
func queryPage[R, T any](ctx context.Context, db *ddb.Table, q *dynamodb.QueryInput, first int, item func(*R) (T, string, error)) (domain.Page[T], error) {
	var page domain.Page[T]
	err := db.QueryEach(ctx, q, func(raw map[string]types.AttributeValue) (bool, error) {
		if len(page.Items) == first {
			page.HasNext = true
			return false, nil
		}
		var row R
		if err := attributevalue.UnmarshalMap(raw, &row); err != nil {
			return false, err
		}
		it, cursor, err := item(&row)
		if err != nil {
			return false, err
		}
		page.Items = append(page.Items, it)
		page.Cursors = append(page.Cursors, cursor)
		return true, nil
	})
	if err != nil {
		return domain.Page[T]{}, err
	}
	return page, nil
}

// eventPartition collects what one read of an event's card (its GSI partition's CARD#
// range) found.
type eventPartition struct {
	event   *table.EventRow
	matches []table.MatchRow
}

func (p *eventPartition) add(item map[string]types.AttributeValue) error {
	switch table.ItemType(item) {
	case table.TypeEvent:
		var row table.EventRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		p.event = &row
	case table.TypeMatch:
		var row table.MatchRow
		if err := attributevalue.UnmarshalMap(item, &row); err != nil {
			return err
		}
		p.matches = append(p.matches, row)
	}
	return nil
}

// readCardRange reads an event's card with q, to its end.
func (s *Store) readCardRange(ctx context.Context, q *dynamodb.QueryInput, z *ddb.Sized) (*eventPartition, error) {
	p := &eventPartition{}
	err := s.db.QueryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		z.Add(item)
		return true, p.add(item)
	})
	return p, err
}

// toEvent returns the event with its card in card order (the GSI sorts it), or NOT_FOUND.
// current is false when the index showed rows of two moments: an event row whose
// table.CardHash does not match the match rows read with it (the index gets a transaction's
// writes item by item), or match rows without their event row.
func (p *eventPartition) toEvent(id string) (ev domain.Event, current bool, err error) {
	if p.event == nil {
		return domain.Event{}, len(p.matches) == 0, domain.Errorf(domain.CodeNotFound, "event %q not found", id)
	}
	return table.CardOf(*p.event, p.matches)
}

// GetEvent returns an event with its card: one Query of the card's key range in the
// index, whose cost does not depend on the number of players. When that read shows the
// event row and the matches of two different moments (the index lags behind the table),
// the card is read again from the table with consistent reads (readCard): a card is never
// returned half old, half new. With the read cache on, the card may be up to its TTL old.
// Returns NOT_FOUND if there is no such event.
func (s *Store) GetEvent(ctx context.Context, id string) (domain.Event, error) {
	eid, err := table.ParseEventID(id)
	if err != nil {
		return domain.Event{}, err
	}
	return s.cachedEvent(ctx, eid)
}

// cachedEvent is GetEvent of a parsed id.
func (s *Store) cachedEvent(ctx context.Context, eid table.EventID) (domain.Event, error) {
	return ddb.Cached(ctx, s.cache, ddb.CardKey(string(eid)), func(ctx context.Context, z *ddb.Sized) (domain.Event, error) {
		return s.readEvent(ctx, eid, z)
	})
}

// readEvent is GetEvent without the cache.
func (s *Store) readEvent(ctx context.Context, eid table.EventID, z *ddb.Sized) (domain.Event, error) {
	ev, _, err := s.readEventRow(ctx, eid, z)
	return ev, err
}

// readEventRow is readEvent that also returns the event's row (its shard and lock-copy
// counts, which never change).
func (s *Store) readEventRow(ctx context.Context, eid table.EventID, z *ddb.Sized) (domain.Event, table.EventRow, error) {
	id := string(eid)
	q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(table.EventPK(eid))).
		And(expression.Key(table.AttrGSISK).Between(expression.Value(table.CardFirst), expression.Value(table.CardLast))), 0, true)
	if err != nil {
		return domain.Event{}, table.EventRow{}, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	p, err := s.readCardRange(ctx, q, z)
	if err != nil {
		return domain.Event{}, table.EventRow{}, fmt.Errorf("dynamo: get event %s: %w", id, err)
	}
	ev, current, err := p.toEvent(id)
	if !current {
		r, err := s.readCard(ctx, id)
		return r.ev, r.row, err
	}
	if err != nil {
		return ev, table.EventRow{}, err
	}
	s.noteEvent(*p.event, len(ev.Matches))
	return ev, *p.event, nil
}

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
