package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
)

// CreateEvent creates an event with its whole card in one transaction (players never see
// half a card and a re-run cannot duplicate matches) of the store's shard count
// (WithScoreShards, stored on the event row), with its lock copies in the same transaction
// when they fit (one shard: one copy), else after it. Its season is given the store's shard
// count first, unless it has one. It is idempotent: when the id is taken
// by an event exactly as this call would create it (same name, start and card, still
// UPCOMING and never edited) — typically this very create, applied but answered too late
// and tried again by the SDK or by the admin — it finishes that event's lock copies and
// returns it (with its own match ids). Returns CONFLICT if the id is taken by anything else.
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

	if err := s.ensureSeason(ctx, ev.Season()); err != nil {
		return domain.Event{}, err
	}
	row := table.NewEventRow(ev, s.shards)
	rows := []any{row}
	for _, m := range ev.Matches {
		rows = append(rows, table.NewMatchRow(table.EventID(id), m))
	}
	copiesWithEvent := len(rows)+row.LockCopies+1 <= ddb.MaxTransactItems // +1: the audit entry
	if copiesWithEvent {
		for c := range row.LockCopies {
			rows = append(rows, table.NewLockRow(row, c))
		}
	}
	items := make([]types.TransactWriteItem, len(rows))
	for i, r := range rows {
		if items[i], err = s.db.Put(r, table.NotExists()); err != nil {
			return domain.Event{}, fmt.Errorf("dynamo: create event %s: %w", id, err)
		}
	}
	items, err = s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionCreateEvent, EventID: id, Summary: domain.SummarizeCreateEvent(ev)}, items...)
	if err != nil {
		return domain.Event{}, fmt.Errorf("dynamo: create event %s: %w", id, err)
	}
	err = s.db.TransactRetry(ctx, items)
	if reasons, cancelled := ddb.CancellationReasons(err); cancelled && ddb.Failed(reasons, 0) {
		existing, err := s.readCard(ctx, id)
		if err != nil {
			return domain.Event{}, err
		}
		if !sameNewEvent(existing, ev) {
			return domain.Event{}, domain.Errorf(domain.CodeConflict, "event %q already exists", id)
		}
		if err := s.ensureLocks(ctx, existing.row); err != nil {
			return domain.Event{}, err
		}
		return existing.ev, nil
	}
	if err != nil {
		return domain.Event{}, fmt.Errorf("dynamo: create event %s: %w", id, err)
	}
	s.noteEvent(row, len(ev.Matches))
	if copiesWithEvent {
		return ev, nil
	}
	// Its lock copies, in transactions of 100: until they all exist, a submit that meets a
	// missing one creates the rest first (submitRefusal), and so does every admin change.
	if err := s.createLocks(ctx, row, allCopies(row)); err != nil {
		return domain.Event{}, err
	}
	return ev, nil
}

// sameNewEvent reports whether the event read is ev as CreateEvent would create it: still
// UPCOMING at its first card version, with the same name, start and card (match ids aside,
// which every create draws anew).
func sameNewEvent(read cardRead, ev domain.Event) bool {
	got := read.ev
	if got.Stored != domain.StateUpcoming || got.CardVersion != 1 || got.Name != ev.Name ||
		!got.StartsAt.Equal(ev.StartsAt) || len(got.Matches) != len(ev.Matches) {
		return false
	}
	for i, a := range got.Matches {
		b := ev.Matches[i]
		if a.Position != b.Position || a.Name != b.Name || a.Points != b.Points || a.Preshow != b.Preshow ||
			!slices.Equal(a.Championships, b.Championships) || a.Result != nil || len(a.Teams) != len(b.Teams) {
			return false
		}
		for j, ta := range a.Teams {
			tb := b.Teams[j]
			if (ta.Name == nil) != (tb.Name == nil) || (ta.Name != nil && *ta.Name != *tb.Name) ||
				!slices.Equal(ta.Members, tb.Members) || ta.Champion != tb.Champion {
				return false
			}
		}
	}
	return true
}

func matchFromSpec(id string, position int, ms domain.MatchSpec) domain.Match {
	return domain.Match{ID: id, Position: position, Name: ms.Name, Points: ms.Points, Preshow: ms.Preshow,
		Championships: ms.Championships, Teams: ms.Teams}
}

// maxCardReads bounds how often readCard reads again when a card change landed between
// its two reads.
const maxCardReads = 5

