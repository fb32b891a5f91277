package realtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Error types of the errors the hub answers, as AppSync Events names them.
const (
	errUnauthorized = "UnauthorizedException"
	errBadRequest   = "BadRequestException"
	errUnsupported  = "UnsupportedOperation"
)

// wireError is one entry of a message's errors.
type wireError struct {
	ErrorType string `json:"errorType"`
	Message   string `json:"message"`
}

// message is every message the hub writes but data, whose event is spliced in as it is.
type message struct {
	Type                string      `json:"type"`
	ID                  string      `json:"id,omitempty"`
	ConnectionTimeoutMs int64       `json:"connectionTimeoutMs,omitempty"`
	Errors              []wireError `json:"errors,omitempty"`
}

// clientMessage is what a watcher sends; fields a type does not use are ignored.
type clientMessage struct {
	Type          string         `json:"type"`
	ID            string         `json:"id"`
	Channel       string         `json:"channel"`
	Authorization map[string]any `json:"authorization"`
}

var kaMessage = []byte(`{"type":"ka"}`)

// outgoing is one message queued for a socket.
type outgoing struct {
	data []byte
	ack  bool // the connection_ack: keep-alives start once it is written
}

// conn is one watcher's socket. The handler's goroutine reads and answers; a second
// goroutine writes what is queued, the keep-alives and, at the end, the close.
type conn struct {
	hub     *Hub
	ws      *websocket.Conn
	remote  string
	refusal *wireError // answered to connection_init when the connection is refused

	ctx   context.Context // ends when the socket is dropped
	abort context.CancelFunc

	out        chan outgoing
	subs       map[string]subscription // by subscription id; guarded by hub.mu
	inited     atomic.Bool             // connection_init accepted
	stopping   chan struct{}           // closed by stop
	stopOnce   sync.Once
	code       websocket.StatusCode // the close status, set by stop
	reason     string
	writerDone chan struct{}
}

func newConn(h *Hub, ws *websocket.Conn, remote string, refusal *wireError) *conn {
	ctx, abort := context.WithCancel(context.Background())
	return &conn{
		hub: h, ws: ws, remote: remote, refusal: refusal, ctx: ctx, abort: abort,
		out: make(chan outgoing, h.cfg.QueueLen), subs: map[string]subscription{},
		stopping: make(chan struct{}), writerDone: make(chan struct{}),
	}
}

// serve runs the socket until it closes.
func (c *conn) serve() {
	defer c.abort()
	go c.writeLoop()
	initTimer := time.AfterFunc(c.hub.cfg.InitTimeout, func() {
		if !c.inited.Load() {
			c.stop(websocket.StatusPolicyViolation, fmt.Sprintf("connection_init not received within %s", c.hub.cfg.InitTimeout))
		}
	})
	defer initTimer.Stop()
	for {
		typ, b, err := c.ws.Read(c.ctx)
		if err != nil {
			break
		}
		if typ != websocket.MessageText {
			c.reply(message{Type: "error", Errors: []wireError{{errBadRequest, "messages are JSON text, not binary"}}})
			continue
		}
		c.handle(b)
	}
	c.stop(websocket.StatusNormalClosure, "")
	<-c.writerDone
}

// stop ends the socket: the writer writes what is queued, then closes with code and
// reason. The first call decides them.
func (c *conn) stop(code websocket.StatusCode, reason string) {
	c.stopOnce.Do(func() {
		c.code, c.reason = code, reason
		close(c.stopping)
	})
}

// drop ends the socket at once, without writing anything more: its peer does not read.
func (c *conn) drop(reason string) {
	c.stop(websocket.StatusTryAgainLater, reason)
	c.abort()
}

// send queues data without waiting; a socket whose queue is full is dropped. Nothing is
// queued once the socket is dropped.
func (c *conn) send(data []byte, ack bool) {
	if c.ctx.Err() != nil {
		return
	}
	select {
	case c.out <- outgoing{data: data, ack: ack}:
	default:
		c.hub.log.Warn("realtime: socket dropped: it does not read as fast as events are published", "remote", c.remote, "queue", cap(c.out))
		c.drop("too slow: messages were lost")
	}
}

func (c *conn) reply(m message) {
	b, err := json.Marshal(m)
	if err != nil { // a message of strings always marshals
		panic(err)
	}
	c.send(b, m.Type == "connection_ack")
}

