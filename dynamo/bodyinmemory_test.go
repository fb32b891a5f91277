package dynamo

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/internal/dynamotest"
)

// countingTransport is an http.Transport whose connections count the writes they make.
func countingTransport(writes *atomic.Int64) *http.Transport {
	var d net.Dialer
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, writes}, nil
	}}
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestBodyInMemorySendsACallInOneWrite: on DynamoDB Local, an SDK call through
// BodyInMemory leaves in one write; through the SDK's transport alone, the same call
// takes two (headers, then body), which is what BodyInMemory is for.
func TestBodyInMemorySendsACallInOneWrite(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	for _, tc := range []struct {
		name string
		wrap bool
		want int64
	}{{"SDKTransport", false, 2}, {"BodyInMemory", true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var writes atomic.Int64
			tr := countingTransport(&writes)
			defer tr.CloseIdleConnections()
			var rt http.RoundTripper = tr
			if tc.wrap {
				rt = BodyInMemory{Next: tr}
			}
			db := dynamodb.New(dynamodb.Options{
				Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
				Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
				HTTPClient:  &http.Client{Transport: rt},
			})
			ctx := ctxT(t)
			for i := range 3 { // the first call opens the connection
				writes.Store(0)
				if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
					t.Fatal(err)
				}
				if got := writes.Load(); i > 0 && got != tc.want {
					t.Fatalf("call %d: %d writes, want %d", i, got, tc.want)
				}
			}
		})
	}
}

// opaqueBody is a body net/http cannot tell is in memory, as the SDK's stream wrapper.
type opaqueBody struct {
	io.Reader
	closed bool
}

func (b *opaqueBody) Close() error { b.closed = true; return nil }

// TestBodyInMemoryBodies: every body reaches the server whole, whichever path it takes;
// the caller's request is left as it was, its body closed; a body shorter than its
// declared length is an error and nothing is sent.
func TestBodyInMemoryBodies(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	var writes atomic.Int64
	tr := countingTransport(&writes)
	defer tr.CloseIdleConnections()
	rt := BodyInMemory{Next: tr}
	send := func(t *testing.T, body string, length int64) (*http.Request, *opaqueBody, string, error) {
		t.Helper()
		ob := &opaqueBody{Reader: strings.NewReader(body)}
		r, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, srv.URL, ob)
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = length
		writes.Store(0)
		resp, err := rt.RoundTrip(r)
		if err != nil {
			return r, ob, "", err
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		return r, ob, string(got), err
	}
	small := strings.Repeat("s", 700)
	large := strings.Repeat("L", MaxBodyInMemory+1)
	for _, tc := range []struct {
		name       string
		body       string
		length     int64
		wantWrites int64 // 0: not checked
	}{
		{"Small", small, int64(len(small)), 1},
		{"LargerThanMaxBodyInMemory", large, int64(len(large)), 0},
		{"UnknownLength", small, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ob, got, err := send(t, tc.body, tc.length)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.body {
				t.Fatalf("the server read %d bytes, want %d", len(got), len(tc.body))
			}
			if tc.wantWrites > 0 && writes.Load() != tc.wantWrites {
				t.Fatalf("%d writes, want %d", writes.Load(), tc.wantWrites)
			}
			if r.Body != io.ReadCloser(ob) || r.GetBody != nil || r.ContentLength != tc.length {
				t.Fatal("RoundTrip changed the caller's request")
			}
			if !ob.closed {
				t.Fatal("the caller's body was not closed")
			}
		})
	}
	t.Run("ShortBody", func(t *testing.T) {
		before := requests.Load()
		_, ob, _, err := send(t, "short", 100)
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
		}
		if !ob.closed || requests.Load() != before || writes.Load() != 0 {
			t.Fatalf("closed %v, requests %d, writes %d: want the body closed and nothing sent", ob.closed, requests.Load()-before, writes.Load())
		}
	})
}
