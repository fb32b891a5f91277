package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// localPackage is the local server's main package: the push benchmark runs it as it is, so
// that the hub, the handler and the store are wired exactly as `make run` wires them.
const localPackage = "github.com/pickem/api/local"

// localServer is the local server (`go run ./local`) running as a child process on an
// engine the benchmark loaded, with the benchmark's dev secret.
type localServer struct {
	cmd      *exec.Cmd
	base     string          // http://127.0.0.1:port
	realtime string          // ws://127.0.0.1:port/event/realtime
	auth     json.RawMessage // the printed real-time authorization: {"host": …, "x-api-key": …}
	logs     *tailBuffer     // its stderr
	done     chan error
}

// startLocalServer builds the local server into dir and starts it on 127.0.0.1:0 with its
// state in dir, on eng's table, verifying dev tokens signed with secret. It returns once
// the server has printed its banner (address, real-time endpoint and key).
func startLocalServer(ctx context.Context, eng *engine, secret []byte, dir string) (*localServer, error) {
	bin := filepath.Join(dir, "pickem-local")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, localPackage)
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", localPackage, err, out)
	}
	s := &localServer{logs: &tailBuffer{max: 8 << 10}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, "-addr", "127.0.0.1:0", "-data", filepath.Join(dir, "data"))
	s.cmd.Env = append(os.Environ(),
		"DYNAMODB_ENDPOINT="+eng.endpoint, "TABLE_NAME="+eng.table, "PICKEM_DEV_SECRET="+string(secret), "LOG_LEVEL=warn")
	s.cmd.Stderr = s.logs
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the local server: %w", err)
	}
	banner := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		complete := false
		for !complete && sc.Scan() {
			complete = s.readBanner(sc.Text())
		}
		switch err := sc.Err(); {
		case complete:
			banner <- nil
		case err != nil:
			banner <- err
		default:
			banner <- errors.New("the local server stopped printing before its real-time key")
		}
		_, _ = io.Copy(io.Discard, stdout)
		s.done <- s.cmd.Wait()
	}()
	select {
	case err := <-banner:
		if err == nil {
			return s, nil
		}
		s.stop()
		return nil, fmt.Errorf("%w; its log:\n%s", err, s.logs)
	case <-time.After(time.Minute):
		s.stop()
		return nil, fmt.Errorf("the local server printed no banner within a minute; its log:\n%s", s.logs)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// readBanner takes what it needs from one line of the banner (local/main.go prints it)
// and reports whether the banner is complete.
func (s *localServer) readBanner(line string) bool {
	switch {
	case strings.HasPrefix(line, "Pick'Em API listening on "):
		s.base = strings.TrimPrefix(line, "Pick'Em API listening on ")
	case strings.HasPrefix(strings.TrimSpace(line), "Realtime:"):
		if f := strings.Fields(line); len(f) > 1 {
			s.realtime = f[1]
		}
	case strings.HasPrefix(strings.TrimSpace(line), `{"host"`):
		if raw := json.RawMessage(strings.TrimSpace(line)); json.Valid(raw) {
			s.auth = raw
		}
	}
	return s.base != "" && s.realtime != "" && s.auth != nil
}

// cpu is the server process's CPU time so far, user and system, from /proc (Linux).
func (s *localServer) cpu() (time.Duration, error) {
	return processCPU(s.cmd.Process.Pid)
}

// stop ends the server with SIGTERM (it shuts down and closes its sockets), then kills it
// if it is still running 10 s later.
func (s *localServer) stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times: USER_HZ, 100 on Linux.
const clockTicks = 100

// processCPU reads the user and system CPU time of process pid, all its threads, from
// /proc/<pid>/stat (fields 14 and 15, in clock ticks).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU time of process %d (Linux /proc): %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime: fields 14 and 15, the 12th and 13th after the name
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// raiseOpenFiles makes sure this process may hold need open files, raising its soft limit
// up to the hard one if it must. A child process raises its own (Go programs raise the soft
// limit to the hard one as they start), so the hard limit bounds both.
func raiseOpenFiles(need uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("open-file limit: %w", err)
	}
	if lim.Cur >= need {
		return lim.Cur, nil
	}
	if lim.Max < need {
		return lim.Cur, fmt.Errorf("the open-file limit is %d (hard %d), below the %d the push benchmark needs (one per socket on each side, and the rest): raise it, e.g. `ulimit -Hn %d` as root, or run fewer -subscribers", lim.Cur, lim.Max, need, need)
	}
	lim.Cur = need
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("raise the open-file limit to %d: %w", need, err)
	}
	return need, nil
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
