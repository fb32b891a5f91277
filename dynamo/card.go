package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
)

// CreateEvent creates an event with its whole card in one transaction: players never see
// half a card and a re-run cannot duplicate matches. Returns CONFLICT if the id is taken.
func (s *Store) CreateEvent(ctx context.Context, spec domain.EventSpec) (domain.Event, error) {
	name, err := domain.CleanText("event name", spec.Name, domain.MaxTextLen)
	if err != nil {
		return domain.Event{}, err
	}
	start, err := domain.ValidateStart(spec.StartsAt)
	if err != nil {
		return domain.Event{}, err
	}
	var id string
	if spec.ID != nil {
		id = *spec.ID
		if err := domain.ValidateEventID(id); err != nil {
			return domain.Event{}, err
		}
		if err := domain.ValidateEventIDForStart(id, start); err != nil {
			return domain.Event{}, err
		}
	} else if id, err = domain.NewEventID(name, start); err != nil {
		return domain.Event{}, err
	}
	if len(spec.Matches) > domain.MaxMatches {
		return domain.Event{}, domain.BadInput("a card has at most %d matches", domain.MaxMatches)
	}
	ev := domain.Event{ID: id, Name: name, StartsAt: start, Stored: domain.StateUpcoming, CardVersion: 1,
		Matches: make([]domain.Match, len(spec.Matches))}
	for i, ms := range spec.Matches {
		clean, err := domain.CleanMatch(ms)
		if err != nil {
			return domain.Event{}, fmt.Errorf("match %d: %w", i+1, err)
		}
		ev.Matches[i] = matchFromSpec(domain.NewMatchID(), i+1, clean)
	}

	rows := []any{newEventRow(ev)}
	for _, m := range ev.Matches {
		rows = append(rows, newMatchRow(eventID(id), m))
	}
	items := make([]types.TransactWriteItem, len(rows))
	for i, r := range rows {
		if items[i], err = s.put(r, false); err != nil {
			return domain.Event{}, fmt.Errorf("dynamo: create event %s: %w", id, err)
		}
	}
	err = s.transact(ctx, items)
	if reasons, cancelled := cancellationReasons(err); cancelled && reasonCode(reasons, 0) == "ConditionalCheckFailed" {
		return domain.Event{}, domain.Errorf(domain.CodeConflict, "event %q already exists", id)
	}
	if err != nil {
		return domain.Event{}, fmt.Errorf("dynamo: create event %s: %w", id, err)
	}
	return ev, nil
}

func matchFromSpec(id string, position int, ms domain.MatchSpec) domain.Match {
	return domain.Match{ID: id, Position: position, Name: ms.Name, Points: ms.Points, Preshow: ms.Preshow,
		Championships: ms.Championships, Teams: ms.Teams}
}

// loadCard reads an event and its matches consistently from the main table (two reads in
// parallel), for mutations. Returns NOT_FOUND if there is no such event.
func (s *Store) loadCard(ctx context.Context, id string) (domain.Event, error) {
	eid, err := parseEventID(id)
	if err != nil {
		return domain.Event{}, err
	}
	var (
		evOut   *dynamodb.GetItemOutput
		matches []domain.Match
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		evOut, err = s.db.GetItem(gctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eid)), ConsistentRead: aws.Bool(true),
		})
		return err
	})
	g.Go(func() error {
		q, err := s.newQuery("", expression.Key(attrPK).Equal(expression.Value(eventPK(eid))).
			And(expression.Key(attrSK).BeginsWith(prefixMatch)), 0, true)
		if err != nil {
			return err
		}
		q.ConsistentRead = aws.Bool(true)
		return s.queryEach(gctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			var row matchRow
			if err := attributevalue.UnmarshalMap(item, &row); err != nil {
				return false, err
			}
			matches = append(matches, row.toDomain())
			return true, nil
		})
	})
	if err := g.Wait(); err != nil {
		return domain.Event{}, fmt.Errorf("dynamo: load card %s: %w", id, err)
	}
	if evOut.Item == nil {
		return domain.Event{}, domain.Errorf(domain.CodeNotFound, "event %q not found", id)
	}
	var row eventRow
	if err := attributevalue.UnmarshalMap(evOut.Item, &row); err != nil {
		return domain.Event{}, fmt.Errorf("dynamo: load card %s: %w", id, err)
	}
	ev, err := row.toDomain()
	if err != nil {
		return domain.Event{}, err
	}
	sort.Slice(matches, func(i, j int) bool { return matches[i].Position < matches[j].Position })
	ev.Matches = nonNil(matches)
	return ev, nil
}

