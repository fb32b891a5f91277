package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/table"
)

// Who the screens are sent as: a signed-in player looking at their card, another
// player's profile, the league.
const (
	viewer  = 3 // p00003 has a prediction in every event that has predictions
	profile = 7 // p00007's profile is the one shown
)

// submitter is the player of screen 6's i-th submit: never the viewer or the profile's
// player, whose screens must not change while they are measured.
func submitter(i, players int) int { return profile + 1 + i%(players-profile-1) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func request(query string, vars map[string]any) []byte {
	return mustJSON(frontend.Request{Query: query, Variables: vars})
}

// dig digs into a GraphQL data object.
func dig(data json.RawMessage, keys ...string) (any, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no %q in %v", k, v)
		}
		v = m[k]
	}
	return v, nil
}

func count(data json.RawMessage, want int, keys ...string) error {
	v, err := dig(data, keys...)
	if err != nil {
		return err
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%v is not a list: %v", keys, v)
	}
	if len(list) != want {
		return fmt.Errorf("%v has %d elements, want %d", keys, len(list), want)
	}
	return nil
}

func equal(data json.RawMessage, want any, keys ...string) error {
	v, err := dig(data, keys...)
	if err != nil {
		return err
	}
	if v != want {
		return fmt.Errorf("%v = %v, want %v", keys, v, want)
	}
	return nil
}

// ranked checks a profile answer shows want ranks: on its standings and predictions
// together, the ranks that are not null.
func ranked(data json.RawMessage, want int) error {
	n := 0
	for _, keys := range [][]string{{"user", "standings"}, {"user", "predictions", "edges"}} {
		v, err := dig(data, keys...)
		if err != nil {
			return err
		}
		list, _ := v.([]any)
		for _, x := range list {
			row, _ := x.(map[string]any)
			if node, ok := row["node"].(map[string]any); ok {
				row = node
			}
			if row["rank"] != nil {
				n++
			}
		}
	}
	if n != want {
		return fmt.Errorf("profile shows %d ranks, want %d (one per rank table read)", n, want)
	}
	return nil
}

// pickCounted checks the pick counts on an event answer's card: null on every match unless
// counted; when counted, on every match, at most predictions in all (each prediction picks
// a match at most once) and at least predictions over the card (each has a pick).
func pickCounted(data json.RawMessage, predictions int, counted bool) error {
	v, err := dig(data, "event", "matches")
	if err != nil {
		return err
	}
	matches, _ := v.([]any)
	total := 0
	for i, m := range matches {
		counts, _ := m.(map[string]any)["pickCounts"].([]any)
		if !counted {
			if counts != nil {
				return fmt.Errorf("match %d has pickCounts %v before any scoring pass", i, counts)
			}
			continue
		}
		if counts == nil {
			return fmt.Errorf("match %d has no pickCounts after a scoring pass", i)
		}
		n := 0
		for _, c := range counts {
			x, _ := c.(float64)
			n += int(x)
		}
		if n > predictions {
			return fmt.Errorf("match %d: %d picks counted of %d predictions", i, n, predictions)
		}
		total += n
	}
	if counted && total < predictions {
		return fmt.Errorf("%d picks counted over the card, fewer than its %d predictions", total, predictions)
	}
	return nil
}