// cardRead is an event with its card as one moment of the main table, and its row.
type cardRead struct {
	ev  domain.Event
	row table.EventRow
}

// readCard reads an event row and its match rows with strongly consistent reads of the main
// table: a GetItem and a Query in parallel. The two reads see two moments; the pair is
// returned only when the event row's cardHash matches the matches read, so it is one moment
// of the card (every card change writes the matches and the hash in one transaction).
// Otherwise it reads again. Returns NOT_FOUND if there is no such event, UNAVAILABLE if the
// card kept changing under the reads.
func (s *Store) readCard(ctx context.Context, id string) (cardRead, error) {
	eid, err := table.ParseEventID(id)
	if err != nil {
		return cardRead{}, err
	}
	for attempt := 0; attempt < maxCardReads; attempt++ {
		var (
			evOut *dynamodb.GetItemOutput
			rows  []table.MatchRow
		)
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			var err error
			evOut, err = s.db.GetItem(gctx, &dynamodb.GetItemInput{
				TableName: aws.String(s.db.Name), Key: table.Key(table.EventsPartition, table.EventSK(eid)), ConsistentRead: aws.Bool(true),
			})
			return err
		})
		g.Go(func() error {
			q, err := s.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventPK(eid))).
				And(expression.Key(table.AttrSK).BeginsWith(table.MatchKeyPrefix)), 0, true)
			if err != nil {
				return err
			}
			q.ConsistentRead = aws.Bool(true)
			return s.db.QueryEach(gctx, q, func(item map[string]types.AttributeValue) (bool, error) {
				var row table.MatchRow
				err := attributevalue.UnmarshalMap(item, &row)
				rows = append(rows, row)
				return err == nil, err
			})
		})
		if err := g.Wait(); err != nil {
			return cardRead{}, fmt.Errorf("dynamo: load card %s: %w", id, err)
		}
		if evOut.Item == nil {
			return cardRead{}, domain.Errorf(domain.CodeNotFound, "event %q not found", id)
		}
		var row table.EventRow
		if err := attributevalue.UnmarshalMap(evOut.Item, &row); err != nil {
			return cardRead{}, fmt.Errorf("dynamo: load card %s: %w", id, err)
		}
		ev, ok, err := table.CardOf(row, rows)
		if err != nil {
			return cardRead{}, err
		}
		if !ok {
			continue // a card change landed between the two reads
		}
		s.noteEvent(row, len(ev.Matches))
		return cardRead{ev: ev, row: row}, nil
	}
	return cardRead{}, domain.Errorf(domain.CodeUnavailable, "the card of event %q kept changing while it was read; try again", id)
}

// commitCard writes items (the match changes) in one transaction with an update of the
// event that bumps its cardVersion and rev, sets the cardHash of card (the matches as they
// will be) and, if state is not nil, its state, conditioned on the cardVersion and rev read:
// the card read is one moment (readCard), so a change by anyone else since makes the whole
// transaction fail and nothing is overwritten. The lock copies are checked current before
// (ensureLocks) and brought to the new row after (syncLocks). Returns CONFLICT if the card
// changed meanwhile; UNAVAILABLE if the transaction kept conflicting with others in flight.
func (s *Store) commitCard(ctx context.Context, cr cardRead, card []domain.Match, state *domain.EventState, items ...types.TransactWriteItem) error {
	ev, row := cr.ev, cr.row
	defer s.cache.ForgetEvent(ev.ID)
	if err := s.ensureLocks(ctx, row); err != nil {
		return err
	}
	next := row
	next.CardVersion, next.Rev, next.CardHash = ev.CardVersion+1, row.Rev+copiesFollow(row), table.CardHash(card)
	upd := expression.Set(expression.Name("cardVersion"), expression.Value(next.CardVersion)).
		Set(expression.Name("cardHash"), expression.Value(next.CardHash)).
		Set(expression.Name("rev"), expression.Value(next.Rev))
	if state != nil {
		next.State = string(*state)
		upd = upd.Set(expression.Name("state"), expression.Value(next.State))
	}
	update, err := s.db.Update(table.Key(table.EventsPartition, table.EventSK(table.EventID(ev.ID))), upd,
		expression.Name("cardVersion").Equal(expression.Value(ev.CardVersion)).And(table.RevIs(row.Rev)))
	if err != nil {
		return fmt.Errorf("dynamo: update card %s: %w", ev.ID, err)
	}
	err = s.db.TransactRetry(ctx, append([]types.TransactWriteItem{update}, items...))
	if _, cancelled := ddb.CancellationReasons(err); cancelled {
		return domain.Errorf(domain.CodeConflict, "the card of event %q changed meanwhile; reload it and try again", ev.ID)
	}
	if err != nil {
		return fmt.Errorf("dynamo: update card %s: %w", ev.ID, err)
	}
	if next.Rev == row.Rev {
		return nil
	}
	return s.syncLocks(ctx, next, nil)
}

