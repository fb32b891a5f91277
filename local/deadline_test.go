package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pickem/api/dynamo"
)

// TestRequestDeadlineEndsBeforeTheWriteTimeout: the server cuts a response off after
// writeTimeout; a request's context must end earlier, by more than the time scoring keeps
// for the work in flight (dynamo.ScoringMargin), so that a long scoreEvent call answers
// (complete: false) instead of being cut.
func TestRequestDeadlineEndsBeforeTheWriteTimeout(t *testing.T) {
	var deadline time.Time
	h := withDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dl, ok := r.Context().Deadline()
		if !ok {
			t.Fatal("no deadline on the request's context")
		}
		deadline = dl
	}), writeTimeout-deadlineMargin)
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/graphql", nil))
	if d := deadline.Sub(start); d <= 0 || deadline.After(time.Now().Add(writeTimeout-deadlineMargin)) {
		t.Fatalf("request deadline %s after the start, want at most %s", d, writeTimeout-deadlineMargin)
	}
	if deadlineMargin <= 0 || writeTimeout-deadlineMargin-dynamo.ScoringMargin <= 0 {
		t.Fatalf("write timeout %s, margin %s, scoring margin %s leave scoring no time", writeTimeout, deadlineMargin, dynamo.ScoringMargin)
	}
}
