package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/domain"
)

// Who the screens are sent as: a signed-in player looking at their card, another
// player's profile, the league.
const (
	viewer  = 3 // p00003 has a prediction in every event that has predictions
	profile = 7 // p00007's profile is the one shown
)

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

// path digs into a GraphQL data object.
func path(data json.RawMessage, keys ...string) (any, error) {
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
	v, err := path(data, keys...)
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
	v, err := path(data, keys...)
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
		v, err := path(data, keys...)
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
		return fmt.Errorf("profile shows %d ranks, want %d (one per rank table)", n, want)
	}
	return nil
}

// pickCounted checks the pick counts on an event answer's card: null on every match unless
// counted; when counted, on every match, at most predictions in all (each prediction picks
// a match at most once) and at least predictions over the card (each has a pick).
func pickCounted(data json.RawMessage, predictions int, counted bool) error {
	v, err := path(data, "event", "matches")
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

// probes returns screens 1–6 for the loaded league.
func (e *env) probes(ctx context.Context, l *league) ([]probe, error) {
	var ps []probe
	viewerToken := e.playerToken(viewer)
	fixed := func(body []byte, token string) func(int) ([]byte, string) {
		return func(int) ([]byte, string) { return body, token }
	}

	events := len(l.events)
	ps = append(ps, probe{
		screen: 1, name: "Event list", size: "20 newest",
		request: fixed(request(frontend.EventList, map[string]any{"first": 20}), viewerToken),
		check:   func(d json.RawMessage) error { return count(d, min(20, events), "events", "edges") },
		floor: func(ctx context.Context, _ int) (int, error) {
			return e.floorEvents(ctx, 20)
		},
		floorRows: min(21, events),
	})

	for _, size := range l.sizes {
		ev := l.event(roleUpcoming, size)
		ps = append(ps, probe{
			screen: 2, name: "Event card + my picks", size: fmt.Sprintf("%d predictions", size), predictions: size,
			request: fixed(request(frontend.EventCard, map[string]any{"id": ev.id}), viewerToken),
			check: func(d json.RawMessage) error {
				return all(count(d, len(ev.matches), "event", "matches"), count(d, len(ev.matches), "prediction", "picks"),
					equal(d, "UPCOMING", "event", "state"), pickCounted(d, size, false))
			},
			floor: func(ctx context.Context, _ int) (int, error) {
				return e.floorCard(ctx, ev.id, playerID(viewer))
			},
			floorRows: 2 + len(ev.matches),
		})
	}

	for _, size := range l.sizes {
		ev := l.event(roleScored, size)
		const first = 50
		ps = append(ps, probe{
			screen: 3, name: "Scored event + top 50", size: fmt.Sprintf("%d predictions", size), predictions: size,
			request: fixed(request(frontend.ScoredEvent, map[string]any{"id": ev.id, "first": first}), viewerToken),
			check: func(d json.RawMessage) error {
				return all(count(d, len(ev.matches), "event", "matches"), count(d, min(first, size), "event", "leaderboard", "edges"),
					equal(d, "SCORED", "event", "state"), pickCounted(d, size, true))
			},
			floor: func(ctx context.Context, _ int) (int, error) {
				return e.floorScored(ctx, ev.id, first)
			},
			floorRows: 1 + len(ev.matches) + shardRows(shardSizes(size), first),
		})
	}

	for _, first := range []int{50, 100} {
		ps = append(ps, probe{
			screen: 4, name: "Standings", size: fmt.Sprintf("%d rows of %d", first, l.players),
			request: fixed(request(frontend.Standings, map[string]any{"season": l.season, "first": first}), viewerToken),
			check:   func(d json.RawMessage) error { return count(d, min(first, l.players), "standings", "edges") },
			floor: func(ctx context.Context, _ int) (int, error) {
				return e.floorStandings(ctx, l.season, first)
			},
			floorRows: shardRows(shardSizes(l.players), first),
		})
	}

	scored, items, pending := 0, 2, 0 // the user item and one standing
	for _, ev := range l.events {
		if ev.size > profile {
			items++
			switch {
			case ev.past():
				scored++
			case !domain.LockedByDate(ev.id, e.now):
				pending++ // its row is read: are its picks visible yet?
			}
		}
	}
	// The rank tables the profile's page can show: those scoring has written (none for a
	// list not scored since rank tables exist). Every one found gives one rank, on the
	// season's standing or on the one prediction of the event. The viewer is another player:
	// the rows of events not yet locked by their date are read too (floorProfile).
	_, tables, err := e.floorProfile(ctx, playerID(profile), 20)
	if err != nil {
		return nil, fmt.Errorf("screen 5: %w", err)
	}
	ps = append(ps, probe{
		screen: 5, name: "Player profile", size: fmt.Sprintf("%d scored of %d predictions", min(scored, 20), items-2),
		request: fixed(request(frontend.Profile, map[string]any{"id": playerID(profile)}), viewerToken),
		check: func(d json.RawMessage) error {
			return all(count(d, min(scored, 20), "user", "predictions", "edges"), count(d, 1, "user", "standings"),
				ranked(d, tables))
		},
		floor: func(ctx context.Context, _ int) (int, error) {
			items, tables, err := e.floorProfile(ctx, playerID(profile), 20)
			return items + tables, err
		},
		floorRows: min(items, 1+seasonsPerProfile+20+1) + pending + tables,
	})

	sub := l.event(roleSubmit, 0)
	k := l.index(sub)
	// Callers alternate: even players through the stack, odd ones through the floor, each
	// a first submission until the players run out, then a replacement.
	ps = append(ps, probe{
		screen: 6, name: "submitPrediction", size: fmt.Sprintf("%d picks", len(sub.matches)),
		request: func(i int) ([]byte, string) {
			p := (2 * i) % l.players
			picks := make([]frontend.Pick, len(sub.matches))
			for j, m := range sub.matches {
				picks[j] = frontend.Pick{MatchID: m.ID, Team: pick(p, j, sub.cardIndex(k), len(m.Teams))}
			}
			return request(frontend.SubmitPrediction, map[string]any{"eventId": sub.id, "picks": picks}), e.playerToken(p)
		},
		check: func(d json.RawMessage) error { return count(d, len(sub.matches), "submitPrediction", "picks") },
		floor: func(ctx context.Context, i int) (int, error) {
			return e.floorSubmit(ctx, l, sub, k, (2*i+1)%l.players)
		},
		floorRows: 2 + len(sub.matches),
	})
	return ps, nil
}

// index is the position of ev in the league (its card number).
func (l *league) index(ev *leagueEvent) int {
	for k, e := range l.events {
		if e == ev {
			return k
		}
	}
	return -1
}
