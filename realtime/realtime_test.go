package realtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/push"
)

// The local server publishes through the hub as the Lambda function publishes to AWS.
var _ push.Publisher = (*Hub)(nil)

// No test leaves a goroutine behind: every socket's reader and writer end with it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var secret = []byte("0123456789abcdef0123456789abcdef")

const apiKey = "local-test-key"

// testConfig is a hub whose keep-alives stay out of the tests' way.
func testConfig() Config {
	return Config{
		Namespace: "pickem", APIKey: apiKey, Verifier: auth.NewHS256(secret),
		KeepAlive: time.Minute, ConnectionTimeout: 2 * time.Minute, InitTimeout: 10 * time.Second,
	}
}

// served is a hub behind an HTTP server on 127.0.0.1:0.
type served struct {
	hub  *Hub
	url  string // ws://127.0.0.1:port/event/realtime
	host string // 127.0.0.1:port, the host of the authorization
}

// serve starts hub's server with srv's settings and stops both when the test ends.
func serve(t *testing.T, cfg Config, srv *httptest.Server) served {
	t.Helper()
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	return served{hub: h, url: "ws://" + host + Path, host: host}
}

func startHub(t *testing.T, cfg Config) served {
	t.Helper()
	return serve(t, cfg, httptest.NewUnstartedServer(nil))
}

// header is the header- subprotocol carrying fields.
func header(fields map[string]string) string {
	b, _ := json.Marshal(fields)
	return headerPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func (s served) keyAuth() map[string]string {
	return map[string]string{"host": s.host, "x-api-key": apiKey}
}

func (s served) tokenAuth(t *testing.T) map[string]string {
	t.Helper()
	tok, err := auth.MintHS256(secret, auth.Identity{ID: "watcher-1", Name: "Watcher"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"host": s.host, "Authorization": tok}
}

// client is a watcher's socket.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

func dial(t *testing.T, url string, protocols ...string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: protocols})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	ws.SetReadLimit(-1)
	t.Cleanup(func() { _ = ws.CloseNow() })
	return &client{t: t, ws: ws}
}

// connect dials with the API key and has the connection acknowledged.
func (s served) connect(t *testing.T) *client {
	t.Helper()
	c := dial(t, s.url, Subprotocol, header(s.keyAuth()))
	c.send(`{"type":"connection_init"}`)
	c.expect(`{"type":"connection_ack","connectionTimeoutMs":120000}`)
	return c
}

func (c *client) send(text string) {
	c.t.Helper()
	if err := c.ws.Write(c.t.Context(), websocket.MessageText, []byte(text)); err != nil {
		c.t.Fatalf("send %s: %v", text, err)
	}
}

func (c *client) sendJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
}

func (c *client) recv() string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 5*time.Second)
	defer cancel()
	_, b, err := c.ws.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return string(b)
}

func (c *client) expect(want string) {
	c.t.Helper()
	if got := c.recv(); got != want {
		c.t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// closed reads until the socket ends, at most 10 s, and returns how many messages it read
// and how it ended (context.DeadlineExceeded: it stayed open). Safe in a goroutine.
func (c *client) closed() (messages int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.ws.Read(ctx); err != nil {
			return messages, err
		}
		messages++
	}
}

func (c *client) subscribe(id, channel string, authorization map[string]string) {
	c.t.Helper()
	c.sendJSON(map[string]any{"type": "subscribe", "id": id, "channel": channel, "authorization": authorization})
	c.expect(fmt.Sprintf(`{"type":"subscribe_success","id":%q}`, id))
}

// data is the data message of event for subscription id.
func data(id, event string) string {
	b, _ := json.Marshal(struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Event string `json:"event"`
	}{"data", id, event})
	return string(b)
}

