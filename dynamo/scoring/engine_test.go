package scoring_test

// The scoring engine on DynamoDB Local, without the store: each test writes an event, its
// card, lock copies and predictions as the table holds them (package table's rows), hands
// Engine.Run a Card read as the store reads it (consistently, with Engine.ReadCounts),
// and checks what the passes wrote against domain's decisions.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/capacity"
	"github.com/pickem/api/internal/dynamotest"
)

// env is a fresh table of the package's DynamoDB Local with an engine on it.
type env struct {
	t   *testing.T
	db  *ddb.Table
	eng *scoring.Engine
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := ddb.NewTable(dynamotest.Client(t, ddb.CostOption, dynamotest.PatientAttempts), dynamotest.TableName())
	ok(t, db.Ensure(ctxT(t), table.Definition(db.Name)))
	audit := func(ctx context.Context, entry domain.AuditEntry) (types.TransactWriteItem, error) {
		row, err := table.NewAuditRow(entry, time.Now(), domain.UserRef{ID: "admin", Name: "Admin"})
		if err != nil {
			return types.TransactWriteItem{}, err
		}
		return db.Put(row, table.NotExists())
	}
	return &env{t: t, db: db, eng: scoring.New(db, nil, scoring.NewPacer(scoring.PartitionWriteUnits, scoring.PartitionReadUnits), audit)}
}

// ctxT is a test's context, ending 10 s before the test binary's deadline.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			ctx, cancel = context.WithDeadline(ctx, end.Add(-10*time.Second))
		}
	}
	t.Cleanup(cancel)
	return ctx
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error (code %s): %v", domain.ErrorCode(err), err)
	}
}

func ptr[T any](v T) *T { return &v }

// put writes rows (structs with dynamodbav tags) unconditionally.
func (e *env) put(rows ...any) {
	e.t.Helper()
	for _, row := range rows {
		item, err := attributevalue.MarshalMap(row)
		ok(e.t, err)
		_, err = e.db.PutItem(ctxT(e.t), &dynamodb.PutItemInput{TableName: aws.String(e.db.Name), Item: item})
		ok(e.t, err)
	}
}

// match is a two-team match worth points (and methodPoints for the right method).
func match(name string, points, methodPoints int) domain.Match {
	return domain.Match{ID: uuid.NewString(), Name: name, Points: points, MethodPoints: methodPoints,
		Teams: []domain.Team{{Members: []string{name + " Red"}}, {Members: []string{name + " Blue"}}}}
}

// createEvent writes a locked (BROADCAST) event of shards shards with settings and card,
// as the store creates one: its row, its matches, its lock copies counting nothing.
func (e *env) createEvent(id string, shards int, settings domain.EventSettings, card ...domain.Match) domain.Event {
	e.t.Helper()
	for i := range card {
		card[i].Position = i + 1
	}
	ev := domain.Event{ID: id, Name: "Event " + id[11:], StartsAt: time.Date(2025, 4, 19, 22, 0, 0, 0, time.UTC),
		Stored: domain.StateBroadcast, CardVersion: 1, Settings: settings, Matches: card}
	row := table.NewEventRow(ev, shards)
	e.put(row)
	for _, m := range card {
		e.put(table.NewMatchRow(table.EventID(id), m))
	}
	for c := range row.LockCopies {
		e.put(table.NewLockRow(row, c))
	}
	return ev
}

