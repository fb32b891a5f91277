package dynamo

// Scoring tests on DynamoDB Local. Every helper here is prefixed "sc" so that it cannot
// collide with the general store tests' helpers in the same package.
//
// Each test builds its data, scores it, and checks the table against an oracle (scOracle)
// that scores picks independently of domain.ScorePicks, plus an invariant read straight from
// the table (scSnapshot.checkSums): every standing equals the sum over its player's scored
// predictions of that season, and eventsPlayed counts them.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/scoring"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamotest"
)

// Clocks: every scoring test event starts in 2025 (season 2025). Predictions are submitted
// by a store whose clock reads scBefore; results are entered and events scored by a store
// whose clock reads scAfter.
var (
	scBefore = time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC)
	scAfter  = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
)

const scSeason = 2025

// scShards is the shard count of the scoring tests' events and season: several shards, so
// that the runs score shards at once.
const scShards = 4

// scEnv is a fresh table with a store on each side of the events' start.
type scEnv struct {
	t      testing.TB
	client *dynamodb.Client
	table  string
	before *Store // clock before every event: creates events, submits picks
	after  *Store // clock after every event: enters results, scores
}

func newScEnv(t testing.TB) *scEnv {
	t.Helper()
	client := dynamotest.Client(t, ddb.CostOption)
	e := &scEnv{t: t, client: client, table: dynamotest.TableName()}
	e.before = New(client, e.table, WithClock(func() time.Time { return scBefore }), WithScoreShards(scShards))
	e.after = e.storeOver(client)
	if err := e.before.EnsureTable(scCtx(t)); err != nil {
		t.Fatalf("EnsureTable: %v", err)
	}
	return e
}

// storeOver is a store over db (a fault-injecting wrapper, typically) on the env's table,
// with the after clock.
func (e *scEnv) storeOver(db ddb.API) *Store {
	return New(db, e.table, WithClock(func() time.Time { return scAfter }), WithScoreShards(scShards))
}

// getRaw reads an item consistently (nil if none).
func (e *scEnv) getRaw(pk, sk string) map[string]types.AttributeValue {
	e.t.Helper()
	out, err := e.client.GetItem(scCtx(e.t), &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: table.Key(pk, sk), ConsistentRead: aws.Bool(true)})
	scOK(e.t, err)
	return out.Item
}

// scCtx is the scoring tests' context (ctxT).
func scCtx(t testing.TB) context.Context { return ctxT(t) }

func scOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error (code %s): %v", domain.ErrorCode(err), err)
	}
}

func scPtr[T any](v T) *T { return &v }

func scTeams(n int) []domain.Team {
	teams := make([]domain.Team, n)
	for i := range teams {
		teams[i] = domain.Team{Members: []string{fmt.Sprintf("Wrestler %c", 'A'+i)}}
	}
	return teams
}

// scCard is a five-match card: singles (10), four-way (20), tag titles (15), grudge (5),
// main event (25).
func scCard() []domain.MatchSpec {
	tag := func(name string, members ...string) domain.Team { return domain.Team{Name: &name, Members: members} }
	return []domain.MatchSpec{
		{Name: "Opener", Points: 10, Preshow: true, Teams: scTeams(2)},
		{Name: "Fatal Four-Way", Points: 20, Championships: []string{"Intercontinental Championship"}, Teams: scTeams(4)},
		{Name: "Tag Team Titles", Points: 15, Championships: []string{"Tag Team Championship"},
			Teams: []domain.Team{tag("Red Team", "Ann", "Bea"), tag("Blue Team", "Cid", "Dot")}},
		{Name: "Grudge Match", Points: 5, Teams: scTeams(2)},
		{Name: "Main Event", Points: 25, Championships: []string{"World Championship"}, Teams: scTeams(2)},
	}
}

func scWin(team int) domain.MatchResult {
	return domain.MatchResult{Outcome: domain.OutcomeWin, Winner: &team}
}

var (
	scDraw      = domain.MatchResult{Outcome: domain.OutcomeDraw}
	scNoContest = domain.MatchResult{Outcome: domain.OutcomeNoContest}
)

// scResults is the default result of scCard: Opener WIN 0, Four-Way WIN 2, Tag DRAW,
// Grudge NO_CONTEST, Main Event WIN 1.
func scResults() []domain.MatchResult {
	return []domain.MatchResult{scWin(0), scWin(2), scDraw, scNoContest, scWin(1)}
}

// createEvent creates event id (its date is the id's) starting at 22:00 UTC.
func (e *scEnv) createEvent(id string, card []domain.MatchSpec) domain.Event {
	e.t.Helper()
	return e.createWith(e.before, id, card)
}

// createWith is createEvent through store s.
func (e *scEnv) createWith(s *Store, id string, card []domain.MatchSpec) domain.Event {
	e.t.Helper()
	day, err := time.Parse("2006-01-02", id[:10])
	if err != nil {
		e.t.Fatalf("bad event id %q", id)
	}
	ev, err := s.CreateEvent(scCtx(e.t), domain.EventSpec{ID: &id, Name: "Event " + id[11:], StartsAt: day.Add(22 * time.Hour), Matches: card})
	scOK(e.t, err)
	return ev
}

// setResults enters results[i] for match i (the event is locked by time for the after
// store) and returns the event with its results.
func (e *scEnv) setResults(ev domain.Event, results []domain.MatchResult) domain.Event {
	e.t.Helper()
	ev.Matches = slices.Clone(ev.Matches)
	for i, r := range results {
		m, err := e.after.SetResult(scCtx(e.t), ev.ID, ev.Matches[i].ID, &r)
		scOK(e.t, err)
		ev.Matches[i] = m
	}
	return ev
}

// scEntry is one player's picks for one event: Teams[i] is the team picked on match i, -1
// for no pick.
type scEntry struct {
	User  string
	Teams []int
}

func (en scEntry) picks(ev domain.Event) []domain.Pick {
	var out []domain.Pick
	for i, team := range en.Teams {
		if team >= 0 {
			out = append(out, domain.Pick{MatchID: ev.Matches[i].ID, Team: team})
		}
	}
	return out
}

func scName(user string) string { return "Player " + user }

// submit submits entries through SubmitPrediction (the real write path).
func (e *scEnv) submit(ev domain.Event, entries ...scEntry) {
	e.t.Helper()
	for _, en := range entries {
		_, err := e.before.SubmitPrediction(scCtx(e.t), domain.UserRef{ID: en.User, Name: scName(en.User)}, ev.ID, domain.Entry{Picks: en.picks(ev)})
		scOK(e.t, err)
	}
}

// writeEntries writes entries as unscored prediction items, exactly as SubmitPrediction
// shapes them, with BatchWriteItem (25 a request, 8 requests at a time): fast bulk data.
func (e *scEnv) writeEntries(ev domain.Event, entries []scEntry) {
	e.t.Helper()
	items := make([]map[string]types.AttributeValue, len(entries))
	for i, en := range entries {
		items[i] = e.entryItem(ev, en)
	}
	scBatchWrite(e.t, e.client, e.table, items)
	users := make([]string, len(entries))
	for i, en := range entries {
		users[i] = en.User
	}
	addPredictionCounts(e.t, e.client, e.table, ev.ID, users)
}