// lockOnResult is the state that goes with a result: an event locked only by time is
// stored BROADCAST, so that once a result exists nothing can make the event look open
// again, whatever the clocks say. nil: no change.
func lockOnResult(ev domain.Event) *domain.EventState {
	if ev.Stored != domain.StateUpcoming {
		return nil
	}
	st := domain.StateBroadcast
	return &st
}

// moveMatch sets a match's position (and its card sort key).
func (s *Store) moveMatch(eid table.EventID, m domain.Match, position int) (types.TransactWriteItem, error) {
	return s.db.Update(table.Key(table.EventPK(eid), table.MatchSK(table.MatchID(m.ID))),
		expression.Set(expression.Name("position"), expression.Value(position)).
			Set(expression.Name(table.AttrGSISK), expression.Value(table.CardSK(position))), table.Exists())
}

// deleteMatch deletes a match (that exists).
func (s *Store) deleteMatch(eid table.EventID, m domain.Match) (types.TransactWriteItem, error) {
	return s.db.DeleteIf(table.Key(table.EventPK(eid), table.MatchSK(table.MatchID(m.ID))), table.Exists())
}

// UpdateEvent changes an event's name, start or state under the lifecycle rules
// (domain.PlanEventUpdate): the start stays within its UTC date (the id holds the date) and
// moves only earlier once the event has locked; a locked event never reopens; a SCORED
// event may only be renamed. The write is conditioned on the name, state and start the
// decision was made on (and, when the decision needed the event open, on its start still
// being ahead), so a change landing in between makes it decide again. The card is not
// touched (cardVersion does not move). Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) UpdateEvent(ctx context.Context, id string, u domain.EventUpdate) (domain.Event, error) {
	for attempt := 0; attempt < ddb.OptimisticAttempts; attempt++ {
		cr, err := s.readCard(ctx, id)
		if err != nil {
			return domain.Event{}, err
		}
		ev := cr.ev
		now := s.now()
		change, err := domain.PlanEventUpdate(ev, u, now)
		if err != nil {
			return domain.Event{}, err
		}
		if change.Empty() {
			return ev, nil
		}
		done, err := s.writeEventChange(ctx, cr, change, now)
		if err != nil {
			return domain.Event{}, err
		}
		if !done {
			continue // the event changed since it was read: decide again
		}
		ev = change.Apply(ev)
		if change.Name != nil || change.StartsAt != nil {
			if err := s.propagateEventRef(ctx, ev, cr.row.Shards); err != nil {
				return domain.Event{}, err
			}
		}
		return ev, nil
	}
	return domain.Event{}, domain.Errorf(domain.CodeConflict, "event %q kept changing; try again", id)
}