// submit writes user's prediction with entry for ev, counted on its lock copy, as a submit
// writes a first prediction.
func (e *env) submit(ev domain.Event, user string, entry domain.Entry) {
	e.t.Helper()
	card := e.card(ev.ID)
	uid, eid := table.UserID(user), table.EventID(ev.ID)
	e.put(table.PredictionRow{
		Keys:      table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)},
		IndexKeys: table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(card.Row.Shards), card.Row.Shards), GSISK: table.PendingSK(uid)},
		Type:      table.TypePrediction, UserID: user, UserName: "Player " + user, UserNameVersion: 1,
		EventID: ev.ID, EventName: ev.Name, EventStartsAt: table.FormatTime(ev.StartsAt), Season: ev.Season(),
		UpdatedAt: table.FormatTime(ev.StartsAt.Add(-time.Hour)), Version: 1,
	}.WithEntry(entry))
	expr, err := expression.NewBuilder().WithUpdate(expression.Add(expression.Name("predictions"), expression.Value(1))).Build()
	ok(e.t, err)
	_, err = e.db.UpdateItem(ctxT(e.t), &dynamodb.UpdateItemInput{
		TableName: aws.String(e.db.Name), Key: table.Key(table.LockCopyKey(ev.ID, user, card.Row.Shards)),
		UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	ok(e.t, err)
}

// card reads event id as the store hands it to the engine: its row and matches
// consistently, then its lock copies and checkpoints (Engine.ReadCounts).
func (e *env) card(id string) scoring.Card {
	e.t.Helper()
	eid := table.EventID(id)
	out, err := e.db.GetItem(ctxT(e.t), &dynamodb.GetItemInput{TableName: aws.String(e.db.Name),
		Key: table.Key(table.EventsPartition, table.EventSK(eid)), ConsistentRead: aws.Bool(true)})
	ok(e.t, err)
	var row table.EventRow
	ok(e.t, attributevalue.UnmarshalMap(out.Item, &row))
	q, err := e.db.NewQuery("", expression.Key(table.AttrPK).Equal(expression.Value(table.EventPK(eid))).
		And(expression.Key(table.AttrSK).BeginsWith(table.MatchKeyPrefix)), 0, true)
	ok(e.t, err)
	q.ConsistentRead = aws.Bool(true)
	var matches []table.MatchRow
	ok(e.t, e.db.QueryEach(ctxT(e.t), q, func(item map[string]types.AttributeValue) (bool, error) {
		var m table.MatchRow
		err := attributevalue.UnmarshalMap(item, &m)
		matches = append(matches, m)
		return true, err
	}))
	ev, current, err := table.CardOf(row, matches)
	ok(e.t, err)
	if !current {
		e.t.Fatalf("event %s: its row and matches disagree", id)
	}
	locks, checkpoints, err := e.eng.ReadCounts(ctxT(e.t), row)
	ok(e.t, err)
	return scoring.Card{Event: ev, Row: row, Locks: locks, Checkpoints: checkpoints}
}

// edit is a card edit of event id: change applied to the event as read, the card version
// moved by one (ev.CardVersion is the new one when change runs), the row and the matches
// written as a card edit writes them.
func (e *env) edit(id string, change func(ev *domain.Event)) domain.Event {
	e.t.Helper()
	card := e.card(id)
	ev, row := card.Event, card.Row
	ev.CardVersion++
	change(&ev)
	row.CardVersion, row.CardHash, row.Rev = ev.CardVersion, table.CardHash(ev.Matches), row.Rev+1
	e.put(row.WithAnswer(ev.Answer))
	for _, m := range ev.Matches {
		e.put(table.NewMatchRow(table.EventID(id), m))
	}
	return ev
}

// result sets match i's result (a card edit).
func (e *env) result(id string, i int, r domain.MatchResult) domain.Event {
	return e.edit(id, func(ev *domain.Event) { ev.Matches[i].Result = &r })
}

func win(team int, method domain.VictoryMethod) domain.MatchResult {
	r := domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &team}
	if method != "" {
		r.Method = &method
	}
	return r
}

// run runs one pass of event id (the season has as many shards as the event), starting no
// batch after deadline (zero: none) but the first.
func (e *env) run(id string, deadline time.Time) domain.ScoreReport {
	e.t.Helper()
	card := e.card(id)
	ok(e.t, domain.CheckScorable(card.Event, card.Event.StartsAt.Add(time.Hour), card.AnyScored()))
	rep, _, err := e.eng.Run(ctxT(e.t), card, card.Row.Shards, deadline, false)
	ok(e.t, err)
	return rep
}

// predictions reads every prediction of event id (consistently, from the players' own
// partitions), by user.
func (e *env) predictions(id string, users []string) map[string]map[string]types.AttributeValue {
	e.t.Helper()
	out := map[string]map[string]types.AttributeValue{}
	for _, u := range users {
		got, err := e.db.GetItem(ctxT(e.t), &dynamodb.GetItemInput{TableName: aws.String(e.db.Name),
			Key: table.Key(table.UserPK(table.UserID(u)), table.EventSK(table.EventID(id))), ConsistentRead: aws.Bool(true)})
		ok(e.t, err)
		out[u] = got.Item
	}
	return out
}

