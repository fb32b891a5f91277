// Package testlog collects what a logger writes during a test.
package testlog

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"
)

// Buffer is an io.Writer safe for concurrent use that keeps what is written to it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Take returns the JSON lines written since the last Take (or the start) and forgets them;
// a line that is not JSON fails t.
func (b *Buffer) Take(t testing.TB) []map[string]any {
	t.Helper()
	b.mu.Lock()
	s := b.buf.String()
	b.buf.Reset()
	b.mu.Unlock()
	return JSONLines(t, s)
}

// JSONLines decodes JSON log lines; a line that is not JSON fails t.
func JSONLines(t testing.TB, s string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("log line is not JSON: %s", l)
			continue
		}
		lines = append(lines, m)
	}
	return lines
}