// writeEventChange writes change to the event row read as cr, conditioned on the name,
// state, start and rev read and, if change.RequireOpen, on the start being after now, in one
// transaction with its audit entry; the lock copies are checked current before and brought
// to the new row after. done is false when the condition failed.
func (s *Store) writeEventChange(ctx context.Context, cr cardRead, change domain.EventChange, now time.Time) (bool, error) {
	ev, row := cr.ev, cr.row
	defer s.cache.ForgetEvent(ev.ID)
	if err := s.ensureLocks(ctx, row); err != nil {
		return false, err
	}
	next := row
	next.Rev = row.Rev + copiesFollow(row)
	upd := expression.Set(expression.Name("rev"), expression.Value(next.Rev))
	if change.Name != nil {
		next.Name = *change.Name
		upd = upd.Set(expression.Name("name"), expression.Value(next.Name))
	}
	if change.StartsAt != nil {
		next.StartsAt = table.FormatTime(*change.StartsAt)
		upd = upd.Set(expression.Name("startsAt"), expression.Value(next.StartsAt))
	}
	if change.State != nil {
		next.State = string(*change.State)
		upd = upd.Set(expression.Name("state"), expression.Value(next.State))
	}
	cond := expression.Name("name").Equal(expression.Value(ev.Name)).
		And(expression.Name("state").Equal(expression.Value(string(ev.Stored)))).
		And(expression.Name("startsAt").Equal(expression.Value(table.FormatTime(ev.StartsAt)))).
		And(table.RevIs(row.Rev))
	if change.RequireOpen {
		cond = cond.And(table.OpenAt(now))
	}
	update, err := s.db.Update(table.Key(table.EventsPartition, table.EventSK(table.EventID(ev.ID))), upd, cond)
	if err != nil {
		return false, fmt.Errorf("dynamo: update event %s: %w", ev.ID, err)
	}
	items, err := s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionUpdateEvent, EventID: ev.ID, Summary: domain.SummarizeEventChange(ev, change)}, update)
	if err != nil {
		return false, fmt.Errorf("dynamo: update event %s: %w", ev.ID, err)
	}
	err = s.db.TransactRetry(ctx, items)
	if reasons, cancelled := ddb.CancellationReasons(err); cancelled && ddb.Failed(reasons, 0) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("dynamo: update event %s: %w", ev.ID, err)
	}
	if next.Rev == row.Rev {
		return true, nil
	}
	return true, s.syncLocks(ctx, next, nil)
}

// copiesFollow is 1 if a change of the event row must reach its lock copies (the rev
// grows, then the copies are synced), 0 if not: once the row has left UPCOMING its copies
// say so too (ensureLocks made sure before the change), every submit fails on that, and a
// locked event never reopens, so nothing else of the row matters to them any more.
func copiesFollow(row table.EventRow) int {
	if row.State == string(domain.StateUpcoming) {
		return 1
	}
	return 0
}

// propagateEventRef copies an event's name and start onto its predictions, in transactions
// of at most 99 predictions and a ConditionCheck that the event still has that name and
// start: a propagation overtaken by a later updateEvent stops rather than writing an older
// name over the newer one. The predictions are found through the index (the event's
// shards, in parallel), which may lag: one it does not show yet keeps the old copy until
// the next updateEvent (the copies are for display; nothing is decided on them).
func (s *Store) propagateEventRef(ctx context.Context, ev domain.Event, shards int) error {
	eid := table.EventID(ev.ID)
	var (
		mu    sync.Mutex
		stale []table.Keys
	)
	g, gctx := errgroup.WithContext(ctx)
	for _, pk := range table.EventShardPKs(eid, shards) {
		g.Go(func() error {
			q, err := s.db.NewQuery(table.IndexName, expression.Key(table.AttrGSIPK).Equal(expression.Value(pk)).
				And(expression.Key(table.AttrGSISK).GreaterThan(expression.Value(table.CardLast))), 0, true)
			if err != nil {
				return err
			}
			return s.db.QueryEach(gctx, q, func(item map[string]types.AttributeValue) (bool, error) {
				if table.ItemType(item) == table.TypePrediction && (table.ItemString(item, "eventName") != ev.Name ||
					table.ItemString(item, "eventStartsAt") != table.FormatTime(ev.StartsAt)) {
					mu.Lock()
					stale = append(stale, table.Keys{PK: table.ItemString(item, table.AttrPK), SK: table.ItemString(item, table.AttrSK)})
					mu.Unlock()
				}
				return true, nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("eventName"), expression.Value(ev.Name)).
			Set(expression.Name("eventStartsAt"), expression.Value(table.FormatTime(ev.StartsAt))).
			Add(expression.Name("version"), expression.Value(1))).
		WithCondition(table.Exists()).Build()
	if err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	check, err := s.db.Check(table.Key(table.EventsPartition, table.EventSK(eid)), expression.Name("name").Equal(expression.Value(ev.Name)).
		And(expression.Name("startsAt").Equal(expression.Value(table.FormatTime(ev.StartsAt)))))
	if err != nil {
		return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
	}
	for start := 0; start < len(stale); start += ddb.MaxTransactItems - 1 {
		batch := stale[start:min(start+ddb.MaxTransactItems-1, len(stale))]
		items := []types.TransactWriteItem{check}
		for _, k := range batch {
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.db.Name), Key: table.Key(k.PK, k.SK),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}})
		}
		err := s.db.TransactRetry(ctx, items)
		if reasons, cancelled := ddb.CancellationReasons(err); cancelled && ddb.Failed(reasons, 0) {
			return nil // a later updateEvent changed the event again: its propagation wins
		}
		if err != nil {
			return fmt.Errorf("dynamo: update event %s predictions: %w", ev.ID, err)
		}
	}
	return nil
}

