package dynamo

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testclock"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// t0 is "now" for most tests: events in March 2030 onwards are still open, earlier ones are
// backfills and locked.
var t0 = time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)

// testClock is the shared settable test clock.
type testClock = testclock.Clock

// fixture is a store over a fresh table of the package's DynamoDB Local.
type fixture struct {
	t     testing.TB
	db    *dynamodb.Client
	table string
	clock *testClock
	s     *Store
	// shards is the shard count of the events and seasons f.s creates.
	shards int
}

// testShards is the shard count of the tests' events and seasons unless a test asks for
// another (newFixtureShards): the production default.
const testShards = 1

// newFixture creates a fresh table with the production definition and a store over it whose
// clock reads t0 until set, creating events and seasons of testShards shards.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureShards(t, testShards)
}

// newFixtureShards is newFixture with events and seasons of shards shards.
func newFixtureShards(t testing.TB, shards int) *fixture {
	t.Helper()
	db := dynamotest.Client(t, ddb.CostOption)
	f := &fixture{t: t, db: db, table: dynamotest.TableName(), clock: testclock.New(t0), shards: shards}
	f.s = New(db, f.table, WithClock(f.clock.Now), WithScoreShards(shards))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.s.EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	return f
}

// on returns the fixture with its helpers failing t: a subtest must not call FailNow on its
// parent.
func (f *fixture) on(t testing.TB) *fixture {
	c := *f
	c.t = t
	return &c
}

// storeOver returns another store on the fixture's table and clock, over db.
func (f *fixture) storeOver(db ddb.API, opts ...Option) *Store {
	return New(db, f.table, append([]Option{WithClock(f.clock.Now), WithScoreShards(f.shards)}, opts...)...)
}

// ctxT is a test's context: a safety net, not a timing assertion. It ends 10 s before the
// test binary's own deadline (go test -timeout), so that a stuck call fails the test that
// made it with a message rather than the whole binary with a panic. Parallel subtests run
// once the whole package's sequential part is done, possibly minutes after their parent
// made the context, so it is not a fixed duration from now.
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

// wantCode fails the test unless err carries code ("" for no error).
func wantCode(t testing.TB, err error, code domain.Code) {
	t.Helper()
	if got := domain.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (err: %v), want %q", got, err, code)
	}
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error (code %s): %v", domain.ErrorCode(err), err)
	}
}

func ptr[T any](v T) *T { return &v }

// matchSpec is a two-team singles match worth points.
func matchSpec(name string, points int) domain.MatchSpec {
	return domain.MatchSpec{
		Name:   name,
		Points: points,
		Teams: []domain.Team{
			{Members: []string{name + " Red"}},
			{Members: []string{name + " Blue"}, Champion: true},
		},
	}
}

// standardCard is three matches worth 10, 5 and 3 points.
func standardCard() []domain.MatchSpec {
	return []domain.MatchSpec{matchSpec("Main Event", 10), matchSpec("Semi Main", 5), matchSpec("Opener", 3)}
}

// createEvent creates an event with id whose start is at hour:00 UTC on the id's date.
func (f *fixture) createEvent(id string, hour int, card []domain.MatchSpec) domain.Event {
	f.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	if err != nil {
		f.t.Fatalf("bad test event id %q", id)
	}
	ev, err := f.s.CreateEvent(ctxT(f.t), domain.EventSpec{
		ID: ptr(id), Name: strings.ReplaceAll(id[11:], "-", " "), StartsAt: day.Add(time.Duration(hour) * time.Hour), Matches: card,
	})
	mustOK(f.t, err)
	return ev
}

// picks pairs the card's matches with teams (one team index per match, -1 = no pick).
func picks(ev domain.Event, teams ...int) []domain.Pick {
	var out []domain.Pick
	for i, team := range teams {
		if team >= 0 {
			out = append(out, domain.Pick{MatchID: ev.Matches[i].ID, Team: team})
		}
	}
	return out
}

func (f *fixture) submit(user string, ev domain.Event, teams ...int) domain.Prediction {
	f.t.Helper()
	p, err := f.s.SubmitPrediction(ctxT(f.t), domain.UserRef{ID: user, Name: "Player " + user}, ev.ID, domain.Entry{Picks: picks(ev, teams...)})
	mustOK(f.t, err)
	return p
}

// lockAndResult sets the event BROADCAST and every match's result to a WIN of winners[i].
func (f *fixture) lockAndResult(ev domain.Event, winners ...int) {
	f.t.Helper()
	ctx := ctxT(f.t)
	_, err := f.s.UpdateEvent(ctx, ev.ID, domain.EventUpdate{State: ptr(domain.StateBroadcast)})
	mustOK(f.t, err)
	for i, w := range winners {
		_, err := f.s.SetResult(ctx, ev.ID, ev.Matches[i].ID, &domain.MatchResult{Outcome: domain.OutcomeWin, Winner: ptr(w)})
		mustOK(f.t, err)
	}
}