// writeLoop writes the queued messages and, once the connection_ack is written, a ka
// every KeepAlive; when the socket stops it writes what is queued and closes it.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	ka := time.NewTicker(c.hub.cfg.KeepAlive)
	defer ka.Stop()
	acked := false
	for {
		select {
		case m := <-c.out:
			if !c.write(m.data) {
				return
			}
			if m.ack && !acked {
				acked = true
				ka.Reset(c.hub.cfg.KeepAlive)
			}
		case <-ka.C:
			if acked && !c.write(kaMessage) {
				return
			}
		case <-c.stopping:
			for len(c.out) > 0 && c.write((<-c.out).data) {
			}
			if c.ctx.Err() != nil {
				_ = c.ws.CloseNow()
			} else {
				_ = c.ws.Close(c.code, c.reason)
			}
			return
		}
	}
}

// write writes one message; on failure the socket is dropped.
func (c *conn) write(b []byte) bool {
	ctx, cancel := context.WithTimeout(c.ctx, c.hub.cfg.WriteTimeout)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		c.drop("write failed")
		_ = c.ws.CloseNow()
		return false
	}
	return true
}

// handle answers one message.
func (c *conn) handle(b []byte) {
	var m clientMessage
	if err := json.Unmarshal(b, &m); err != nil || m.Type == "" {
		c.reply(message{Type: "error", Errors: []wireError{{errBadRequest, "the message is not a JSON object with a type"}}})
		return
	}
	switch {
	case m.Type == "connection_init":
		c.connectionInit()
	case !c.inited.Load():
		c.reply(message{Type: "error", ID: m.ID, Errors: []wireError{{errBadRequest, "send connection_init first"}}})
	case m.Type == "subscribe":
		c.subscribe(m)
	case m.Type == "unsubscribe":
		c.unsubscribe(m.ID)
	case m.Type == "publish":
		c.reply(message{Type: "publish_error", ID: m.ID, Errors: []wireError{{errUnauthorized, "watchers cannot publish: only the server publishes"}}})
	default:
		c.reply(message{Type: "error", ID: m.ID, Errors: []wireError{{errUnsupported, fmt.Sprintf("message type %q is not supported", truncate(m.Type, 32))}}})
	}
}

// connectionInit answers connection_ack, or connection_error and closes the socket when the
// connection's authorization was refused.
func (c *conn) connectionInit() {
	if c.refusal != nil {
		c.reply(message{Type: "connection_error", Errors: []wireError{*c.refusal}})
		c.stop(websocket.StatusPolicyViolation, c.refusal.ErrorType)
		return
	}
	c.inited.Store(true)
	c.send(c.hub.ack, true) // again for a repeated connection_init; keep-alives go on
}

func (c *conn) subscribe(m clientMessage) {
	refuse := func(e wireError) {
		c.reply(message{Type: "subscribe_error", ID: m.ID, Errors: []wireError{e}})
	}
	if m.ID == "" {
		refuse(wireError{errBadRequest, "subscribe needs an id"})
		return
	}
	if e := c.hub.authorize(c.ctx, headerFields(m.Authorization)); e != nil {
		refuse(*e)
		return
	}
	sub, e := parseSubscription(m.Channel, c.hub.cfg.Namespace)
	if e != nil {
		refuse(*e)
		return
	}
	h := c.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	switch _, taken := c.subs[m.ID]; {
	case taken:
		refuse(wireError{errBadRequest, fmt.Sprintf("subscription id %q is in use", truncate(m.ID, 64))})
	case len(c.subs) >= MaxSubscriptions:
		refuse(wireError{errBadRequest, fmt.Sprintf("a connection holds at most %d subscriptions", MaxSubscriptions)})
	default:
		// Under the lock, so that no data of it is queued before its subscribe_success.
		c.subs[m.ID] = sub
		c.reply(message{Type: "subscribe_success", ID: m.ID})
	}
}

func (c *conn) unsubscribe(id string) {
	h := c.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := c.subs[id]; !ok {
		c.reply(message{Type: "unsubscribe_error", ID: id, Errors: []wireError{{errBadRequest, fmt.Sprintf("no subscription has id %q", truncate(id, 64))}}})
		return
	}
	delete(c.subs, id)
	c.reply(message{Type: "unsubscribe_success", ID: id})
}

// decodeHeader decodes the payload of the header- subprotocol.
func decodeHeader(encoded string) (map[string]string, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(encoded, "="))
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	return headerFields(raw), nil
}

// headerFields returns the string fields of an authorization object by lowercase name:
// header names are case-insensitive.
func headerFields(raw map[string]any) map[string]string {
	fields := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			fields[strings.ToLower(k)] = s
		}
	}
	return fields
}