// commitCard writes items together with a bump of the event's cardVersion, conditioned on
// the version read. Returns CONFLICT if the card changed meanwhile.
func (s *Store) commitCard(ctx context.Context, ev domain.Event, set *expression.UpdateBuilder, items ...types.TransactWriteItem) error {
	upd := expression.Set(expression.Name("cardVersion"), expression.Value(ev.CardVersion+1))
	if set != nil {
		upd = set.Set(expression.Name("cardVersion"), expression.Value(ev.CardVersion+1))
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: update card %s: %w", ev.ID, err)
	}
	all := append([]types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(eventsPK, eventSK(eventID(ev.ID))),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}}, items...)
	err = s.transact(ctx, all)
	if _, cancelled := cancellationReasons(err); cancelled {
		return domain.Errorf(domain.CodeConflict, "the card of event %q changed meanwhile; reload it and try again", ev.ID)
	}
	if err != nil {
		return fmt.Errorf("dynamo: update card %s: %w", ev.ID, err)
	}
	return nil
}

// putMatch is a Put of a match; mustExist chooses attribute_exists or attribute_not_exists.
func (s *Store) putMatch(eid eventID, m domain.Match, mustExist bool) (types.TransactWriteItem, error) {
	return s.put(newMatchRow(eid, m), mustExist)
}

// moveMatch sets a match's position (and its card sort key).
func (s *Store) moveMatch(eid eventID, m domain.Match, position int) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("position"), expression.Value(position)).
			Set(expression.Name(attrGSISK), expression.Value(cardSK(position)))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: pkKey(eventPK(eid), matchSK(matchID(m.ID))),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

func (s *Store) deleteMatch(eid eventID, m domain.Match) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: pkKey(eventPK(eid), matchSK(matchID(m.ID))),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
	}}, nil
}

// UpdateEvent changes an event's name, start or state (UPCOMING or BROADCAST only). The
// start may move within its UTC date only (the id holds the date). A SCORED event may only
// be renamed. Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) UpdateEvent(ctx context.Context, id string, u domain.EventUpdate) (domain.Event, error) {
	ev, err := s.loadCard(ctx, id)
	if err != nil {
		return domain.Event{}, err
	}
	upd := expression.UpdateBuilder{}
	changed := false
	if u.Name != nil {
		name, err := domain.CleanText("event name", *u.Name, domain.MaxTextLen)
		if err != nil {
			return domain.Event{}, err
		}
		ev.Name = name
		upd = upd.Set(expression.Name("name"), expression.Value(name))
		changed = true
	}
	if (u.StartsAt != nil || u.State != nil) && ev.Stored == domain.StateScored {
		return domain.Event{}, domain.BadInput("event %q is scored: only its name can change", id)
	}
	if u.StartsAt != nil {
		start, err := domain.ValidateStart(*u.StartsAt)
		if err != nil {
			return domain.Event{}, err
		}
		if err := domain.ValidateEventIDForStart(id, start); err != nil {
			return domain.Event{}, domain.BadInput("startsAt must stay on %s, the date in the event id", id[:10])
		}
		ev.StartsAt = start
		upd = upd.Set(expression.Name("startsAt"), expression.Value(formatTime(start)))
		changed = true
	}
	if u.State != nil {
		if *u.State != domain.StateUpcoming && *u.State != domain.StateBroadcast {
			return domain.Event{}, domain.BadInput("state can be set to UPCOMING or BROADCAST only; scoreEvent sets SCORED")
		}
		ev.Stored = *u.State
		upd = upd.Set(expression.Name("state"), expression.Value(string(*u.State)))
		changed = true
	}
	if !changed {
		return ev, nil
	}
	if err := s.commitCard(ctx, ev, &upd); err != nil {
		return domain.Event{}, err
	}
	ev.CardVersion++
	if u.Name != nil || u.StartsAt != nil {
		if err := s.propagateEventRef(ctx, ev); err != nil {
			return domain.Event{}, err
		}
	}
	return ev, nil
}