// entryItem is en's prediction item for ev, counted, as a submit writes it.
func (e *scEnv) entryItem(ev domain.Event, en scEntry) map[string]types.AttributeValue {
	e.t.Helper()
	uid, eid := table.UserID(en.User), table.EventID(ev.ID)
	row := table.PredictionRow{
		Keys:      table.Keys{PK: table.UserPK(uid), SK: table.EventSK(eid)},
		IndexKeys: table.IndexKeys{GSIPK: table.EventShardPK(eid, uid.Shard(scShards), scShards), GSISK: table.PendingSK(uid)},
		Type:      table.TypePrediction, UserID: en.User, UserName: scName(en.User), UserNameVersion: 1,
		EventID: ev.ID, EventName: ev.Name, EventStartsAt: table.FormatTime(ev.StartsAt), Season: ev.Season(),
		UpdatedAt: table.FormatTime(scBefore),
	}
	for _, p := range en.picks(ev) {
		row.Picks = append(row.Picks, table.PickRow{MatchID: p.MatchID, Team: p.Team})
	}
	item, err := attributevalue.MarshalMap(row)
	if err != nil {
		e.t.Fatal(err)
	}
	return item
}

// scBatches is how many scoring batches entries take: per shard, pages of
// scoring.PlayersPerTransaction.
func scBatches(entries []scEntry) int {
	perShard := map[int]int{}
	for _, en := range entries {
		perShard[table.UserID(en.User).Shard(scShards)]++
	}
	n := 0
	for _, k := range perShard {
		n += (k + scoring.PlayersPerTransaction - 1) / scoring.PlayersPerTransaction
	}
	return n
}

