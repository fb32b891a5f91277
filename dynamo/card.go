package dynamo

import (
	"context"
	"errors"
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
	"github.com/pickem/api/push"
)

// CreateEvent creates an event with its game settings (domain.CleanSettings) and its whole
// card (domain.CleanCard: a refusal names the match) in one transaction (players never see
// half a card and a re-run cannot duplicate matches) of the store's shard count
// (WithScoreShards, stored on the event row), with its lock copies in the same transaction
// when they fit (one shard: one copy), else after it. Its season is given the store's shard
// count first, unless it has one. It is idempotent: when the id is taken by an event
// exactly as this call would create it (domain.SameNewEvent: same name, start, settings
// and card, still UPCOMING and never edited) — typically this very create, applied but
// answered too late and tried again by the SDK or by the admin — it finishes that event's
// lock copies and returns it (with its own match ids). Returns CONFLICT if the id is taken
// by anything else.
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
	settings, err := domain.CleanSettings(spec.Settings)
	if err != nil {
		return domain.Event{}, err
	}
	card, err := domain.CleanCard(spec.Matches)
	if err != nil {
		return domain.Event{}, err
	}
	ev := domain.Event{ID: id, Name: name, StartsAt: start, Stored: domain.StateUpcoming, CardVersion: 1,
		Settings: settings, Matches: make([]domain.Match, len(card))}
	for i, ms := range card {
		ev.Matches[i] = matchFromSpec(domain.NewMatchID(), i+1, ms)
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
		if !domain.SameNewEvent(existing.ev, ev) {
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

func matchFromSpec(id string, position int, ms domain.MatchSpec) domain.Match {
	return domain.Match{ID: id, Position: position, Name: ms.Name, Points: ms.Points, MethodPoints: ms.MethodPoints,
		Preshow: ms.Preshow, Championships: ms.Championships, Teams: ms.Teams}
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

// The changes of an existing event — updateEvent, the card edits (addMatch, updateMatch,
// removeMatch, reorderMatches, setResult, a change of the game settings) and
// setTiebreakerAnswer — all take one flow, editCard: read the event with its card as one
// moment (readCard), find the match the change is about, decide it (check it against the
// lifecycle and build what it writes), then write the event row, the match items and the
// audit entry in one transaction conditioned on what was read (writeEvent). A change that
// publishes a live message (a result set or cleared, a change of state, the tie-breaker
// answer set or cleared) moves the live version in that transaction and is published after
// it (live.go); the other changes publish nothing.

// cardEdit is what one change of an event brings to editCard.
type cardEdit struct {
	op string // the change as errors name it ("add match")
	// match is the id of the match the change is about ("": none): NOT_FOUND unless it is
	// on the card read, BAD_USER_INPUT if it is not a match id.
	match string
	// decide checks the change against the event ev read at now (its lifecycle:
	// domain.CheckCardEdit or domain.PlanEventUpdate, which say which edit it is; m is the
	// match, when match is set) and returns what it writes. An error refuses the change,
	// nothing written.
	decide func(ev domain.Event, m domain.Match, now time.Time) (eventChange, error)
	// again: a write refused because the event changed after it was read is decided again
	// on a new read (up to ddb.OptimisticAttempts reads), rather than refused with CONFLICT
	// as a card edit is (the admin decided it on the card they saw).
	again bool
}

// eventChange is what a decided change writes.
type eventChange struct {
	// none: the change changes nothing; nothing is written, no audit entry.
	none bool
	// card is the event's matches after the change (ev.Matches when it changes none).
	card []domain.Match
	// movesCard: the change is a card edit (domain/lifecycle.go): it moves the card version
	// by one, so a submit checked against the card before it fails with CONFLICT.
	movesCard bool
	// state is the event's stored state after the change (nil: unchanged).
	state *domain.EventState
	// row makes the change's other changes to the event row (name, start, settings,
	// answer); nil: none.
	row func(table.EventRow) table.EventRow
	// cond is what the event row must still hold besides the card version and rev read
	// (nil: nothing more).
	cond *expression.ConditionBuilder
	// items are the writes of match items; audit the change's audit entry.
	items []types.TransactWriteItem
	audit domain.AuditEntry
	// message builds the change's live message from its head (package push; see live.go):
	// a change with one moves the event's live version by one in its transaction, and
	// editCard publishes the message once it is committed. nil: the change publishes
	// nothing and leaves the live version as it is.
	message func(push.Head) (string, error)
}

// cardEdited is the change of a card edit: the card after it, its audit entry and its
// writes of match items.
func cardEdited(card []domain.Match, audit domain.AuditEntry, items ...types.TransactWriteItem) eventChange {
	return eventChange{card: card, movesCard: true, audit: audit, items: items}
}

// editCard applies e to event and returns the event with its card and row as written (as
// read, when the change changes nothing). The write is conditioned on the card version
// and rev read (and e's own condition; with a live message, the live version read): the card
// read is one moment (readCard), so a change by anyone else since makes the whole
// transaction fail and nothing is overwritten. A committed change with a live message is
// published before editCard returns. Returns
// NOT_FOUND, e's refusals, CONFLICT if the event changed meanwhile (after e.again's new
// decisions: if it kept changing), UNAVAILABLE if the transaction kept conflicting with
// others in flight.
func (s *Store) editCard(ctx context.Context, event string, e cardEdit) (cardRead, error) {
	wrap := func(err error) error {
		if de := (*domain.Error)(nil); errors.As(err, &de) {
			return err
		}
		return fmt.Errorf("dynamo: %s %s: %w", e.op, event, err)
	}
	attempts := 1
	if e.again {
		attempts = ddb.OptimisticAttempts
	}
	for range attempts {
		cr, err := s.readCard(ctx, event)
		if err != nil {
			return cardRead{}, err
		}
		var m domain.Match
		if e.match != "" {
			if m, err = findMatch(cr.ev, e.match); err != nil {
				return cardRead{}, err
			}
		}
		now := s.now()
		c, err := e.decide(cr.ev, m, now)
		if err != nil {
			return cardRead{}, wrap(err)
		}
		if c.none {
			return cr, nil
		}
		next := cr.row
		if c.row != nil {
			next = c.row(next)
		}
		if c.state != nil {
			next.State = string(*c.state)
		}
		if c.movesCard {
			next.CardVersion, next.CardHash = cr.row.CardVersion+1, table.CardHash(c.card)
		}
		next.Rev = cr.row.Rev + copiesFollow(cr.row)
		cond := expression.Name("cardVersion").Equal(expression.Value(cr.row.CardVersion)).And(table.RevIs(cr.row.Rev))
		if c.cond != nil {
			cond = cond.And(*c.cond)
		}
		if c.message != nil {
			next.LiveVersion = cr.row.LiveVersion + 1
			cond = cond.And(table.LiveVersionIs(cr.row.LiveVersion))
		}
		items, err := s.withAudit(ctx, c.audit, c.items...)
		if err != nil {
			return cardRead{}, wrap(err)
		}
		written, err := s.writeEvent(ctx, cr.row, next, cond, items...)
		if err != nil {
			return cardRead{}, wrap(err)
		}
		if written {
			if c.message != nil {
				s.publish(ctx, event, next.LiveVersion, c.message)
			}
			ev, err := next.ToDomain()
			ev.Matches = c.card
			return cardRead{ev: ev, row: next}, err
		}
	}
	if e.again {
		return cardRead{}, domain.Errorf(domain.CodeConflict, "event %q kept changing; try again", event)
	}
	return cardRead{}, domain.Errorf(domain.CodeConflict, "the card of event %q changed meanwhile; reload it and try again", event)
}

// writeEvent writes the event row read as row as next, conditioned on cond, in one
// transaction with items (match items' writes, the audit entry last). The lock copies are
// checked current before (ensureLocks) and brought to next after (syncLocks) when its rev
// moved; the read cache forgets the event. written is false when a condition failed and
// the transaction was cancelled: nothing was written.
func (s *Store) writeEvent(ctx context.Context, row, next table.EventRow, cond expression.ConditionBuilder, items ...types.TransactWriteItem) (written bool, err error) {
	defer s.cache.ForgetEvent(row.ID)
	if err := s.ensureLocks(ctx, row); err != nil {
		return false, err
	}
	update, err := s.db.Update(table.Key(table.EventsPartition, table.EventSK(table.EventID(row.ID))), eventUpdate(row, next), cond)
	if err != nil {
		return false, err
	}
	err = s.db.TransactRetry(ctx, append([]types.TransactWriteItem{update}, items...))
	if _, cancelled := ddb.CancellationReasons(err); cancelled {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if next.Rev == row.Rev {
		return true, nil
	}
	return true, s.syncLocks(ctx, next, nil)
}

// eventUpdate is the update of an event row from old to next: rev, and each attribute a
// change of the event writes that next holds otherwise; the game's attributes are removed
// when next leaves them out, so an event that stops using one is stored as one that never
// did.
func eventUpdate(old, next table.EventRow) expression.UpdateBuilder {
	u := expression.Set(expression.Name("rev"), expression.Value(next.Rev))
	write := func(name string, changed, omitted bool, v any) {
		switch {
		case !changed:
		case omitted:
			u = u.Remove(expression.Name(name))
		default:
			u = u.Set(expression.Name(name), expression.Value(v))
		}
	}
	write("name", old.Name != next.Name, false, next.Name)
	write("startsAt", old.StartsAt != next.StartsAt, false, next.StartsAt)
	write("state", old.State != next.State, false, next.State)
	write("cardVersion", old.CardVersion != next.CardVersion, false, next.CardVersion)
	write("cardHash", old.CardHash != next.CardHash, false, next.CardHash)
	write("jokers", old.Jokers != next.Jokers, !next.Jokers, next.Jokers)
	write("perfectCardBonus", old.PerfectCardBonus != next.PerfectCardBonus, next.PerfectCardBonus == 0, next.PerfectCardBonus)
	write("tiebreaker", old.Tiebreaker != next.Tiebreaker, next.Tiebreaker == "", next.Tiebreaker)
	write("answer", !reflect.DeepEqual(old.Answer, next.Answer), next.Answer == nil, next.Answer)
	write("answerVersion", old.AnswerVersion != next.AnswerVersion, next.AnswerVersion == 0, next.AnswerVersion)
	write("liveVersion", old.LiveVersion != next.LiveVersion, next.LiveVersion == 0, next.LiveVersion)
	return u
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

// UpdateEvent changes an event's name, start, state or game settings under the lifecycle
// rules (domain.PlanEventUpdate): the start stays within its UTC date (the id holds the date)
// and moves only earlier once the event has locked; a locked event never reopens; a SCORED
// event may only be renamed; the settings change only while the event is UPCOMING (the
// whole call is refused otherwise). A change of the settings is a card edit: it moves the
// card version, so a submit checked against the old settings fails with CONFLICT; the name,
// start and state leave it as it is. The write is conditioned on the card version, rev,
// name, state and start the decision was made on (and, when the decision needed the event
// open, on its start still being ahead), so a change landing in between makes it decide
// again. A change of the state publishes a STATE message; nothing else of it publishes. A new
// name or start is copied onto the event's predictions after. Returns NOT_FOUND,
// BAD_USER_INPUT or CONFLICT (the event kept changing).
func (s *Store) UpdateEvent(ctx context.Context, id string, u domain.EventUpdate) (domain.Event, error) {
	var change domain.EventChange
	after, err := s.editCard(ctx, id, cardEdit{op: "update event", again: true,
		decide: func(ev domain.Event, _ domain.Match, now time.Time) (eventChange, error) {
			var err error
			if change, err = domain.PlanEventUpdate(ev, u, now); err != nil || change.Empty() {
				return eventChange{none: true}, err
			}
			cond := expression.Name("name").Equal(expression.Value(ev.Name)).
				And(expression.Name("state").Equal(expression.Value(string(ev.Stored)))).
				And(expression.Name("startsAt").Equal(expression.Value(table.FormatTime(ev.StartsAt))))
			if change.RequireOpen {
				cond = cond.And(table.OpenAt(now))
			}
			var message func(push.Head) (string, error)
			if change.State != nil {
				state := *change.State
				message = func(h push.Head) (string, error) { return push.State(h, state) }
			}
			return eventChange{card: ev.Matches, movesCard: change.MovesCard(), state: change.State, cond: &cond, message: message,
				row: func(r table.EventRow) table.EventRow {
					if change.Name != nil {
						r.Name = *change.Name
					}
					if change.StartsAt != nil {
						r.StartsAt = table.FormatTime(*change.StartsAt)
					}
					if change.Settings != nil {
						r = r.WithSettings(*change.Settings)
					}
					return r
				},
				audit: domain.AuditEntry{Action: domain.ActionUpdateEvent, EventID: ev.ID, Summary: domain.SummarizeEventChange(ev, change)}}, nil
		}})
	if err != nil {
		return domain.Event{}, err
	}
	if change.Name != nil || change.StartsAt != nil {
		if err := s.propagateEventRef(ctx, after.ev, after.row.Shards); err != nil {
			return domain.Event{}, err
		}
	}
	return after.ev, nil
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
	var m domain.Match
	_, err := s.editCard(ctx, event, cardEdit{op: "add match", decide: func(ev domain.Event, _ domain.Match, now time.Time) (eventChange, error) {
		if err := domain.CheckCardEdit(ev, domain.EditAddMatch, now); err != nil {
			return eventChange{}, err
		}
		if len(ev.Matches) >= domain.MaxMatches {
			return eventChange{}, domain.BadInput("a card has at most %d matches", domain.MaxMatches)
		}
		clean, err := domain.CleanMatch(spec)
		if err != nil {
			return eventChange{}, err
		}
		m = matchFromSpec(domain.NewMatchID(), len(ev.Matches)+1, clean)
		put, err := s.putMatch(table.EventID(ev.ID), m, false)
		if err != nil {
			return eventChange{}, err
		}
		return cardEdited(append(slices.Clone(ev.Matches), m),
			domain.AuditEntry{Action: domain.ActionAddMatch, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeMatch("added", m)}, put), nil
	}})
	if err != nil {
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

// UpdateMatch changes a match (domain.MatchUpdate.Apply: what u leaves out stays as it is).
// Changing its teams replaces it with a new match (new id, no result): picks are team
// indices, so picks on the old match stop counting rather than being silently re-pointed.
// Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) UpdateMatch(ctx context.Context, event, match string, u domain.MatchUpdate) (domain.Match, error) {
	var updated domain.Match
	_, err := s.editCard(ctx, event, cardEdit{op: "update match", match: match, decide: func(ev domain.Event, m domain.Match, now time.Time) (eventChange, error) {
		clean, err := domain.CleanMatch(u.Apply(m))
		if err != nil {
			return eventChange{}, err
		}
		eid := table.EventID(ev.ID)
		updated = matchFromSpec(m.ID, m.Position, clean)
		updated.Result, updated.PickCounts = m.Result, m.PickCounts
		var items []types.TransactWriteItem
		if u.Teams != nil && !reflect.DeepEqual(clean.Teams, m.Teams) {
			if err := domain.CheckCardEdit(ev, domain.EditMatchTeams, now); err != nil {
				return eventChange{}, err
			}
			updated.ID, updated.Result, updated.PickCounts = domain.NewMatchID(), nil, nil
			del, err := s.deleteMatch(eid, m)
			if err != nil {
				return eventChange{}, err
			}
			put, err := s.putMatch(eid, updated, false)
			if err != nil {
				return eventChange{}, err
			}
			items = append(items, del, put)
		} else {
			if err := domain.CheckCardEdit(ev, domain.EditMatchDetails, now); err != nil {
				return eventChange{}, err
			}
			put, err := s.putMatch(eid, updated, true)
			if err != nil {
				return eventChange{}, err
			}
			items = append(items, put)
		}
		return cardEdited(replaceMatch(ev.Matches, m.ID, updated),
			domain.AuditEntry{Action: domain.ActionUpdateMatch, EventID: ev.ID, MatchID: &updated.ID, Summary: domain.SummarizeMatchUpdate(m, updated)}, items...), nil
	}})
	if err != nil {
		return domain.Match{}, err
	}
	return updated, nil
}

// RemoveMatch deletes a match and closes the gap in the card order. Returns NOT_FOUND,
// BAD_USER_INPUT (scored event) or CONFLICT.
func (s *Store) RemoveMatch(ctx context.Context, event, match string) error {
	_, err := s.editCard(ctx, event, cardEdit{op: "remove match", match: match, decide: func(ev domain.Event, m domain.Match, now time.Time) (eventChange, error) {
		if err := domain.CheckCardEdit(ev, domain.EditRemoveMatch, now); err != nil {
			return eventChange{}, err
		}
		eid := table.EventID(ev.ID)
		del, err := s.deleteMatch(eid, m)
		if err != nil {
			return eventChange{}, err
		}
		items := []types.TransactWriteItem{del}
		card := []domain.Match{}
		for _, other := range ev.Matches {
			if other.ID == m.ID {
				continue
			}
			if pos := len(card) + 1; other.Position != pos {
				mv, err := s.moveMatch(eid, other, pos)
				if err != nil {
					return eventChange{}, err
				}
				items = append(items, mv)
				other.Position = pos
			}
			card = append(card, other)
		}
		return cardEdited(card, domain.AuditEntry{Action: domain.ActionRemoveMatch, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeMatch("removed", m)}, items...), nil
	}})
	return err
}

// ReorderMatches sets the card order; ids must name every match of the card exactly once.
// Returns the card in its new order (nothing written when it is the order already), or
// NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) ReorderMatches(ctx context.Context, event string, ids []string) ([]domain.Match, error) {
	var out []domain.Match
	_, err := s.editCard(ctx, event, cardEdit{op: "reorder", decide: func(ev domain.Event, _ domain.Match, now time.Time) (eventChange, error) {
		if err := domain.CheckCardEdit(ev, domain.EditReorder, now); err != nil {
			return eventChange{}, err
		}
		if len(ids) != len(ev.Matches) {
			return eventChange{}, domain.BadInput("matchIds must list all %d matches of the card exactly once", len(ev.Matches))
		}
		seen := make(map[string]bool, len(ids))
		out = make([]domain.Match, len(ids))
		var items []types.TransactWriteItem
		for i, id := range ids {
			m, err := findMatch(ev, id)
			if de := (*domain.Error)(nil); errors.As(err, &de) {
				return eventChange{}, domain.BadInput("matchIds: %s", de.Message)
			} else if err != nil {
				return eventChange{}, err
			}
			if seen[id] {
				return eventChange{}, domain.BadInput("matchIds lists match %q twice", id)
			}
			seen[id] = true
			if m.Position != i+1 {
				mv, err := s.moveMatch(table.EventID(ev.ID), m, i+1)
				if err != nil {
					return eventChange{}, err
				}
				items = append(items, mv)
			}
			m.Position = i + 1
			out[i] = m
		}
		if len(items) == 0 {
			return eventChange{none: true}, nil // the order is unchanged: nothing written, no audit entry
		}
		return cardEdited(out, domain.AuditEntry{Action: domain.ActionReorderMatches, EventID: ev.ID, Summary: domain.SummarizeOrder(out)}, items...), nil
	}})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetResult sets (or, with nil, clears) a match result, its method included
// (domain.ValidateResult). Results are accepted only once the event is locked, and an
// event locked by time alone is stored BROADCAST in the same transaction, so results never
// reach players who can still pick; a SCORED event's results can be corrected but not
// cleared. Each call that writes publishes a RESULT message (the match's result and the
// event's state after it). Returns NOT_FOUND, BAD_USER_INPUT or CONFLICT.
func (s *Store) SetResult(ctx context.Context, event, match string, r *domain.MatchResult) (domain.Match, error) {
	var set domain.Match
	_, err := s.editCard(ctx, event, cardEdit{op: "set result", match: match, decide: func(ev domain.Event, m domain.Match, now time.Time) (eventChange, error) {
		edit := domain.EditSetResult
		if r == nil {
			edit = domain.EditClearResult
		}
		if err := domain.CheckCardEdit(ev, edit, now); err != nil {
			return eventChange{}, err
		}
		if r != nil {
			if err := domain.ValidateResult(*r, len(m.Teams)); err != nil {
				return eventChange{}, err
			}
		}
		old := m.Result
		m.Result = r
		set = m
		put, err := s.putMatch(table.EventID(ev.ID), m, true)
		if err != nil {
			return eventChange{}, err
		}
		c := cardEdited(replaceMatch(ev.Matches, m.ID, m),
			domain.AuditEntry{Action: domain.ActionSetResult, EventID: ev.ID, MatchID: &m.ID, Summary: domain.SummarizeResult(m, old)}, put)
		c.state = lockOnResult(ev)
		state := ev.Stored
		if c.state != nil {
			state = *c.state
		}
		c.message = func(h push.Head) (string, error) { return push.Result(h, m.ID, r, state) }
		return c, nil
	}})
	if err != nil {
		return domain.Match{}, err
	}
	return set, nil
}

// SetTiebreakerAnswer sets (or, with nil, clears) the answer to an event's tie-breaker
// question (domain.PlanTiebreakerAnswer). It is a card edit: it moves the card version,
// stores the answer with the version it made (domain.TiebreakerAnswer: it counts once a
// scoring pass of that version completes), writes an audit entry and makes the read cache
// forget the event; as with a result, an event locked by time alone is stored BROADCAST in
// the same transaction. A change publishes a TIEBREAKER message (without the answer); an
// answer set again to its value writes and publishes nothing. Returns the event
// with its card; NOT_FOUND, BAD_USER_INPUT (no question, not locked yet, out of range) or
// CONFLICT.
func (s *Store) SetTiebreakerAnswer(ctx context.Context, eventID string, answer *int) (domain.Event, error) {
	after, err := s.editCard(ctx, eventID, cardEdit{op: "set tie-breaker answer", decide: func(ev domain.Event, _ domain.Match, now time.Time) (eventChange, error) {
		next, changed, err := domain.PlanTiebreakerAnswer(ev, answer, now)
		if err != nil || !changed {
			return eventChange{none: true}, err
		}
		c := cardEdited(ev.Matches, domain.AuditEntry{Action: domain.ActionSetTiebreakerAnswer, EventID: ev.ID, Summary: domain.SummarizeTiebreakerAnswer(ev, next)})
		c.state = lockOnResult(ev)
		c.row = func(r table.EventRow) table.EventRow { return r.WithAnswer(next) }
		c.message = push.Tiebreaker
		return c, nil
	}})
	if err != nil {
		return domain.Event{}, err
	}
	return after.ev, nil
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
