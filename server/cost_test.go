package server_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/pickem/api/server"
)

// costExt is extensions.dynamodb; capacity stays raw so that null and numbers differ.
type costExt struct {
	Calls              int             `json:"calls"`
	Operations         map[string]int  `json:"operations"`
	ReadCapacityUnits  json.RawMessage `json:"readCapacityUnits"`
	WriteCapacityUnits json.RawMessage `json:"writeCapacityUnits"`
}

func costOf(t *testing.T, resp gqlResponse) costExt {
	t.Helper()
	raw, ok := resp.Extensions["dynamodb"]
	if !ok {
		t.Fatalf("no extensions.dynamodb in %v", resp.Extensions)
	}
	var c costExt
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("extensions.dynamodb = %s: %v", raw, err)
	}
	return c
}

// number decodes a capacity that must be a JSON number (not null).
func number(t *testing.T, name string, raw json.RawMessage) float64 {
	t.Helper()
	var f *float64
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		t.Fatalf("%s = %s, want a number", name, raw)
	}
	return *f
}

func TestCostExtension(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newScoredFixture(t, e, "Revolution")
	open := e.createEvent(t, "Dynasty", e.clock.Now().Add(24*time.Hour), threeMatchCard()...)
	ace := f.tokens["p-ace"]
	e.submit(t, ace, open, 0, 0, 0)

	for _, c := range []struct {
		name  string
		token string
		query string
		vars  map[string]any
		calls int
		ops   map[string]int
	}{
		{"Events", "", `{ events { edges { node { id name state } } } }`, nil, 1, map[string]int{"Query": 1}},
		{"EventsWithSeason", "", `{ events(season: 2030, first: 1) { edges { node { id } } pageInfo { hasNextPage } } }`, nil, 1, map[string]int{"Query": 1}},
		// With its leaderboard, an event of one shard is one Query: the card, then the top
		// of the leaderboard (none while it has none).
		{"EventCardWithLeaderboard", "", eventOp, map[string]any{"id": open.ID}, 1, map[string]int{"Query": 1}},
		{"EventCardWithoutLeaderboard", "", `query($id: ID!) { event(id: $id) { id matches { id } } }`, map[string]any{"id": open.ID}, 1, map[string]int{"Query": 1}},
		{"EventAndPrediction", ace, `query($id: ID!) { event(id: $id) { ...E } prediction(eventId: $id) { picks { matchId team } } }` + "\n" + eventFields,
			map[string]any{"id": open.ID}, 2, map[string]int{"Query": 1, "GetItem": 1}},
		// A scored event with its leaderboard and the caller's prediction: the card and the
		// top in one Query, the prediction's GetItem; its rank, when selected, one read more.
		{"ScoredEventLeaderboardAndPrediction", ace, `query($id: ID!) { event(id: $id) { ...E leaderboard(first: 3) { edges { node { rank user { name } } } } }
  prediction(eventId: $id) { points } }` + "\n" + eventFields, map[string]any{"id": f.ev.ID}, 2,
			map[string]int{"Query": 1, "GetItem": 1}},
		{"ScoredEventLeaderboardAndPredictionRank", ace, `query($id: ID!) { event(id: $id) { ...E leaderboard(first: 3) { edges { node { rank user { name } } } } }
  prediction(eventId: $id) { points rank } }` + "\n" + eventFields, map[string]any{"id": f.ev.ID}, 2,
			map[string]int{"Query": 1, "BatchGetItem": 1}}, // the card and the top; the prediction with its rank table
		// A later leaderboard page reads the card, then the page after the cursor.
		{"LeaderboardPage2", "", eventOp, nil, 2, map[string]int{"Query": 2}}, // vars set below
		{"Standings", "", standingsOp, map[string]any{"s": 2030}, 1, map[string]int{"Query": 1}},
		// Another viewer: the partition, then the rank tables with the rows of the events
		// p-ace predicted that are dated today or later (have they locked?).
		{"UserProfile", "", userOp, map[string]any{"id": "p-ace"}, 2, map[string]int{"Query": 1, "BatchGetItem": 1}},
		{"Me", ace, meOp, nil, 2, map[string]int{"Query": 1, "BatchGetItem": 1}},
		// Neither standings nor predictions: the profile item alone.
		{"MeNameOnly", ace, `{ me { id name } }`, nil, 1, map[string]int{"GetItem": 1}},
		{"UserNameOnly", "", `{ user(id: "p-ace") { id __typename name } }`, nil, 1, map[string]int{"GetItem": 1}},
		// Standings asked for through a fragment: the partition and the ranks, as ever.
		{"MeStandingsInFragment", ace, `{ me { id ...F } } fragment F on User { standings { season rank } }`, nil, 2, map[string]int{"Query": 1, "BatchGetItem": 1}},
		{"MeStandingsInInlineFragment", ace, `{ me { id ... on User { standings { rank } } } }`, nil, 2, map[string]int{"Query": 1, "BatchGetItem": 1}},
		{"MissingEventIsOneCall", "", `{ event(id: "2030-01-01-nothing") { id } }`, nil, 1, map[string]int{"Query": 1}},
		{"MalformedIDIsNoCall", "", `{ event(id: "nothing") { id } }`, nil, 0, map[string]int{}},
		{"SignedOutPredictionIsNoCall", "", `query($id: ID!) { prediction(eventId: $id) { points } }`, map[string]any{"id": open.ID}, 0, map[string]int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := c.vars
			if c.name == "LeaderboardPage2" {
				d := mustGQL[struct{ Event tEvent }](t, e, "", eventOp, map[string]any{"id": f.ev.ID, "first": 2})
				vars = map[string]any{"id": f.ev.ID, "first": 2, "after": *d.Event.Leaderboard.PageInfo.EndCursor}
			}
			resp := e.request(t, c.token, c.query, vars)
			if c.calls > 0 {
				noErrors(t, resp.Errors)
			}
			got := costOf(t, resp)
			if got.Calls != c.calls || fmt.Sprint(got.Operations) != fmt.Sprint(c.ops) {
				t.Fatalf("calls %d %v, want %d %v", got.Calls, got.Operations, c.calls, c.ops)
			}
			if c.calls > 0 {
				// DynamoDB Local reports 0 for a Query that finds nothing.
				if rcu := number(t, "readCapacityUnits", got.ReadCapacityUnits); rcu < 0 || rcu == 0 && c.name != "MissingEventIsOneCall" {
					t.Fatalf("readCapacityUnits = %v", rcu)
				}
			} else if string(got.ReadCapacityUnits) != "null" {
				t.Fatalf("readCapacityUnits = %s without a call, want null", got.ReadCapacityUnits)
			}
		})
	}
	t.Run("MutationReportsWrites", func(t *testing.T) {
		resp := e.request(t, e.token(t, "p-zed", "Zed"), submitOp, map[string]any{"e": open.ID, "picks": picks(open, 1)})
		noErrors(t, resp.Errors)
		got := costOf(t, resp)
		if got.Operations["TransactWriteItems"] != 1 {
			t.Fatalf("operations %v", got.Operations)
		}
		if wcu := number(t, "writeCapacityUnits", got.WriteCapacityUnits); wcu <= 0 {
			t.Fatalf("writeCapacityUnits = %v", wcu)
		}
	})
	t.Run("CardAndOwnPredictionCostDoesNotGrowWithPlayers", func(t *testing.T) {
		ev := e.createEvent(t, "Grand Slam", e.clock.Now().Add(24*time.Hour), threeMatchCard()...)
		q := `query($id: ID!) { event(id: $id) { ...E } prediction(eventId: $id) { picks { matchId team } } }` + "\n" + eventFields
		measure := func() costExt {
			resp := e.request(t, ace, q, map[string]any{"id": ev.ID})
			noErrors(t, resp.Errors)
			return costOf(t, resp)
		}
		e.submit(t, ace, ev, 0, 1, 0)
		few := measure()
		for i := range 40 {
			id := fmt.Sprintf("p-crowd-%02d", i)
			e.submit(t, e.token(t, id, id), ev, i%2, (i/2)%2, 1)
		}
		many := measure()
		if few.Calls != 2 || many.Calls != 2 || string(few.ReadCapacityUnits) != string(many.ReadCapacityUnits) {
			t.Fatalf("1 player: %d calls %s RCU; 41 players: %d calls %s RCU", few.Calls, few.ReadCapacityUnits, many.Calls, many.ReadCapacityUnits)
		}
	})
}

func TestCostExtensionOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *server.Config) { c.CostExtension = false })
	resp := e.request(t, "", `{ events { edges { cursor } } }`, nil)
	noErrors(t, resp.Errors)
	if _, ok := resp.Extensions["dynamodb"]; ok {
		t.Fatalf("extensions = %v, want no dynamodb", resp.Extensions)
	}
	_, resp = e.post(t, "", map[string]any{"query": `{ event(id: "bad") { id } }`}, nil)
	if _, ok := resp.Extensions["dynamodb"]; ok {
		t.Fatalf("error response extensions = %v", resp.Extensions)
	}
}
