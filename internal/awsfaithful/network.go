package awsfaithful

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// Network is toxiproxy (v2.12.0, in-process) between a client and an HTTP endpoint (the
// engine, typically): point the client at Endpoint and add faults to the connections.
// Every fault applies to connections open and to come, until Clear.
type Network struct {
	proxy  *toxiproxy.Proxy
	target string
}

// StartNetwork starts a proxy on a loopback port in front of endpoint ("http://host:port").
func StartNetwork(endpoint string) (*Network, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("awsfaithful: bad endpoint %q", endpoint)
	}
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(api, "dynamodb", "127.0.0.1:0", u.Host)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("awsfaithful: start toxiproxy: %w", err)
	}
	return &Network{proxy: p, target: u.Scheme + "://"}, nil
}

// NewNetwork starts a proxy in front of endpoint and stops it when the test ends.
func NewNetwork(t testing.TB, endpoint string) *Network {
	t.Helper()
	n, err := StartNetwork(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// Endpoint is the proxy's base URL.
func (n *Network) Endpoint() string { return n.target + n.proxy.Listen }

// Latency delays every answer (the stream from the endpoint to the client) by d, in whole
// milliseconds.
func (n *Network) Latency(d time.Duration) error {
	return n.add("latency", "latency", "downstream", fmt.Sprintf(`{"latency":%d}`, d.Milliseconds()))
}

// RequestLatency delays every request (the stream from the client to the endpoint) by d, in
// whole milliseconds: the request reaches the endpoint d after it was sent. With Latency, a
// call's round trip is what the endpoint takes plus both.
func (n *Network) RequestLatency(d time.Duration) error {
	return n.add(requestLatency, "latency", "upstream", fmt.Sprintf(`{"latency":%d}`, d.Milliseconds()))
}

// requestLatency is the name of RequestLatency's toxic (a proxy's toxics need distinct
// names; Latency's is "latency").
const requestLatency = "latency_upstream"

// ResetPeer resets every connection (TCP RST) as soon as the client sends on it: the
// request never reaches the endpoint. (Connections open before the fault are closed with a
// FIN rather than an RST: toxiproxy sets SO_LINGER 0 when a connection starts.)
func (n *Network) ResetPeer() error {
	if err := n.add(resetGuardType, resetGuardType, "upstream", `{}`); err != nil {
		return err
	}
	return n.add("reset_peer", "reset_peer", "upstream", `{"timeout":0}`)
}

// BlackHole drops every answer and never closes the connection: requests reach the
// endpoint (and writes happen) but the client hears nothing back.
func (n *Network) BlackHole() error {
	return n.add("timeout", "timeout", "downstream", `{"timeout":0}`)
}

// Clear removes every fault.
func (n *Network) Clear() {
	for _, name := range []string{"latency", requestLatency, resetGuardType, "reset_peer", "timeout"} {
		_ = n.proxy.Toxics.RemoveToxic(context.Background(), name)
	}
}

// Close stops the proxy and closes its connections.
func (n *Network) Close() { n.proxy.Stop() }

func (n *Network) add(name, typ, stream, attributes string) error {
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, typ, stream, attributes)
	if _, err := n.proxy.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		return fmt.Errorf("awsfaithful: add %s toxic: %w", typ, err)
	}
	return nil
}

// resetGuardType is the toxic ResetPeer puts before toxiproxy's reset_peer.
const resetGuardType = "awsfaithful_reset_guard"

func init() { toxics.Register(resetGuardType, new(resetGuard)) }

// resetGuard makes toxiproxy's reset_peer toxic (v2.12.0) safe to use. Alone, reset_peer
// takes one chunk of a connection's data, resets the connection and stops reading its
// input, so when a request reaches the proxy in two reads the toxic before it (the
// hidden noop at the head of every chain) blocks for good sending the second chunk: one
// goroutine left behind per connection, which Proxy.Stop does not end. The Go HTTP client
// writes a request's headers and its body separately (an SDK body is not an in-memory
// reader), so on a loaded machine the proxy often reads them apart.
//
// Placed before reset_peer, resetGuard ends the connection itself at the first chunk: it
// closes its output, which is reset_peer's input, and reset_peer resets as if it had
// received data (its presence in the chain when a connection starts is what makes the
// close an RST). The guard then swallows whatever still comes until the connection is
// gone, so nothing before it ever blocks.
type resetGuard struct{}

// Pipe implements toxics.Toxic.
func (*resetGuard) Pipe(stub *toxics.ToxicStub) {
	select {
	case <-stub.Interrupt: // the chain changes (a toxic added or removed): toxiproxy restarts Pipe
		return
	case c := <-stub.Input:
		stub.Close()
		if c == nil {
			return // the connection ended before sending anything
		}
		// A closed stub is never interrupted (InterruptToxic sees it closed), so this loop
		// ends only when the stub before it closes the input: when the connection is gone.
		for range stub.Input {
		}
	}
}