func liveChannel(t *testing.T, eventID string) string {
	t.Helper()
	ch, err := domain.LiveChannel("pickem", eventID)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestProtocolSequence runs a watcher's whole conversation: connect with a dev token,
// connection_init, subscribe to an event's channel (with the API key) and to the namespace's
// wildcard (with the token, no leading slash), receive a publish on both, unsubscribe one,
// receive the next publish on the other only, close.
func TestProtocolSequence(t *testing.T) {
	s := startHub(t, testConfig())
	c := dial(t, s.url, Subprotocol, header(s.tokenAuth(t)))
	if got := c.ws.Subprotocol(); got != Subprotocol {
		t.Fatalf("selected subprotocol %q, want %q", got, Subprotocol)
	}
	c.send(`{"type":"connection_init"}`)
	c.expect(`{"type":"connection_ack","connectionTimeoutMs":120000}`)

	channel := liveChannel(t, "2024-03-03-aew-revolution")
	c.subscribe("event", channel, s.keyAuth())
	c.subscribe("all", "pickem/*", s.tokenAuth(t))

	first := `{"eventId":"2024-03-03-aew-revolution","kind":"result","version":3}`
	if err := s.hub.Publish(t.Context(), channel, first); err != nil {
		t.Fatal(err)
	}
	got := []string{c.recv(), c.recv()}
	want := []string{data("all", first), data("event", first)}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("data\n got %s\nwant %s", got, want)
	}

	c.send(`{"type":"unsubscribe","id":"event"}`)
	c.expect(`{"type":"unsubscribe_success","id":"event"}`)
	second := `{"eventId":"2024-03-03-aew-revolution","kind":"state","version":4}`
	if err := s.hub.Publish(t.Context(), channel, second); err != nil {
		t.Fatal(err)
	}
	c.expect(data("all", second))

	if err := c.ws.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// TestRefusals: each refusal with the exact message the socket answers, and whether the
// socket stays (checked by a subscribe that succeeds) or closes (with which status).
func TestRefusals(t *testing.T) {
	s := startHub(t, testConfig())
	keyAuth, _ := json.Marshal(s.keyAuth())
	foreign, _ := auth.MintHS256([]byte("another-secret-another-secret-00"), auth.Identity{ID: "u1"}, time.Hour)
	subscribeWith := func(authorization map[string]string) string {
		b, _ := json.Marshal(map[string]any{"type": "subscribe", "id": "s1", "channel": "/pickem/a", "authorization": authorization})
		return string(b)
	}
	subscribeTo := func(channel string) string {
		return fmt.Sprintf(`{"type":"subscribe","id":"s1","channel":%q,"authorization":%s}`, channel, keyAuth)
	}
	tests := []struct {
		name      string
		protocols []string // nil: the subprotocol and the API key
		noInit    bool     // send no connection_init before the messages
		binary    bool
		send      []string
		want      []string // the answer to each message sent
		closes    websocket.StatusCode
	}{
		{
			name: "ConnectionWithWrongKey", noInit: true,
			protocols: []string{Subprotocol, header(map[string]string{"host": s.host, "x-api-key": "wrong"})},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"the API key is not valid"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "ConnectionWithForeignToken", noInit: true,
			protocols: []string{Subprotocol, header(map[string]string{"host": s.host, "Authorization": foreign})},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"the token is not valid"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "ConnectionWithoutHost", noInit: true,
			protocols: []string{Subprotocol, header(map[string]string{"x-api-key": apiKey})},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"the authorization has no host"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "HeaderNotBase64JSON", noInit: true,
			protocols: []string{Subprotocol, headerPrefix + "bm90IGpzb24"},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"the header- subprotocol is not the base64url encoding of a JSON object"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "NoHeaderSubprotocol", noInit: true,
			protocols: []string{Subprotocol},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"UnauthorizedException","message":"no header- subprotocol: the connection needs its authorization"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "NoAppSyncSubprotocol", noInit: true,
			protocols: []string{header(s.keyAuth())},
			send:      []string{`{"type":"connection_init"}`},
			want:      []string{`{"type":"connection_error","errors":[{"errorType":"BadRequestException","message":"the WebSocket subprotocols must include aws-appsync-event-ws"}]}`},
			closes:    websocket.StatusPolicyViolation,
		},
		{
			name: "SubscribeBeforeConnectionInit", noInit: true,
			send: []string{subscribeTo("/pickem/a")},
			want: []string{`{"type":"error","id":"s1","errors":[{"errorType":"BadRequestException","message":"send connection_init first"}]}`},
		},
		{
			name: "SubscribeOutsideTheNamespace",
			send: []string{subscribeTo("/default/a")},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"channel namespace \"default\" does not exist: the namespace is \"pickem\""}]}`},
		},
		{
			name: "SubscribeToEveryNamespace",
			send: []string{subscribeTo("/*")},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"\"/*\" is not a channel: up to 5 segments of letters, digits and dashes, optionally ending in /*"}]}`},
		},
		{
			name: "SubscribeToAnInvalidSegment",
			send: []string{subscribeTo("/pickem/a_b")},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"\"/pickem/a_b\" is not a channel: up to 5 segments of letters, digits and dashes, optionally ending in /*"}]}`},
		},
		{
			name: "SubscribeWithAWildcardInside",
			send: []string{subscribeTo("/pickem/*/a")},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"\"/pickem/*/a\" is not a channel: up to 5 segments of letters, digits and dashes, optionally ending in /*"}]}`},
		},
		{
			name: "SubscribeToSixSegments",
			send: []string{subscribeTo("/pickem/a/b/c/d/*")},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"\"/pickem/a/b/c/d/*\" is not a channel: up to 5 segments of letters, digits and dashes, optionally ending in /*"}]}`},
		},
		{
			name: "SubscribeWithoutAuthorization",
			send: []string{`{"type":"subscribe","id":"s1","channel":"/pickem/a"}`},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"UnauthorizedException","message":"the authorization has neither x-api-key nor Authorization"}]}`},
		},
		{
			name: "SubscribeWithWrongKey",
			send: []string{subscribeWith(map[string]string{"host": s.host, "x-api-key": apiKey + "x"})},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"UnauthorizedException","message":"the API key is not valid"}]}`},
		},
		{
			name: "SubscribeWithForeignToken",
			send: []string{subscribeWith(map[string]string{"host": s.host, "Authorization": foreign})},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"UnauthorizedException","message":"the token is not valid"}]}`},
		},
		{
			name: "SubscribeWithoutHost",
			send: []string{subscribeWith(map[string]string{"x-api-key": apiKey})},
			want: []string{`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"UnauthorizedException","message":"the authorization has no host"}]}`},
		},
		{
			name: "SubscribeWithoutID",
			send: []string{fmt.Sprintf(`{"type":"subscribe","channel":"/pickem/a","authorization":%s}`, keyAuth)},
			want: []string{`{"type":"subscribe_error","errors":[{"errorType":"BadRequestException","message":"subscribe needs an id"}]}`},
		},
		{
			name: "SubscribeWithATakenID",
			send: []string{subscribeTo("/pickem/a"), subscribeTo("/pickem/b")},
			want: []string{
				`{"type":"subscribe_success","id":"s1"}`,
				`{"type":"subscribe_error","id":"s1","errors":[{"errorType":"BadRequestException","message":"subscription id \"s1\" is in use"}]}`,
			},
		},
		{
			name: "WatcherPublishes",
			send: []string{fmt.Sprintf(`{"type":"publish","id":"p1","channel":"/pickem/a","events":["{\"a\":1}"],"authorization":%s}`, keyAuth)},
			want: []string{`{"type":"publish_error","id":"p1","errors":[{"errorType":"UnauthorizedException","message":"watchers cannot publish: only the server publishes"}]}`},
		},
		{
			name: "MalformedJSON",
			send: []string{`{"type":"subscribe",`},
			want: []string{`{"type":"error","errors":[{"errorType":"BadRequestException","message":"the message is not a JSON object with a type"}]}`},
		},
		{
			name: "JSONWithoutType",
			send: []string{`[1,2]`, `{"id":"s1"}`},
			want: []string{
				`{"type":"error","errors":[{"errorType":"BadRequestException","message":"the message is not a JSON object with a type"}]}`,
				`{"type":"error","errors":[{"errorType":"BadRequestException","message":"the message is not a JSON object with a type"}]}`,
			},
		},
		{
			name: "UnknownType",
			send: []string{`{"type":"start","id":"g1"}`},
			want: []string{`{"type":"error","id":"g1","errors":[{"errorType":"UnsupportedOperation","message":"message type \"start\" is not supported"}]}`},
		},
		{
			name: "BinaryMessage", binary: true,
			send: []string{`{"type":"connection_init"}`},
			want: []string{`{"type":"error","errors":[{"errorType":"BadRequestException","message":"messages are JSON text, not binary"}]}`},
		},
		{
			name: "UnsubscribeUnknownID",
			send: []string{`{"type":"unsubscribe","id":"nope"}`},
			want: []string{`{"type":"unsubscribe_error","id":"nope","errors":[{"errorType":"BadRequestException","message":"no subscription has id \"nope\""}]}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			protocols := tt.protocols
			if protocols == nil {
				protocols = []string{Subprotocol, header(s.keyAuth())}
			}
			c := dial(t, s.url, protocols...)
			if !tt.noInit {
				c.send(`{"type":"connection_init"}`)
				c.expect(`{"type":"connection_ack","connectionTimeoutMs":120000}`)
			}
			for i, m := range tt.send {
				if tt.binary {
					if err := c.ws.Write(t.Context(), websocket.MessageBinary, []byte(m)); err != nil {
						t.Fatal(err)
					}
				} else {
					c.send(m)
				}
				got := c.recv()
				t.Logf("sent     %s\nanswered %s", m, got)
				if got != tt.want[i] {
					t.Fatalf("answer to %s\n got %s\nwant %s", m, got, tt.want[i])
				}
			}
			if tt.closes != 0 {
				_, err := c.closed()
				if websocket.CloseStatus(err) != tt.closes {
					t.Fatalf("socket ended with %v, want status %d", err, tt.closes)
				}
				t.Logf("then closed: %v", err)
				return
			}
			if tt.noInit {
				c.send(`{"type":"connection_init"}`)
				c.expect(`{"type":"connection_ack","connectionTimeoutMs":120000}`)
			}
			c.subscribe("stays", "/pickem/stays", s.keyAuth())
		})
	}
}

// TestSocketWithoutConnectionInitIsClosed: a socket that sends no connection_init within
// InitTimeout is closed with 1008, whatever else it sent.
func TestSocketWithoutConnectionInitIsClosed(t *testing.T) {
	cfg := testConfig()
	cfg.InitTimeout = 100 * time.Millisecond
	s := startHub(t, cfg)
	c := dial(t, s.url, Subprotocol, header(s.keyAuth()))
	c.send(`{"type":"ka"}`)
	c.expect(`{"type":"error","errors":[{"errorType":"BadRequestException","message":"send connection_init first"}]}`)
	_, err := c.closed()
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != "connection_init not received within 100ms" {
		t.Fatalf("socket ended with %v, want 1008 \"connection_init not received within 100ms\"", err)
	}
	t.Logf("closed: %v", err)
}

// TestWatcherPublishReachesNoOne: a watcher's publish is refused and delivers nothing; the
// next data its subscription gets is the server's.
func TestWatcherPublishReachesNoOne(t *testing.T) {
	s := startHub(t, testConfig())
	c := s.connect(t)
	c.subscribe("s1", "/pickem/a", s.keyAuth())
	c.sendJSON(map[string]any{"type": "publish", "id": "p1", "channel": "/pickem/a", "events": []string{`{"forged":true}`}, "authorization": s.keyAuth()})
	c.expect(`{"type":"publish_error","id":"p1","errors":[{"errorType":"UnauthorizedException","message":"watchers cannot publish: only the server publishes"}]}`)
	if err := s.hub.Publish(t.Context(), "/pickem/a", `{"server":true}`); err != nil {
		t.Fatal(err)
	}
	c.expect(data("s1", `{"server":true}`))
}

// TestWildcardMatching: an exact subscription gets its channel only; a /* subscription gets
// every channel with one or more segments below its path, in its namespace.
func TestWildcardMatching(t *testing.T) {
	tests := []struct {
		subscription, channel string
		want                  bool
	}{
		{"/pickem/a", "pickem/a", true},
		{"pickem/a", "pickem/a", true},
		{"/pickem/a", "pickem/a/b", false},
		{"/pickem/a", "pickem/ab", false},
		{"/pickem/*", "pickem/a", true},
		{"/pickem/*", "pickem/a/b/c/d", true},
		{"/pickem/*", "pickem", false},
		{"/pickem/a/*", "pickem/a/b", true},
		{"/pickem/a/*", "pickem/a/b/c", true},
		{"/pickem/a/*", "pickem/a", false},
		{"/pickem/a/*", "pickem/ab/c", false},
		{"/pickem/a/b/c/*", "pickem/a/b/c/d", true},
	}
	for _, tt := range tests {
		t.Run(tt.subscription+"→"+tt.channel, func(t *testing.T) {
			sub, e := parseSubscription(tt.subscription, "pickem")
			if e != nil {
				t.Fatalf("parseSubscription(%q): %v", tt.subscription, e)
			}
			if got := sub.matches(tt.channel); got != tt.want {
				t.Fatalf("%q matches %q = %v, want %v", tt.subscription, tt.channel, got, tt.want)
			}
		})
	}

	t.Run("OverTheSocket", func(t *testing.T) {
		s := startHub(t, testConfig())
		c := s.connect(t)
		for id, ch := range map[string]string{"exact": "/pickem/a", "namespace": "/pickem/*", "below-a": "pickem/a/*", "fence": "/pickem/fence"} {
			c.subscribe(id, ch, s.keyAuth())
		}
		// Messages of one socket keep the order of the publishes: reading up to the fence's
		// data gives every delivery of the publish before it.
		for _, tt := range []struct {
			channel string
			want    []string
		}{
			{"/pickem/a", []string{"exact", "namespace"}},
			{"/pickem/a/b", []string{"below-a", "namespace"}},
			{"/pickem/b/a", []string{"namespace"}},
		} {
			if err := s.hub.Publish(t.Context(), tt.channel, `{"to":"`+tt.channel+`"}`); err != nil {
				t.Fatal(err)
			}
			if err := s.hub.Publish(t.Context(), "/pickem/fence", `{}`); err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				var m struct{ ID, Event string }
				if err := json.Unmarshal([]byte(c.recv()), &m); err != nil {
					t.Fatal(err)
				}
				if m.ID == "fence" {
					break
				}
				if m.Event != "{}" { // the namespace's copy of a fence
					got = append(got, m.ID)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("publish to %s reached %v, want %v", tt.channel, got, tt.want)
			}
		}
	})
}

// TestPublishRefuses: a publish outside the namespace, to a wildcard or of a non-JSON event
// fails and reaches no one.
func TestPublishRefuses(t *testing.T) {
	s := startHub(t, testConfig())
	c := s.connect(t)
	c.subscribe("all", "/pickem/*", s.keyAuth())
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name, channel, event string
		ctx                  context.Context
	}{
		{"OtherNamespace", "/default/a", `{}`, t.Context()},
		{"Wildcard", "/pickem/*", `{}`, t.Context()},
		{"InvalidSegment", "/pickem/a_b", `{}`, t.Context()},
		{"NotJSON", "/pickem/a", `{"a":`, t.Context()},
		{"CancelledContext", "/pickem/a", `{}`, cancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.hub.Publish(tt.ctx, tt.channel, tt.event); err == nil {
				t.Fatalf("Publish(%q, %q) = nil, want an error", tt.channel, tt.event)
			}
		})
	}
	if err := s.hub.Publish(t.Context(), "pickem/a", `"last"`); err != nil {
		t.Fatal(err)
	}
	c.expect(data("all", `"last"`)) // the refused publishes delivered nothing before it
}

// TestKeepAliveCadence: once acknowledged, a socket gets a ka every KeepAlive, more often
// than the connectionTimeoutMs its client waits for one.
func TestKeepAliveCadence(t *testing.T) {
	cfg := testConfig()
	cfg.KeepAlive, cfg.ConnectionTimeout = 50*time.Millisecond, time.Second
	s := startHub(t, cfg)
	c := dial(t, s.url, Subprotocol, header(s.keyAuth()))
	c.send(`{"type":"connection_init"}`)
	c.expect(`{"type":"connection_ack","connectionTimeoutMs":1000}`)
	last := time.Now()
	for range 6 {
		c.expect(`{"type":"ka"}`)
		if gap := time.Since(last); gap >= cfg.ConnectionTimeout {
			t.Fatalf("ka after %s, want under the connection timeout %s", gap, cfg.ConnectionTimeout)
		}
		last = time.Now()
	}
}

func TestNewRefusesConfig(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"NoNamespace", func(c *Config) { c.Namespace = "" }},
		{"NamespaceWithSlash", func(c *Config) { c.Namespace = "a/b" }},
		{"NamespaceEndingInDash", func(c *Config) { c.Namespace = "a-" }},
		{"KeepAliveAsLongAsTheTimeout", func(c *Config) { c.KeepAlive, c.ConnectionTimeout = time.Minute, time.Minute }},
		{"KeepAliveLongerThanTheDefaultTimeout", func(c *Config) { c.KeepAlive, c.ConnectionTimeout = 10*time.Minute, 0 }},
		{"NegativeInitTimeout", func(c *Config) { c.InitTimeout = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.edit(&cfg)
			if _, err := New(cfg); err == nil {
				t.Fatal("New accepted the configuration")
			}
		})
	}
}

// TestSlowSubscriberDoesNotBlockOthers: a socket that never reads fills its queue and is
// dropped; publishes never wait for it and a reading socket gets every event.
func TestSlowSubscriberDoesNotBlockOthers(t *testing.T) {
	cfg := testConfig()
	cfg.QueueLen = 8
	s := startHub(t, cfg)
	slow, fast := s.connect(t), s.connect(t)
	slow.subscribe("slow", "/pickem/a", s.keyAuth())
	fast.subscribe("fast", "/pickem/a", s.keyAuth())

	// 200 events of 128 KiB: 25 MiB, more than the kernel buffers between the hub and a
	// socket that does not read.
	const n = 200
	payload := `"` + strings.Repeat("x", 128<<10) + `"`
	for i := range n {
		event := fmt.Sprintf(`{"i":%d,"pad":%s}`, i, payload)
		start := time.Now()
		if err := s.hub.Publish(t.Context(), "/pickem/a", event); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("publish %d took %s", i, d)
		}
		if got := fast.recv(); got != data("fast", event) {
			t.Fatalf("event %d: the reading socket got %.80s…", i, got)
		}
	}
	got, err := slow.closed()
	if got >= n || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the slow socket read %d of %d events and ended with %v; want it dropped", got, n, err)
	}
	t.Logf("slow socket: %d of %d events, then %v", got, n, err)
	fast.subscribe("still", "/pickem/b", s.keyAuth())
}

// TestShutdownClosesSockets: Shutdown closes acknowledged and pending sockets with 1001 and
// refuses new ones with 503.
func TestShutdownClosesSockets(t *testing.T) {
	s := startHub(t, testConfig())
	subscribed := s.connect(t)
	subscribed.subscribe("s1", "/pickem/a", s.keyAuth())
	pending := dial(t, s.url, Subprotocol, header(s.keyAuth()))

	// The watchers read, as browsers do, so they answer the close handshake.
	ended := map[string]chan error{}
	for name, c := range map[string]*client{"subscribed": subscribed, "pending": pending} {
		ended[name] = make(chan error, 1)
		go func() {
			_, err := c.closed()
			ended[name] <- err
		}()
	}
	if err := s.hub.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for name, end := range ended {
		err := <-end
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway || ce.Reason != "server shutting down" {
			t.Fatalf("%s socket ended with %v, want 1001 \"server shutting down\"", name, err)
		}
	}
	_, resp, err := websocket.Dial(t.Context(), s.url, &websocket.DialOptions{Subprotocols: []string{Subprotocol, header(s.keyAuth())}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("dial after Shutdown: %v, %v; want 503", resp, err)
	}
}

// TestShutdownDropsSocketsThatDoNotClose: a peer that never answers the close handshake
// does not hold Shutdown past its context.
func TestShutdownDropsSocketsThatDoNotClose(t *testing.T) {
	s := startHub(t, testConfig())
	s.connect(t) // never read again: it does not answer the close frame
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.hub.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Shutdown took %s", d)
	}
}

// TestSocketOutlivesServerTimeouts: http.Server's ReadTimeout and WriteTimeout do not cut a
// socket: keep-alives go on and a subscribe succeeds well after both.
func TestSocketOutlivesServerTimeouts(t *testing.T) {
	cfg := testConfig()
	cfg.KeepAlive, cfg.ConnectionTimeout = 20*time.Millisecond, time.Second
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = 100*time.Millisecond, 100*time.Millisecond
	s := serve(t, cfg, srv)
	c := dial(t, s.url, Subprotocol, header(s.keyAuth()))
	c.send(`{"type":"connection_init"}`)
	c.expect(`{"type":"connection_ack","connectionTimeoutMs":1000}`)
	start := time.Now()
	for time.Since(start) < 5*srv.Config.WriteTimeout {
		c.expect(`{"type":"ka"}`)
	}
	c.sendJSON(map[string]any{"type": "subscribe", "id": "late", "channel": "/pickem/a", "authorization": s.keyAuth()})
	for {
		if m := c.recv(); m != `{"type":"ka"}` {
			if m != `{"type":"subscribe_success","id":"late"}` {
				t.Fatalf("got %s, want the subscribe_success", m)
			}
			break
		}
	}
}
