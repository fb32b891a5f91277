package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/pickem/api/config"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/realtime"
)

// TestRealtimeIsOutsideTheRequestDeadline: the API's requests get the request deadline;
// the real-time endpoint's do not, so a socket lives as long as its watcher keeps it.
func TestRealtimeIsOutsideTheRequestDeadline(t *testing.T) {
	var apiDeadline, liveDeadline bool
	h := routes(
		withDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, apiDeadline = r.Context().Deadline()
		}), writeTimeout-deadlineMargin),
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, liveDeadline = r.Context().Deadline()
		}),
	)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/graphql", nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, realtime.Path, nil))
	if !apiDeadline || liveDeadline {
		t.Fatalf("deadline on /graphql %v, on %s %v; want true, false", apiDeadline, realtime.Path, liveDeadline)
	}
}

// TestRunServesRealtime: `make run`'s banner prints the real-time URL and the API key kept
// in the state directory; a watcher connects with them, subscribes with the key and with
// the printed player token, and is closed with 1001 when the server stops.
func TestRunServesRealtime(t *testing.T) {
	dir := t.TempDir()
	s := startLocal(t, dir, shared(t))
	host := strings.TrimPrefix(s.base, "http://")
	if want := "ws://" + host + realtime.Path; s.realtimeURL != want {
		t.Fatalf("banner's realtime URL %q, want %q", s.realtimeURL, want)
	}
	key, err := localdata.ReadKey(dir, realtimeKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"host": %q, "x-api-key": %q}`, host, key); s.realtimeAuth != want {
		t.Fatalf("banner's realtime authorization %q, want %q", s.realtimeAuth, want)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	header := "header-" + base64.RawURLEncoding.EncodeToString([]byte(s.realtimeAuth))
	ws, _, err := websocket.Dial(ctx, s.realtimeURL, &websocket.DialOptions{Subprotocols: []string{realtime.Subprotocol, header}})
	if err != nil {
		t.Fatalf("dial %s: %v", s.realtimeURL, err)
	}
	defer ws.CloseNow()
	if ws.Subprotocol() != realtime.Subprotocol {
		t.Fatalf("subprotocol %q, want %q", ws.Subprotocol(), realtime.Subprotocol)
	}
	exchange := func(send, want string) {
		t.Helper()
		if err := ws.Write(ctx, websocket.MessageText, []byte(send)); err != nil {
			t.Fatal(err)
		}
		_, got, err := ws.Read(ctx)
		if err != nil || string(got) != want {
			t.Fatalf("answer to %s: %s, %v; want %s", send, got, err, want)
		}
	}
	exchange(`{"type":"connection_init"}`, `{"type":"connection_ack","connectionTimeoutMs":300000}`)

	channel, err := domain.LiveChannel(config.DefaultLiveNamespace, "2026-03-01-demo-show")
	if err != nil {
		t.Fatal(err)
	}
	subscribe := func(id string, authorization any) string {
		b, _ := json.Marshal(map[string]any{"type": "subscribe", "id": id, "channel": channel, "authorization": authorization})
		return string(b)
	}
	exchange(subscribe("key", json.RawMessage(s.realtimeAuth)), `{"type":"subscribe_success","id":"key"}`)
	exchange(subscribe("token", map[string]string{"host": host, "Authorization": s.playerTok}), `{"type":"subscribe_success","id":"token"}`)

	// The watcher reads, as a browser does, so it answers the close handshake.
	ended := make(chan error, 1)
	go func() {
		_, _, err := ws.Read(ctx)
		ended <- err
	}()
	s.stop(t)
	err = <-ended
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway {
		t.Fatalf("after the server stopped the socket ended with %v, want status 1001", err)
	}

	// A restart on the same -data prints the same key.
	again := startLocal(t, dir, shared(t))
	defer again.stop(t)
	var printed struct {
		Key string `json:"x-api-key"`
	}
	if err := json.Unmarshal([]byte(again.realtimeAuth), &printed); err != nil || printed.Key != key {
		t.Fatalf("after a restart the banner prints %q (%v), want the key %q", again.realtimeAuth, err, key)
	}
}
