package awsfaithful_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pickem/api/internal/awsfaithful"
)

// A reset connection must leave no goroutine behind, also when its request reaches the
// proxy in several reads. Here the body is larger than one of toxiproxy's reads (32 KiB),
// so every request is read in at least two; on a loaded machine an SDK request is too
// (the Go client writes its headers and its body separately). Toxiproxy's reset_peer
// alone left one goroutine blocked for good per such connection (see resetGuard).
func TestResetPeerLeavesNoGoroutineBehind(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	netw, err := awsfaithful.StartNetwork(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	httpc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	post := func() error {
		resp, err := httpc.Post(netw.Endpoint(), "application/octet-stream", bytes.NewReader(make([]byte, 80<<10)))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	if err := post(); err != nil {
		t.Fatalf("no fault: %v", err)
	}
	if err := netw.ResetPeer(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the first on the connection open before the fault, then new ones
		if err := post(); err == nil {
			t.Fatal("a request went through the reset")
		}
	}
	netw.Clear()
	if err := post(); err != nil {
		t.Fatalf("after Clear: %v", err)
	}
	httpc.CloseIdleConnections()
	netw.Close()
	srv.Close()
	if err := goleak.Find(baseline); err != nil {
		t.Fatalf("goroutines left behind: %v", err)
	}
}

// RequestLatency delays the request on its way to the endpoint (the endpoint sees it d
// after it was sent), Latency the answer on its way back: together a round trip takes at
// least both. Clear removes both.
func TestLatencyBothWays(t *testing.T) {
	arrived := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- time.Now()
	}))
	defer srv.Close()
	netw := awsfaithful.NewNetwork(t, srv.URL)
	httpc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer httpc.CloseIdleConnections()
	// post returns how long after sending the request reached the server, and the round trip.
	post := func() (time.Duration, time.Duration) {
		t.Helper()
		sent := time.Now()
		resp, err := httpc.Post(netw.Endpoint(), "text/plain", strings.NewReader("ping"))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return (<-arrived).Sub(sent), time.Since(sent)
	}
	post() // a connection through the proxy, open before the toxics
	const d = 150 * time.Millisecond
	if err := netw.RequestLatency(d); err != nil {
		t.Fatal(err)
	}
	if reached, _ := post(); reached < d {
		t.Fatalf("with RequestLatency(%v) the request reached the server after %v", d, reached)
	}
	if err := netw.Latency(d); err != nil {
		t.Fatal(err)
	}
	if reached, took := post(); reached < d || took < 2*d {
		t.Fatalf("with both: the request reached the server after %v and the answer came after %v; want at least %v and %v", reached, took, d, 2*d)
	}
	netw.Clear()
	if err := netw.RequestLatency(d); err != nil {
		t.Fatalf("RequestLatency after Clear (its toxic must be gone): %v", err)
	}
}
