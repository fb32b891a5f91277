// Package realtime serves AppSync Events' real-time WebSocket protocol in process, so that a
// frontend's live code runs against the local server as it runs against AWS. A watcher opens
// GET /event/realtime with the subprotocols aws-appsync-event-ws and
// header-<base64url of its JSON authorization>, sends connection_init, subscribes to
// channels of one namespace (a trailing /* subscribes to every channel below a path) and
// receives, as data messages, the events the server publishes with Hub.Publish. Nothing a
// watcher sends publishes or changes anything: its publish is answered publish_error.
//
// The protocol is AWS's ("Understanding the Event API WebSocket protocol", AppSync Events
// Developer Guide); the message shapes are those AWS's clients (Amplify's events client,
// the AppSync Events Swift client) read. Errors carry AppSync's shape
// {"errors": [{"errorType", "message"}]}; clients act on a message's type, not on these
// errorType strings.
package realtime

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
)

// Path is where the local server serves the protocol, as AppSync serves it on its
// real-time domain.
const Path = "/event/realtime"

// Subprotocol is the WebSocket subprotocol of AppSync Events; the server selects it.
const Subprotocol = "aws-appsync-event-ws"

// headerPrefix starts the subprotocol that carries the connection's authorization: the
// base64url encoding (padding optional) of a JSON object of headers.
const headerPrefix = "header-"

// MaxSubscriptions is the most subscriptions one socket holds, AppSync's default quota.
const MaxSubscriptions = 200

// Config configures a Hub. Zero durations and lengths take the defaults.
type Config struct {
	// Namespace is the channel namespace: the first segment of every channel. Required.
	Namespace string
	// APIKey is the key a watcher may send as x-api-key. Empty: no key is accepted.
	APIKey string
	// Verifier checks the user-pool tokens a watcher may send as Authorization (raw, as
	// AppSync takes them, or after "Bearer "). Nil: no token is accepted.
	Verifier auth.Verifier
	// KeepAlive is the interval of the ka messages once a socket is acknowledged
	// (default 60 s, AppSync's).
	KeepAlive time.Duration
	// ConnectionTimeout is sent as connection_ack's connectionTimeoutMs: how long a
	// client waits for a ka before giving the socket up (default 5 minutes, AppSync's).
	// It must exceed KeepAlive.
	ConnectionTimeout time.Duration
	// InitTimeout closes a socket that sends no connection_init within it (default 5 s).
	InitTimeout time.Duration
	// QueueLen bounds the messages waiting to be written to one socket (default 256). A
	// socket whose queue is full does not read fast enough: it is dropped, and a publish
	// never waits for it.
	QueueLen int
	// WriteTimeout bounds the write of one message (default 10 s); a socket that takes
	// longer is dropped.
	WriteTimeout time.Duration
	// Logger receives the sockets' openings, closings and drops; nil discards them.
	Logger *slog.Logger
}

// Hub fans the events published to a channel out to the sockets subscribed to it, and is
// the http.Handler of Path. Its methods are safe for concurrent use.
type Hub struct {
	cfg Config
	log *slog.Logger
	ack []byte // the connection_ack message

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup // one per socket being served
}