func scBatchWrite(t testing.TB, client *dynamodb.Client, table string, items []map[string]types.AttributeValue) {
	t.Helper()
	g, ctx := errgroup.WithContext(scCtx(t))
	g.SetLimit(8)
	for start := 0; start < len(items); start += 25 {
		batch := items[start:min(start+25, len(items))]
		g.Go(func() error {
			reqs := make([]types.WriteRequest, len(batch))
			for i, it := range batch {
				reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
			}
			pending := map[string][]types.WriteRequest{table: reqs}
			for len(pending) > 0 {
				out, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
				if err != nil {
					return err
				}
				pending = out.UnprocessedItems
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("BatchWriteItem: %v", err)
	}
}

// scGenEntries makes n players' entries for a card of matches with teams[i] teams each,
// deterministic in salt: player k is "p<k>", skips some matches, picks varied teams.
func scGenEntries(n int, teams []int, salt int) []scEntry {
	out := make([]scEntry, n)
	for k := range out {
		en := scEntry{User: fmt.Sprintf("p%05d", k), Teams: make([]int, len(teams))}
		for i, nt := range teams {
			h := (k*7919 + i*104729 + salt*31337) % 9973
			if h%7 == 0 && i != 0 { // every entry keeps at least its first pick
				en.Teams[i] = -1
				continue
			}
			en.Teams[i] = h % nt
		}
		out[k] = en
	}
	return out
}

func scTeamCounts(ev domain.Event) []int {
	out := make([]int, len(ev.Matches))
	for i, m := range ev.Matches {
		out[i] = len(m.Teams)
	}
	return out
}

// scScore is what one prediction should hold.
type scScore struct {
	Points, Correct int
	CorrectIDs      []string
}

// scOracle scores an entry against a card with results, written independently of
// domain.ScorePicks: only a WIN whose winner is the picked team counts.
func scOracle(ev domain.Event, en scEntry) scScore {
	s := scScore{CorrectIDs: []string{}}
	for i, team := range en.Teams {
		m := ev.Matches[i]
		if team < 0 || m.Result == nil || m.Result.Outcome != domain.OutcomeWin || *m.Result.Winner != team {
			continue
		}
		s.Points += m.Points
		s.Correct++
		s.CorrectIDs = append(s.CorrectIDs, m.ID)
	}
	return s
}

// scTotal is a season standing's expected totals.
type scTotal struct{ Points, Correct, EventsPlayed int }

// scScoredEvent is an event with its results and its entries.
type scScoredEvent struct {
	ev      domain.Event
	entries []scEntry
}

// scExpect sums the oracle over events.
func scExpect(events ...scScoredEvent) map[string]scTotal {
	out := map[string]scTotal{}
	for _, se := range events {
		for _, en := range se.entries {
			s := scOracle(se.ev, en)
			t := out[en.User]
			t.Points += s.Points
			t.Correct += s.Correct
			t.EventsPlayed++
			out[en.User] = t
		}
	}
	return out
}

// scSnapshot is the whole table, read with a consistent Scan.
type scSnapshot struct {
	items       []map[string]types.AttributeValue
	events      map[string]table.EventRow      // by event id
	predictions map[string]table.PredictionRow // by user/event
	standings   map[string]table.StandingRow   // by user (season 2025 only in these tests)
	matchPos    map[string]int                 // card position by match id
}

func (e *scEnv) snapshot() scSnapshot {
	e.t.Helper()
	s := scSnapshot{events: map[string]table.EventRow{}, predictions: map[string]table.PredictionRow{}, standings: map[string]table.StandingRow{}, matchPos: map[string]int{}}
	in := &dynamodb.ScanInput{TableName: aws.String(e.table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := e.client.Scan(scCtx(e.t), in)
		if err != nil {
			e.t.Fatalf("Scan: %v", err)
		}
		for _, item := range out.Items {
			// Audit entries record calls (when, by whom), not state: a run cut off and
			// resumed makes other calls than one that was not, with the same result.
			if table.ItemType(item) == table.TypeAudit {
				continue
			}
			// Likewise a checkpoint's By: which attempt wrote it last; and the rev of a
			// histogram or a rank table: how many transactions changed the counts, which
			// depends on how the work was batched, not on the counts.
			switch table.ItemType(item) {
			case table.TypeCheckpoint:
				delete(item, "by")
			case table.TypeRanks, table.TypeRankTable:
				delete(item, "rev")
			}
			s.items = append(s.items, item)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	sort.Slice(s.items, func(i, j int) bool {
		a, b := s.items[i], s.items[j]
		if pa, pb := table.ItemString(a, table.AttrPK), table.ItemString(b, table.AttrPK); pa != pb {
			return pa < pb
		}
		return table.ItemString(a, table.AttrSK) < table.ItemString(b, table.AttrSK)
	})
	for _, item := range s.items {
		var err error
		switch table.ItemType(item) {
		case table.TypeEvent:
			var row table.EventRow
			err = attributevalue.UnmarshalMap(item, &row)
			s.events[row.ID] = row
		case table.TypeMatch:
			var row table.MatchRow
			err = attributevalue.UnmarshalMap(item, &row)
			s.matchPos[row.ID] = row.Position
		case table.TypePrediction:
			var row table.PredictionRow
			err = attributevalue.UnmarshalMap(item, &row)
			s.predictions[row.UserID+"/"+row.EventID] = row
		case table.TypeStanding:
			var row table.StandingRow
			err = attributevalue.UnmarshalMap(item, &row)
			if row.Season != scSeason {
				e.t.Fatalf("standing of season %d: these tests only use %d", row.Season, scSeason)
			}
			s.standings[row.UserID] = row
		}
		if err != nil {
			e.t.Fatalf("unmarshal %v: %v", item, err)
		}
	}
	return s
}

// checkSums checks the invariant scoring must keep at every moment, whatever was cut off or
// ran concurrently: each standing is the sum over its player's scored predictions (points,
// correct, count), its index key encodes its points, and every scored player has a standing.
func (s scSnapshot) checkSums(t testing.TB) {
	t.Helper()
	sums := map[string]scTotal{}
	for _, p := range s.predictions {
		if p.Points == nil {
			if !strings.HasPrefix(p.GSISK, table.PendingKeyPrefix) {
				t.Errorf("unscored prediction %s/%s has GSI_SK %q", p.UserID, p.EventID, p.GSISK)
			}
			continue
		}
		s.checkPredictionKey(t, p)
		if p.Correct == nil || *p.Correct != len(p.CorrectIDs) {
			t.Errorf("prediction %s/%s: correct %v but %d correct ids", p.UserID, p.EventID, p.Correct, len(p.CorrectIDs))
		}
		tot := sums[p.UserID]
		tot.Points += *p.Points
		tot.Correct += *p.Correct
		tot.EventsPlayed++
		sums[p.UserID] = tot
	}
	for user, want := range sums {
		st, ok := s.standings[user]
		if !ok {
			t.Errorf("player %s has scored predictions %+v but no standing", user, want)
			continue
		}
		if got := (scTotal{st.Points, st.Correct, st.EventsPlayed}); got != want {
			t.Errorf("standing of %s = %+v, want the sum of its scored predictions %+v", user, got, want)
		}
		if sk, _ := table.ScoreSK(st.Points, table.UserID(user)); st.GSISK != sk {
			t.Errorf("standing of %s: GSI_SK %q, want %q", user, st.GSISK, sk)
		}
	}
	for user, st := range s.standings {
		if _, ok := sums[user]; !ok {
			t.Errorf("standing of %s (%d points) has no scored prediction behind it", user, st.Points)
		}
	}
}

// checkPredictionKey checks scored prediction p's index key: the key of its points (with
// the tie-break of its event's answer, when one is set: table.LeaderboardSK) for a
// prediction scored for its event's card version; for one scored for an earlier version (a
// pass under way), a key of its points and its player, whatever its tie-break.
func (s scSnapshot) checkPredictionKey(t testing.TB, p table.PredictionRow) {
	t.Helper()
	ev, uid := s.events[p.EventID], table.UserID(p.UserID)
	if p.ScoredWith != nil && *p.ScoredWith == ev.CardVersion {
		var answer *int
		if ev.Tiebreaker != "" {
			answer = ev.Answer
		}
		if sk, _ := table.LeaderboardSK(*p.Points, answer, p.Tiebreaker, uid); p.GSISK != sk {
			t.Errorf("prediction %s/%s: GSI_SK %q, want %q", p.UserID, p.EventID, p.GSISK, sk)
		}
		return
	}
	if points, _, u, err := table.ParseScoreSK(p.GSISK); err != nil || points != *p.Points || u != uid {
		t.Errorf("prediction %s/%s: GSI_SK %q is not a score key of %d points (%v)", p.UserID, p.EventID, p.GSISK, *p.Points, err)
	}
}

// checkTotals checks standings against expected totals: same players, same numbers.
func (s scSnapshot) checkTotals(t testing.TB, want map[string]scTotal) {
	t.Helper()
	got := map[string]scTotal{}
	for user, st := range s.standings {
		got[user] = scTotal{st.Points, st.Correct, st.EventsPlayed}
	}
	if maps.Equal(got, want) {
		return
	}
	for user := range want {
		if got[user] != want[user] {
			t.Errorf("standing of %s = %+v, want %+v", user, got[user], want[user])
		}
	}
	for user := range got {
		if _, ok := want[user]; !ok {
			t.Errorf("unexpected standing of %s: %+v", user, got[user])
		}
	}
}

// checkScored checks every prediction of se against the oracle.
func (s scSnapshot) checkScored(t testing.TB, se scScoredEvent) {
	t.Helper()
	for _, en := range se.entries {
		p, ok := s.predictions[en.User+"/"+se.ev.ID]
		if !ok {
			t.Errorf("no prediction %s/%s", en.User, se.ev.ID)
			continue
		}
		if p.Points == nil || p.Correct == nil {
			t.Errorf("prediction %s/%s is not scored", en.User, se.ev.ID)
			continue
		}
		got, want := scScore{*p.Points, *p.Correct, nonNil(p.CorrectIDs)}, scOracle(se.ev, en)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("prediction %s/%s = %+v, want %+v", en.User, se.ev.ID, got, want)
		}
	}
}

func (s scSnapshot) state(id string) domain.EventState { return domain.EventState(s.events[id].State) }

// scored counts the scored predictions of event id.
func (s scSnapshot) scored(id string) int {
	n := 0
	for _, p := range s.predictions {
		if p.EventID == id && p.Points != nil {
			n++
		}
	}
	return n
}

// comparable is a snapshot's standings, predictions and index keys in a form that two
// tables built from the same dataset share: match ids (random) become card positions, and
// standing versions (bookkeeping) are left out.
func (s scSnapshot) comparable() (map[string]scTotal, map[string]scScore, map[string]string) {
	st, pr, keys := map[string]scTotal{}, map[string]scScore{}, map[string]string{}
	for u, r := range s.standings {
		st[u] = scTotal{r.Points, r.Correct, r.EventsPlayed}
		keys["standing/"+u] = r.GSISK
	}
	for k, r := range s.predictions {
		var sc scScore
		if r.Points != nil {
			sc = scScore{Points: *r.Points, Correct: *r.Correct, CorrectIDs: []string{}}
			for _, id := range r.CorrectIDs {
				sc.CorrectIDs = append(sc.CorrectIDs, fmt.Sprint("match", s.matchPos[id]))
			}
		}
		pr[k] = sc
		keys["prediction/"+k] = r.GSISK
	}
	return st, pr, keys
}

// scScoreRun scores an event and fails on error.
func scScoreRun(t testing.TB, s *Store, id string, dryRun bool) domain.ScoreReport {
	t.Helper()
	r, err := s.ScoreEvent(scCtx(t), id, dryRun)
	scOK(t, err)
	return r
}

// scFaultAPI wraps a client to inject faults into TransactWriteItems.
type scFaultAPI struct {
	ddb.API
	// before, if set, runs once, before the first TransactWriteItems goes through (other
	// callers wait for it); beforeTx is before with that transaction's input.
	before   func(ctx context.Context)
	beforeTx func(ctx context.Context, in *dynamodb.TransactWriteItemsInput)
	once     sync.Once
	// failAfter >= 0 makes every call after the first failAfter calls fail with
	// errScInjected without reaching the engine.
	failAfter int64
	// reasons, if set, rewrites the cancellation reasons of a cancelled transaction.
	reasons func([]types.CancellationReason) []types.CancellationReason

	calls     atomic.Int64
	cancelled atomic.Int64
	mu        sync.Mutex
	sizes     []int // items per call, including refused ones
	written   int   // predictions and standings (not league items) of the calls that succeeded
}

// transactKey is the partition key of a transaction item.
func transactKey(it types.TransactWriteItem) string {
	var key map[string]types.AttributeValue
	switch {
	case it.Put != nil:
		key = it.Put.Item
	case it.Update != nil:
		key = it.Update.Key
	case it.Delete != nil:
		key = it.Delete.Key
	case it.ConditionCheck != nil:
		key = it.ConditionCheck.Key
	}
	return table.ItemString(key, table.AttrPK)
}

var errScInjected = errors.New("injected fault: connection reset")

func newScFaultAPI(db ddb.API) *scFaultAPI { return &scFaultAPI{API: db, failAfter: -1} }

func (f *scFaultAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.once.Do(func() {
		if f.before != nil {
			f.before(ctx)
		}
		if f.beforeTx != nil {
			f.beforeTx(ctx, in)
		}
	})
	f.mu.Lock()
	f.sizes = append(f.sizes, len(in.TransactItems))
	f.mu.Unlock()
	if n := f.calls.Add(1); f.failAfter >= 0 && n > f.failAfter {
		return nil, errScInjected
	}
	if f.failAfter >= 0 {
		// A run killed between transactions: the calls let through complete even when the
		// run's context is cancelled by the failure of another batch meanwhile.
		ctx = context.WithoutCancel(ctx)
	}
	out, err := f.API.TransactWriteItems(ctx, in, opts...)
	if err == nil {
		f.mu.Lock()
		for _, it := range in.TransactItems {
			if strings.HasPrefix(transactKey(it), table.UserKeyPrefix) && it.ConditionCheck == nil &&
				(it.Update == nil || table.ItemString(it.Update.Key, table.AttrSK) != table.LeagueCountSK) {
				f.written++
			}
		}
		f.mu.Unlock()
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		f.cancelled.Add(1)
		if f.reasons != nil {
			err = &types.TransactionCanceledException{Message: tce.Message, CancellationReasons: f.reasons(tce.CancellationReasons)}
		}
	}
	return out, err
}

// scFirstReasonOnly keeps only the first failing item's reason, as an engine may report.
func scFirstReasonOnly(rs []types.CancellationReason) []types.CancellationReason {
	out := make([]types.CancellationReason, len(rs))
	seen := false
	for i, r := range rs {
		out[i] = types.CancellationReason{Code: aws.String("None")}
		if !seen && r.Code != nil && *r.Code != "None" {
			out[i], seen = r, true
		}
	}
	return out
}

// scNoReasons drops every reason: an engine that names no item.
func scNoReasons([]types.CancellationReason) []types.CancellationReason { return nil }

// --- tests ---------------------------------------------------------------------------------

func TestScoreEventRefuses(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	open := e.createEvent("2025-04-19-open-event", scCard())
	empty := e.createEvent("2025-04-21-empty-card", nil)
	broadcast := e.createEvent("2025-04-22-locked-by-state", scCard())
	_, err := e.before.UpdateEvent(scCtx(t), broadcast.ID, domain.EventUpdate{State: scPtr(domain.StateBroadcast)})
	scOK(t, err)

	tests := []struct {
		name     string
		store    *Store
		id       string
		code     domain.Code
		mentions []string
		absent   []string
	}{
		{"UnknownEvent", e.after, "2025-04-23-no-such-event", domain.CodeNotFound, nil, nil},
		{"InvalidEventID", e.after, "EVENT#2025-04-19-open-event", domain.CodeBadUserInput, nil, nil},
		{"OpenEvent", e.before, open.ID, domain.CodeBadUserInput, []string{open.ID, "open"}, nil},
		{"NoMatches", e.after, empty.ID, domain.CodeBadUserInput, []string{"no matches"}, nil},
		// Some results score live (TestLiveScoring); none at all is refused.
		{"LockedByStateWithoutResults", e.before, broadcast.ID, domain.CodeBadUserInput, []string{"no result", "Opener", "Main Event"}, nil},
	}
	for _, tt := range tests {
		for _, dryRun := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dryRun=%v", tt.name, dryRun), func(t *testing.T) {
				_, err := tt.store.ScoreEvent(scCtx(t), tt.id, dryRun)
				if got := domain.ErrorCode(err); got != tt.code {
					t.Fatalf("code = %q (%v), want %q", got, err, tt.code)
				}
				var de *domain.Error
				if !errors.As(err, &de) {
					t.Fatalf("not a domain error: %v", err)
				}
				for _, s := range tt.mentions {
					if !strings.Contains(de.Message, s) {
						t.Errorf("message %q does not mention %q", de.Message, s)
					}
				}
				for _, s := range tt.absent {
					if strings.Contains(de.Message, s) {
						t.Errorf("message %q mentions %q, which has a result", de.Message, s)
					}
				}
			})
		}
	}
	snap := e.snapshot()
	if len(snap.standings) != 0 {
		t.Errorf("refused runs wrote %d standings", len(snap.standings))
	}
	for id, ev := range snap.events {
		if ev.State == string(domain.StateScored) {
			t.Errorf("refused event %s became SCORED", id)
		}
	}
}

func TestScoreEventPointsAndVoids(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-points-and-voids", scCard())
	// Results: Opener WIN 0 (10), Four-Way WIN 2 (20), Tag DRAW (15), Grudge NO_CONTEST (5),
	// Main Event WIN 1 (25).
	entries := []scEntry{
		{"all-right", []int{0, 2, 0, 1, 1}},     // 10+20+25; picks on both voided matches
		{"all-wrong", []int{1, 3, 1, 0, 0}},     // 0, but scored
		{"partial", []int{0, -1, -1, -1, 0}},    // 10
		{"void-only", []int{-1, -1, 1, 0, -1}},  // picks only voided matches: 0
		{"main-only", []int{-1, -1, -1, -1, 1}}, // 25
		{"four-way", []int{1, 2, -1, -1, -1}},   // 20
	}
	want := map[string]scScore{
		"all-right": {55, 3, nil}, "all-wrong": {0, 0, nil}, "partial": {10, 1, nil},
		"void-only": {0, 0, nil}, "main-only": {25, 1, nil}, "four-way": {20, 1, nil},
	}
	e.submit(ev, entries...)

	for _, en := range entries {
		p, err := e.after.GetPrediction(scCtx(t), en.User, ev.ID, true)
		scOK(t, err)
		if p.Points != nil || p.Correct != nil {
			t.Errorf("%s before scoring: points %v correct %v, want nil", en.User, p.Points, p.Correct)
		}
		for _, pk := range p.Picks {
			if pk.Correct != nil {
				t.Errorf("%s before scoring: pick %s correct = %v, want nil", en.User, pk.MatchID, *pk.Correct)
			}
		}
	}
	ev = e.setResults(ev, scResults())
	rep := scScoreRun(t, e.after, ev.ID, false)
	if want := (domain.ScoreReport{EventID: ev.ID, PredictionsScored: 6, StandingsChanged: 6, Transactions: scBatches(entries), Complete: true, ScoredMatches: 5, Final: true}); rep != want {
		t.Errorf("report = %+v, want %+v", rep, want)
	}

	voided := map[string]bool{ev.Matches[2].ID: true, ev.Matches[3].ID: true}
	for _, en := range entries {
		t.Run(en.User, func(t *testing.T) {
			p, err := e.after.GetPrediction(scCtx(t), en.User, ev.ID, true)
			scOK(t, err)
			w := want[en.User]
			if p.Points == nil || *p.Points != w.Points || p.Correct == nil || *p.Correct != w.Correct {
				t.Fatalf("points %v correct %v, want %d and %d", p.Points, p.Correct, w.Points, w.Correct)
			}
			if o := scOracle(ev, en); o.Points != w.Points || o.Correct != w.Correct {
				t.Fatalf("the oracle disagrees with this test's table: %+v", o)
			}
			for _, pk := range p.Picks {
				if pk.Correct == nil {
					t.Fatalf("pick %s: correct is nil after scoring", pk.MatchID)
				}
				m, _ := ev.Match(pk.MatchID)
				wantCorrect := !voided[pk.MatchID] && *m.Result.Winner == pk.Team
				if *pk.Correct != wantCorrect {
					t.Errorf("pick on %q team %d: correct = %v, want %v", m.Name, pk.Team, *pk.Correct, wantCorrect)
				}
			}
		})
	}
	got, err := e.after.GetEvent(scCtx(t), ev.ID)
	scOK(t, err)
	if got.Stored != domain.StateScored {
		t.Errorf("event state %s, want SCORED", got.Stored)
	}
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(scScoredEvent{ev, entries}))
	for user, st := range snap.standings {
		if st.UserName != scName(user) || st.EventsPlayed != 1 {
			t.Errorf("standing of %s: name %q eventsPlayed %d", user, st.UserName, st.EventsPlayed)
		}
	}
}

func TestScoreEventIdempotent(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	var scored []scScoredEvent
	for i, id := range []string{"2025-04-19-night-one", "2025-04-20-night-two"} {
		ev := e.createEvent(id, scCard())
		entries := scGenEntries(55, scTeamCounts(ev), i)[i*5:] // p00000-p00004 play night one only
		e.writeEntries(ev, entries)
		scored = append(scored, scScoredEvent{e.setResults(ev, scResults()), entries})
	}
	for _, se := range scored {
		rep := scScoreRun(t, e.after, se.ev.ID, false)
		if rep.PredictionsScored != len(se.entries) || rep.Transactions != scBatches(se.entries) {
			t.Errorf("first run of %s: %+v", se.ev.ID, rep)
		}
	}
	first := e.snapshot()
	first.checkSums(t)
	first.checkTotals(t, scExpect(scored...))

	for _, se := range scored {
		ctx, cost := ddb.WithCost(scCtx(t))
		rep, err := e.after.ScoreEvent(ctx, se.ev.ID, false)
		scOK(t, err)
		if want := (domain.ScoreReport{EventID: se.ev.ID, Complete: true, ScoredMatches: 5, Final: true}); rep != want {
			t.Errorf("second run of %s: report %+v, want %+v", se.ev.ID, rep, want)
		}
		if ops := cost.Snapshot().Operations; ops["TransactWriteItems"] != 0 || ops["PutItem"] != 0 {
			t.Errorf("second run of %s wrote: %v", se.ev.ID, ops)
		}
	}
	second := e.snapshot()
	if !reflect.DeepEqual(first.items, second.items) {
		t.Errorf("a second run changed the table")
	}
	for user, want := range map[string]int{"p00000": 1, "p00005": 2, "p00054": 2} {
		if got := second.standings[user].EventsPlayed; got != want {
			t.Errorf("eventsPlayed of %s = %d, want %d", user, got, want)
		}
	}
}

func TestScoreEventCorrectionAppliesDifference(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	one := e.createEvent("2025-04-19-night-one", scCard())
	two := e.createEvent("2025-04-20-night-two", scCard())
	oneEntries := []scEntry{
		{"ann", []int{0, 2, 0, 0, 1}}, {"bob", []int{1, 0, 1, 1, 0}}, {"cat", []int{0, 1, -1, -1, 1}}, {"dan", []int{1, 2, 0, 0, 0}},
	}
	twoEntries := []scEntry{
		{"ann", []int{0, 2, 0, 0, 0}},     // Opener and Main Event picks: affected twice
		{"bob", []int{1, 1, 1, 1, 1}},     // right on the Main Event until the correction
		{"cat", []int{-1, 3, -1, -1, -1}}, // picked neither corrected match: unaffected
		{"eve", []int{0, -1, -1, -1, -1}}, // only the Opener, which the correction voids
	}
	e.submit(one, oneEntries...)
	e.submit(two, twoEntries...)
	one = e.setResults(one, scResults())
	two = e.setResults(two, scResults())
	scScoreRun(t, e.after, one.ID, false)
	scScoreRun(t, e.after, two.ID, false)
	before := e.snapshot()
	before.checkTotals(t, scExpect(scScoredEvent{one, oneEntries}, scScoredEvent{two, twoEntries}))

	// Correct night two: the Opener (WIN 0) was a no contest, the Main Event went to team 0
	// (not 1). Night one is untouched.
	corrected := two
	corrected.Matches = slices.Clone(two.Matches)
	for i, r := range map[int]domain.MatchResult{0: scNoContest, 4: scWin(0)} {
		m, err := e.after.SetResult(scCtx(t), two.ID, two.Matches[i].ID, &r)
		scOK(t, err)
		corrected.Matches[i] = m
	}

	var changed, moved int
	for _, en := range twoEntries {
		o, n := scOracle(two, en), scOracle(corrected, en)
		if !reflect.DeepEqual(o, n) {
			changed++
		}
		if o.Points != n.Points || o.Correct != n.Correct {
			moved++
		}
	}
	dry := scScoreRun(t, e.after, two.ID, true)
	rep := scScoreRun(t, e.after, two.ID, false)
	// Every prediction is written once more: the ones whose score changed, and the others to
	// record that they reflect the corrected card (scoredWith). Standings move only for the
	// ones whose score changed.
	if changed == len(twoEntries) {
		t.Fatalf("the correction changes every prediction: the test cannot tell re-stamps from changes")
	}
	if want := (domain.ScoreReport{EventID: two.ID, PredictionsScored: len(twoEntries), StandingsChanged: moved, Transactions: scBatches(twoEntries), Complete: true, ScoredMatches: 5, Final: true}); rep != want {
		t.Errorf("re-score report = %+v, want %+v", rep, want)
	}
	if dry.PredictionsScored != rep.PredictionsScored || dry.StandingsChanged != rep.StandingsChanged || dry.Transactions != rep.Transactions {
		t.Errorf("dry run %+v disagrees with the run %+v", dry, rep)
	}
	after := e.snapshot()
	after.checkSums(t)
	after.checkTotals(t, scExpect(scScoredEvent{one, oneEntries}, scScoredEvent{corrected, twoEntries}))
	after.checkScored(t, scScoredEvent{corrected, twoEntries})
	after.checkScored(t, scScoredEvent{one, oneEntries})
	// Explicit numbers, so that the oracle is checked too: ann lost the Opener (10) and won
	// the Main Event (25); bob lost the Main Event (25); eve lost the Opener (10); cat and dan
	// are untouched.
	for user, delta := range map[string]int{"ann": 15, "bob": -25, "cat": 0, "dan": 0, "eve": -10} {
		if got := after.standings[user].Points - before.standings[user].Points; got != delta {
			t.Errorf("%s: standing moved by %d, want %d", user, got, delta)
		}
		if after.standings[user].EventsPlayed != before.standings[user].EventsPlayed {
			t.Errorf("%s: eventsPlayed moved from %d to %d", user, before.standings[user].EventsPlayed, after.standings[user].EventsPlayed)
		}
	}
	for _, user := range []string{"cat", "dan"} {
		if before.standings[user].Version != after.standings[user].Version {
			t.Errorf("unaffected standing of %s was rewritten", user)
		}
	}
	p, err := e.after.GetPrediction(scCtx(t), "eve", two.ID, true)
	scOK(t, err)
	if *p.Points != 0 || *p.Correct != 0 || p.Picks[0].Correct == nil || *p.Picks[0].Correct {
		t.Errorf("eve after the correction: points %d correct %d pick correct %v", *p.Points, *p.Correct, p.Picks[0].Correct)
	}
	if rep := scScoreRun(t, e.after, two.ID, false); rep.PredictionsScored != 0 || rep.Transactions != 0 {
		t.Errorf("run after the correction was applied: %+v", rep)
	}
}

func TestScoreEventConcurrentRunsOneEvent(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	prior := e.createEvent("2025-03-01-prior-event", scCard())
	priorEntries := scGenEntries(40, scTeamCounts(prior), 7) // p00000-p00039 already have standings
	e.writeEntries(prior, priorEntries)
	prior = e.setResults(prior, scResults())
	scScoreRun(t, e.after, prior.ID, false)

	ev := e.createEvent("2025-04-19-contested", scCard())
	entries := scGenEntries(75, scTeamCounts(ev), 1) // two transactions' worth
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())

	const runs = 8
	reports := make([]domain.ScoreReport, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(e.client, e.table, WithClock(func() time.Time { return scAfter }))
			<-start
			reports[i], errs[i] = s.ScoreEvent(scCtx(t), ev.ID, false)
		}()
	}
	close(start)
	wg.Wait()
	scored := 0
	for i := range runs {
		scOK(t, errs[i])
		scored += reports[i].PredictionsScored
	}
	if scored != len(entries) {
		t.Errorf("the runs scored %d predictions in all, want each of the %d once", scored, len(entries))
	}
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(scScoredEvent{prior, priorEntries}, scScoredEvent{ev, entries}))
	snap.checkScored(t, scScoredEvent{ev, entries})
	if snap.state(ev.ID) != domain.StateScored {
		t.Errorf("event state %s, want SCORED", snap.state(ev.ID))
	}
	e.checkPickCounts(t, ev.ID, snap) // concurrent runs count each prediction's picks once
}