// standing reads user's season standing (nil: none).
func (e *env) standing(user string, season int) *table.StandingRow {
	e.t.Helper()
	got, err := e.db.GetItem(ctxT(e.t), &dynamodb.GetItemInput{TableName: aws.String(e.db.Name),
		Key: table.Key(table.UserPK(table.UserID(user)), table.StandingSK(season)), ConsistentRead: aws.Bool(true)})
	ok(e.t, err)
	if got.Item == nil {
		return nil
	}
	var row table.StandingRow
	ok(e.t, attributevalue.UnmarshalMap(got.Item, &row))
	return &row
}

// gameSettings has every extra on.
func gameSettings() domain.EventSettings {
	return domain.EventSettings{Jokers: true, PerfectCardBonus: 25, Tiebreaker: ptr("How many seconds will the main event last?")}
}

// entries are n players' entries on ev's card: each match picked but one in five, teams,
// methods (on matches offering one), the joker and the guess varied, deterministic.
func entries(ev domain.Event, n int) (map[string]domain.Entry, []string) {
	methods := domain.VictoryMethods()
	out := map[string]domain.Entry{}
	var users []string
	for k := range n {
		user := fmt.Sprintf("p%04d", k)
		var en domain.Entry
		for i, m := range ev.Matches {
			h := k*31 + i*17
			if h%5 == 4 && i > 0 {
				continue
			}
			p := domain.Pick{MatchID: m.ID, Team: (k + i) % 2}
			if m.MethodPoints > 0 && h%3 != 0 {
				p.Method = &methods[h%len(methods)]
			}
			en.Picks = append(en.Picks, p)
			if ev.Settings.Jokers && en.Joker == nil && h%4 == 1 {
				en.Joker = ptr(m.ID)
			}
		}
		if ev.Settings.Tiebreaker != nil && k%6 != 0 {
			en.Tiebreaker = ptr(200 + (k*13)%200)
		}
		out[user] = en
		users = append(users, user)
	}
	return out, users
}

// checkStored checks every prediction of users against domain's decision for the event as
// it is now (domain.RescoreEntry's Next: points, correct picks, card version, and with
// ExtraScoring the picks' points and the perfect card), its index key against
// table.LeaderboardSK under the answer as set, and each player's standing (one event each)
// against its points.
func (e *env) checkStored(id string, users []string) {
	e.t.Helper()
	ev := e.card(id).Event
	var answer *int
	if ev.Settings.Tiebreaker != nil && ev.Answer != nil {
		answer = &ev.Answer.Value
	}
	for u, item := range e.predictions(id, users) {
		var row table.PredictionRow
		ok(e.t, attributevalue.UnmarshalMap(item, &row))
		want := domain.RescoreEntry(ev, row.Entry(), nil).Next
		got := row.StoredScore()
		if got == nil || !got.Equal(want) {
			e.t.Errorf("%s: stored %+v, domain decides %+v", u, got, want)
			continue
		}
		if sk, _ := table.LeaderboardSK(want.Points, answer, row.Tiebreaker, table.UserID(u)); row.GSISK != sk {
			e.t.Errorf("%s: index key %q, want %q", u, row.GSISK, sk)
		}
		if st := e.standing(u, ev.Season()); st == nil || st.Points != want.Points || st.Correct != want.Correct || st.EventsPlayed != 1 {
			e.t.Errorf("%s: standing %+v, want %d points, %d correct, 1 event", u, st, want.Points, want.Correct)
		}
	}
}

