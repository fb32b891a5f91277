package push_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pickem/api/push"
)

const (
	testRegion   = "eu-west-1"
	testKeyID    = "AKIDPICKEMTEST"
	testSecret   = "pickem-test-secret"
	testToken    = "pickem-test-session-token"
	testFunction = "pickem-test-Function"
	testChannel  = "/pickem/X2026-04-05-wrestlemania-42X"
	testEvent    = `{"eventId":"2026-04-05-wrestlemania-42","kind":"STATE","version":3,"state":"BROADCAST"}`
)

// signingTime is the publisher's clock in these tests.
var signingTime = time.Date(2026, 4, 5, 23, 10, 30, 0, time.UTC)

// fakeAppSync is an AppSync Event API's HTTP endpoint: it checks every request as AppSync
// would (path, body, headers, a SigV4 signature by the test credentials for service
// appsync in testRegion) and answers with the scripted responses in turn, the last one
// repeating. A response with status 0 hangs until the client gives up.
type fakeAppSync struct {
	t       *testing.T
	answers []answer
	mu      sync.Mutex
	calls   int
}

type answer struct {
	status int
	body   string
}

const accepted = `{"successful":[{"identifier":"0b5c6a3e-4f8e-4c53-9a53-6f4d2f5f6c11","index":0}],"failed":[]}`