func TestScoreEventConcurrentEventsOneSeason(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	var events []scScoredEvent
	for i, id := range []string{"2025-04-19-night-one", "2025-04-20-night-two"} {
		ev := e.createEvent(id, scCard())
		entries := scGenEntries(75, scTeamCounts(ev), i)[i*10:] // mostly the same players
		e.writeEntries(ev, entries)
		events = append(events, scScoredEvent{e.setResults(ev, scResults()), entries})
	}
	g, ctx := errgroup.WithContext(scCtx(t))
	for _, se := range events {
		for range 2 { // two runs per event as well
			g.Go(func() error {
				s := New(e.client, e.table, WithClock(func() time.Time { return scAfter }))
				_, err := s.ScoreEvent(ctx, se.ev.ID, false)
				return err
			})
		}
	}
	scOK(t, g.Wait())
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(events...))
	for _, se := range events {
		snap.checkScored(t, se)
		if snap.state(se.ev.ID) != domain.StateScored {
			t.Errorf("%s: state %s, want SCORED", se.ev.ID, snap.state(se.ev.ID))
		}
	}
}

// scInterruptData builds the same dataset in any env: a scored prior event (so some players
// have standings and some do not) and a locked event with all results and 105 predictions
// (three transactions).
func scInterruptData(e *scEnv) (prior, ev scScoredEvent) {
	e.t.Helper()
	p := e.createEvent("2025-03-01-prior-event", scCard())
	prior = scScoredEvent{p, scGenEntries(30, scTeamCounts(p), 3)}
	e.writeEntries(p, prior.entries)
	prior.ev = e.setResults(p, scResults())
	scScoreRun(e.t, e.after, p.ID, false)

	x := e.createEvent("2025-04-19-interrupted", scCard())
	ev = scScoredEvent{x, scGenEntries(105, scTeamCounts(x), 4)}
	e.writeEntries(x, ev.entries)
	ev.ev = e.setResults(x, scResults())
	return prior, ev
}