// TestRunStoresWhatDomainDecides: passes of an event with every extra (jokers, a
// perfect-card bonus, method points, a tie-breaker question) at 4 shards — live with one
// result, then final with the tie-breaker answer set — write on every prediction what
// domain.RescoreEntry decides for the card as it is (points clamped at 0, correct picks,
// card version, each pick's points, the perfect card once final), its index key with the
// answer's tie-break, and a standing equal to it; the pass counting the answer records
// the card version it scored, so the answer counts.
func TestRunStoresWhatDomainDecides(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent("2025-04-19-engine-game", 4, gameSettings(), match("Opener", 10, 5), match("Tag", 20, 0), match("Main", 30, 10))
	ens, users := entries(ev, 60)
	for _, u := range users {
		e.submit(ev, u, ens[u])
	}

	e.result(ev.ID, 0, win(0, domain.MethodPinfall))
	if rep := e.run(ev.ID, time.Time{}); !rep.Complete || rep.Final || rep.PredictionsScored != len(users) {
		t.Fatalf("live pass: %+v", rep)
	}
	e.checkStored(ev.ID, users)
	if got := e.card(ev.ID).Event; got.ScoredMatches != 1 || got.Stored != domain.StateBroadcast {
		t.Fatalf("after the live pass: %d matches counted, %s", got.ScoredMatches, got.Stored)
	}

	e.result(ev.ID, 1, win(1, ""))
	e.result(ev.ID, 2, win(0, domain.MethodSubmission))
	answered := e.edit(ev.ID, func(ev *domain.Event) { ev.Answer = &domain.TiebreakerAnswer{Value: 300, Version: ev.CardVersion} })
	if answered.CountedAnswer() != nil {
		t.Fatal("the answer counts before the pass")
	}
	if rep := e.run(ev.ID, time.Time{}); !rep.Complete || !rep.Final || rep.PredictionsScored != len(users) {
		t.Fatalf("final pass: %+v", rep)
	}
	e.checkStored(ev.ID, users)
	got := e.card(ev.ID).Event
	if got.Stored != domain.StateScored || got.CountedAnswer() == nil || *got.CountedAnswer() != 300 {
		t.Fatalf("after the final pass: %s, counted answer %v", got.Stored, got.CountedAnswer())
	}
	perfect, clamped := 0, 0
	for _, item := range e.predictions(ev.ID, users) {
		var row table.PredictionRow
		ok(t, attributevalue.UnmarshalMap(item, &row))
		if row.PerfectCard != nil && *row.PerfectCard {
			perfect++
		}
		sum := 0
		for _, p := range row.Picks {
			sum += *p.Points
		}
		if sum < 0 {
			clamped++
		}
	}
	if perfect == 0 || clamped == 0 {
		t.Fatalf("%d perfect cards, %d totals clamped: the data does not show both", perfect, clamped)
	}
	t.Logf("%d players: %d perfect cards, %d totals clamped at 0", len(users), perfect, clamped)
}

// TestRunPlainEventStoresWhatItAlwaysDid: a pass of an event using none of the extras
// writes exactly the attributes scoring always wrote (no pick points, no perfect card) and
// the plain score key.
func TestRunPlainEventStoresWhatItAlwaysDid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent("2025-04-19-engine-plain", 1, domain.EventSettings{}, match("Opener", 10, 0), match("Main", 30, 0))
	e.submit(ev, "amy", domain.Entry{Picks: []domain.Pick{{MatchID: ev.Matches[0].ID, Team: 0}, {MatchID: ev.Matches[1].ID, Team: 1}}})
	e.result(ev.ID, 0, win(0, ""))
	e.result(ev.ID, 1, win(0, ""))
	e.run(ev.ID, time.Time{})
	item := e.predictions(ev.ID, []string{"amy"})["amy"]
	want := []string{"GSI_PK", "GSI_SK", "PK", "SK", "correct", "correctIds", "eventId", "eventName", "eventStartsAt", "picks", "points",
		"scoredWith", "season", "type", "updatedAt", "userId", "userName", "userNameVersion", "version"}
	if got := slices.Sorted(maps.Keys(item)); !slices.Equal(got, want) {
		t.Fatalf("attributes %v, want %v", got, want)
	}
	for _, p := range item["picks"].(*types.AttributeValueMemberL).Value {
		if got := slices.Sorted(maps.Keys(p.(*types.AttributeValueMemberM).Value)); !slices.Equal(got, []string{"matchId", "team"}) {
			t.Fatalf("a pick holds %v, want matchId and team", got)
		}
	}
	if sk, _ := table.ScoreSK(10, "amy"); table.ItemString(item, table.AttrGSISK) != sk {
		t.Fatalf("index key %q, want %q", table.ItemString(item, table.AttrGSISK), sk)
	}
	e.checkStored(ev.ID, []string{"amy"})
}