// New returns a Hub serving cfg.Namespace. It fails if the namespace is not a channel
// segment or the durations contradict each other.
func New(cfg Config) (*Hub, error) {
	if cfg.Namespace == "" || strings.Contains(cfg.Namespace, "/") || !domain.ValidChannel(cfg.Namespace) {
		return nil, fmt.Errorf("realtime: namespace %q is not a channel segment", cfg.Namespace)
	}
	cfg.KeepAlive = orDefault(cfg.KeepAlive, 60*time.Second)
	cfg.ConnectionTimeout = orDefault(cfg.ConnectionTimeout, 5*time.Minute)
	cfg.InitTimeout = orDefault(cfg.InitTimeout, 5*time.Second)
	cfg.WriteTimeout = orDefault(cfg.WriteTimeout, 10*time.Second)
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = 256
	}
	if cfg.KeepAlive < 0 || cfg.InitTimeout < 0 || cfg.WriteTimeout < 0 || cfg.ConnectionTimeout <= cfg.KeepAlive {
		return nil, fmt.Errorf("realtime: keep-alive %s must be positive and shorter than the connection timeout %s", cfg.KeepAlive, cfg.ConnectionTimeout)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ack, err := json.Marshal(message{Type: "connection_ack", ConnectionTimeoutMs: cfg.ConnectionTimeout.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return &Hub{cfg: cfg, log: log, ack: ack, conns: map[*conn]struct{}{}}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Publish sends event to every subscription whose channel matches channel (exactly, or
// below the path of a /* subscription), as one data message each; the Hub is the local
// server's push.Publisher. It never waits for a socket: one whose queue is full is dropped.
// It fails, reaching no one, if channel is not a channel of the hub's namespace or event is
// not JSON, as AppSync refuses them.
func (h *Hub) Publish(ctx context.Context, channel, event string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("realtime: publish to %q: %w", channel, err)
	}
	ch := strings.TrimPrefix(channel, "/")
	if !domain.ValidChannel(channel) || namespaceOf(ch) != h.cfg.Namespace {
		return fmt.Errorf("realtime: publish to %q: not a channel of namespace %q", channel, h.cfg.Namespace)
	}
	if !json.Valid([]byte(event)) {
		return fmt.Errorf("realtime: publish to %q: the event is not a JSON document", channel)
	}
	quoted, err := json.Marshal(event) // data carries the event as a string
	if err != nil {
		return fmt.Errorf("realtime: publish to %q: %w", channel, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		for id, sub := range c.subs {
			if sub.matches(ch) {
				c.send(dataMessage(id, quoted), false)
			}
		}
	}
	return nil
}

// dataMessage is {"type":"data","id":<id>,"event":<quoted>}, quoted being the event as a
// JSON string.
func dataMessage(id string, quoted []byte) []byte {
	idJSON, _ := json.Marshal(id) // a string always marshals
	b := make([]byte, 0, len(quoted)+len(idJSON)+40)
	b = append(b, `{"type":"data","id":`...)
	b = append(b, idJSON...)
	b = append(b, `,"event":`...)
	b = append(b, quoted...)
	return append(b, '}')
}

// Shutdown closes every socket with status 1001 (going away) after the messages already
// queued for it, and refuses new sockets with 503. It returns once every socket's
// goroutines have ended; if ctx ends first, it drops the sockets still open, waits for
// them and returns ctx's error. http.Server.Shutdown does not close hijacked connections:
// call Shutdown beside it.
func (h *Hub) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	for c := range h.conns {
		c.stop(websocket.StatusGoingAway, "server shutting down")
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		h.mu.Lock()
		for c := range h.conns {
			c.abort()
		}
		h.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// ServeHTTP upgrades a GET of Path to a WebSocket and serves the protocol on it until the
// watcher or the hub closes it. A socket lives as long as the watcher keeps it: mount the
// hub outside any request deadline (http.Server's ReadTimeout and WriteTimeout do not
// apply once the connection is hijacked).
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	// Decided before the upgrade, while the request's context is the handler's to use; a
	// refused connection is told so by a connection_error answering its connection_init.
	refusal := h.connectionRefusal(r)
	// AppSync accepts any origin: the socket carries no cookie, and a watcher authorizes
	// with the key or token in its subprotocol, which another site cannot read.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}, InsecureSkipVerify: true})
	if err != nil {
		h.log.Debug("realtime: handshake refused", "remote", r.RemoteAddr, "err", err)
		return // Accept answered the request
	}
	if ws.Subprotocol() != Subprotocol && refusal == nil {
		refusal = &wireError{errBadRequest, "the WebSocket subprotocols must include " + Subprotocol}
	}
	c := newConn(h, ws, r.RemoteAddr, refusal)
	if !h.add(c) {
		_ = ws.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer h.wg.Done()
	h.log.Debug("realtime: socket opened", "remote", c.remote)
	c.serve()
	h.remove(c)
	h.log.Debug("realtime: socket closed", "remote", c.remote, "code", c.code, "reason", c.reason)
}

// add registers c, unless the hub is shutting down.
func (h *Hub) add(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	return true
}

func (h *Hub) remove(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, c)
}

// connectionRefusal checks the authorization of the header- subprotocol; nil accepts it.
func (h *Hub) connectionRefusal(r *http.Request) *wireError {
	var encoded string
	found := false
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); strings.HasPrefix(p, headerPrefix) {
				encoded, found = strings.TrimPrefix(p, headerPrefix), true
			}
		}
	}
	if !found {
		return &wireError{errUnauthorized, "no header- subprotocol: the connection needs its authorization"}
	}
	fields, err := decodeHeader(encoded)
	if err != nil {
		return &wireError{errUnauthorized, "the header- subprotocol is not the base64url encoding of a JSON object"}
	}
	return h.authorize(r.Context(), fields)
}

// authorize accepts fields (header names in lowercase) that carry a host and either the
// hub's API key as x-api-key or a valid user-pool token as authorization.
func (h *Hub) authorize(ctx context.Context, fields map[string]string) *wireError {
	key, hasKey := fields["x-api-key"]
	token := fields["authorization"]
	switch {
	case !hasKey && token == "":
		return &wireError{errUnauthorized, "the authorization has neither x-api-key nor Authorization"}
	case fields["host"] == "":
		return &wireError{errUnauthorized, "the authorization has no host"}
	case hasKey:
		if h.cfg.APIKey == "" || subtle.ConstantTimeCompare([]byte(key), []byte(h.cfg.APIKey)) != 1 {
			return &wireError{errUnauthorized, "the API key is not valid"}
		}
		return nil
	case h.cfg.Verifier == nil:
		return &wireError{errUnauthorized, "tokens are not accepted here"}
	}
	if scheme, rest, ok := strings.Cut(token, " "); ok && strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(rest)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := h.cfg.Verifier.Verify(ctx, token); err != nil {
		return &wireError{errUnauthorized, "the token is not valid"}
	}
	return nil
}

// namespaceOf returns the first segment of a channel without its leading "/".
func namespaceOf(ch string) string {
	ns, _, _ := strings.Cut(ch, "/")
	return ns
}

// subscription is what one subscribe asked for.
type subscription struct {
	channel string // an exact channel without its leading "/", or
	prefix  string // for a /* subscription, its path and a trailing "/"
}

// matches reports whether an event published to ch (a valid channel without its leading
// "/") reaches the subscription.
func (s subscription) matches(ch string) bool {
	if s.prefix != "" {
		return strings.HasPrefix(ch, s.prefix)
	}
	return ch == s.channel
}

// parseSubscription reads a subscribe's channel: a channel of namespace, with or without
// its leading "/", or such a path followed by "/*", which matches every channel with one
// or more segments below it (the * counts as a segment).
func parseSubscription(channel, namespace string) (subscription, *wireError) {
	path, wildcard := strings.CutSuffix(channel, "/*")
	valid := domain.ValidChannel(path)
	if wildcard {
		valid = valid && strings.Count(strings.TrimPrefix(path, "/"), "/")+2 <= domain.MaxChannelSegments
	}
	if !valid {
		return subscription{}, &wireError{errBadRequest, fmt.Sprintf("%q is not a channel: up to %d segments of letters, digits and dashes, optionally ending in /*", truncate(channel, 64), domain.MaxChannelSegments)}
	}
	path = strings.TrimPrefix(path, "/")
	if ns := namespaceOf(path); ns != namespace {
		return subscription{}, &wireError{errBadRequest, fmt.Sprintf("channel namespace %q does not exist: the namespace is %q", ns, namespace)}
	}
	if wildcard {
		return subscription{prefix: path + "/"}, nil
	}
	return subscription{channel: path}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