func TestScoreEventInterruptedRunFinishes(t *testing.T) {
	t.Parallel()
	ref := newScEnv(t)
	refPrior, refEv := scInterruptData(ref)
	scScoreRun(t, ref.after, refEv.ev.ID, false)
	want := ref.snapshot()
	want.checkSums(t)
	want.checkTotals(t, scExpect(refPrior, refEv))
	ws, wp, wk := want.comparable()

	for _, k := range []int64{0, 1, 2} {
		t.Run(fmt.Sprintf("after%dTransactions", k), func(t *testing.T) {
			t.Parallel()
			e := newScEnv(t)
			_, ev := scInterruptData(e)
			faulty := newScFaultAPI(e.client)
			faulty.failAfter = k
			_, err := e.storeOver(faulty).ScoreEvent(scCtx(t), ev.ev.ID, false)
			if !errors.Is(err, errScInjected) {
				t.Fatalf("interrupted run: err = %v, want the injected fault", err)
			}
			mid := e.snapshot()
			mid.checkSums(t) // a run cut off leaves standings consistent with what it wrote
			// k transactions went through before the fault (batches run concurrently, so
			// which ones is not fixed); each player wrote a prediction and a standing.
			n := mid.scored(ev.ev.ID)
			if n != faulty.written/2 || (k == 0) != (n == 0) {
				t.Errorf("%d predictions scored before the fault, want the %d of the %d transactions let through", n, faulty.written/2, k)
			}
			if mid.state(ev.ev.ID) == domain.StateScored {
				t.Errorf("event SCORED after an interrupted run")
			}

			rep := scScoreRun(t, e.after, ev.ev.ID, false)
			if rep.PredictionsScored != len(ev.entries)-n {
				t.Errorf("re-run scored %d, want the %d left", rep.PredictionsScored, len(ev.entries)-n)
			}
			got := e.snapshot()
			got.checkSums(t)
			if got.state(ev.ev.ID) != domain.StateScored {
				t.Errorf("event state %s after the re-run, want SCORED", got.state(ev.ev.ID))
			}
			gs, gp, gk := got.comparable()
			if !maps.Equal(gs, ws) {
				t.Errorf("standings differ from an uninterrupted run")
			}
			if !maps.EqualFunc(gp, wp, func(a, b scScore) bool { return reflect.DeepEqual(a, b) }) {
				t.Errorf("predictions differ from an uninterrupted run")
			}
			if !maps.Equal(gk, wk) {
				t.Errorf("index keys differ from an uninterrupted run")
			}
			e.checkPickCounts(t, ev.ev.ID, got) // a run cut off halfway counts nothing twice
		})
	}
}