// TestRunResumesFromCheckpoints: calls whose deadline has passed each make one batch (a
// call always starts one) and report what remains; they go on from the checkpoint, never
// writing a prediction twice, until one completes the pass.
func TestRunResumesFromCheckpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent("2025-04-19-engine-resume", 1, gameSettings(), match("Opener", 10, 5), match("Main", 30, 0))
	const n = 2*scoring.PlayersPerTransaction + 10
	ens, users := entries(ev, n)
	for _, u := range users {
		e.submit(ev, u, ens[u])
	}
	e.result(ev.ID, 0, win(0, domain.MethodPinfall))
	e.result(ev.ID, 1, win(1, ""))
	past := time.Now().Add(-time.Hour)
	scored, calls := 0, 0
	for remaining := n; ; {
		rep := e.run(ev.ID, past)
		calls++
		scored += rep.PredictionsScored
		if rep.Complete {
			break
		}
		if rep.Remaining >= remaining || rep.Remaining != n-scored {
			t.Fatalf("call %d: %+v after %d scored", calls, rep, scored)
		}
		remaining = rep.Remaining
	}
	if scored != n || calls != 3 {
		t.Fatalf("%d calls scored %d predictions, want 3 calls (batches of %d) scoring each of %d once", calls, scored, scoring.PlayersPerTransaction, n)
	}
	e.checkStored(ev.ID, users)
}

// TestRunCountsAnAnswerSetOnAScoredEvent: an answer set after the event is SCORED (a card
// edit) counts once the next pass completes: that pass rewrites every key with the
// tie-break and moves scoredVersion on the SCORED row; a run after it writes nothing.
func TestRunCountsAnAnswerSetOnAScoredEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent("2025-04-19-engine-answer", 2, domain.EventSettings{Tiebreaker: gameSettings().Tiebreaker}, match("Opener", 10, 0))
	ens, users := entries(ev, 20)
	for _, u := range users {
		e.submit(ev, u, ens[u])
	}
	e.result(ev.ID, 0, win(0, ""))
	e.run(ev.ID, time.Time{})
	scored := e.card(ev.ID).Event
	if scored.Stored != domain.StateScored {
		t.Fatalf("state %s", scored.Stored)
	}
	e.edit(ev.ID, func(ev *domain.Event) { ev.Answer = &domain.TiebreakerAnswer{Value: 300, Version: ev.CardVersion} })
	if rep := e.run(ev.ID, time.Time{}); !rep.Complete || rep.PredictionsScored != len(users) || rep.StandingsChanged != 0 {
		t.Fatalf("pass after the answer: %+v", rep)
	}
	got := e.card(ev.ID).Event
	if got.ScoredVersion != got.CardVersion || got.ScoredVersion != scored.CardVersion+1 || got.CountedAnswer() == nil {
		t.Fatalf("scoredVersion %d of card version %d: the answer does not count", got.ScoredVersion, got.CardVersion)
	}
	e.checkStored(ev.ID, users)
	ctx, cost := ddb.WithCost(ctxT(t))
	card := e.card(ev.ID)
	rep, live, err := e.eng.Run(ctx, card, card.Row.Shards, time.Time{}, false)
	ok(t, err)
	if ops := cost.Snapshot().Operations; rep.PredictionsScored != 0 || !rep.Complete || live != 0 || ops["TransactWriteItems"] != 0 || ops["PutItem"] != 0 {
		t.Fatalf("a run after it: %+v, live version %d, calls %v", rep, live, ops)
	}
}

// TestScoringWritesPaceAScoredGamePrediction: what the pace asks of an event shard's index
// partition for a prediction of an event with every extra is at least what moving its index
// entry takes (the delete of the entry as read, the put of the scored one: its picks'
// points, its perfect card and its longer key included), also for predictions that cross
// a write unit when scored.
func TestScoringWritesPaceAScoredGamePrediction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var card []domain.Match
	for i := range 12 {
		card = append(card, match(fmt.Sprintf("Match %02d", i+1), 10, 5))
	}
	ev := e.createEvent("2025-04-19-engine-pace", 2, gameSettings(), card...)
	ens, users := entries(ev, 40)
	for _, u := range users {
		e.submit(ev, u, ens[u])
	}
	for i := range card {
		e.result(ev.ID, i, win(i%2, domain.VictoryMethods()[i%6]))
	}
	ev = e.edit(ev.ID, func(ev *domain.Event) { ev.Answer = &domain.TiebreakerAnswer{Value: 300, Version: ev.CardVersion} })
	before := e.predictions(ev.ID, users)
	e.run(ev.ID, time.Time{})
	after := e.predictions(ev.ID, users)
	crossed := 0
	for _, u := range users {
		_, demand, err := scoring.ScoringWrites(e.db.Name, ev, 2, 2, before[u], nil)
		ok(t, err)
		partition := table.IndexName + "|" + table.ItemString(before[u], table.AttrGSIPK)
		was, is := table.ItemSize(before[u]), table.ItemSize(after[u])
		if capacity.WriteUnits(is) > capacity.WriteUnits(was) {
			crossed++
		}
		if need := capacity.WriteUnits(was) + capacity.WriteUnits(is); demand[partition] < need {
			t.Errorf("%s: the pace asks %.0f write units of %s, moving the entry (%d → %d bytes) takes %.0f", u, demand[partition], partition, was, is, need)
		}
	}
	if crossed == 0 {
		t.Fatal("no prediction crossed a write unit when scored: the test shows nothing")
	}
	t.Logf("%d of %d predictions crossed a write unit when scored", crossed, len(users))
}

