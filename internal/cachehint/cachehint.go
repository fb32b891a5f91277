// Package cachehint lets the resolvers of one request shorten how long a shared cache may
// keep its answer: the server puts a Hint in the request's context (New) and, when the
// answer is public, gives it max-age min(its default, every Cap made while resolving).
package cachehint

import (
	"context"
	"sync"
	"time"
)

// Live is the max-age of an answer showing an event that is live — BROADCAST: locked,
// results coming in, live scoring passes moving points and ranks. Screens poll such an
// event (its card, leaderboard and pick counts); 5 s keeps what they show at most that much
// (plus the server's read cache) behind a completed pass, while a CDN still answers every
// poller of a URL from one origin request per 5 s. A SCORED event changes only on a
// correction and keeps the server's default (server.DefaultPublicMaxAge).
const Live = 5 * time.Second

// Hint collects the caps of one request; its methods are safe for concurrent resolvers.
type Hint struct {
	mu     sync.Mutex
	maxAge time.Duration // 0: no cap
}

type key struct{}

// New returns ctx carrying a new Hint, and the Hint.
func New(ctx context.Context) (context.Context, *Hint) {
	h := &Hint{}
	return context.WithValue(ctx, key{}, h), h
}

// Cap lowers the max-age of the answer of ctx's request to at most d (no-op without a
// Hint in ctx, or if d is not positive).
func Cap(ctx context.Context, d time.Duration) {
	h, _ := ctx.Value(key{}).(*Hint)
	if h == nil || d <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.maxAge == 0 || d < h.maxAge {
		h.maxAge = d
	}
}

// MaxAge is def lowered by the caps made (def when none, or h is nil).
func (h *Hint) MaxAge(def time.Duration) time.Duration {
	if h == nil {
		return def
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.maxAge > 0 && h.maxAge < def {
		return h.maxAge
	}
	return def
}
