// Package embedded runs the in-memory DynamoDB engine (minidyn) on a loopback port, for the
// local server and for tests that want an engine without Java.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/truora/minidyn/server"
)

// Engine is a running embedded engine.
type Engine struct {
	Endpoint string
	srv      *http.Server
	done     chan error
}

// Start serves a fresh in-memory engine on 127.0.0.1 at a port chosen by the OS.
func Start() (*Engine, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded: listen: %w", err)
	}
	e := &Engine{
		Endpoint: "http://" + ln.Addr().String(),
		srv:      &http.Server{Handler: server.NewServer(), ReadHeaderTimeout: 10 * time.Second},
		done:     make(chan error, 1),
	}
	go func() { e.done <- e.srv.Serve(ln) }()
	return e, nil
}

// Stop shuts the engine down; its data is gone.
func (e *Engine) Stop(ctx context.Context) error {
	if err := e.srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-e.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