func (f *fixture) score(ev domain.Event) domain.ScoreReport {
	f.t.Helper()
	r, err := f.s.ScoreEvent(ctxT(f.t), ev.ID, false)
	mustOK(f.t, err)
	return r
}

// putRaw writes items with BatchWriteItem, 25 a request, 8 requests at a time.
func (f *fixture) putRaw(items []map[string]types.AttributeValue) {
	f.t.Helper()
	ctx := ctxT(f.t)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for start := 0; start < len(items); start += 25 {
		batch := items[start:min(start+25, len(items))]
		g.Go(func() error {
			reqs := make([]types.WriteRequest, len(batch))
			for i, it := range batch {
				reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
			}
			pending := map[string][]types.WriteRequest{f.table: reqs}
			for len(pending) > 0 {
				out, err := f.db.BatchWriteItem(gctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
				if err != nil {
					return err
				}
				pending = out.UnprocessedItems
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		f.t.Fatalf("BatchWriteItem: %v", err)
	}
}

// eventRowOf reads event's row.
func eventRowOf(t testing.TB, db ddb.API, tableName, event string) table.EventRow {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(tableName), Key: table.Key(table.EventsPartition, table.EventSK(table.EventID(event))), ConsistentRead: aws.Bool(true),
	})
	if err != nil || out.Item == nil {
		t.Fatalf("read event %s: %v", event, err)
	}
	var row table.EventRow
	if err := attributevalue.UnmarshalMap(out.Item, &row); err != nil {
		t.Fatal(err)
	}
	return row
}

// addPredictionCounts adds new predictions of users to event's prediction count, as the
// first submit of each does (+1 on the player's lock copy): for tests that write
// prediction items in bulk.
func addPredictionCounts(t testing.TB, db ddb.API, tableName, event string, users []string) {
	t.Helper()
	n := eventRowOf(t, db, tableName, event).LockCopies
	copies := map[int]int{}
	for _, u := range users {
		copies[table.UserID(u).LockCopy(n)]++
	}
	for c, n := range copies {
		_, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
			TableName: aws.String(tableName), Key: table.Key(table.LockPK(table.EventID(event), c), table.LockSK),
			UpdateExpression:          aws.String("ADD predictions :n"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: fmt.Sprint(n)}},
		})
		if err != nil {
			t.Fatalf("add prediction count: %v", err)
		}
	}
}

// marshal turns a row into an item, adding a padding attribute of pad bytes if pad > 0.
func marshal(t testing.TB, row any, pad int) map[string]types.AttributeValue {
	t.Helper()
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		t.Fatalf("marshal %T: %v", row, err)
	}
	if pad > 0 {
		item["padding"] = &types.AttributeValueMemberS{Value: strings.Repeat("x", pad)}
	}
	return item
}

// predictionItem is a prediction of user for ev, an event of shards shards, shaped exactly
// as SubmitPrediction writes it (picks team 0 on every match), scored with points if
// points != nil.
func predictionItem(t testing.TB, shards int, user string, ev domain.Event, points *int, pad int) map[string]types.AttributeValue {
	t.Helper()
	return predictionItemPicks(t, shards, user, ev, nil, points, pad)
}

// predictionItemPicks is predictionItem with teams[i] picked on match i (team 0 where teams
// is short).
func predictionItemPicks(t testing.TB, shards int, user string, ev domain.Event, teams []int, points *int, pad int) map[string]types.AttributeValue {
	t.Helper()
	uid, eid := table.UserID(user), table.EventID(ev.ID)
	row := table.PredictionRow{
		Keys:            table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)},
		IndexKeys:       table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(shards), shards), GSISK: table.PendingSK(uid)},
		Type:            table.TypePrediction,
		UserID:          user,
		UserName:        "Player " + user,
		UserNameVersion: 1,
		EventID:         ev.ID,
		EventName:       ev.Name,
		EventStartsAt:   table.FormatTime(ev.StartsAt),
		Season:          ev.Season(),
		UpdatedAt:       table.FormatTime(t0),
	}
	for i, m := range ev.Matches {
		team := 0
		if i < len(teams) {
			team = teams[i]
		}
		row.Picks = append(row.Picks, table.PickRow{MatchID: m.ID, Team: team})
	}
	if points != nil {
		sk, err := table.ScoreSK(*points, uid)
		if err != nil {
			t.Fatal(err)
		}
		row.GSISK, row.Points, row.Correct = sk, points, ptr(0)
	}
	return marshal(t, row, pad)
}

// userItem is a registered user as Register writes it.
func userItem(t testing.TB, user string) map[string]types.AttributeValue {
	t.Helper()
	return marshal(t, table.UserRow{Keys: table.Keys{PK: table.UserPK(table.UserID(user)), SK: table.UserSK}, Type: table.TypeUser, ID: user,
		Name: "Player " + user, NameVersion: 1, CreatedAt: table.FormatTime(t0)}, 0)
}