// TestScoredPredictionBytes: a scored prediction of an event with every extra weighs what
// the same prediction of a plain event weighs plus its new attributes only (each pick's
// method and points, the joker, the guess, the perfect card, the key's tie-break): with
// those taken off, the two items are the same size. The figures are logged.
func TestScoredPredictionBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var plainCard, gameCard []domain.Match
	for i := range 8 {
		plainCard = append(plainCard, match(fmt.Sprintf("Match %d", i+1), 10, 0))
		m := plainCard[i]
		m.ID, m.MethodPoints = uuid.NewString(), 5
		gameCard = append(gameCard, m)
	}
	plain := e.createEvent("2025-04-19-bytes-plain", 1, domain.EventSettings{}, plainCard...)
	game := e.createEvent("2025-04-19-bytes-games", 1, gameSettings(), gameCard...)
	pick := func(ev domain.Event, methods bool) domain.Entry {
		var en domain.Entry
		for i, m := range ev.Matches {
			p := domain.Pick{MatchID: m.ID, Team: i % 2}
			if methods {
				p.Method = ptr(domain.MethodSubmission)
			}
			en.Picks = append(en.Picks, p)
		}
		if methods {
			en.Joker, en.Tiebreaker = ptr(ev.Matches[0].ID), ptr(275)
		}
		return en
	}
	e.submit(plain, "amy", pick(plain, false))
	e.submit(game, "amy", pick(game, true))
	for _, ev := range []domain.Event{plain, game} {
		for i := range ev.Matches {
			e.result(ev.ID, i, win(0, domain.MethodSubmission))
		}
	}
	e.edit(game.ID, func(ev *domain.Event) { ev.Answer = &domain.TiebreakerAnswer{Value: 300, Version: ev.CardVersion} })
	e.edit(plain.ID, func(*domain.Event) {}) // the same card version as the game's (scoredWith)
	e.run(plain.ID, time.Time{})
	e.run(game.ID, time.Time{})
	p, g := e.predictions(plain.ID, []string{"amy"})["amy"], e.predictions(game.ID, []string{"amy"})["amy"]
	stripped := maps.Clone(g)
	for _, attr := range []string{"joker", "tiebreaker", "perfectCard"} {
		delete(stripped, attr)
	}
	var picks []types.AttributeValue
	for _, pk := range g["picks"].(*types.AttributeValueMemberL).Value {
		m := maps.Clone(pk.(*types.AttributeValueMemberM).Value)
		delete(m, "method")
		delete(m, "points")
		picks = append(picks, &types.AttributeValueMemberM{Value: m})
	}
	stripped["picks"] = &types.AttributeValueMemberL{Value: picks}
	sk := table.ItemString(g, table.AttrGSISK)
	stripped[table.AttrGSISK] = table.StringValue(sk[:len(sk)-len("amy")-domain.TiebreakKeyLen-1] + "amy")
	if table.ItemSize(stripped) != table.ItemSize(p) {
		t.Fatalf("without the new attributes the game's prediction weighs %d bytes, the plain one %d", table.ItemSize(stripped), table.ItemSize(p))
	}
	t.Logf("a scored prediction of 8 picks: %d bytes on a plain event, %d with every extra (+%d: 8 methods and pick points, the joker, the guess, the perfect card, the key's tie-break)",
		table.ItemSize(p), table.ItemSize(g), table.ItemSize(g)-table.ItemSize(p))
}
