package auth_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pickem/api/auth"
)

func TestIdentityPredicates(t *testing.T) {
	tests := []struct {
		name     string
		id       auth.Identity
		signedIn bool
		admin    bool
	}{
		{"zero value is anonymous", auth.Identity{}, false, false},
		{"user without groups", auth.Identity{ID: "u1", Name: "U"}, true, false},
		{"member of admin is admin", auth.Identity{ID: "u1", Groups: []string{"editors", "admin"}}, true, true},
		{"admin group match is case-sensitive", auth.Identity{ID: "u1", Groups: []string{"Admin"}}, true, false},
		{"anonymous with admin group is not admin", auth.Identity{Groups: []string{"admin"}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.SignedIn(); got != tt.signedIn {
				t.Errorf("SignedIn() = %v, want %v", got, tt.signedIn)
			}
			if got := tt.id.IsAdmin(); got != tt.admin {
				t.Errorf("IsAdmin() = %v, want %v", got, tt.admin)
			}
		})
	}
}

func TestContext(t *testing.T) {
	t.Run("empty context is anonymous without error", func(t *testing.T) {
		ctx := context.Background()
		if id := auth.FromContext(ctx); id.SignedIn() {
			t.Errorf("FromContext = %+v, want anonymous", id)
		}
		if err := auth.ErrorFromContext(ctx); err != nil {
			t.Errorf("ErrorFromContext = %v, want nil", err)
		}
	})
	t.Run("identity round-trips", func(t *testing.T) {
		want := auth.Identity{ID: "u1", Name: "Ann", Groups: []string{"admin"}}
		got := auth.FromContext(auth.WithIdentity(context.Background(), want))
		if got.ID != want.ID || got.Name != want.Name || !slices.Equal(got.Groups, want.Groups) {
			t.Errorf("FromContext = %+v, want %+v", got, want)
		}
	})
	t.Run("stored groups do not alias the caller's slice", func(t *testing.T) {
		groups := []string{"editors"}
		ctx := auth.WithIdentity(context.Background(), auth.Identity{ID: "u1", Groups: groups})
		groups[0] = "admin"
		if auth.FromContext(ctx).IsAdmin() {
			t.Error("mutating the caller's slice made the stored identity admin")
		}
	})
	t.Run("error round-trips", func(t *testing.T) {
		want := errors.New("bad token")
		if got := auth.ErrorFromContext(auth.WithError(context.Background(), want)); got != want {
			t.Errorf("ErrorFromContext = %v, want %v", got, want)
		}
	})
	t.Run("WithError nil clears the error", func(t *testing.T) {
		ctx := auth.WithError(context.Background(), errors.New("bad token"))
		if got := auth.ErrorFromContext(auth.WithError(ctx, nil)); got != nil {
			t.Errorf("ErrorFromContext = %v, want nil", got)
		}
	})
}

