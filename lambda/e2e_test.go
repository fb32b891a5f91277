package main

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/testlog"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/operations/embedded"
)

// buildFlags are the Makefile's `lambda` target flags (its tags are lambdaTags, and
// embedded.Tag with MANIFEST); TestBootstrapBinary checks the Makefile still uses them.
var buildFlags = []string{"-trimpath", "-ldflags", "-s -w"}

const (
	lambdaTags         = "lambda.norpc"
	makefileBuildFlags = `-tags $(LAMBDA_TAGS) -trimpath -ldflags "-s -w"`
	makefileTags       = `LAMBDA_TAGS := ` + lambdaTags + `$(if $(MANIFEST),$(comma)` + embedded.Tag + `)`
	makefileManifest   = `EMBEDDED_MANIFEST := operations/embedded/manifest.json`
)

// TestBootstrapBinary builds the real bootstrap for the host architecture with the
// Makefile's flags, serves the Lambda Runtime API on 127.0.0.1, runs the binary against it
// and DynamoDB Local, and sends it invocations. It logs the init time (process start to the
// first invocation/next call) and each invocation's round trip.
func TestBootstrapBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the bootstrap binary is a Linux executable")
	}
	table := newTable(t)
	p := startBootstrap(t, buildBootstrap(t, nil), table)
	rt, exited, stop, stdout, stderr := p.rt, p.exited, p.stop, p.stdout, p.stderr

	var ids []string
	invoke := func(t *testing.T, payload []byte) events.APIGatewayV2HTTPResponse {
		t.Helper()
		resp, id := rt.invoke(t, payload, exited)
		ids = append(ids, id)
		return resp
	}

	t.Run("AnonymousQuery", func(t *testing.T) {
		resp := invoke(t, rawFixture(t, fixtureAnonymousGET))
		var d eventsData
		graphQL(t, resp).data(t, &d)
		if len(d.Events.Edges) != 0 {
			t.Errorf("events on a fresh table: %+v", d.Events.Edges)
		}
		if got := resp.Headers["Access-Control-Allow-Origin"]; got != fixtureOrigin {
			t.Errorf("Access-Control-Allow-Origin = %q", got)
		}
	})
	t.Run("AnonymousMutationUnauthenticated", func(t *testing.T) {
		g := graphQL(t, invoke(t, marshal(t, anonymous(fixture(t, fixtureAdminPOST)))))
		if g.code() != "UNAUTHENTICATED" || string(g.Data) != "null" {
			t.Errorf("code %q data %s, want UNAUTHENTICATED and null", g.code(), g.Data)
		}
	})
	t.Run("HS256DevTokenRejected", func(t *testing.T) {
		tok, err := auth.MintHS256([]byte("dev-secret-0123456789abcdef0123456789"),
			auth.Identity{ID: adminSub, Groups: []string{auth.AdminGroup}}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		ev := anonymous(fixture(t, fixtureAdminPOST))
		ev.Headers["authorization"] = "Bearer " + tok
		if g := graphQL(t, invoke(t, marshal(t, ev))); g.code() != "UNAUTHENTICATED" {
			t.Errorf("code %q, want UNAUTHENTICATED", g.code())
		}
	})
	t.Run("AdminMutationWithAuthorizerClaims", func(t *testing.T) {
		var d createEventData
		graphQL(t, invoke(t, rawFixture(t, fixtureAdminPOST))).data(t, &d)
		if d.CreateEvent.ID != fixtureEvent || len(d.CreateEvent.Matches) != 2 {
			t.Errorf("createEvent = %+v", d.CreateEvent)
		}
	})
	t.Run("PlayerMutationWithAuthorizerClaims", func(t *testing.T) {
		var d struct{ Register struct{ ID, Name string } }
		graphQL(t, invoke(t, rawFixture(t, fixturePlayerPOST))).data(t, &d)
		if d.Register.ID != playerSub {
			t.Errorf("register = %+v", d.Register)
		}
	})
	t.Run("Base64QuerySeesTheWrite", func(t *testing.T) {
		var d struct{ Me *struct{ ID, Name string } }
		graphQL(t, invoke(t, rawFixture(t, fixtureBase64POST))).data(t, &d)
		if d.Me == nil || d.Me.Name != "Pat Player" {
			t.Errorf("me = %+v", d.Me)
		}
		var e eventsData
		graphQL(t, invoke(t, rawFixture(t, fixtureAnonymousGET))).data(t, &e)
		if len(e.Events.Edges) != 1 || e.Events.Edges[0].Node.ID != fixtureEvent {
			t.Errorf("events = %+v", e.Events.Edges)
		}
	})
	rt.logTimings(t)

	// Warm latency of the cheapest screen, for a cost estimate per request: recorded,
	// not asserted (it measures DynamoDB Local on this machine as much as the function).
	var warm []time.Duration
	payload := rawFixture(t, fixtureAnonymousGET)
	for range 20 {
		began := time.Now()
		graphQL(t, invoke(t, payload))
		warm = append(warm, time.Since(began))
	}
	slices.Sort(warm)
	t.Logf("warm anonymous events query, 20 round trips: min %v, median %v, max %v",
		warm[0].Round(10*time.Microsecond), warm[len(warm)/2].Round(10*time.Microsecond), warm[len(warm)-1].Round(10*time.Microsecond))

	stop()
	if n := rt.initErrors(); n > 0 {
		t.Errorf("%d init/error reports", n)
	}
	seen := requestLogIDs(logLines(t, stdout.String()))
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("no JSON access-log line with requestId %q on stdout", id)
		}
	}
	if s := stderr.String(); s != "" {
		t.Logf("bootstrap stderr:\n%s", s)
	}

	t.Run("SameFlagsAsMakefile", func(t *testing.T) {
		mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{makefileBuildFlags, makefileTags, makefileManifest} {
			if !strings.Contains(string(mk), want) {
				t.Errorf("the Makefile's lambda target no longer says %s: update buildFlags here", want)
			}
		}
	})
}