// propagateEventRef copies an event's name and start onto its predictions, in transactions
// of at most 100 items. It is idempotent: the next updateEvent repairs a run cut off.
func (s *Store) propagateEventRef(ctx context.Context, ev domain.Event) error {
	eid := eventID(ev.ID)
	q, err := s.newQuery(IndexName, expression.Key(attrGSIPK).Equal(expression.Value(eventPK(eid))).
		And(expression.Key(attrGSISK).GreaterThan(expression.Value(prefixCard+"~"))), 0, true)
	if err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	var stale []keys
	err = s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
		if itemType(item) == typePrediction && (itemString(item, "eventName") != ev.Name ||
			itemString(item, "eventStartsAt") != formatTime(ev.StartsAt)) {
			stale = append(stale, keys{PK: itemString(item, attrPK), SK: itemString(item, attrSK)})
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("eventName"), expression.Value(ev.Name)).
			Set(expression.Name("eventStartsAt"), expression.Value(formatTime(ev.StartsAt)))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	if err := s.updateEach(ctx, stale, expr); err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	return nil
}

// AddMatch appends a match to the end of a card. Returns NOT_FOUND, BAD_USER_INPUT (full
// card, scored event) or CONFLICT.
func (s *Store) AddMatch(ctx context.Context, event string, spec domain.MatchSpec) (domain.Match, error) {
	ev, err := s.loadCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	if ev.Stored == domain.StateScored {
		return domain.Match{}, domain.BadInput("event %q is scored: its card cannot change", event)
	}
	if len(ev.Matches) >= domain.MaxMatches {
		return domain.Match{}, domain.BadInput("a card has at most %d matches", domain.MaxMatches)
	}
	clean, err := domain.CleanMatch(spec)
	if err != nil {
		return domain.Match{}, err
	}
	m := matchFromSpec(domain.NewMatchID(), len(ev.Matches)+1, clean)
	put, err := s.putMatch(eventID(ev.ID), m, false)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: add match %s: %w", event, err)
	}
	if err := s.commitCard(ctx, ev, nil, put); err != nil {
		return domain.Match{}, err
	}
	return m, nil
}

// findMatch returns the match with id on ev's card, or NOT_FOUND.
func findMatch(ev domain.Event, id string) (domain.Match, error) {
	if _, err := parseMatchID(id); err != nil {
		return domain.Match{}, err
	}
	m, ok := ev.Match(id)
	if !ok {
		return domain.Match{}, domain.Errorf(domain.CodeNotFound, "match %q is not on the card of event %q", id, ev.ID)
	}
	return m, nil
}

// UpdateMatch changes a match. Changing its teams replaces it with a new match (new id, no
// result): picks are team indices, so picks on the old match stop counting rather than
// being silently re-pointed. Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) UpdateMatch(ctx context.Context, event, match string, u domain.MatchUpdate) (domain.Match, error) {
	ev, err := s.loadCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	m, err := findMatch(ev, match)
	if err != nil {
		return domain.Match{}, err
	}
	spec := domain.MatchSpec{Name: m.Name, Points: m.Points, Preshow: m.Preshow, Championships: m.Championships, Teams: m.Teams}
	if u.Name != nil {
		spec.Name = *u.Name
	}
	if u.Points != nil {
		spec.Points = *u.Points
	}
	if u.Preshow != nil {
		spec.Preshow = *u.Preshow
	}
	if u.Championships != nil {
		spec.Championships = u.Championships
	}
	if u.Teams != nil {
		spec.Teams = u.Teams
	}
	clean, err := domain.CleanMatch(spec)
	if err != nil {
		return domain.Match{}, err
	}
	eid := eventID(ev.ID)
	updated := matchFromSpec(m.ID, m.Position, clean)
	updated.Result = m.Result
	var items []types.TransactWriteItem
	if u.Teams != nil && !reflect.DeepEqual(clean.Teams, m.Teams) {
		if ev.Stored == domain.StateScored {
			return domain.Match{}, domain.BadInput("event %q is scored: the teams of its matches cannot change", event)
		}
		updated.ID, updated.Result = domain.NewMatchID(), nil
		del, err := s.deleteMatch(eid, m)
		if err != nil {
			return domain.Match{}, fmt.Errorf("dynamo: update match %s/%s: %w", event, match, err)
		}
		put, err := s.putMatch(eid, updated, false)
		if err != nil {
			return domain.Match{}, fmt.Errorf("dynamo: update match %s/%s: %w", event, match, err)
		}
		items = append(items, del, put)
	} else {
		put, err := s.putMatch(eid, updated, true)
		if err != nil {
			return domain.Match{}, fmt.Errorf("dynamo: update match %s/%s: %w", event, match, err)
		}
		items = append(items, put)
	}
	if err := s.commitCard(ctx, ev, nil, items...); err != nil {
		return domain.Match{}, err
	}
	return updated, nil
}