func (f *fakeAppSync) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	a := f.answers[min(f.calls, len(f.answers)-1)]
	f.calls++
	f.mu.Unlock()
	f.check(r)
	if a.status == 0 {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

func (f *fakeAppSync) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

var credentialScope = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$`)

// check fails the test unless r is the publish AppSync expects, signed as it requires.
func (f *fakeAppSync) check(r *http.Request) {
	t := f.t
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/event" || r.URL.RawQuery != "" {
		t.Errorf("request %s %s, want POST /event", r.Method, r.URL)
	}
	var got struct {
		Channel string   `json:"channel"`
		Events  []string `json:"events"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Channel != testChannel || len(got.Events) != 1 || got.Events[0] != testEvent {
		t.Errorf("body %s: want channel %q and events [%q]", body, testChannel, testEvent)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content-type %q", ct)
	}
	if date := r.Header.Get("X-Amz-Date"); date != signingTime.Format("20060102T150405Z") {
		t.Errorf("X-Amz-Date %q, want %s", date, signingTime.Format("20060102T150405Z"))
	}
	if tok := r.Header.Get("X-Amz-Security-Token"); tok != testToken {
		t.Errorf("X-Amz-Security-Token %q, want the session token", tok)
	}
	auth := r.Header.Get("Authorization")
	m := credentialScope.FindStringSubmatch(auth)
	if m == nil {
		t.Errorf("Authorization %q is not SigV4", auth)
		return
	}
	if m[1] != testKeyID || m[2] != signingTime.Format("20060102") || m[3] != testRegion || m[4] != "appsync" {
		t.Errorf("credential scope %s/%s/%s/%s, want %s/%s/%s/appsync", m[1], m[2], m[3], m[4], testKeyID, signingTime.Format("20060102"), testRegion)
	}
	signed := strings.Split(m[5], ";")
	for _, h := range []string{"content-type", "host", "x-amz-date", "x-amz-security-token"} {
		if !contains(signed, h) {
			t.Errorf("SignedHeaders %s lack %s", m[5], h)
		}
	}
	// Sign the request as received with the same credentials: the signature must match,
	// so nothing the signature covers changed on the way and the host is the one signed.
	again, err := http.NewRequest(r.Method, "https://"+r.Host+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return
	}
	for _, h := range signed {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret, SessionToken: testToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "appsync", testRegion, signingTime); err != nil {
		t.Error(err)
		return
	}
	if want := again.Header.Get("Authorization"); want != auth {
		t.Errorf("Authorization %q\nwant %q (the request re-signed)", auth, want)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// newPublisher returns a publisher to srv with the test credentials and clock, logging
// to log.
func newPublisher(t *testing.T, srv *httptest.Server, log *bytes.Buffer, budget, attempt time.Duration) *push.AppSync {
	t.Helper()
	p, err := push.NewAppSync(push.AppSyncConfig{
		HTTPDomain:     strings.TrimPrefix(srv.URL, "https://"),
		Region:         testRegion,
		Credentials:    credentials.NewStaticCredentialsProvider(testKeyID, testSecret, testToken),
		FunctionName:   testFunction,
		Logger:         slog.New(slog.NewJSONHandler(log, nil)),
		Client:         srv.Client(),
		Budget:         budget,
		AttemptTimeout: attempt,
		Backoff:        func(int) time.Duration { return 5 * time.Millisecond },
		Now:            func() time.Time { return signingTime },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAppSyncPublish(t *testing.T) {
	const budget, attempt = 300 * time.Millisecond, 100 * time.Millisecond
	for _, tc := range []struct {
		name         string
		answers      []answer
		wantErr      bool
		wantRequests func(n int) bool
		requests     string
	}{
		{"AcceptedAtOnce", []answer{{200, accepted}}, false, func(n int) bool { return n == 1 }, "1"},
		{"ThrottledThenAcceptedIsRetried", []answer{{429, `{"errors":[{"errorType":"TooManyRequestsException"}]}`}, {200, accepted}}, false, func(n int) bool { return n == 2 }, "2"},
		{"ServerErrorsRetriedUntilTheBudget", []answer{{500, `{"errors":[{"errorType":"InternalFailure"}]}`}}, true, func(n int) bool { return n >= 3 }, "3 or more"},
		{"FailedEntryIsAFailureNotRetried", []answer{{200, `{"successful":[],"failed":[{"identifier":"x","index":0,"code":"BadRequestException","message":"Invalid event"}]}`}}, true, func(n int) bool { return n == 1 }, "1"},
		{"BadRequestNotRetried", []answer{{400, `{"errors":[{"errorType":"BadRequestException","message":"Invalid channel"}]}`}}, true, func(n int) bool { return n == 1 }, "1"},
		{"ForbiddenNotRetried", []answer{{403, `{"errors":[{"errorType":"UnauthorizedException"}]}`}}, true, func(n int) bool { return n == 1 }, "1"},
		{"HangingEndpointTimesOutWithinTheBudget", []answer{{0, ""}}, true, func(n int) bool { return n >= 2 }, "2 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeAppSync{t: t, answers: tc.answers}
			srv := httptest.NewTLSServer(fake)
			defer srv.Close()
			var log bytes.Buffer
			p := newPublisher(t, srv, &log, budget, attempt)

			start := time.Now()
			err := p.Publish(context.Background(), testChannel, testEvent)
			took := time.Since(start)

			if (err != nil) != tc.wantErr {
				t.Fatalf("Publish = %v, want error %v", err, tc.wantErr)
			}
			if n := fake.requests(); !tc.wantRequests(n) {
				t.Errorf("%d requests, want %s", n, tc.requests)
			}
			if took > budget+200*time.Millisecond {
				t.Errorf("Publish took %s, over its %s budget", took, budget)
			}
			metric := failureLines(t, &log)
			if tc.wantErr && len(metric) != 1 {
				t.Errorf("%d failure metric lines, want 1: %s", len(metric), log.String())
			}
			if !tc.wantErr && len(metric) != 0 {
				t.Errorf("failure metric logged for a publish that succeeded: %s", log.String())
			}
			t.Logf("%s: %d requests in %s, error: %v", tc.name, fake.requests(), took.Round(time.Millisecond), err)
		})
	}
}

// TestAppSyncPublishKeepsTheCallersDeadline: a caller with less time than the budget is
// not kept waiting past its own deadline.
func TestAppSyncPublishKeepsTheCallersDeadline(t *testing.T) {
	fake := &fakeAppSync{t: t, answers: []answer{{0, ""}}}
	srv := httptest.NewTLSServer(fake)
	defer srv.Close()
	var log bytes.Buffer
	p := newPublisher(t, srv, &log, time.Second, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Publish(ctx, testChannel, testEvent); err == nil {
		t.Fatal("Publish to a hanging endpoint succeeded")
	}
	if took := time.Since(start); took > 400*time.Millisecond {
		t.Errorf("Publish took %s past its caller's 100ms deadline", took)
	}
}

// failureLines returns the log's failure metric lines, checking each is CloudWatch
// embedded metric format for MetricNamespace/MetricPublishFailures by FunctionName.
func failureLines(t *testing.T, log *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if _, ok := rec["_aws"]; !ok {
			continue
		}
		var emf struct {
			AWS struct {
				Timestamp         int64
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct{ Name, Unit string }
				}
			} `json:"_aws"`
			FunctionName        string
			LivePublishFailures float64
		}
		if err := json.Unmarshal([]byte(line), &emf); err != nil {
			t.Fatalf("EMF line %q: %v", line, err)
		}
		d := emf.AWS.CloudWatchMetrics
		if emf.AWS.Timestamp != signingTime.UnixMilli() || len(d) != 1 || d[0].Namespace != push.MetricNamespace ||
			len(d[0].Dimensions) != 1 || len(d[0].Dimensions[0]) != 1 || d[0].Dimensions[0][0] != "FunctionName" ||
			len(d[0].Metrics) != 1 || d[0].Metrics[0].Name != push.MetricPublishFailures || d[0].Metrics[0].Unit != "Count" {
			t.Errorf("EMF metadata %+v: want %s/%s (Count) by FunctionName at %d", emf.AWS, push.MetricNamespace, push.MetricPublishFailures, signingTime.UnixMilli())
		}
		if emf.FunctionName != testFunction || emf.LivePublishFailures != 1 {
			t.Errorf("EMF members FunctionName=%q %s=%v, want %q and 1", emf.FunctionName, push.MetricPublishFailures, emf.LivePublishFailures, testFunction)
		}
		if rec["channel"] != testChannel {
			t.Errorf("failure line's channel %v", rec["channel"])
		}
		out = append(out, rec)
	}
	return out
}

func TestNewAppSyncRefusesIncompleteConfig(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider(testKeyID, testSecret, testToken)
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	ok := push.AppSyncConfig{HTTPDomain: "abc.appsync-api.eu-west-1.amazonaws.com", Region: testRegion, Credentials: creds, FunctionName: testFunction, Logger: log}
	if _, err := push.NewAppSync(ok); err != nil {
		t.Fatalf("complete config: %v", err)
	}
	for name, change := range map[string]func(*push.AppSyncConfig){
		"NoDomain":       func(c *push.AppSyncConfig) { c.HTTPDomain = "" },
		"DomainWithURL":  func(c *push.AppSyncConfig) { c.HTTPDomain = "https://abc.appsync-api.eu-west-1.amazonaws.com/event" },
		"NoRegion":       func(c *push.AppSyncConfig) { c.Region = "" },
		"NoCredentials":  func(c *push.AppSyncConfig) { c.Credentials = nil },
		"NoFunctionName": func(c *push.AppSyncConfig) { c.FunctionName = "" },
		"NegativeBudget": func(c *push.AppSyncConfig) { c.Budget = -time.Second },
	} {
		t.Run(name, func(t *testing.T) {
			c := ok
			change(&c)
			if _, err := push.NewAppSync(c); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestNewAppSyncFromEnv(t *testing.T) {
	env := map[string]string{
		"AWS_ACCESS_KEY_ID": testKeyID, "AWS_SECRET_ACCESS_KEY": testSecret, "AWS_SESSION_TOKEN": testToken,
		"AWS_REGION": testRegion, "AWS_LAMBDA_FUNCTION_NAME": testFunction,
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if _, err := push.NewAppSyncFromEnv(func(k string) string { return env[k] }, "abc.appsync-api.eu-west-1.amazonaws.com", log); err != nil {
		t.Fatalf("Lambda's environment: %v", err)
	}
	delete(env, "AWS_SECRET_ACCESS_KEY")
	if _, err := push.NewAppSyncFromEnv(func(k string) string { return env[k] }, "abc.appsync-api.eu-west-1.amazonaws.com", log); err == nil {
		t.Error("accepted an environment without credentials")
	}
}