// AddMatch appends a match to the end of a card. Returns NOT_FOUND, BAD_USER_INPUT (full
// card, scored event) or CONFLICT.
func (s *Store) AddMatch(ctx context.Context, event string, spec domain.MatchSpec) (domain.Match, error) {
	cr, err := s.readCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	ev := cr.ev
	if err := domain.CheckCardEdit(ev, domain.EditAddMatch, s.now()); err != nil {
		return domain.Match{}, err
	}
	if len(ev.Matches) >= domain.MaxMatches {
		return domain.Match{}, domain.BadInput("a card has at most %d matches", domain.MaxMatches)
	}
	clean, err := domain.CleanMatch(spec)
	if err != nil {
		return domain.Match{}, err
	}
	m := matchFromSpec(domain.NewMatchID(), len(ev.Matches)+1, clean)
	put, err := s.putMatch(table.EventID(ev.ID), m, false)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: add match %s: %w", event, err)
	}
	items, err := s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionAddMatch, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeMatch("added", m)}, put)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: add match %s: %w", event, err)
	}
	if err := s.commitCard(ctx, cr, append(slices.Clone(ev.Matches), m), nil, items...); err != nil {
		return domain.Match{}, err
	}
	return m, nil
}

// findMatch returns the match with id on ev's card, or NOT_FOUND.
func findMatch(ev domain.Event, id string) (domain.Match, error) {
	if _, err := table.ParseMatchID(id); err != nil {
		return domain.Match{}, err
	}
	m, ok := ev.Match(id)
	if !ok {
		return domain.Match{}, domain.Errorf(domain.CodeNotFound, "match %q is not on the card of event %q", id, ev.ID)
	}
	return m, nil
}

// replaceMatch returns the card with the match whose id is old replaced by m.
func replaceMatch(card []domain.Match, old string, m domain.Match) []domain.Match {
	out := slices.Clone(card)
	for i := range out {
		if out[i].ID == old {
			out[i] = m
		}
	}
	return out
}

// UpdateMatch changes a match. Changing its teams replaces it with a new match (new id, no
// result): picks are team indices, so picks on the old match stop counting rather than
// being silently re-pointed. Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) UpdateMatch(ctx context.Context, event, match string, u domain.MatchUpdate) (domain.Match, error) {
	cr, err := s.readCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	ev := cr.ev
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
	eid := table.EventID(ev.ID)
	updated := matchFromSpec(m.ID, m.Position, clean)
	updated.Result, updated.PickCounts = m.Result, m.PickCounts
	var items []types.TransactWriteItem
	if u.Teams != nil && !reflect.DeepEqual(clean.Teams, m.Teams) {
		if err := domain.CheckCardEdit(ev, domain.EditMatchTeams, s.now()); err != nil {
			return domain.Match{}, err
		}
		updated.ID, updated.Result, updated.PickCounts = domain.NewMatchID(), nil, nil
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
		if err := domain.CheckCardEdit(ev, domain.EditMatchDetails, s.now()); err != nil {
			return domain.Match{}, err
		}
		put, err := s.putMatch(eid, updated, true)
		if err != nil {
			return domain.Match{}, fmt.Errorf("dynamo: update match %s/%s: %w", event, match, err)
		}
		items = append(items, put)
	}
	items, err = s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionUpdateMatch, EventID: ev.ID, MatchID: &updated.ID, Summary: domain.SummarizeMatchUpdate(m, updated)}, items...)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: update match %s/%s: %w", event, match, err)
	}
	if err := s.commitCard(ctx, cr, replaceMatch(ev.Matches, m.ID, updated), nil, items...); err != nil {
		return domain.Match{}, err
	}
	return updated, nil
}