// RemoveMatch deletes a match and closes the gap in the card order. Returns NOT_FOUND,
// BAD_USER_INPUT (scored event) or CONFLICT.
func (s *Store) RemoveMatch(ctx context.Context, event, match string) error {
	ev, err := s.loadCard(ctx, event)
	if err != nil {
		return err
	}
	m, err := findMatch(ev, match)
	if err != nil {
		return err
	}
	if ev.Stored == domain.StateScored {
		return domain.BadInput("event %q is scored: its card cannot change", event)
	}
	eid := eventID(ev.ID)
	del, err := s.deleteMatch(eid, m)
	if err != nil {
		return fmt.Errorf("dynamo: remove match %s/%s: %w", event, match, err)
	}
	items := []types.TransactWriteItem{del}
	pos := 1
	for _, other := range ev.Matches {
		if other.ID == m.ID {
			continue
		}
		if other.Position != pos {
			mv, err := s.moveMatch(eid, other, pos)
			if err != nil {
				return fmt.Errorf("dynamo: remove match %s/%s: %w", event, match, err)
			}
			items = append(items, mv)
		}
		pos++
	}
	return s.commitCard(ctx, ev, nil, items...)
}

// ReorderMatches sets the card order; ids must name every match of the card exactly once.
// Returns the card in its new order, or NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) ReorderMatches(ctx context.Context, event string, ids []string) ([]domain.Match, error) {
	ev, err := s.loadCard(ctx, event)
	if err != nil {
		return nil, err
	}
	if ev.Stored == domain.StateScored {
		return nil, domain.BadInput("event %q is scored: its card cannot change", event)
	}
	if len(ids) != len(ev.Matches) {
		return nil, domain.BadInput("matchIds must list all %d matches of the card exactly once", len(ev.Matches))
	}
	seen := make(map[string]bool, len(ids))
	out := make([]domain.Match, len(ids))
	var items []types.TransactWriteItem
	for i, id := range ids {
		m, err := findMatch(ev, id)
		if err != nil {
			return nil, domain.BadInput("matchIds: %s", err.(*domain.Error).Message)
		}
		if seen[id] {
			return nil, domain.BadInput("matchIds lists match %q twice", id)
		}
		seen[id] = true
		if m.Position != i+1 {
			mv, err := s.moveMatch(eventID(ev.ID), m, i+1)
			if err != nil {
				return nil, fmt.Errorf("dynamo: reorder %s: %w", event, err)
			}
			items = append(items, mv)
		}
		m.Position = i + 1
		out[i] = m
	}
	if len(items) == 0 {
		return out, nil
	}
	if err := s.commitCard(ctx, ev, nil, items...); err != nil {
		return nil, err
	}
	return out, nil
}

// SetResult sets (or, with nil, clears) a match result. Results are accepted only once the
// event is locked, so they cannot leak to players still picking; a SCORED event's results
// can be corrected but not cleared. Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) SetResult(ctx context.Context, event, match string, r *domain.MatchResult) (domain.Match, error) {
	ev, err := s.loadCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	m, err := findMatch(ev, match)
	if err != nil {
		return domain.Match{}, err
	}
	if !ev.Locked(s.now()) {
		return domain.Match{}, domain.BadInput("event %q is still open for picks: lock it (updateEvent state BROADCAST) before entering results", event)
	}
	if r == nil && ev.Stored == domain.StateScored {
		return domain.Match{}, domain.BadInput("event %q is scored: a result can be corrected but not cleared", event)
	}
	if r != nil {
		if err := domain.ValidateResult(*r, len(m.Teams)); err != nil {
			return domain.Match{}, err
		}
	}
	m.Result = r
	put, err := s.putMatch(eventID(ev.ID), m, true)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: set result %s/%s: %w", event, match, err)
	}
	if err := s.commitCard(ctx, ev, nil, put); err != nil {
		return domain.Match{}, err
	}
	return m, nil
}
