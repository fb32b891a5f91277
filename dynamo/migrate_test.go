package dynamo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/domain"
)

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
			items[itemString(it, attrPK)+"|"+itemString(it, attrSK)] = it
		}
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// toLegacyLayout rewrites the fixture's table into the layout written before issue 12:
// predictions indexed in their event's partition and counted on COUNT#00, standings in
// their season's, no lock copies, checkpoints, histograms or rank tables, event rows
// without rev and layout.
func (f *fixture) toLegacyLayout() {
	f.t.Helper()
	ctx := ctxT(f.t)
	counts := map[string]int{}
	for _, it := range f.scanAll() {
		key := pkKey(itemString(it, attrPK), itemString(it, attrSK))
		var update string
		values := map[string]types.AttributeValue{}
		switch itemType(it) {
		case typePrediction:
			eid := itemString(it, "eventId")
			counts[eid]++
			update, values[":pk"] = "SET GSI_PK = :pk REMOVE counted", str(eventPK(eventID(eid)))
		case typeStanding:
			update, values[":pk"] = "SET GSI_PK = :pk", str(prefixSeason+strings.TrimPrefix(itemString(it, attrSK), prefixSeason))
		case typeEvent:
			update = "REMOVE rev, layout"
		case typeLock, typeCheckpoint, typeRanks, typeRankTable:
			_, err := f.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.table), Key: key})
			mustOK(f.t, err)
			continue
		default:
			continue
		}
		in := &dynamodb.UpdateItemInput{TableName: aws.String(f.table), Key: key, UpdateExpression: aws.String(update)}
		if len(values) > 0 {
			in.ExpressionAttributeValues = values
		}
		_, err := f.db.UpdateItem(ctx, in)
		mustOK(f.t, err)
	}
	for eid, n := range counts {
		f.putRaw([]map[string]types.AttributeValue{marshal(f.t, countRow{keys: keys{PK: eventPK(eventID(eid)), SK: countSK(0)}, Type: typeCount, Predictions: n}, 0)})
	}
}

// screens reads what players see of the league: the scored event with its leaderboard,
// the season's standings, and each player's own prediction and profile (with ranks).
func (l *league) screens(t *testing.T, s *Store) string {
	t.Helper()
	ctx := ctxT(t)
	var b strings.Builder
	ev, lb, err := s.GetEventWithLeaderboard(ctx, l.spring.ID, 50, true)
	mustOK(t, err)
	fmt.Fprintf(&b, "%s %s\n", ev.ID, ev.Stored)
	for _, p := range lb.Items {
		fmt.Fprintf(&b, "  %d %s %d\n", *p.Rank, p.User.ID, *p.Points)
	}
	st, err := s.Standings(ctx, 2030, 50, "")
	mustOK(t, err)
	for _, x := range st.Items {
		fmt.Fprintf(&b, "season %d %s %d %d\n", *x.Rank, x.User.ID, x.Points, x.EventsPlayed)
	}
	for _, u := range []string{"p-top", "p-amy", "p-zed", "p-low"} {
		p, err := s.GetPrediction(ctx, u, l.spring.ID)
		mustOK(t, err)
		fmt.Fprintf(&b, "%s: points %v rank %v\n", u, deref(p.Points), deref(p.Rank))
		user, page, err := s.GetUser(ctx, u, 20, true)
		mustOK(t, err)
		for _, x := range user.Standings {
			fmt.Fprintf(&b, "  standing %d: %d rank %v\n", x.Season, x.Points, deref(x.Rank))
		}
		for _, p := range page.Items {
			fmt.Fprintf(&b, "  %s: %v rank %v\n", p.EventID, deref(p.Points), deref(p.Rank))
		}
	}
	return b.String()
}