func TestScoreEventTransactionLimit(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-big-crowd", scCard())
	// 120 players of one shard (a batch holds one shard's players): pages of 48, 48 and 24.
	var entries []scEntry
	for _, en := range scGenEntries(4000, scTeamCounts(ev), 5) {
		if table.UserID(en.User).Shard(scShards) == 0 && len(entries) < 120 {
			entries = append(entries, en)
		}
	}
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())

	rec := newScFaultAPI(e.client)
	ctx, cost := ddb.WithCost(scCtx(t))
	rep, err := e.storeOver(rec).ScoreEvent(ctx, ev.ID, false)
	scOK(t, err)
	// Every player gets their first standing of the season: 3 items each (prediction,
	// standing, league item: leaguecopies.go), so a page of 48 is two transactions (32 +
	// 16), and the last page of 24 one.
	if rep.Transactions != 5 {
		t.Errorf("%d transactions for 120 players, want 5", rep.Transactions)
	}
	snap := cost.Snapshot()
	if snap.MaxTransactionItems > ddb.MaxTransactItems || snap.MaxTransactionItems < 2*scoring.PlayersPerTransaction {
		t.Errorf("largest transaction had %d items, want %d (full batches, never over %d)", snap.MaxTransactionItems, 2*scoring.PlayersPerTransaction, ddb.MaxTransactItems)
	}
	for _, n := range rec.sizes {
		if n > ddb.MaxTransactItems {
			t.Errorf("a transaction of %d items was sent", n)
		}
	}
	e.snapshot().checkSums(t)

	t.Run("TransactRefuses101Items", func(t *testing.T) {
		rec := newScFaultAPI(e.client)
		items := make([]types.TransactWriteItem, ddb.MaxTransactItems+1)
		for i := range items {
			items[i] = types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(e.table), Key: table.Key(fmt.Sprintf("X#%d", i), "X"), ConditionExpression: aws.String("attribute_not_exists(PK)"),
			}}
		}
		err := e.storeOver(rec).db.Transact(scCtx(t), items)
		if err == nil || !strings.Contains(err.Error(), "exceeds") {
			t.Fatalf("transact(101 items) = %v, want a refusal", err)
		}
		if len(rec.sizes) != 0 {
			t.Errorf("a 101-item request reached the client")
		}
		if err := e.storeOver(rec).db.Transact(scCtx(t), items[:ddb.MaxTransactItems]); err != nil {
			t.Errorf("transact(100 items) = %v", err)
		}
	})
}

