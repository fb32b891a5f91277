// Package embedded runs the in-memory DynamoDB engine (minidyn, patched: see
// third_party/minidyn/PATCH.md) on a loopback port, for the local server and for tests and
// benchmarks that want an engine without Java. It can save a table to a file and load it
// back, so the local server's data survives restarts.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/truora/minidyn/server"
)

// Engine is a running embedded engine.
type Engine struct {
	Endpoint string
	srv      *http.Server
	done     chan error
	api      *server.Server

	// mu orders writes against snapshots: every write holds it shared, Save holds it
	// exclusively, so a snapshot never sees half of a transaction or of a batch. (minidyn
	// also runs each call whole under its own lock, and answers a Scan without Limit in one
	// page; mu keeps a snapshot whole should its scan ever take several calls.)
	mu sync.RWMutex
	// changes counts the writes the engine accepted.
	changes atomic.Uint64
}

// Start serves a fresh in-memory engine on 127.0.0.1 at a port chosen by the OS.
func Start() (*Engine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded: listen: %w", err)
	}
	e := &Engine{
		Endpoint: "http://" + ln.Addr().String(),
		api:      server.NewServer(),
		done:     make(chan error, 1),
	}
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { e.done <- e.srv.Serve(ln) }()
	return e, nil
}

// Stop shuts the engine down; data not saved is gone.
func (e *Engine) Stop(ctx context.Context) error {
	if err := e.srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-e.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Changes returns the number of writes the engine has accepted so far.
func (e *Engine) Changes() uint64 { return e.changes.Load() }

// writeOps are the DynamoDB operations that change data or tables.
var writeOps = map[string]bool{
	"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true,
	"TransactWriteItems": true, "CreateTable": true, "UpdateTable": true, "DeleteTable": true,
}

// serve passes a request to the engine; writes hold mu shared and are counted when the
// engine accepts them.
func (e *Engine) serve(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	if !writeOps[target[strings.LastIndexByte(target, '.')+1:]] {
		e.api.ServeHTTP(w, r)
		return
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	e.api.ServeHTTP(sw, r)
	if sw.status < 300 {
		e.changes.Add(1)
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