// TestMigrate: a table written by the layout before issue 12 (the league, rewritten into
// it) is brought to the sharded layout by Migrate: players see the same screens, ranks
// included; nothing is left in the old partitions; the lock copies count every
// prediction; the scored event needs no more scoring; the open event takes submits and
// scores. Running it again changes nothing, and a run cut off after any number of
// transactions finishes on the next run.
func TestMigrate(t *testing.T) {
	t.Parallel()
	l := newLeague(t)
	want := l.screens(t, l.s)
	l.toLegacyLayout()
	legacy := l.scanAll()

	t.Run("BeforeMigrationSubmitsWait", func(t *testing.T) {
		_, err := l.s.SubmitPrediction(ctxT(t), domain.UserRef{ID: "p-new", Name: "New"}, l.mar.ID, picks(l.mar, 0, 0, 0))
		wantCode(t, err, domain.CodeUnavailable)
		_, err = l.s.ScoreEvent(ctxT(t), l.spring.ID, true)
		wantCode(t, err, domain.CodeUnavailable)
	})

	check := func(t *testing.T, f *fixture) {
		t.Helper()
		lf := &league{fixture: f, spring: l.spring, mar: l.mar}
		if got := lf.screens(t, f.s); got != want {
			t.Errorf("screens after the migration:\n%s\nwant (before the layout change):\n%s", got, want)
		}
		for _, ev := range []domain.Event{l.winter, l.spring, l.mar, l.apr} {
			if n := f.countGSI(eventPK(eventID(ev.ID)), prefixPending) + f.countGSI(eventPK(eventID(ev.ID)), prefixScore); n != 0 {
				t.Errorf("%s: %d predictions left in the old partition", ev.ID, n)
			}
		}
		if n := f.countGSI(seasonGSIPK(2030), prefixScore); n != 0 {
			t.Errorf("%d standings left in the old partition", n)
		}
		counted := 0
		for k, it := range f.scanAll() {
			switch itemType(it) {
			case typeLock:
				var row lockRow
				if err := attributevalue.UnmarshalMap(it, &row); err != nil {
					t.Fatal(err)
				}
				counted += row.Predictions
			case typeCount:
				t.Errorf("COUNT item %s left", k)
			case typeEvent:
				if r := it["layout"]; r == nil || r.(*types.AttributeValueMemberN).Value != fmt.Sprint(layoutSharded) {
					t.Errorf("event %s: layout %v", k, r)
				}
			}
		}
		if counted != 8 {
			t.Errorf("lock copies count %d predictions, want 8", counted)
		}
	}

	t.Run("CutOffThenResumed", func(t *testing.T) {
		// A twin of the legacy table, migrated by a run that dies after its k-th
		// transaction, then by a whole run.
		for _, k := range []int64{1, 4} {
			twin := newFixture(t)
			items := make([]map[string]types.AttributeValue, 0, len(legacy))
			for _, it := range legacy {
				items = append(items, it)
			}
			twin.putRaw(items)
			cut := newScFaultAPI(twin.db)
			cut.failAfter = k
			if _, err := New(cut, twin.table).Migrate(ctxT(t), nil); err == nil {
				t.Fatalf("k=%d: the cut-off run did not fail", k)
			}
			r, err := twin.s.Migrate(ctxT(t), nil)
			mustOK(t, err)
			if r.EventsMoved == 0 {
				t.Errorf("k=%d: the resumed run moved no event: %+v", k, r)
			}
			check(t, twin)
		}
	})

	t.Run("Migrates", func(t *testing.T) {
		var lines []string
		rep, err := l.s.Migrate(ctxT(t), func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) })
		mustOK(t, err)
		// 2 seasons (2029: p-top's standing; 2030: 4), 6 events, the league's 8 predictions.
		if rep.Seasons != 2 || rep.Standings != 5 || rep.Events != 6 || rep.EventsMoved != 6 || rep.Predictions != 8 || len(lines) != 8 {
			t.Errorf("report %+v, log %q", rep, lines)
		}
		check(t, l.fixture)
	})

	t.Run("AgainChangesNothing", func(t *testing.T) {
		before := l.scanAll()
		again, err := l.s.Migrate(ctxT(t), nil)
		mustOK(t, err)
		if again.EventsMoved != 0 || again.Predictions != 0 || again.Standings != 0 {
			t.Errorf("second run: %+v", again)
		}
		if !reflect.DeepEqual(before, l.scanAll()) {
			t.Error("the second run changed the table")
		}
	})

	t.Run("ScoredEventNeedsNoScoring", func(t *testing.T) {
		ctx, cost := WithCost(ctxT(t))
		r, err := l.s.ScoreEvent(ctx, l.spring.ID, false)
		mustOK(t, err)
		if !r.Complete || r.PredictionsScored != 0 || cost.Snapshot().Operations["TransactWriteItems"] != 0 {
			t.Errorf("scoring the migrated scored event: %+v, %v", r, cost.Snapshot().Operations)
		}
	})

	t.Run("OpenEventTakesSubmitsAndScores", func(t *testing.T) {
		f := l.on(t)
		f.submit("p-top", l.mar, 1, 1, 1) // replaces a migrated prediction
		f.submit("p-new", l.mar, 0, 0, 0)
		f.lockAndResult(l.mar, 0, 0, 0)
		r := f.score(l.mar)
		if !r.Complete || r.PredictionsScored != 2 {
			t.Fatalf("scoring the migrated open event: %+v", r)
		}
		_, lb, err := l.s.GetEventWithLeaderboard(ctxT(t), l.mar.ID, 10, true)
		mustOK(t, err)
		if len(lb.Items) != 2 || lb.Items[0].User.ID != "p-new" || *lb.Items[0].Points != 18 || *lb.Items[1].Points != 0 {
			t.Errorf("leaderboard %+v", lb.Items)
		}
	})
}
