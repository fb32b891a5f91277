package dynamo

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo/table"
)

// applyRanks moves one player from points from to to in the shard histogram at key, as a
// scoring transaction would.
func (f *fixture) applyRanks(key map[string]types.AttributeValue, from, to int) {
	f.t.Helper()
	expr, err := expression.NewBuilder().WithUpdate(expression.Set(expression.Name(table.AttrType), expression.Value(table.TypeRanks)).
		Add(expression.Name("rev"), expression.Value(1)).
		Add(expression.Name(table.HistogramAttr(from)), expression.Value(-1)).
		Add(expression.Name(table.HistogramAttr(to)), expression.Value(1))).Build()
	mustOK(f.t, err)
	_, err = f.db.UpdateItem(ctxT(f.t), &dynamodb.UpdateItemInput{
		TableName: aws.String(f.table), Key: key, UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	mustOK(f.t, err)
}

// TestRanks: histograms kept by transactions (moves between totals, in each player's shard),
// summed into rank tables, give every player the rank the leaderboard gives them — on their
// own prediction and on their profile — in one read, cached.
func TestRanks(t *testing.T) {
	t.Parallel()
	l := newLeague(t)
	ev := l.spring
	eid := table.EventID(ev.ID)

	// The league's scores (see newLeague) were written by ScoreEvent, which kept the
	// histograms and summarized them; then a correction moves p-low from 3 to 15 (tied
	// second) and back up to 16: the histograms follow each move.
	event := map[string]int{"p-top": 18, "p-amy": 15, "p-zed": 15, "p-low": 3}
	season := map[string]int{"p-top": 36, "p-amy": 15, "p-zed": 15, "p-low": 3}
	ctx := ctxT(t)

	rankOf := func(t *testing.T, s *Store, user string) (event, season *int) {
		t.Helper()
		p, err := s.GetPrediction(ctx, user, ev.ID, true)
		mustOK(t, err)
		u, _, err := s.GetUser(ctx, user, 20, false)
		mustOK(t, err)
		for _, st := range u.Standings {
			if st.Season == 2030 {
				season = st.Rank
			}
		}
		return p.Rank, season
	}
	check := func(t *testing.T, s *Store, want map[string][2]int) {
		t.Helper()
		for u, w := range want {
			e, se := rankOf(t, s, u)
			if e == nil || se == nil || *e != w[0] || *se != w[1] {
				t.Errorf("%s: event rank %v, season rank %v; want %d, %d", u, deref(e), deref(se), w[0], w[1])
			}
		}
	}
	t.Run("SameAsTheLeaderboard", func(t *testing.T) {
		_, lb, err := l.s.GetEventWithLeaderboard(ctx, ev.ID, 50, true)
		mustOK(t, err)
		st, err := l.s.Standings(ctx, 2030, 50, "")
		mustOK(t, err)
		want := map[string][2]int{}
		for _, p := range lb.Items {
			w := want[p.User.ID]
			w[0] = *p.Rank
			want[p.User.ID] = w
		}
		for _, s := range st.Items {
			w := want[s.User.ID]
			w[1] = *s.Rank
			want[s.User.ID] = w
		}
		if len(want) != 4 || want["p-low"] != [2]int{4, 4} || want["p-zed"] != [2]int{2, 2} {
			t.Fatalf("the league is not as expected: %v", want)
		}
		check(t, l.s, want)
	})
	t.Run("ProfileRowsAndSeasons", func(t *testing.T) {
		u, page, err := l.s.GetUser(ctx, "p-top", 20, false)
		mustOK(t, err)
		for _, p := range page.Items {
			switch {
			case p.Points != nil && (p.Rank == nil || *p.Rank != 1): // spring-clash and winter-war
				t.Errorf("%s row: rank %v, want 1", p.EventID, deref(p.Rank))
			case p.Points == nil && p.Rank != nil:
				t.Errorf("%s is not scored: rank %d", p.EventID, *p.Rank)
			}
		}
		for _, st := range u.Standings {
			if (st.Season == 2030) != (st.Rank != nil) {
				t.Errorf("season %d: rank %v", st.Season, deref(st.Rank))
			}
		}
	})
	t.Run("UnscoredHasNoRank", func(t *testing.T) {
		p, err := l.s.GetPrediction(ctx, "p-top", l.mar.ID, true)
		mustOK(t, err)
		if p.Rank != nil {
			t.Fatalf("an unscored prediction has rank %d", *p.Rank)
		}
	})
	t.Run("MovesFollowCorrections", func(t *testing.T) {
		sh := table.UserID("p-low").Shard(l.shards)
		for _, to := range []int{15, 16} {
			from := event["p-low"]
			l.applyRanks(table.EventRanksKey(eid, sh), from, to)
			sfrom, sto := season["p-low"], season["p-low"]-from+to
			l.applyRanks(table.SeasonRanksKey(2030, sh), sfrom, sto)
			event["p-low"], season["p-low"] = to, sto
		}
		// What the leaderboard will say once scoring rewrote the keys: p-top 18, p-low 16,
		// p-amy and p-zed 15.
		mustOK(t, l.s.scoring.SummarizeRanks(ctx, eid, l.shards, 2030, l.shards))
		e, se := rankOf(t, l.s, "p-amy")
		if *e != 3 || *se != 3 {
			t.Fatalf("p-amy after p-low's correction: %d, %d; want 3, 3", *e, *se)
		}
	})
	t.Run("AnOlderSummaryNeverWinsOverANewer", func(t *testing.T) {
		// A table built from more changes than the shards now hold (a run completing
		// later with more): summarizing again must not replace it.
		_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(l.table), Key: table.EventRankTableKey(string(eid)),
			UpdateExpression:          aws.String("SET rev = :r, #t = :t"),
			ExpressionAttributeNames:  map[string]string{"#t": "table"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberN{Value: "1000000"}, ":t": &types.AttributeValueMemberB{Value: table.EncodeRankTable(map[int]int{1: 9})}},
		})
		mustOK(t, err)
		mustOK(t, l.s.scoring.SummarizeRanks(ctx, eid, l.shards, 2030, l.shards))
		tables, err := l.s.rankTables(ctx, []rankRef{{event: eid}}, nil, nil)
		mustOK(t, err)
		if got := tables[rankRef{event: eid}]; got == nil || got.Rank(0) != 10 { // 9 players above 0 points
			t.Fatalf("the newer table was replaced: %+v", got)
		}
	})
	t.Run("OneReadForAProfileThenTheCache", func(t *testing.T) {
		cached := New(l.db, l.table, WithReadCache(ReadCache{}))
		// The Query and the tables (with the rows of the open events p-top predicted:
		// another viewer; are they locked yet?); then the Query and those rows alone.
		for i, want := range []int{2, 2} {
			if n := calls(t, func(ctx context.Context) {
				_, _, err := cached.GetUser(ctx, "p-top", 20, false)
				mustOK(t, err)
			}); n != want {
				t.Fatalf("profile read %d: %d calls, want %d", i+1, n, want)
			}
		}
	})
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