// buildBootstrap builds this package for linux/GOARCH (the host) with the Makefile's
// flags and returns the binary's path. With a manifest, it builds it in as
// `make lambda MANIFEST=` does (the tag embedded.Tag), the file put in place by go
// build's -overlay rather than copied into the source tree.
func buildBootstrap(t *testing.T, manifest []byte) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "bootstrap")
	args := append([]string{"build", "-tags", lambdaTags}, buildFlags...)
	if manifest != nil {
		src, err := filepath.Abs(filepath.Join("..", "operations", "embedded", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		file, overlay := filepath.Join(dir, "manifest.json"), filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(file, manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(overlay, marshal(t, map[string]any{"Replace": map[string]string{src: file}}), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"build", "-tags", lambdaTags + "," + embedded.Tag, "-overlay", overlay}, buildFlags...)
	}
	args = append(args, "-o", out, ".")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	began := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatalf("bootstrap is not an ELF file: %v", err)
	}
	defer f.Close()
	fi, _ := os.Stat(out)
	t.Logf("built bootstrap for linux/%s (%s, %.1f MiB) in %v", runtime.GOARCH, f.Machine, float64(fi.Size())/(1<<20), time.Since(began).Round(time.Millisecond))
	return out
}

// bootstrapProcess is a running bootstrap binary and the fake Runtime API it polls.
type bootstrapProcess struct {
	rt             *fakeRuntime
	exited         chan struct{} // closed when the process has exited
	stop           func()        // kills the process and waits for it (once)
	stdout, stderr *testlog.Buffer
}