func TestScoreEventStandingsOrderAndRanks(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	card := []domain.MatchSpec{
		{Name: "Ten", Points: 10, Teams: scTeams(2)},
		{Name: "Twenty", Points: 20, Teams: scTeams(2)},
	}
	ev := e.createEvent("2025-04-19-ties", card)
	entries := []scEntry{ // submitted out of order on purpose
		{"gus", []int{1, 1}},  // 0
		{"fay", []int{0, 1}},  // 10
		{"cat", []int{1, 0}},  // 20
		{"ana", []int{0, 0}},  // 30
		{"eve", []int{0, -1}}, // 10
		{"ben", []int{-1, 0}}, // 20
		{"dan", []int{0, 1}},  // 10
	}
	e.submit(ev, entries...)
	ev = e.setResults(ev, []domain.MatchResult{scWin(0), scWin(0)})
	scScoreRun(t, e.after, ev.ID, false)

	wantUsers := []string{"ana", "ben", "cat", "dan", "eve", "fay", "gus"}
	wantRanks := []int{1, 2, 2, 4, 4, 4, 7}
	wantPoints := []int{30, 20, 20, 10, 10, 10, 0}
	for _, size := range []int{100, 2, 3} {
		t.Run(fmt.Sprintf("pageSize%d", size), func(t *testing.T) {
			var users []string
			var ranks, points []int
			after := ""
			for {
				page, err := e.after.Standings(scCtx(t), scSeason, size, after)
				scOK(t, err)
				for _, st := range page.Items {
					users = append(users, st.User.ID)
					ranks = append(ranks, *st.Rank)
					points = append(points, st.Points)
				}
				if !page.HasNext {
					break
				}
				after = page.EndCursor()
			}
			if !slices.Equal(users, wantUsers) || !slices.Equal(ranks, wantRanks) || !slices.Equal(points, wantPoints) {
				t.Errorf("standings = %v ranks %v points %v\nwant        %v ranks %v points %v", users, ranks, points, wantUsers, wantRanks, wantPoints)
			}
		})
	}
	t.Run("Leaderboard", func(t *testing.T) {
		got, page, err := e.after.GetEventWithLeaderboard(scCtx(t), ev.ID, 10, true)
		scOK(t, err)
		if got.Stored != domain.StateScored || len(got.Matches) != 2 {
			t.Fatalf("event %s with %d matches", got.Stored, len(got.Matches))
		}
		var users []string
		var ranks []int
		for _, p := range page.Items {
			users = append(users, p.User.ID)
			ranks = append(ranks, *p.Rank)
		}
		if !slices.Equal(users, wantUsers) || !slices.Equal(ranks, wantRanks) {
			t.Errorf("leaderboard = %v ranks %v, want %v ranks %v", users, ranks, wantUsers, wantRanks)
		}
	})
}

func TestScoreEventDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	prior := e.createEvent("2025-03-01-prior-event", scCard())
	e.writeEntries(prior, scGenEntries(30, scTeamCounts(prior), 2))
	e.setResults(prior, scResults())
	scScoreRun(t, e.after, prior.ID, false)
	ev := e.createEvent("2025-04-19-dry-run", scCard())
	entries := scGenEntries(60, scTeamCounts(ev), 6) // 30 with standings, 30 without
	e.writeEntries(ev, entries)
	e.setResults(ev, scResults())

	before := e.snapshot()
	ctx, cost := ddb.WithCost(scCtx(t))
	dry, err := e.after.ScoreEvent(ctx, ev.ID, true)
	scOK(t, err)
	if want := (domain.ScoreReport{EventID: ev.ID, DryRun: true, PredictionsScored: 60, StandingsChanged: 60, Transactions: scBatches(entries), Remaining: 60, ScoredMatches: 5, Final: true}); dry != want {
		t.Errorf("dry run = %+v, want %+v", dry, want)
	}
	for op := range cost.Snapshot().Operations {
		if op != "Query" && op != "GetItem" && op != "BatchGetItem" {
			t.Errorf("dry run called %s", op)
		}
	}
	if after := e.snapshot(); !reflect.DeepEqual(before.items, after.items) {
		t.Fatalf("dry run changed the table")
	}
	rep := scScoreRun(t, e.after, ev.ID, false)
	if rep.PredictionsScored != dry.PredictionsScored || rep.StandingsChanged != dry.StandingsChanged || rep.Transactions != dry.Transactions {
		t.Errorf("run %+v does not do what the dry run said %+v", rep, dry)
	}
	if again := scScoreRun(t, e.after, ev.ID, true); again.PredictionsScored != 0 || again.StandingsChanged != 0 || again.Transactions != 0 {
		t.Errorf("dry run after scoring: %+v, want nothing to do", again)
	}
}