// standingItem is a season standing, in a season of shards shards, as scoring writes it.
func standingItem(t testing.TB, shards int, user string, season, points, pad int) map[string]types.AttributeValue {
	t.Helper()
	uid := table.UserID(user)
	sk, err := table.ScoreSK(points, uid)
	if err != nil {
		t.Fatal(err)
	}
	return marshal(t, table.StandingRow{Keys: table.Keys{PK: table.UserPK(uid), SK: table.StandingSK(season)},
		IndexKeys: table.IndexKeys{GSIPK: table.SeasonShardPK(season, uid.Shard(shards), shards), GSISK: sk}, Type: table.TypeStanding, UserID: user,
		UserName: "Player " + user, UserNameVersion: 1, Season: season, Points: points, EventsPlayed: 1, Version: 1}, pad)
}

// setStoredState writes an event's stored state directly (as scoring's last step does).
func (f *fixture) setStoredState(ev domain.Event, state domain.EventState) {
	f.t.Helper()
	_, err := f.db.UpdateItem(ctxT(f.t), &dynamodb.UpdateItemInput{
		TableName: aws.String(f.table), Key: table.Key(table.EventsPartition, table.EventSK(table.EventID(ev.ID))),
		UpdateExpression:          aws.String("SET #s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": "state"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": table.StringValue(string(state))},
	})
	if err != nil {
		f.t.Fatalf("set state: %v", err)
	}
}

// getRaw reads an item consistently.
func (f *fixture) getRaw(pk, sk string) map[string]types.AttributeValue {
	f.t.Helper()
	out, err := f.db.GetItem(ctxT(f.t), &dynamodb.GetItemInput{TableName: aws.String(f.table), Key: table.Key(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		f.t.Fatalf("GetItem %s/%s: %v", pk, sk, err)
	}
	return out.Item
}

// countEventGSI counts the index items of event ev's prediction shards whose sort key
// begins with prefix.
func (f *fixture) countEventGSI(ev domain.Event, prefix string) int {
	f.t.Helper()
	n := 0
	for _, pk := range table.EventShardPKs(table.EventID(ev.ID), eventRowOf(f.t, f.db, f.table, ev.ID).Shards) {
		n += f.countGSI(pk, prefix)
	}
	return n
}

// countGSI counts the index items of partition gsiPK whose sort key begins with prefix.
func (f *fixture) countGSI(gsiPK, prefix string) int {
	f.t.Helper()
	q := &dynamodb.QueryInput{
		TableName: aws.String(f.table), IndexName: aws.String(table.IndexName), Select: types.SelectCount,
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#pk": table.AttrGSIPK, "#sk": table.AttrGSISK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": table.StringValue(gsiPK), ":p": table.StringValue(prefix)},
	}
	return f.count(q)
}

// count runs a Select COUNT Query to the end and returns the count.
func (f *fixture) count(q *dynamodb.QueryInput) int {
	f.t.Helper()
	n := 0
	for {
		out, err := f.db.Query(ctxT(f.t), q)
		if err != nil {
			f.t.Fatalf("count %s: %v", q.ExpressionAttributeValues[":pk"], err)
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n
		}
		q.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func mapIDs[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func predUsers(ps []domain.Prediction) []string {
	return mapIDs(ps, func(p domain.Prediction) string { return p.User.ID })
}

func predEvents(ps []domain.Prediction) []string {
	return mapIDs(ps, func(p domain.Prediction) string { return p.EventID })
}

func standingUsers(ss []domain.Standing) []string {
	return mapIDs(ss, func(s domain.Standing) string { return s.User.ID })
}

func eventIDs(es []domain.Event) []string {
	return mapIDs(es, func(e domain.Event) string { return e.ID })
}

func matchIDs(ms []domain.Match) []string {
	return mapIDs(ms, func(m domain.Match) string { return m.ID })
}

func predRanks(ps []domain.Prediction) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = -1
		if p.Rank != nil {
			out[i] = *p.Rank
		}
	}
	return out
}

func standingRanks(ss []domain.Standing) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = -1
		if s.Rank != nil {
			out[i] = *s.Rank
		}
	}
	return out
}

func pointsOf(p domain.Prediction) string {
	if p.Points == nil {
		return "nil"
	}
	return fmt.Sprint(*p.Points)
}

// scanAll reads every item of the fixture's table, by PK|SK.
func (f *fixture) scanAll() map[string]map[string]types.AttributeValue {
	f.t.Helper()
	items := map[string]map[string]types.AttributeValue{}
	in := &dynamodb.ScanInput{TableName: aws.String(f.table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := f.db.Scan(ctxT(f.t), in)
		if err != nil {
			f.t.Fatalf("scan: %v", err)
		}
		for _, it := range out.Items {
			items[table.ItemString(it, table.AttrPK)+"|"+table.ItemString(it, table.AttrSK)] = it
		}
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// txHookAPI runs hook (once) before the first TransactWriteItems that matches.
type txHookAPI struct {
	ddb.API
	once  sync.Once
	match func(*dynamodb.TransactWriteItemsInput) bool
	hook  func()
}

func (h *txHookAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if h.match(in) {
		h.once.Do(h.hook)
	}
	return h.API.TransactWriteItems(ctx, in, opts...)
}
