package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"

	"github.com/pickem/api/realtime"
)

// subscribers are WebSocket clients of the local server's real-time endpoint, each
// connected, acknowledged and subscribed to one channel as a watcher's raw WebSocket code
// does (docs/api.md, "Subscribing on the local server"), recording when each message
// arrives.
type subscribers struct {
	conns   []*websocket.Conn
	wg      sync.WaitGroup // one per reader
	rec     *receipts
	closing atomic.Bool // set by close: the readers' errors are the close's
}

// receipts is when each subscriber received each version's message.
type receipts struct {
	mu     sync.Mutex
	at     map[int][]time.Time // by version
	event  map[int]string      // the first copy of each version's message
	errs   []error
	change chan struct{} // signalled (without blocking) after every receipt
}

func newReceipts() *receipts {
	return &receipts{at: map[int][]time.Time{}, event: map[int]string{}, change: make(chan struct{}, 1)}
}

func (r *receipts) add(version int, at time.Time, event string) {
	r.mu.Lock()
	r.at[version] = append(r.at[version], at)
	if _, ok := r.event[version]; !ok {
		r.event[version] = event
	}
	r.mu.Unlock()
	r.signal()
}

func (r *receipts) fail(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	r.signal()
}

func (r *receipts) signal() {
	select {
	case r.change <- struct{}{}:
	default:
	}
}

// wait returns version's receipt times and message once n subscribers have it; it fails
// when a subscriber failed or within passes first.
func (r *receipts) wait(ctx context.Context, version, n int, within time.Duration) ([]time.Time, string, error) {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, event, errs := r.at[version], r.event[version], r.errs
		r.mu.Unlock()
		switch {
		case len(errs) > 0:
			return nil, "", fmt.Errorf("%d subscribers failed, the first: %w", len(errs), errs[0])
		case len(got) >= n:
			return got, event, nil
		}
		select {
		case <-r.change:
		case <-deadline.C:
			return nil, "", fmt.Errorf("version %d reached %d of %d subscribers within %s", version, len(got), n, within)
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

// frame is what the server sends: a type, a subscription id, the event of a data message.
type frame struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Event string `json:"event"`
}

// subscribe opens n sockets to url (the local server's real-time endpoint), each
// authorized with auth (the server's printed API key object) in its header- subprotocol
// and its subscribe, and subscribed to channel; at most 32 open at once. Every data
// message is recorded in rec with the time its read returned.
func subscribe(ctx context.Context, url string, auth json.RawMessage, channel string, n int, rec *receipts) (*subscribers, error) {
	s := &subscribers{conns: make([]*websocket.Conn, n), rec: rec}
	header := "header-" + base64.RawURLEncoding.EncodeToString(auth)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := range n {
		g.Go(func() error {
			ws, err := openSubscription(gctx, url, header, auth, channel)
			if err != nil {
				return fmt.Errorf("subscriber %d: %w", i, err)
			}
			s.conns[i] = ws
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		s.close()
		return nil, err
	}
	for _, ws := range s.conns {
		s.wg.Add(1)
		go s.read(ws)
	}
	return s, nil
}

// openSubscription dials, sends connection_init, waits for connection_ack, subscribes and
// waits for subscribe_success.
func openSubscription(ctx context.Context, url, header string, auth json.RawMessage, channel string) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{realtime.Subprotocol, header}})
	if err != nil {
		return nil, err
	}
	step := func(send any, want string) error {
		b, err := json.Marshal(send)
		if err != nil {
			return err
		}
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			return err
		}
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return fmt.Errorf("waiting for %s: %w", want, err)
			}
			var f frame
			if err := json.Unmarshal(b, &f); err != nil {
				return fmt.Errorf("waiting for %s: %s: %w", want, b, err)
			}
			switch f.Type {
			case want:
				return nil
			case "ka":
			default:
				return fmt.Errorf("waiting for %s: got %s", want, b)
			}
		}
	}
	err = step(map[string]string{"type": "connection_init"}, "connection_ack")
	if err == nil {
		err = step(map[string]any{"type": "subscribe", "id": "watch", "channel": channel, "authorization": auth}, "subscribe_success")
	}
	if err != nil {
		_ = ws.CloseNow()
		return nil, err
	}
	return ws, nil
}

// read records every data message of ws until the socket closes.
func (s *subscribers) read(ws *websocket.Conn) {
	defer s.wg.Done()
	for {
		_, b, err := ws.Read(context.Background())
		at := time.Now()
		if err != nil {
			if !s.closing.Load() {
				s.rec.fail(fmt.Errorf("read: %w", err))
			}
			return
		}
		var f frame
		if err := json.Unmarshal(b, &f); err != nil {
			s.rec.fail(fmt.Errorf("frame %.200s: %w", b, err))
			return
		}
		switch f.Type {
		case "ka":
		case "data":
			var m struct {
				Version int `json:"version"`
			}
			if err := json.Unmarshal([]byte(f.Event), &m); err != nil || m.Version < 1 {
				s.rec.fail(fmt.Errorf("data message without a version: %.200s", b))
				return
			}
			s.rec.add(m.Version, at, f.Event)
		default:
			s.rec.fail(fmt.Errorf("unexpected frame %.200s", b))
			return
		}
	}
}

// close closes every socket with the close handshake and waits for the readers.
func (s *subscribers) close() {
	s.closing.Store(true)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for _, ws := range s.conns {
		if ws == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_ = ws.Close(websocket.StatusNormalClosure, "")
		}()
	}
	wg.Wait()
	s.wg.Wait()
}