func all(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shardRows is how many rows a ranked page of first reads from the shards of a list of
// n players (p00000…): first+1 at most from each shard.
func shardRows(n, shards, first int) int {
	sizes := make([]int, shards)
	for p := range n {
		sizes[table.ShardOf(playerID(p), shards)]++
	}
	rows := 0
	for _, k := range sizes {
		rows += min(k, first+1)
	}
	return rows
}

// fixed is a request that is the same at every iteration.
func fixed(body []byte, token string) func(int) ([]byte, string) {
	return func(int) ([]byte, string) { return body, token }
}

// probes returns screens 1–6 of l; leagues are every league of the table (the profile shows a
// player's seasons in all of them).
func (e *env) probes(l *league, leagues []*league) []probe {
	var ps []probe
	k := l.shards
	viewerToken := e.playerToken(viewer)
	events := 0
	for _, x := range leagues {
		events += len(x.events)
	}
	ps = append(ps, probe{
		shards: k, screen: 1, name: "Event list", size: "20 newest",
		request: fixed(request(frontend.EventList, map[string]any{"first": 20}), viewerToken),
		check:   func(d json.RawMessage) error { return count(d, min(20, events), "events", "edges") },
		floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
			return e.floorEvents(ctx, db, 20)
		},
		floorRows: min(21, events),
	})

	// Screen 2 in every state: UPCOMING at every size, BROADCAST, SCORED at every size.
	card := func(ev *leagueEvent, state domain.EventState) probe {
		return probe{
			shards: k, screen: 2, name: "Event card + my picks" + gameName(ev), size: fmt.Sprintf("%s, %d predictions", state, ev.size), predictions: ev.size,
			request: fixed(request(frontend.EventCard, map[string]any{"id": ev.id}), viewerToken),
			check: func(d json.RawMessage) error {
				v, err := dig(d, "prediction", "rank")
				if err == nil && (v != nil) != (state == domain.StateScored) {
					err = fmt.Errorf("prediction.rank = %v in state %s", v, state)
				}
				return all(err, count(d, len(ev.matches), "event", "matches"), count(d, len(ev.matches), "prediction", "picks"),
					equal(d, string(state), "event", "state"), pickCounted(d, ev.size, state == domain.StateScored))
			},
			floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
				return e.floorCard(ctx, db, ev.id, playerID(viewer))
			},
			floorRows: 2 + len(ev.matches) + map[bool]int{true: 1}[state == domain.StateScored], // + the rank table
		}
	}
	for _, size := range l.sizes {
		ps = append(ps, card(l.event(roleUpcoming, size), domain.StateUpcoming))
	}
	ps = append(ps, card(l.event(roleBroadcast, l.sizes[0]), domain.StateBroadcast))
	for _, size := range l.sizes {
		ps = append(ps, card(l.event(roleScored, size), domain.StateScored))
	}
	// The game's screens: an event using every game extra, open and scored.
	ps = append(ps, card(l.event(roleGameOpen, l.sizes[0]), domain.StateUpcoming), card(l.event(roleGameScored, l.sizes[0]), domain.StateScored))

	const top = 50
	scored := make([]*leagueEvent, 0, len(l.sizes)+1)
	for _, size := range l.sizes {
		scored = append(scored, l.event(roleScored, size))
	}
	for _, ev := range append(scored, l.event(roleGameScored, l.sizes[0])) {
		size := ev.size
		rows := 1 + len(ev.matches) + min(size, top+1)
		if k > 1 {
			rows = 1 + len(ev.matches) + shardRows(size, k, top)
		}
		ps = append(ps, probe{
			shards: k, screen: 3, name: "Scored event + top 50" + gameName(ev), size: fmt.Sprintf("%d predictions", size), predictions: size,
			request: fixed(request(frontend.ScoredEvent, map[string]any{"id": ev.id, "first": top}), viewerToken),
			check: func(d json.RawMessage) error {
				return all(count(d, len(ev.matches), "event", "matches"), count(d, min(top, size), "event", "leaderboard", "edges"),
					equal(d, "SCORED", "event", "state"), pickCounted(d, size, true))
			},
			floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
				return e.floorScored(ctx, db, ev.id, k, len(ev.matches), top)
			},
			floorRows: rows,
		})
	}

	for _, first := range []int{50, 100} {
		rows := 1 + min(l.players, first+1) // the season's item, then the page and one more
		if k > 1 {
			rows = shardRows(l.players, k, first)
		}
		ps = append(ps, probe{
			shards: k, screen: 4, name: "Standings", size: fmt.Sprintf("%d rows of %d", first, l.players),
			request: fixed(request(frontend.Standings, map[string]any{"season": l.season, "first": first}), viewerToken),
			check:   func(d json.RawMessage) error { return count(d, min(first, l.players), "standings", "edges") },
			floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
				return e.floorStandings(ctx, db, l.season, k, first)
			},
			floorRows: rows,
		})
	}

	// Screen 5: the profile shows the player's standing in every season and their 20 newest
	// predictions another player may see (those of past events), with the ranks of the rank
	// tables read: the seasons' and those of the events the store scored.
	var seasons []int
	visible, ranks := 0, len(leagues)
	for _, x := range leagues {
		seasons = append(seasons, x.season)
		for _, ev := range x.events {
			if ev.size > profile && !ev.startsAt.After(e.now) {
				visible++
			}
		}
	}
	ranks += min(visible, 20) - unranked(leagues)
	ps = append(ps, probe{
		shards: k, screen: 5, name: "Player profile", size: fmt.Sprintf("%d of %d visible predictions", min(visible, 20), visible),
		request: fixed(request(frontend.Profile, map[string]any{"id": playerID(profile)}), viewerToken),
		check: func(d json.RawMessage) error {
			return all(count(d, min(visible, 20), "user", "predictions", "edges"), count(d, len(leagues), "user", "standings"),
				ranked(d, ranks))
		},
		floor: func(ctx context.Context, db *dynamodb.Client, _ int) (int, error) {
			items, tables, err := e.floorProfile(ctx, db, playerID(profile), 20, seasons)
			return items + tables, err
		},
		floorRows: -1, // checked against the stack's capacity
	})

	sub := l.event(roleSubmit, 0)
	n := l.index(sub)
	// Even submits go through the stack, odd ones through the floor; every one is a first
	// submission of its player until the players run out, then a replacement (measure
	// numbers the iterations of its two modes apart).
	ps = append(ps, probe{
		shards: k, screen: 6, name: "submitPrediction", size: fmt.Sprintf("%d picks", len(sub.matches)),
		request: func(i int) ([]byte, string) {
			p := submitter(2*i, l.players)
			picks := make([]frontend.Pick, len(sub.matches))
			for j, pk := range sub.entry(n, p).Picks {
				picks[j] = frontend.Pick{MatchID: pk.MatchID, Team: pk.Team}
			}
			return request(frontend.SubmitPrediction, map[string]any{"eventId": sub.id, "picks": picks}), e.playerToken(p)
		},
		check: func(d json.RawMessage) error { return count(d, len(sub.matches), "submitPrediction", "picks") },
		floor: func(ctx context.Context, db *dynamodb.Client, i int) (int, error) {
			return e.floorSubmit(ctx, db, l, sub, n, submitter(2*i+1, l.players))
		},
		floorRows: 2 + len(sub.matches),
	})
	return ps
}

// gameName marks the screens of an event using every game extra.
func gameName(ev *leagueEvent) string {
	if ev.game {
		return " (game)"
	}
	return ""
}

// unranked is how many of the profile's 20 newest visible predictions have no rank: those
// of events the store has not scored (the bare floor writes no rank table).
func unranked(leagues []*league) int {
	type shown struct {
		id     string
		ranked bool
	}
	var evs []shown
	for _, l := range leagues {
		for _, ev := range l.events {
			if ev.size > profile && !ev.startsAt.After(l.now) {
				evs = append(evs, shown{ev.id, ev.ranked})
			}
		}
	}
	// Newest first, as the profile lists them (event ids start with their date).
	slices.SortFunc(evs, func(a, b shown) int { return strings.Compare(b.id, a.id) })
	n := 0
	for _, s := range evs[:min(20, len(evs))] {
		if !s.ranked {
			n++
		}
	}
	return n
}
