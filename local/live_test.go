package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/pickem/api/config"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/push/pushtest"
	"github.com/pickem/api/realtime"
)

// TestLiveMessagesReachAWatcher: through the real local server, a watcher subscribed with
// the printed API key to the channel event(id) names (liveChannel) receives the message of
// each admin mutation that publishes — the lock (STATE) and a result (RESULT, the
// version after it) — within 2 s of the mutation's answer; each message passes the
// message schema.
func TestLiveMessagesReachAWatcher(t *testing.T) {
	s := startLocal(t, t.TempDir(), shared(t))
	defer s.stop(t)
	start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	var created struct {
		CreateEvent struct {
			ID          string
			LiveChannel string
			LiveVersion int
			Matches     []struct{ ID string }
		}
	}
	gql(t, s.base, s.adminTok, `mutation($in: EventInput!) { createEvent(input: $in) { id liveChannel liveVersion matches { id } } }`,
		map[string]any{"in": map[string]any{"name": "Live Watch", "startsAt": start.Format(time.RFC3339), "matches": []any{
			map[string]any{"name": "Main Event", "points": 10, "teams": []any{map[string]any{"members": []string{"Red"}}, map[string]any{"members": []string{"Blue"}}}},
		}}}, &created)
	ev := created.CreateEvent
	want, err := domain.LiveChannel(config.DefaultLiveNamespace, ev.ID)
	if err != nil || ev.LiveChannel != want || ev.LiveVersion != 0 {
		t.Fatalf("created event's liveChannel %q, liveVersion %d; want %q, 0", ev.LiveChannel, ev.LiveVersion, want)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	header := "header-" + base64.RawURLEncoding.EncodeToString([]byte(s.realtimeAuth))
	ws, _, err := websocket.Dial(ctx, s.realtimeURL, &websocket.DialOptions{Subprotocols: []string{realtime.Subprotocol, header}})
	if err != nil {
		t.Fatalf("dial %s: %v", s.realtimeURL, err)
	}
	defer ws.CloseNow()
	send := func(v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	type frame struct {
		Type, ID, Event string
	}
	read := func(within time.Duration) frame {
		t.Helper()
		rctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		for {
			_, b, err := ws.Read(rctx)
			if err != nil {
				t.Fatalf("no message within %s: %v", within, err)
			}
			var f frame
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("frame %s: %v", b, err)
			}
			if f.Type != "ka" {
				return f
			}
		}
	}
	send(map[string]string{"type": "connection_init"})
	if f := read(5 * time.Second); f.Type != "connection_ack" {
		t.Fatalf("after connection_init: %+v", f)
	}
	send(map[string]any{"type": "subscribe", "id": "watch", "channel": ev.LiveChannel, "authorization": json.RawMessage(s.realtimeAuth)})
	if f := read(5 * time.Second); f.Type != "subscribe_success" || f.ID != "watch" {
		t.Fatalf("after subscribe: %+v", f)
	}

	for _, step := range []struct {
		name, query string
		vars        map[string]any
		kind        string
		version     int
	}{
		{"Lock", `mutation($id: ID!) { updateEvent(id: $id, input: {state: BROADCAST}) { id } }`, map[string]any{"id": ev.ID}, "STATE", 1},
		{"SetResult", `mutation($e: ID!, $m: ID!) { setResult(eventId: $e, matchId: $m, result: {outcome: WIN, winner: 1}) { id } }`,
			map[string]any{"e": ev.ID, "m": ev.Matches[0].ID}, "RESULT", 2},
	} {
		gql(t, s.base, s.adminTok, step.query, step.vars, nil)
		answered := time.Now()
		f := read(2 * time.Second)
		delay := time.Since(answered) // a message that arrived before the answer is read at once
		if f.Type != "data" || f.ID != "watch" {
			t.Fatalf("%s: frame %+v, want the subscription's data", step.name, f)
		}
		if err := pushtest.ValidateMessage(f.Event); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var m struct {
			EventID string
			Kind    string
			Version int
			State   string
		}
		if err := json.Unmarshal([]byte(f.Event), &m); err != nil || m.EventID != ev.ID || m.Kind != step.kind || m.Version != step.version || m.State != "BROADCAST" {
			t.Fatalf("%s: message %s, want %s version %d of %s", step.name, f.Event, step.kind, step.version, ev.ID)
		}
		t.Logf("%s: %s after %s", step.name, f.Event, delay)
	}
	var read2 struct{ Event struct{ LiveVersion int } }
	gql(t, s.base, "", `query($id: ID!) { event(id: $id) { liveVersion } }`, map[string]any{"id": ev.ID}, &read2)
	if read2.Event.LiveVersion != 2 {
		t.Fatalf("event(id).liveVersion %d, want 2", read2.Event.LiveVersion)
	}
}