// startBootstrap runs bin with a Lambda environment over table, plus the variables extra
// (name, value, ...), and waits for its first invocation/next. It logs the init time
// (process start to the first invocation/next call). The process is killed at cleanup.
func startBootstrap(t *testing.T, bin, table string, extra ...string) *bootstrapProcess {
	t.Helper()
	p := &bootstrapProcess{rt: newFakeRuntime(t), exited: make(chan struct{}), stdout: &testlog.Buffer{}, stderr: &testlog.Buffer{}}
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	// Only what Lambda sets plus the function's own variables: nothing leaks in from the
	// developer's environment (no AWS profile, no PICKEM_DEV_SECRET). The Cognito pool is
	// never contacted: no invocation carries an RS256 token to verify.
	cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + p.rt.addr(),
		"AWS_LAMBDA_FUNCTION_NAME=pickem-api",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/pickem-api",
		"AWS_LAMBDA_LOG_STREAM_NAME=2024/05/24/[$LATEST]0123456789abcdef",
		"AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local",
		"AWS_SECRET_ACCESS_KEY=local",
		"AWS_CONFIG_FILE=" + filepath.Join(cmd.Dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(cmd.Dir, "none"),
		"AWS_EC2_METADATA_DISABLED=true",
		"HOME=" + cmd.Dir,
		"TZ=UTC",
		"TABLE_NAME=" + table,
		"PICKEM_CURSOR_KEYS=" + testCursorKey,
		"DYNAMODB_ENDPOINT=" + dynamotest.Endpoint(t),
		"COGNITO_USER_POOL_ID=" + testPoolID,
		"COGNITO_CLIENT_ID=" + testClientID,
		"PICKEM_ALLOWED_ORIGINS=" + fixtureOrigin,
		"LOG_LEVEL=info",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		cmd.Env = append(cmd.Env, extra[i]+"="+extra[i+1])
	}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	// If the test binary dies without its cleanup, the bootstrap's next call fails and
	// aws-lambda-go exits, so no process is left behind.
	started := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start bootstrap: %v", err)
	}
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(p.exited) }()
	var stopOnce sync.Once
	p.stop = func() {
		stopOnce.Do(func() {
			_ = cmd.Process.Kill()
			<-p.exited
		})
	}
	t.Cleanup(p.stop)

	select {
	case <-p.rt.firstNext:
		t.Logf("init time (process start → first invocation/next): %v", p.rt.firstNextAt.Sub(started).Round(100*time.Microsecond))
	case <-p.exited:
		t.Fatalf("bootstrap exited during init (%v)\nstdout:\n%s\nstderr:\n%s", waitErr, p.stdout.String(), p.stderr.String())
	case <-time.After(15 * time.Second):
		t.Fatalf("bootstrap did not call invocation/next within 15 s\nstderr:\n%s", p.stderr.String())
	}
	return p
}

// TestBootstrapWithEmbeddedManifest builds the bootstrap with a manifest built in, as
// `make lambda MANIFEST=` does, and runs it with PICKEM_TRUSTED_DOCUMENTS=embedded: the
// manifest's document runs, by id and by text; a builtin document is refused.
func TestBootstrapWithEmbeddedManifest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the bootstrap binary is a Linux executable")
	}
	const doc = `query FrontendEvents($first: Int) { events(first: $first) { edges { node { id name } } } }`
	manifest := marshal(t, map[string]string{operations.IDPrefix + operations.Hash(doc): doc})
	p := startBootstrap(t, buildBootstrap(t, manifest), newTable(t), "PICKEM_TRUSTED_DOCUMENTS", "embedded")
	get := func(params string) events.APIGatewayV2HTTPRequest {
		ev := fixture(t, fixtureAnonymousGET)
		ev.RawQueryString, ev.QueryStringParameters = params, nil
		return ev
	}

	t.Run("ItsDocumentByID", func(t *testing.T) {
		resp, _ := p.rt.invoke(t, marshal(t, get("documentId="+operations.IDPrefix+operations.Hash(doc)+"&variables=%7B%22first%22%3A2%7D")), p.exited)
		var d eventsData
		graphQL(t, resp).data(t, &d)
		if got := resp.Headers["Cache-Control"]; !strings.HasPrefix(got, "public, max-age=") {
			t.Errorf("Cache-Control %q", got)
		}
	})
	t.Run("ItsDocumentByText", func(t *testing.T) {
		resp, _ := p.rt.invoke(t, marshal(t, withBody(t, anonymous(fixture(t, fixtureBase64POST)), doc, nil)), p.exited)
		var d eventsData
		graphQL(t, resp).data(t, &d)
	})
	t.Run("ABuiltinDocumentRefused", func(t *testing.T) {
		builtin, err := operations.Builtin()
		if err != nil {
			t.Fatal(err)
		}
		for hash := range builtin {
			resp, _ := p.rt.invoke(t, marshal(t, get("documentId="+operations.IDPrefix+hash)), p.exited)
			var g gqlResponse
			if err := json.Unmarshal([]byte(resp.Body), &g); err != nil || resp.StatusCode != http.StatusBadRequest || g.code() != "UNTRUSTED_DOCUMENT" {
				t.Fatalf("status %d %s", resp.StatusCode, resp.Body)
			}
			break
		}
	})
	if n := p.rt.initErrors(); n > 0 {
		t.Errorf("%d init/error reports", n)
	}
}

