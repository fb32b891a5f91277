package main

import (
	"context"
	"testing"

	"github.com/pickem/api/domain"
)

// TestAdminModeration: rename-league, rename-player and delete-league change what they say
// and are listed in the moderation log (audit -event moderation).
func TestAdminModeration(t *testing.T) {
	e := newAPIEnv(t)
	ctx := context.Background()
	if _, err := e.store.Register(ctx, "p-ace", "Ace"); err != nil {
		t.Fatal(err)
	}
	l, err := e.store.CreateLeague(ctx, domain.UserRef{ID: "p-ace", Name: "Ace"}, "Bad Name")
	if err != nil {
		t.Fatal(err)
	}
	e.admin(t, "leagues", "-player", "p-ace").ok(t).has(t, l.ID, "Bad Name")
	e.admin(t, "rename-league", "-league", l.ID, "-name", "Good Name").ok(t).has(t, `is now "Good Name"`)
	e.admin(t, "rename-player", "-player", "p-ace", "-name", "Ace Two").ok(t).has(t, `player p-ace is now "Ace Two"`)
	e.admin(t, "delete-league", "-league", l.ID).ok(t).has(t, "deleted")
	e.admin(t, "leagues", "-player", "p-ace").ok(t).has(t, "p-ace is in no league")
	if r := e.admin(t, "delete-league", "-league", l.ID); r.code != 1 {
		t.Fatalf("deleting it again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	e.admin(t, "audit", "-event", "moderation").ok(t).has(t, "Root Admin (root)", "renameLeague", "renamePlayer", "deleteLeague",
		`player p-ace renamed from "Ace" to "Ace Two"`)
	if r := e.admin(t, "rename-league", "-league", l.ID); r.code != 2 {
		t.Fatalf("rename-league without -name: exit %d", r.code)
	}
}
