package server_test

import (
	"testing"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/server"
)

// TestEventLiveFields: Event.liveChannel is the channel the store publishes the event's
// live messages on (domain.LiveChannel in the configured namespace), null when push is off;
// Event.liveVersion is the version of the last message, moved by each result and completed
// pass; both cost no DynamoDB call of their own, on event(id) and on events rows.
func TestEventLiveFields(t *testing.T) {
	t.Parallel()
	type liveEvent struct {
		LiveChannel *string
		LiveVersion int
	}
	const one = `query($id: ID!) { event(id: $id) { id liveChannel liveVersion } }`
	const list = `query { events { edges { node { id liveChannel liveVersion } } } }`
	for _, tc := range []struct {
		name, namespace string
	}{
		{"PushOn", "pickem-live"},
		{"PushOff", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *server.Config) { c.LiveNamespace = tc.namespace })
			f := newScoredFixture(t, e, "Live Fields") // three results and a pass
			vars := map[string]any{"id": f.ev.ID}
			var want *string
			if tc.namespace != "" {
				ch, err := domain.LiveChannel(tc.namespace, f.ev.ID)
				if err != nil {
					t.Fatal(err)
				}
				want = &ch
			}
			check := func(t *testing.T, got liveEvent, version int) {
				t.Helper()
				if got.LiveVersion != version || (got.LiveChannel == nil) != (want == nil) || (want != nil && *got.LiveChannel != *want) {
					t.Fatalf("liveChannel %v, liveVersion %d; want %v, %d", deref(got.LiveChannel), got.LiveVersion, deref(want), version)
				}
			}
			check(t, mustGQL[struct{ Event liveEvent }](t, e, "", one, vars).Event, 4)
			rows := mustGQL[struct {
				Events struct{ Edges []struct{ Node liveEvent } }
			}](t, e, "", list, nil).Events.Edges
			if len(rows) != 1 {
				t.Fatalf("%d events", len(rows))
			}
			check(t, rows[0].Node, 4)

			e.setWinners(t, f.ev, 1) // a correction: one more message
			check(t, mustGQL[struct{ Event liveEvent }](t, e, "", one, vars).Event, 5)

			with := e.request(t, "", one, vars)
			without := e.request(t, "", `query($id: ID!) { event(id: $id) { id } }`, vars)
			noErrors(t, with.Errors)
			if a, b := costOf(t, with).Calls, costOf(t, without).Calls; a != b {
				t.Fatalf("event(id) with the live fields made %d DynamoDB calls, without %d", a, b)
			}
		})
	}
}