func TestScoreEventScoredOnlyWhenEveryPredictionIs(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-late-pick", scCard())
	entries := scGenEntries(20, scTeamCounts(ev), 8)
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())

	// A prediction this run never read appears while it writes (on AWS: a pick that reached
	// the index late): in the shard of the run's first transaction, whose page the run has
	// read (another shard's page may be read after it: the run would then see it).
	late := scEntry{User: "zz-late", Teams: []int{0, 2, 0, 0, 1}}
	faulty := newScFaultAPI(e.client)
	faulty.beforeTx = func(_ context.Context, in *dynamodb.TransactWriteItemsInput) {
		sh := -1
		for _, it := range in.TransactItems {
			if k := transactKey(it); strings.HasPrefix(k, table.UserKeyPrefix) {
				sh = table.UserID(strings.TrimPrefix(k, table.UserKeyPrefix)).Shard(scShards)
				break
			}
		}
		for i := 0; sh >= 0 && table.UserID(late.User).Shard(scShards) != sh; i++ {
			late.User = fmt.Sprintf("zz-late-%d", i)
		}
		e.writeEntries(ev, []scEntry{late})
	}
	_, err := e.storeOver(faulty).ScoreEvent(scCtx(t), ev.ID, false)
	if domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("run with a prediction it did not read: %v, want CONFLICT", err)
	}
	snap := e.snapshot()
	snap.checkSums(t)
	if snap.state(ev.ID) == domain.StateScored {
		t.Fatalf("event SCORED with prediction %s unscored", late.User)
	}
	if snap.scored(ev.ID) != len(entries) {
		t.Errorf("%d scored, want the %d the run read", snap.scored(ev.ID), len(entries))
	}
	rep := scScoreRun(t, e.after, ev.ID, false)
	if rep.PredictionsScored != 1 {
		t.Errorf("re-run scored %d, want the late one", rep.PredictionsScored)
	}
	all := append(slices.Clone(entries), late)
	snap = e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(scScoredEvent{ev, all}))
	if snap.state(ev.ID) != domain.StateScored {
		t.Errorf("event state %s, want SCORED", snap.state(ev.ID))
	}
}

// TestScoreEventConflictConvergence scores another event of the season behind the scorer's
// back, between its read of the standings and its first transaction, so that the standings
// it read are stale. The run must re-read what conflicted and still end with exact sums,
// whether the engine names every failing item, only the first or none.
func TestScoreEventConflictConvergence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reasons func([]types.CancellationReason) []types.CancellationReason
	}{
		{"AllReasons", nil},
		{"FirstReasonOnly", scFirstReasonOnly},
		{"NoReasons", scNoReasons},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newScEnv(t)
			one := e.createEvent("2025-04-19-night-one", scCard())
			two := e.createEvent("2025-04-20-night-two", scCard())
			oneEntries := scGenEntries(55, scTeamCounts(one), 1)
			twoEntries := scGenEntries(55, scTeamCounts(two), 2)[3:]
			e.writeEntries(one, oneEntries)
			e.writeEntries(two, twoEntries)
			one = e.setResults(one, scResults())
			two = e.setResults(two, []domain.MatchResult{scWin(1), scWin(3), scWin(0), scWin(0), scWin(0)})
			// A first score of night one gives everyone a standing; night one is then
			// corrected so that the run under test updates existing standings.
			scScoreRun(t, e.after, one.ID, false)
			m, err := e.after.SetResult(scCtx(t), one.ID, one.Matches[4].ID, scPtr(scWin(0)))
			scOK(t, err)
			one.Matches[4] = m

			faulty := newScFaultAPI(e.client)
			faulty.reasons = tt.reasons
			faulty.before = func(ctx context.Context) {
				if _, err := e.after.ScoreEvent(ctx, two.ID, false); err != nil {
					t.Errorf("scoring night two behind the scorer's back: %v", err)
				}
			}
			rep, err := e.storeOver(faulty).ScoreEvent(scCtx(t), one.ID, false)
			scOK(t, err)
			if faulty.cancelled.Load() == 0 {
				t.Errorf("no transaction was cancelled: the test did not create a conflict")
			}
			// Every prediction of night one is written once (the corrected card's version),
			// whatever conflicted on the way.
			if rep.PredictionsScored != len(oneEntries) || !rep.Complete {
				t.Errorf("run %+v, want all %d predictions written once and complete", rep, len(oneEntries))
			}
			snap := e.snapshot()
			snap.checkSums(t)
			snap.checkTotals(t, scExpect(scScoredEvent{one, oneEntries}, scScoredEvent{two, twoEntries}))
			snap.checkScored(t, scScoredEvent{one, oneEntries})
			snap.checkScored(t, scScoredEvent{two, twoEntries})
		})
	}
}

// TestScoreEventCardChangedWhileScoring corrects a result while a re-score of a SCORED
// event is between its read and its writes: the run wrote scores for a card that is no
// longer current, so it must say CONFLICT (run it again), and the next run must converge
// to the current card.
func TestScoreEventCardChangedWhileScoring(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-corrected-twice", scCard())
	entries := scGenEntries(30, scTeamCounts(ev), 9)
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())
	scScoreRun(t, e.after, ev.ID, false)

	m, err := e.after.SetResult(scCtx(t), ev.ID, ev.Matches[0].ID, scPtr(scWin(1)))
	scOK(t, err)
	ev.Matches[0] = m
	faulty := newScFaultAPI(e.client)
	faulty.before = func(ctx context.Context) {
		m, err := e.after.SetResult(ctx, ev.ID, ev.Matches[4].ID, scPtr(scDraw))
		if err != nil {
			t.Errorf("second correction: %v", err)
		}
		ev.Matches[4] = m
	}
	_, err = e.storeOver(faulty).ScoreEvent(scCtx(t), ev.ID, false)
	if domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("run over a card corrected meanwhile: %v, want CONFLICT", err)
	}
	e.snapshot().checkSums(t)
	scScoreRun(t, e.after, ev.ID, false)
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(scScoredEvent{ev, entries}))
	snap.checkScored(t, scScoredEvent{ev, entries})
}

// scDupQueryAPI returns one prediction twice in the first Query page that has predictions,
// as a paginated read on AWS can when a concurrent run moves a score key past its cursor.
type scDupQueryAPI struct {
	ddb.API
	once sync.Once
}

func (d *scDupQueryAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := d.API.Query(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	for _, item := range out.Items {
		if table.ItemType(item) == table.TypePrediction {
			d.once.Do(func() { out.Items = append(out.Items, item) })
			break
		}
	}
	return out, nil
}

func TestScoreEventReadsAPredictionTwice(t *testing.T) {
	t.Parallel()
	e := newScEnv(t)
	ev := e.createEvent("2025-04-19-read-twice", scCard())
	entries := scGenEntries(10, scTeamCounts(ev), 10)
	e.writeEntries(ev, entries)
	ev = e.setResults(ev, scResults())

	rep, err := e.storeOver(&scDupQueryAPI{API: e.client}).ScoreEvent(scCtx(t), ev.ID, false)
	scOK(t, err)
	if rep.PredictionsScored != len(entries) {
		t.Errorf("scored %d, want %d", rep.PredictionsScored, len(entries))
	}
	snap := e.snapshot()
	snap.checkSums(t)
	snap.checkTotals(t, scExpect(scScoredEvent{ev, entries}))
}

// nonNil is s, or an empty slice for nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
