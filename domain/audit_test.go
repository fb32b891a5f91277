package domain

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAuditHelpers(t *testing.T) {
	t.Run("ActorFromContext", func(t *testing.T) {
		if got := ActorFrom(context.Background()); got != SystemActor {
			t.Fatalf("no actor: %+v, want SystemActor", got)
		}
		a := UserRef{ID: "ada", Name: "Ada"}
		if got := ActorFrom(WithActor(context.Background(), a)); got != a {
			t.Fatalf("ActorFrom(WithActor(a)) = %+v", got)
		}
		if got := ActorFrom(WithActor(context.Background(), UserRef{})); got != SystemActor {
			t.Fatalf("an actor without id: %+v, want SystemActor", got)
		}
		if ValidateUserID(SystemActor.ID) == nil {
			t.Fatalf("SystemActor's id %q is a valid user id: it could name a player", SystemActor.ID)
		}
	})
	t.Run("ClipSummary", func(t *testing.T) {
		for _, n := range []int{0, 1, MaxAuditSummaryLen - 1, MaxAuditSummaryLen, MaxAuditSummaryLen + 1, 5000} {
			s := strings.Repeat("ü", n)
			got := ClipSummary(s)
			if n <= MaxAuditSummaryLen && got != s {
				t.Errorf("%d characters clipped", n)
			}
			if n > MaxAuditSummaryLen && (utf8.RuneCountInString(got) != MaxAuditSummaryLen || !strings.HasSuffix(got, "…")) {
				t.Errorf("%d characters → %d, want %d ending with …", n, utf8.RuneCountInString(got), MaxAuditSummaryLen)
			}
		}
	})
	t.Run("LogIDs", func(t *testing.T) {
		for id, ok := range map[string]bool{AuditLogModeration: true, "2030-03-01-x": true, "": false, "Moderation": false, "moderation#x": false, "2030-03-01-x#y": false} {
			if err := ValidateAuditLogID(id); (err == nil) != ok {
				t.Errorf("ValidateAuditLogID(%q) = %v, want ok %v", id, err, ok)
			}
		}
	})
}