// fakeRuntime serves the Lambda Runtime API (2018-06-01) to one function process:
// invocation/next hands out queued events, invocation/{id}/response and /error deliver
// results, init/error is counted.
type fakeRuntime struct {
	srv   *httptest.Server
	queue chan invocation
	done  chan struct{}

	firstNext   chan struct{} // closed on the first invocation/next
	firstNextAt time.Time     // written before firstNext is closed

	mu       sync.Mutex
	results  map[string]chan result
	timings  []string
	initErrs int
	n        int
}

type invocation struct {
	id      string
	payload []byte
}

type result struct {
	body      []byte
	errorType string // set for invocation/{id}/error
}

func newFakeRuntime(t *testing.T) *fakeRuntime {
	t.Helper()
	rt := &fakeRuntime{
		queue:     make(chan invocation),
		done:      make(chan struct{}),
		firstNext: make(chan struct{}),
		results:   map[string]chan result{},
	}
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { rt.firstNextAt = time.Now(); close(rt.firstNext) })
		select {
		case inv := <-rt.queue:
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
			h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(10*time.Second).UnixMilli(), 10))
			h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:pickem-api")
			h.Set("Lambda-Runtime-Trace-Id", "Root=1-6650f0a1-1a2b3c4d5e6f708192a3b4c5;Parent=53995c3f42cd8ad8;Sampled=0")
			_, _ = w.Write(inv.payload)
		case <-rt.done:
			http.Error(w, "runtime shutting down", http.StatusInternalServerError)
		}
	})
	deliver := func(w http.ResponseWriter, r *http.Request, errorType string) {
		body, _ := io.ReadAll(r.Body)
		rt.mu.Lock()
		ch := rt.results[r.PathValue("id")]
		rt.mu.Unlock()
		if ch == nil {
			http.Error(w, "unknown request id", http.StatusBadRequest)
			return
		}
		ch <- result{body: body, errorType: errorType}
		w.WriteHeader(http.StatusAccepted)
	}
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", func(w http.ResponseWriter, r *http.Request) {
		deliver(w, r, "")
	})
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", func(w http.ResponseWriter, r *http.Request) {
		deliver(w, r, or(r.Header.Get("Lambda-Runtime-Function-Error-Type"), "Unknown"))
	})
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rt.mu.Lock()
		rt.initErrs++
		rt.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	rt.srv = httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(rt.srv.Close)
	t.Cleanup(func() { close(rt.done) }) // runs before Close: releases a waiting next
	return rt
}

// addr is the host:port for AWS_LAMBDA_RUNTIME_API.
func (rt *fakeRuntime) addr() string { return strings.TrimPrefix(rt.srv.URL, "http://") }

// invoke queues payload, waits for the function's response and decodes it. It fails the
// test on an invocation error, if the process exits, or after 15 s.
func (rt *fakeRuntime) invoke(t *testing.T, payload []byte, exited <-chan struct{}) (events.APIGatewayV2HTTPResponse, string) {
	t.Helper()
	rt.mu.Lock()
	rt.n++
	id := fmt.Sprintf("e2e-%02d-8f1d2c3b-4a5e-6f70-8192-a3b4c5d6e7f8", rt.n)
	ch := make(chan result, 1)
	rt.results[id] = ch
	rt.mu.Unlock()

	timeout := time.After(15 * time.Second)
	began := time.Now()
	select {
	case rt.queue <- invocation{id: id, payload: payload}:
	case <-exited:
		t.Fatalf("bootstrap exited")
	case <-timeout:
		t.Fatalf("the function did not ask for invocation %s", id)
	}
	var res result
	select {
	case res = <-ch:
	case <-exited:
		t.Fatalf("bootstrap exited during invocation %s", id)
	case <-timeout:
		t.Fatalf("no response to invocation %s within 15 s", id)
	}
	rt.mu.Lock()
	rt.timings = append(rt.timings, fmt.Sprintf("%s %v", t.Name(), time.Since(began).Round(10*time.Microsecond)))
	rt.mu.Unlock()
	if res.errorType != "" {
		t.Fatalf("invocation %s failed: %s %s", id, res.errorType, res.body)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(res.body, &resp); err != nil {
		t.Fatalf("response payload: %v\n%s", err, res.body)
	}
	return resp, id
}

func (rt *fakeRuntime) logTimings(t *testing.T) {
	t.Helper()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	t.Logf("invocation round trips (queue → response):\n  %s", strings.Join(rt.timings, "\n  "))
}

func (rt *fakeRuntime) initErrors() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.initErrs
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
