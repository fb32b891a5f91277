package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/pickem/api/auth"
)

func TestMiddleware(t *testing.T) {
	now := time.Now()
	verifier := auth.NewHS256(devSecret, auth.WithClock(fixedClock(now)))
	good := signHS256(t, devSecret, with(claimsAt(now, "u1"), "name", "Ann"))
	wrongSecret := signHS256(t, []byte("another secret, also 32 bytes!!!"), claimsAt(now, "u1"))
	ann := auth.Identity{ID: "u1", Name: "Ann"}

	gatewayClaims := func(claims map[string]string) func(*http.Request) (map[string]string, bool) {
		return func(*http.Request) (map[string]string, bool) { return claims, true }
	}
	noGatewayClaims := func(*http.Request) (map[string]string, bool) { return nil, false }

	tests := []struct {
		name       string
		verifier   auth.Verifier
		authorizer func(*http.Request) (map[string]string, bool)
		headers    [][2]string
		want       auth.Identity
		wantErr    bool
	}{
		{name: "no header is anonymous", verifier: verifier},
		{name: "empty header is anonymous", verifier: verifier, headers: [][2]string{{"Authorization", ""}}},
		{name: "valid bearer token", verifier: verifier, headers: [][2]string{{"Authorization", "Bearer " + good}}, want: ann},
		{name: "scheme is case-insensitive", verifier: verifier, headers: [][2]string{{"Authorization", "bearer " + good}}, want: ann},
		{name: "extra spaces are tolerated", verifier: verifier, headers: [][2]string{{"Authorization", "  BEARER   " + good + " "}}, want: ann},
		{name: "bad token sets error", verifier: verifier, headers: [][2]string{{"Authorization", "Bearer " + wrongSecret}}, wantErr: true},
		{name: "garbage token sets error", verifier: verifier, headers: [][2]string{{"Authorization", "Bearer undefined"}}, wantErr: true},
		{name: "bearer without token sets error", verifier: verifier, headers: [][2]string{{"Authorization", "Bearer"}}, wantErr: true},
		{name: "other scheme sets error", verifier: verifier, headers: [][2]string{{"Authorization", "Basic dTE6cHc="}}, wantErr: true},
		{name: "token without scheme sets error", verifier: verifier, headers: [][2]string{{"Authorization", good}}, wantErr: true},
		{name: "two Authorization headers set error", verifier: verifier, headers: [][2]string{
			{"Authorization", "Bearer " + good}, {"Authorization", "Bearer " + good},
		}, wantErr: true},
		{name: "token without verifier sets error", headers: [][2]string{{"Authorization", "Bearer " + good}}, wantErr: true},
		{name: "X-User-Id is ignored", verifier: verifier, headers: [][2]string{
			{"X-User-Id", "admin-user"}, {"X-User-Groups", "admin"},
		}},
		{name: "X-User-Id does not override the token", verifier: verifier, headers: [][2]string{
			{"Authorization", "Bearer " + good}, {"X-User-Id", "admin-user"},
		}, want: ann},
		{
			name:       "authorizer claims win over the header",
			verifier:   verifier,
			authorizer: gatewayClaims(map[string]string{"sub": "u2", "cognito:username": "bob", "cognito:groups": "[admin editors]"}),
			headers:    [][2]string{{"Authorization", "Bearer " + wrongSecret}},
			want:       auth.Identity{ID: "u2", Name: "bob", Groups: []string{"admin", "editors"}},
		},
		{
			name:       "authorizer claims need no verifier",
			authorizer: gatewayClaims(map[string]string{"sub": "u2", "cognito:groups": "admin"}),
			want:       auth.Identity{ID: "u2", Name: "u2", Groups: []string{"admin"}},
		},
		{
			name:       "authorizer claims with a bad sub set error",
			verifier:   verifier,
			authorizer: gatewayClaims(map[string]string{"sub": "u 2"}),
			headers:    [][2]string{{"Authorization", "Bearer " + good}},
			wantErr:    true,
		},
		{
			name:       "no authorizer claims falls back to the header",
			verifier:   verifier,
			authorizer: noGatewayClaims,
			headers:    [][2]string{{"Authorization", "Bearer " + good}},
			want:       ann,
		},
		{
			name:       "empty authorizer claims fall back to the header",
			verifier:   verifier,
			authorizer: gatewayClaims(map[string]string{}),
			headers:    [][2]string{{"Authorization", "Bearer " + good}},
			want:       ann,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				called bool
				got    auth.Identity
				gotErr error
			)
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				called = true
				got = auth.FromContext(r.Context())
				gotErr = auth.ErrorFromContext(r.Context())
				w.WriteHeader(http.StatusTeapot)
			})
			req := httptest.NewRequest(http.MethodPost, "/graphql", nil)
			for _, h := range tt.headers {
				req.Header.Add(h[0], h[1])
			}
			rec := httptest.NewRecorder()
			auth.Middleware(tt.verifier, tt.authorizer, next).ServeHTTP(rec, req)

			if !called || rec.Code != http.StatusTeapot {
				t.Fatalf("next handler called = %v, status %d; the request must continue", called, rec.Code)
			}
			if tt.wantErr {
				if !errors.Is(gotErr, auth.ErrInvalidToken) {
					t.Errorf("ErrorFromContext = %v, want ErrInvalidToken", gotErr)
				}
			} else if gotErr != nil {
				t.Errorf("ErrorFromContext = %v, want nil", gotErr)
			}
			if got.ID != tt.want.ID || got.Name != tt.want.Name || !slices.Equal(got.Groups, tt.want.Groups) {
				t.Errorf("FromContext = %+v, want %+v", got, tt.want)
			}
		})
	}
}