func TestValidUserID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{"cognito uuid", "3f1c2a4e-8b7d-4c1e-9f00-0123456789ab", true},
		{"all allowed punctuation", "a_b.c:d@e-f", true},
		{"single char", "x", true},
		{"128 chars", strings.Repeat("a", 128), true},
		{"empty", "", false},
		{"129 chars", strings.Repeat("a", 129), false},
		{"space", "a b", false},
		{"slash", "../etc", false},
		{"hash used in table keys", "USER#1", false},
		{"non-ascii letter", "é", false},
		{"newline", "a\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.ValidUserID(tt.id); got != tt.want {
				t.Errorf("ValidUserID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func TestIdentityFromClaims(t *testing.T) {
	const sub = "3f1c2a4e-8b7d-4c1e-9f00-0123456789ab"
	tests := []struct {
		name    string
		claims  map[string]any
		want    auth.Identity
		wantErr bool
	}{
		{
			name:   "name claim is used",
			claims: map[string]any{"sub": sub, "name": "Ann", "cognito:username": "ann1"},
			want:   auth.Identity{ID: sub, Name: "Ann"},
		},
		{
			name:   "falls back to cognito:username",
			claims: map[string]any{"sub": sub, "cognito:username": "ann1"},
			want:   auth.Identity{ID: sub, Name: "ann1"},
		},
		{
			name:   "blank name falls back to cognito:username",
			claims: map[string]any{"sub": sub, "name": "   ", "cognito:username": "ann1"},
			want:   auth.Identity{ID: sub, Name: "ann1"},
		},
		{
			name:   "falls back to the id",
			claims: map[string]any{"sub": sub},
			want:   auth.Identity{ID: sub, Name: sub},
		},
		{
			name:   "non-string name is ignored",
			claims: map[string]any{"sub": "u1", "name": 42.0},
			want:   auth.Identity{ID: "u1", Name: "u1"},
		},
		{
			name:   "name is trimmed",
			claims: map[string]any{"sub": "u1", "name": "  Ann Lee \t"},
			want:   auth.Identity{ID: "u1", Name: "Ann Lee"},
		},
		{
			name:   "name loses control characters",
			claims: map[string]any{"sub": "u1", "name": "Ann\nLee\x00"},
			want:   auth.Identity{ID: "u1", Name: "AnnLee"},
		},
		{
			name:   "name is truncated to 40 runes",
			claims: map[string]any{"sub": "u1", "name": strings.Repeat("é", 50)},
			want:   auth.Identity{ID: "u1", Name: strings.Repeat("é", 40)},
		},
		{
			name:   "long id fallback name is truncated to 40 runes",
			claims: map[string]any{"sub": strings.Repeat("a", 100)},
			want:   auth.Identity{ID: strings.Repeat("a", 100), Name: strings.Repeat("a", 40)},
		},
		{
			name:   "groups as JSON array",
			claims: map[string]any{"sub": "u1", "cognito:groups": []any{"admin", "editors"}},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin", "editors"}},
		},
		{
			name:   "groups as []string",
			claims: map[string]any{"sub": "u1", "cognito:groups": []string{"admin"}},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin"}},
		},
		{
			name:   "groups flattened by API Gateway",
			claims: map[string]any{"sub": "u1", "cognito:groups": "[admin editors]"},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin", "editors"}},
		},
		{
			name:   "single flattened group",
			claims: map[string]any{"sub": "u1", "cognito:groups": "[admin]"},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin"}},
		},
		{
			name:   "plain group string",
			claims: map[string]any{"sub": "u1", "cognito:groups": "admin"},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin"}},
		},
		{
			name:   "comma-separated groups",
			claims: map[string]any{"sub": "u1", "cognito:groups": "admin, editors"},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin", "editors"}},
		},
		{
			name:   "JSON array rendered as a string",
			claims: map[string]any{"sub": "u1", "cognito:groups": `["admin","editors"]`},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin", "editors"}},
		},
		{
			name:   "empty flattened groups",
			claims: map[string]any{"sub": "u1", "cognito:groups": "[]"},
			want:   auth.Identity{ID: "u1", Name: "u1"},
		},
		{
			name:   "duplicate and non-string groups are dropped",
			claims: map[string]any{"sub": "u1", "cognito:groups": []any{"admin", 7.0, "admin", ""}},
			want:   auth.Identity{ID: "u1", Name: "u1", Groups: []string{"admin"}},
		},
		{
			name:   "groups of another type are ignored",
			claims: map[string]any{"sub": "u1", "cognito:groups": 1.0},
			want:   auth.Identity{ID: "u1", Name: "u1"},
		},
		{name: "missing sub", claims: map[string]any{"name": "Ann"}, wantErr: true},
		{name: "empty sub", claims: map[string]any{"sub": ""}, wantErr: true},
		{name: "non-string sub", claims: map[string]any{"sub": 12.0}, wantErr: true},
		{name: "sub with forbidden characters", claims: map[string]any{"sub": "USER#u1"}, wantErr: true},
		{name: "sub too long", claims: map[string]any{"sub": strings.Repeat("a", 129)}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := auth.IdentityFromClaims(tt.claims)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("IdentityFromClaims = %+v, want error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("IdentityFromClaims: %v", err)
			}
			if got.ID != tt.want.ID || got.Name != tt.want.Name || !slices.Equal(got.Groups, tt.want.Groups) {
				t.Errorf("IdentityFromClaims = %+v, want %+v", got, tt.want)
			}
		})
	}
}
