// Package pushtest holds test helpers for live messages: ValidateMessage checks an event
// against docs/live-message.schema.json and push.MaxEventBytes, and Recorder is a
// push.Publisher that keeps what it is given and fails the test on an invalid message.
// It reads the schema from the source tree, so it is for tests only (the Lambda binary
// never links it).
package pushtest

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pickem/api/push"
)

// SchemaPath is the message schema's path, from the source tree of this file.
var SchemaPath = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "docs", "live-message.schema.json")
}()

var schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	return c.Compile(SchemaPath)
})

// ValidateMessage returns an error unless event is one JSON value of at most
// push.MaxEventBytes bytes that docs/live-message.schema.json accepts.
func ValidateMessage(event string) error {
	if len(event) > push.MaxEventBytes {
		return fmt.Errorf("live message has %d bytes, over %d", len(event), push.MaxEventBytes)
	}
	sch, err := schema()
	if err != nil {
		return fmt.Errorf("live message schema %s: %w", SchemaPath, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(event))
	if err != nil {
		return fmt.Errorf("live message is not one JSON value: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("live message %s: %w", event, err)
	}
	return nil
}

// Published is one message a Recorder was given.
type Published struct {
	Channel string
	Event   string
}

// Recorder is a push.Publisher for tests: it keeps every message it is given, in order,
// and fails t (without failing the publish) when one does not pass ValidateMessage.
type Recorder struct {
	t  testing.TB
	mu sync.Mutex
	ms []Published
}

var _ push.Publisher = (*Recorder)(nil)

// NewRecorder returns an empty Recorder reporting to t.
func NewRecorder(t testing.TB) *Recorder { return &Recorder{t: t} }

// Publish records the message; it always succeeds.
func (r *Recorder) Publish(_ context.Context, channel, event string) error {
	if err := ValidateMessage(event); err != nil {
		r.t.Errorf("published on %s: %v", channel, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ms = append(r.ms, Published{Channel: channel, Event: event})
	return nil
}

// Messages returns a copy of the messages published so far, in order.
func (r *Recorder) Messages() []Published {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Published(nil), r.ms...)
}
