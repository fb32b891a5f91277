package dynamo

import (
	"sync"
	"testing"
	"time"

	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/awsfaithful"
)

// TestFirstStandingTakesARenameThatOvertakesScoring renames a player between scoring's
// reads and the transaction that writes their first standing of the season (the
// AWS-faithful engine runs the rename as the transaction arrives, before anything of it is
// evaluated): the standing must carry the new name, not the one scoring read.
func TestFirstStandingTakesARenameThatOvertakesScoring(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := ctxT(t)
	f.clock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	ev := f.createEvent("2030-02-10-rename-show", 20, standardCard())
	f.submit("p-ren", ev, 0, 0, 0)
	f.submit("p-other", ev, 1, 1, 1)
	f.clock.Set(t0)
	f.lockAndResult(ev, 0, 0, 0)

	eng := awsfaithful.New(t, awsfaithful.Config{})
	s := New(eng.Client(t, ddb.CostOption), f.table, WithClock(f.clock.Now), WithScoreShards(testShards))
	var once sync.Once
	stop := eng.OnTransaction(awsfaithful.Touches(table.UserPK("p-ren"), table.StandingSK(2030)), func(awsfaithful.Tx) {
		once.Do(func() {
			// Another process: straight to DynamoDB Local, not through the engine.
			_, err := f.s.Register(ctx, "p-ren", "Renamed Mid-Scoring")
			if err != nil {
				t.Errorf("register: %v", err)
			}
		})
	})
	defer stop()
	for {
		r, err := s.ScoreEvent(ctx, ev.ID, false)
		mustOK(t, err)
		if r.Complete {
			break
		}
	}
	page, err := f.s.Standings(ctx, 2030, 10, "")
	mustOK(t, err)
	names := map[string]string{}
	for _, st := range page.Items {
		names[st.User.ID] = st.User.Name
	}
	if names["p-ren"] != "Renamed Mid-Scoring" || names["p-other"] != "Player p-other" {
		t.Errorf("standings' names: %v; want p-ren's new name and p-other's own", names)
	}
	u, _, err := f.s.GetUser(ctx, "p-ren", 10, true)
	mustOK(t, err)
	if len(u.Standings) != 1 || u.Standings[0].User.Name != "Renamed Mid-Scoring" {
		t.Errorf("profile standings %+v, want one with the new name", u.Standings)
	}
}
