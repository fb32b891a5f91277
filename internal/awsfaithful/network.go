package awsfaithful

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
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

// Latency delays every answer (the stream from the endpoint to the client) by d.
func (n *Network) Latency(d time.Duration) error {
	return n.add("latency", "downstream", fmt.Sprintf(`{"latency":%d}`, d.Milliseconds()))
}

// ResetPeer resets every connection (TCP RST) as soon as the client sends on it: the
// request never reaches the endpoint.
func (n *Network) ResetPeer() error {
	return n.add("reset_peer", "upstream", `{"timeout":0}`)
}

// BlackHole drops every answer and never closes the connection: requests reach the
// endpoint (and writes happen) but the client hears nothing back.
func (n *Network) BlackHole() error {
	return n.add("timeout", "downstream", `{"timeout":0}`)
}

// Clear removes every fault.
func (n *Network) Clear() {
	for _, name := range []string{"latency", "reset_peer", "timeout"} {
		_ = n.proxy.Toxics.RemoveToxic(context.Background(), name)
	}
}

// Close stops the proxy and closes its connections.
func (n *Network) Close() { n.proxy.Stop() }

func (n *Network) add(typ, stream, attributes string) error {
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, typ, typ, stream, attributes)
	if _, err := n.proxy.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		return fmt.Errorf("awsfaithful: add %s toxic: %w", typ, err)
	}
	return nil
}
