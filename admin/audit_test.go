package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pickem/api/domain"
)

// TestAdminAuditShowsChangesWithoutCaller: a change made through the store with no caller
// (demo data, tools) is listed as "(system)".
func TestAdminAuditShowsChangesWithoutCaller(t *testing.T) {
	e := newAPIEnv(t)
	id := "2025-05-01-quiet-night"
	if _, err := e.store.CreateEvent(context.Background(), domain.EventSpec{ID: &id, Name: "Quiet Night", StartsAt: time.Date(2025, 5, 1, 20, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	r := e.admin(t, "audit", "-event", id).ok(t)
	r.has(t, "(system)", "createEvent", `created "Quiet Night", starts 2025-05-01T20:00:00Z, with 0 matches`)
	if strings.Contains(r.stdout, "((system))") {
		t.Errorf("actor printed twice:\n%s", r.stdout)
	}
}
