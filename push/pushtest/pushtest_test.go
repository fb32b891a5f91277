package pushtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pickem/api/push/pushtest"
)

// errorCounter is a testing.TB that counts Errorf calls instead of failing.
type errorCounter struct {
	testing.TB
	errors []string
}

func (e *errorCounter) Errorf(format string, args ...any) {
	e.errors = append(e.errors, fmt.Sprintf(format, args...))
}

func TestRecorderKeepsMessagesAndReportsInvalidOnes(t *testing.T) {
	const valid = `{"eventId":"2026-04-05-wrestlemania-42","kind":"TIEBREAKER","version":2}`
	const invalid = `{"eventId":"2026-04-05-wrestlemania-42","kind":"TIEBREAKER","version":2,"answer":7}`
	tb := &errorCounter{TB: t}
	r := pushtest.NewRecorder(tb)
	for _, ev := range []string{valid, invalid} {
		if err := r.Publish(context.Background(), "/pickem/X2026-04-05-wrestlemania-42X", ev); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
	got := r.Messages()
	if len(got) != 2 || got[0].Event != valid || got[1].Event != invalid || got[0].Channel != "/pickem/X2026-04-05-wrestlemania-42X" {
		t.Errorf("recorded %+v", got)
	}
	if len(tb.errors) != 1 {
		t.Errorf("reported %d errors, want 1 (the message with the answer): %v", len(tb.errors), tb.errors)
	}
}