// RemoveMatch deletes a match and closes the gap in the card order. Returns NOT_FOUND,
// BAD_USER_INPUT (scored event) or CONFLICT.
func (s *Store) RemoveMatch(ctx context.Context, event, match string) error {
	cr, err := s.readCard(ctx, event)
	if err != nil {
		return err
	}
	ev := cr.ev
	m, err := findMatch(ev, match)
	if err != nil {
		return err
	}
	if err := domain.CheckCardEdit(ev, domain.EditRemoveMatch, s.now()); err != nil {
		return err
	}
	eid := table.EventID(ev.ID)
	del, err := s.deleteMatch(eid, m)
	if err != nil {
		return fmt.Errorf("dynamo: remove match %s/%s: %w", event, match, err)
	}
	items := []types.TransactWriteItem{del}
	var card []domain.Match
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
		other.Position = pos
		card = append(card, other)
		pos++
	}
	items, err = s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionRemoveMatch, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeMatch("removed", m)}, items...)
	if err != nil {
		return fmt.Errorf("dynamo: remove match %s/%s: %w", event, match, err)
	}
	return s.commitCard(ctx, cr, card, nil, items...)
}

// ReorderMatches sets the card order; ids must name every match of the card exactly once.
// Returns the card in its new order, or NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) ReorderMatches(ctx context.Context, event string, ids []string) ([]domain.Match, error) {
	cr, err := s.readCard(ctx, event)
	if err != nil {
		return nil, err
	}
	ev := cr.ev
	if err := domain.CheckCardEdit(ev, domain.EditReorder, s.now()); err != nil {
		return nil, err
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
			mv, err := s.moveMatch(table.EventID(ev.ID), m, i+1)
			if err != nil {
				return nil, fmt.Errorf("dynamo: reorder %s: %w", event, err)
			}
			items = append(items, mv)
		}
		m.Position = i + 1
		out[i] = m
	}
	if len(items) == 0 {
		return out, nil // the order is unchanged: nothing written, no audit entry
	}
	items, err = s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionReorderMatches, EventID: ev.ID, Summary: domain.SummarizeOrder(out)}, items...)
	if err != nil {
		return nil, fmt.Errorf("dynamo: reorder %s: %w", event, err)
	}
	if err := s.commitCard(ctx, cr, out, nil, items...); err != nil {
		return nil, err
	}
	return out, nil
}

// SetResult sets (or, with nil, clears) a match result. Results are accepted only once the
// event is locked, and an event locked by time alone is stored BROADCAST in the same
// transaction, so results never reach players who can still pick; a SCORED event's results
// can be corrected but not cleared. Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) SetResult(ctx context.Context, event, match string, r *domain.MatchResult) (domain.Match, error) {
	cr, err := s.readCard(ctx, event)
	if err != nil {
		return domain.Match{}, err
	}
	ev := cr.ev
	m, err := findMatch(ev, match)
	if err != nil {
		return domain.Match{}, err
	}
	edit := domain.EditSetResult
	if r == nil {
		edit = domain.EditClearResult
	}
	if err := domain.CheckCardEdit(ev, edit, s.now()); err != nil {
		return domain.Match{}, err
	}
	if r != nil {
		if err := domain.ValidateResult(*r, len(m.Teams)); err != nil {
			return domain.Match{}, err
		}
	}
	old := m.Result
	m.Result = r
	put, err := s.putMatch(table.EventID(ev.ID), m, true)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: set result %s/%s: %w", event, match, err)
	}
	items, err := s.withAudit(ctx, domain.AuditEntry{Action: domain.ActionSetResult, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeResult(m, old)}, put)
	if err != nil {
		return domain.Match{}, fmt.Errorf("dynamo: set result %s/%s: %w", event, match, err)
	}
	if err := s.commitCard(ctx, cr, replaceMatch(ev.Matches, m.ID, m), lockOnResult(ev), items...); err != nil {
		return domain.Match{}, err
	}
	return m, nil
}

// putMatch is a Put of a match; mustExist chooses attribute_exists or attribute_not_exists.
// The match's pick counts as read (m.PickCounts) are carried over, and a Put over an
// existing match is conditioned on them still being what is stored: scoring writes them
// without moving the card version, so a card edit that read the card before they were
// written fails (CONFLICT: read again) rather than wiping them.
func (s *Store) putMatch(eid table.EventID, m domain.Match, mustExist bool) (types.TransactWriteItem, error) {
	row := table.NewMatchRow(eid, m)
	if !mustExist {
		return s.db.Put(row, table.NotExists())
	}
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	same := expression.AttributeNotExists(expression.Name("pickCounts"))
	if row.PickCounts != nil {
		same = expression.Name("pickCounts").Equal(expression.Value(row.PickCounts))
	}
	expr, err := expression.NewBuilder().WithCondition(table.Exists().And(same)).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.db.Name), Item: item,
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}
