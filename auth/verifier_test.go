package auth_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/pickem/api/auth"
)

var devSecret = []byte("0123456789abcdef0123456789abcdef")

func TestHS256(t *testing.T) {
	const sub = "3f1c2a4e-8b7d-4c1e-9f00-0123456789ab"
	base := claimsAt(t0, sub)
	base["name"] = "Ann"
	base["cognito:groups"] = []string{"admin"}

	tests := []struct {
		name  string
		token func(t *testing.T) string
		opts  []auth.Option
		want  auth.Identity // zero: want ErrInvalidToken
	}{
		{
			name:  "valid token",
			token: func(t *testing.T) string { return signHS256(t, devSecret, base) },
			want:  auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}},
		},
		{
			name: "expired within leeway is accepted",
			token: func(t *testing.T) string {
				return signHS256(t, devSecret, with(base, "exp", t0.Add(-20*time.Second).Unix()))
			},
			want: auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}},
		},
		{
			name: "expired beyond leeway",
			token: func(t *testing.T) string {
				return signHS256(t, devSecret, with(base, "exp", t0.Add(-31*time.Second).Unix()))
			},
		},
		{
			name:  "missing exp",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "exp", nil)) },
		},
		{
			name: "not yet valid",
			token: func(t *testing.T) string {
				return signHS256(t, devSecret, with(base, "nbf", t0.Add(time.Minute).Unix()))
			},
		},
		{
			name: "issued in the future",
			token: func(t *testing.T) string {
				return signHS256(t, devSecret, with(base, "iat", t0.Add(time.Minute).Unix()))
			},
		},
		{
			name:  "wrong secret",
			token: func(t *testing.T) string { return signHS256(t, []byte("another secret, also 32 bytes!!!"), base) },
		},
		{
			name: "alg none",
			token: func(t *testing.T) string {
				s, err := jwt.NewWithClaims(jwt.SigningMethodNone, base).SignedString(jwt.UnsafeAllowNoneSignatureType)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
		},
		{
			name: "alg none with the HS256 signature",
			token: func(t *testing.T) string {
				return rawToken(t, map[string]any{"alg": "none", "typ": "JWT"}, base, hmacSHA256(devSecret))
			},
		},
		{
			name: "RS256 token",
			token: func(t *testing.T) string {
				k1, _ := testKeys(t)
				return signRS256(t, k1, "k1", base)
			},
		},
		{
			name:  "missing sub",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "sub", nil)) },
		},
		{
			name:  "sub with forbidden characters",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "sub", "USER#1")) },
		},
		{
			name:  "sub too long",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "sub", strings.Repeat("a", 129))) },
		},
		{
			name:  "access token",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "token_use", "access")) },
		},
		{
			name:  "token without token_use is accepted",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "token_use", nil)) },
			want:  auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}},
		},
		{
			name: "matching issuer and audience",
			token: func(t *testing.T) string {
				return signHS256(t, devSecret, with(base, "iss", "pickem-dev", "aud", "web"))
			},
			opts: []auth.Option{auth.WithIssuer("pickem-dev"), auth.WithAudience("web")},
			want: auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}},
		},
		{
			name:  "wrong issuer when one is configured",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "iss", "evil", "aud", "web")) },
			opts:  []auth.Option{auth.WithIssuer("pickem-dev"), auth.WithAudience("web")},
		},
		{
			name:  "missing audience when one is configured",
			token: func(t *testing.T) string { return signHS256(t, devSecret, with(base, "iss", "pickem-dev")) },
			opts:  []auth.Option{auth.WithIssuer("pickem-dev"), auth.WithAudience("web")},
		},
		{name: "empty token", token: func(*testing.T) string { return "" }},
		{name: "garbage", token: func(*testing.T) string { return "not.a.jwt" }},
		{name: "oversized token", token: func(*testing.T) string { return strings.Repeat("a", 17<<10) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := auth.NewHS256(devSecret, append([]auth.Option{auth.WithClock(fixedClock(t0))}, tt.opts...)...)
			got, err := v.Verify(context.Background(), tt.token(t))
			checkVerify(t, got, err, tt.want)
		})
	}

	t.Run("empty secret rejects a token signed with an empty key", func(t *testing.T) {
		tok := rawToken(t, map[string]any{"alg": "HS256", "typ": "JWT"}, base, hmacSHA256(nil))
		got, err := auth.NewHS256(nil, auth.WithClock(fixedClock(t0))).Verify(context.Background(), tok)
		checkVerify(t, got, err, auth.Identity{})
	})
	t.Run("the error tells a wrong secret and an expired token apart", func(t *testing.T) {
		v := auth.NewHS256(devSecret, auth.WithClock(fixedClock(t0)))
		_, err := v.Verify(context.Background(), signHS256(t, []byte("another secret, also 32 bytes!!!"), base))
		if !errors.Is(err, auth.ErrDevSecretMismatch) || !errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrTokenExpired) {
			t.Errorf("wrong secret: %v", err)
		}
		_, err = v.Verify(context.Background(), signHS256(t, devSecret, with(base, "exp", t0.Add(-time.Hour).Unix())))
		if !errors.Is(err, auth.ErrTokenExpired) || !errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrDevSecretMismatch) {
			t.Errorf("expired: %v", err)
		}
		_, err = v.Verify(context.Background(), signHS256(t, devSecret, with(base, "sub", "USER#1")))
		if errors.Is(err, auth.ErrTokenExpired) || errors.Is(err, auth.ErrDevSecretMismatch) {
			t.Errorf("bad sub: %v", err)
		}
	})
	t.Run("secret is copied", func(t *testing.T) {
		secret := append([]byte(nil), devSecret...)
		v := auth.NewHS256(secret, auth.WithClock(fixedClock(t0)))
		clear(secret)
		got, err := v.Verify(context.Background(), signHS256(t, devSecret, base))
		checkVerify(t, got, err, auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}})
	})
}

// checkVerify asserts a Verify result: want.ID == "" means the token must be
// rejected with ErrInvalidToken.
func checkVerify(t *testing.T, got auth.Identity, err error, want auth.Identity) {
	t.Helper()
	if want.ID == "" {
		if !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("Verify = %+v, %v; want ErrInvalidToken", got, err)
		}
		if got.SignedIn() {
			t.Errorf("Verify returned identity %+v with error", got)
		}
		return
	}
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.ID != want.ID || got.Name != want.Name || !slices.Equal(got.Groups, want.Groups) {
		t.Errorf("Verify = %+v, want %+v", got, want)
	}
}

func TestMintHS256(t *testing.T) {
	t.Run("minted token verifies", func(t *testing.T) {
		id := auth.Identity{ID: "u1", Name: "Ann", Groups: []string{"admin", "editors"}}
		tok, err := auth.MintHS256(devSecret, id, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		got, err := auth.NewHS256(devSecret).Verify(context.Background(), tok)
		checkVerify(t, got, err, id)
	})
	t.Run("claims are sub name groups iat exp token_use", func(t *testing.T) {
		before := time.Now().Truncate(time.Second)
		tok, err := auth.MintHS256(devSecret, auth.Identity{ID: "u1", Name: "Ann", Groups: []string{"admin"}}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
			t.Fatal(err)
		}
		if claims["sub"] != "u1" || claims["name"] != "Ann" || claims["token_use"] != "id" {
			t.Errorf("claims = %v", claims)
		}
		if g, _ := claims["cognito:groups"].([]any); len(g) != 1 || g[0] != "admin" {
			t.Errorf("cognito:groups = %v", claims["cognito:groups"])
		}
		iat, _ := claims.GetIssuedAt()
		exp, _ := claims.GetExpirationTime()
		if iat == nil || exp == nil || iat.Before(before) || exp.Sub(iat.Time) != time.Hour {
			t.Errorf("iat = %v, exp = %v", iat, exp)
		}
	})
	t.Run("empty name and groups are omitted", func(t *testing.T) {
		tok, err := auth.MintHS256(devSecret, auth.Identity{ID: "u1"}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"name", "cognito:groups"} {
			if _, ok := claims[c]; ok {
				t.Errorf("claim %q present: %v", c, claims)
			}
		}
	})
	t.Run("minted token expires", func(t *testing.T) {
		tok, err := auth.MintHS256(devSecret, auth.Identity{ID: "u1"}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		later := func() time.Time { return time.Now().Add(2 * time.Minute) }
		got, err := auth.NewHS256(devSecret, auth.WithClock(later)).Verify(context.Background(), tok)
		checkVerify(t, got, err, auth.Identity{})
	})

	errTests := []struct {
		name   string
		secret []byte
		id     auth.Identity
		ttl    time.Duration
	}{
		{"empty secret", nil, auth.Identity{ID: "u1"}, time.Hour},
		{"anonymous identity", devSecret, auth.Identity{}, time.Hour},
		{"invalid user id", devSecret, auth.Identity{ID: "a b"}, time.Hour},
		{"zero ttl", devSecret, auth.Identity{ID: "u1"}, 0},
		{"negative ttl", devSecret, auth.Identity{ID: "u1"}, -time.Hour},
	}
	for _, tt := range errTests {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			if tok, err := auth.MintHS256(tt.secret, tt.id, tt.ttl); err == nil {
				t.Errorf("MintHS256 = %q, want error", tok)
			}
		})
	}
}

const (
	testIssuer   = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test123"
	testClientID = "5abc123clientid"
)

func newTestJWKS(t *testing.T, srv *jwksServer, opts ...auth.Option) auth.Verifier {
	t.Helper()
	v, err := auth.NewJWKS(t.Context(), srv.jwksURL(), testIssuer, testClientID, opts...)
	if err != nil {
		t.Fatalf("NewJWKS: %v", err)
	}
	return v
}

// idClaims returns valid Cognito ID token claims at now.
func idClaims(now time.Time, sub string) jwt.MapClaims {
	c := claimsAt(now, sub)
	c["iss"] = testIssuer
	c["aud"] = testClientID
	c["cognito:username"] = "ann1"
	c["cognito:groups"] = []string{"admin"}
	return c
}

func TestJWKS(t *testing.T) {
	k1, k2 := testKeys(t)
	srv := newJWKSServer(t, rsaJWK("k1", k1))
	v := newTestJWKS(t, srv, auth.WithClock(fixedClock(t0)))
	const sub = "3f1c2a4e-8b7d-4c1e-9f00-0123456789ab"
	base := idClaims(t0, sub)
	ann := auth.Identity{ID: sub, Name: "ann1", Groups: []string{"admin"}}

	tests := []struct {
		name  string
		token func(t *testing.T) string
		want  auth.Identity // zero: want ErrInvalidToken
	}{
		{"valid ID token", func(t *testing.T) string { return signRS256(t, k1, "k1", base) }, ann},
		{"aud array containing the client id", func(t *testing.T) string {
			return signRS256(t, k1, "k1", with(base, "aud", []string{"other", testClientID}))
		}, ann},
		{"wrong issuer", func(t *testing.T) string {
			return signRS256(t, k1, "k1", with(base, "iss", "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other"))
		}, auth.Identity{}},
		{"issuer with trailing slash", func(t *testing.T) string {
			return signRS256(t, k1, "k1", with(base, "iss", testIssuer+"/"))
		}, auth.Identity{}},
		{"missing issuer", func(t *testing.T) string { return signRS256(t, k1, "k1", with(base, "iss", nil)) }, auth.Identity{}},
		{"wrong audience", func(t *testing.T) string { return signRS256(t, k1, "k1", with(base, "aud", "other-client")) }, auth.Identity{}},
		{"access token with client_id and no aud", func(t *testing.T) string {
			return signRS256(t, k1, "k1", with(base, "aud", nil, "client_id", testClientID, "token_use", "access"))
		}, auth.Identity{}},
		{"token_use access", func(t *testing.T) string { return signRS256(t, k1, "k1", with(base, "token_use", "access")) }, auth.Identity{}},
		{"expired", func(t *testing.T) string {
			return signRS256(t, k1, "k1", with(base, "exp", t0.Add(-time.Minute).Unix()))
		}, auth.Identity{}},
		{"bad sub", func(t *testing.T) string { return signRS256(t, k1, "k1", with(base, "sub", "a/b")) }, auth.Identity{}},
		{"unknown kid", func(t *testing.T) string { return signRS256(t, k2, "k2", base) }, auth.Identity{}},
		{"known kid signed by another key", func(t *testing.T) string { return signRS256(t, k2, "k1", base) }, auth.Identity{}},
		{"missing kid", func(t *testing.T) string { return signRS256(t, k1, "", base) }, auth.Identity{}},
		{"HS256 token", func(t *testing.T) string {
			return rawToken(t, map[string]any{"alg": "HS256", "kid": "k1"}, base, hmacSHA256(devSecret))
		}, auth.Identity{}},
		{"alg none", func(t *testing.T) string {
			return rawToken(t, map[string]any{"alg": "none", "kid": "k1"}, base, nil)
		}, auth.Identity{}},
		{"RS512 token", func(t *testing.T) string {
			tok := jwt.NewWithClaims(jwt.SigningMethodRS512, base)
			tok.Header["kid"] = "k1"
			s, err := tok.SignedString(k1)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, auth.Identity{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), tt.token(t))
			checkVerify(t, got, err, tt.want)
		})
	}
}

func TestJWKSKeyLoading(t *testing.T) {
	k1, k2 := testKeys(t)
	const sub = "u1"

	t.Run("constructor makes no request and keys are fetched once then cached", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		v := newTestJWKS(t, srv)
		if n := srv.hits.Load(); n != 0 {
			t.Fatalf("NewJWKS fetched keys %d times, want 0", n)
		}
		for range 3 {
			got, err := v.Verify(context.Background(), signRS256(t, k1, "k1", idClaims(time.Now(), sub)))
			checkVerify(t, got, err, auth.Identity{ID: sub, Name: "ann1", Groups: []string{"admin"}})
		}
		if n := srv.hits.Load(); n != 1 {
			t.Errorf("keys fetched %d times, want 1", n)
		}
	})

	t.Run("constructor succeeds when the JWKS host is unreachable", func(t *testing.T) {
		// Port 1 on loopback refuses connections.
		v, err := auth.NewJWKS(t.Context(), "http://127.0.0.1:1/.well-known/jwks.json", testIssuer, testClientID)
		if err != nil {
			t.Fatalf("NewJWKS: %v", err)
		}
		_, err = v.Verify(context.Background(), signRS256(t, k1, "k1", idClaims(time.Now(), sub)))
		if !errors.Is(err, auth.ErrKeysUnavailable) || errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("Verify error = %v, want ErrKeysUnavailable only", err)
		}
	})

	t.Run("HS256 token is rejected without fetching keys", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		v := newTestJWKS(t, srv)
		got, err := v.Verify(context.Background(), signHS256(t, devSecret, idClaims(time.Now(), sub)))
		checkVerify(t, got, err, auth.Identity{})
		if n := srv.hits.Load(); n != 0 {
			t.Errorf("keys fetched %d times, want 0", n)
		}
	})

	t.Run("failed first fetch is retried only after a delay", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		srv.status.Store(http.StatusInternalServerError)
		clock := newClock(time.Now())
		v := newTestJWKS(t, srv, auth.WithClock(clock.Now))
		tok := signRS256(t, k1, "k1", idClaims(clock.Now(), sub))

		for i, want := range []int64{1, 1} {
			if _, err := v.Verify(context.Background(), tok); !errors.Is(err, auth.ErrKeysUnavailable) {
				t.Fatalf("attempt %d: Verify error = %v, want ErrKeysUnavailable", i, err)
			}
			if n := srv.hits.Load(); n != want {
				t.Fatalf("attempt %d: keys fetched %d times, want %d", i, n, want)
			}
		}

		srv.status.Store(http.StatusOK)
		clock.Advance(6 * time.Second)
		got, err := v.Verify(context.Background(), tok)
		checkVerify(t, got, err, auth.Identity{ID: sub, Name: "ann1", Groups: []string{"admin"}})
		if n := srv.hits.Load(); n != 2 {
			t.Errorf("keys fetched %d times, want 2", n)
		}
	})

	t.Run("unknown kid refreshes the keys once and is rate-limited", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		v := newTestJWKS(t, srv)
		now := time.Now()
		if _, err := v.Verify(context.Background(), signRS256(t, k1, "k1", idClaims(now, sub))); err != nil {
			t.Fatalf("Verify k1: %v", err)
		}

		// The pool rotates keys: k2 appears in the JWK Set.
		srv.setKeys(t, rsaJWK("k1", k1), rsaJWK("k2", k2))
		got, err := v.Verify(context.Background(), signRS256(t, k2, "k2", idClaims(now, sub)))
		checkVerify(t, got, err, auth.Identity{ID: sub, Name: "ann1", Groups: []string{"admin"}})
		if n := srv.hits.Load(); n != 2 {
			t.Fatalf("keys fetched %d times, want 2", n)
		}

		// Tokens with made-up kids do not cause a fetch each.
		for range 3 {
			_, err := v.Verify(context.Background(), signRS256(t, k2, "made-up", idClaims(now, sub)))
			if !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("Verify error = %v, want ErrInvalidToken", err)
			}
		}
		if n := srv.hits.Load(); n != 2 {
			t.Errorf("keys fetched %d times after unknown kids, want 2", n)
		}
	})

	t.Run("concurrent first verifications share one fetch", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		v := newTestJWKS(t, srv)
		tok := signRS256(t, k1, "k1", idClaims(time.Now(), sub))
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Go(func() {
				if _, err := v.Verify(context.Background(), tok); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("Verify: %v", err)
		}
		if n := srv.hits.Load(); n != 1 {
			t.Errorf("keys fetched %d times, want 1", n)
		}
	})

	t.Run("a request stops waiting for keys when its context ends", func(t *testing.T) {
		release := make(chan struct{})
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		srv.gate.Store(&release)
		t.Cleanup(func() { close(release) }) // runs before srv.Close
		v := newTestJWKS(t, srv)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := v.Verify(ctx, signRS256(t, k1, "k1", idClaims(time.Now(), sub)))
		if !errors.Is(err, auth.ErrKeysUnavailable) || !errors.Is(err, context.Canceled) {
			t.Errorf("Verify error = %v, want ErrKeysUnavailable and context.Canceled", err)
		}
	})
}

func TestNewJWKSArguments(t *testing.T) {
	tests := []struct {
		name             string
		url, iss, client string
		wantErr          bool
	}{
		{"https URL", "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_A/.well-known/jwks.json", testIssuer, testClientID, false},
		{"http on loopback", "http://127.0.0.1:9229/jwks.json", testIssuer, testClientID, false},
		{"http on localhost", "http://localhost:9229/jwks.json", testIssuer, testClientID, false},
		{"http on a remote host", "http://example.com/jwks.json", testIssuer, testClientID, true},
		{"not a URL", "jwks.json", testIssuer, testClientID, true},
		{"empty URL", "", testIssuer, testClientID, true},
		{"empty issuer", "https://example.com/jwks.json", "", testClientID, true},
		{"empty client id", "https://example.com/jwks.json", testIssuer, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := auth.NewJWKS(t.Context(), tt.url, tt.iss, tt.client)
			if (err != nil) != tt.wantErr {
				t.Errorf("NewJWKS error = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestCognitoJWKS(t *testing.T) {
	tests := []struct {
		pool       string
		wantIssuer string // empty: want error
	}{
		{"eu-west-1_AbC123", "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123"},
		{"us-east-1_x", "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_x"},
		{"us-gov-west-1_Abc9", "https://cognito-idp.us-gov-west-1.amazonaws.com/us-gov-west-1_Abc9"},
		{"", ""},
		{"eu-west-1", ""},
		{"_AbC123", ""},
		{"eu-west-1_", ""},
		{"euwest1_AbC123", ""},
		{"EU-WEST-1_AbC123", ""},
		{"eu-west-x_AbC123", ""},
		{"eu-west-1_AbC_123", ""},
		{"eu-west-1_AbC/../x", ""},
		{"evil.com/x-west-1_A", ""},
	}
	for _, tt := range tests {
		name := "accepts " + tt.pool
		if tt.wantIssuer == "" {
			name = "rejects " + tt.pool
		}
		t.Run(name, func(t *testing.T) {
			jwksURL, iss, err := auth.CognitoJWKS(tt.pool)
			if tt.wantIssuer == "" {
				if err == nil {
					t.Errorf("CognitoJWKS(%q) = %q, %q; want error", tt.pool, jwksURL, iss)
				}
				return
			}
			if err != nil {
				t.Fatalf("CognitoJWKS(%q): %v", tt.pool, err)
			}
			if iss != tt.wantIssuer || jwksURL != tt.wantIssuer+"/.well-known/jwks.json" {
				t.Errorf("CognitoJWKS(%q) = %q, %q", tt.pool, jwksURL, iss)
			}
		})
	}
}

func TestChain(t *testing.T) {
	k1, _ := testKeys(t)
	const sub = "u1"
	hsTok := func(t *testing.T) string { return signHS256(t, devSecret, idClaims(t0, sub)) }
	rsTok := func(t *testing.T) string { return signRS256(t, k1, "k1", idClaims(t0, sub)) }
	user := auth.Identity{ID: sub, Name: "ann1", Groups: []string{"admin"}}

	srv := newJWKSServer(t, rsaJWK("k1", k1))
	jwks := newTestJWKS(t, srv, auth.WithClock(fixedClock(t0)))
	hs := auth.NewHS256(devSecret, auth.WithClock(fixedClock(t0)))

	tests := []struct {
		name  string
		chain auth.Verifier
		token func(t *testing.T) string
		want  auth.Identity
	}{
		{"JWKS only rejects HS256", auth.Chain(jwks), hsTok, auth.Identity{}},
		{"JWKS only with a nil HS256 verifier rejects HS256", auth.Chain(jwks, nil), hsTok, auth.Identity{}},
		{"JWKS only accepts RS256", auth.Chain(jwks), rsTok, user},
		{"both route HS256 to HS256", auth.Chain(jwks, hs), hsTok, user},
		{"both route RS256 to JWKS", auth.Chain(jwks, hs), rsTok, user},
		{"HS256 only rejects RS256", auth.Chain(hs), rsTok, auth.Identity{}},
		{"empty chain rejects everything", auth.Chain(), hsTok, auth.Identity{}},
		{"alg none is rejected", auth.Chain(jwks, hs), func(t *testing.T) string {
			return rawToken(t, map[string]any{"alg": "none"}, idClaims(t0, sub), nil)
		}, auth.Identity{}},
		{"unsupported alg is rejected", auth.Chain(jwks, hs), func(t *testing.T) string {
			return rawToken(t, map[string]any{"alg": "ES256", "kid": "k1"}, idClaims(t0, sub), hmacSHA256(devSecret))
		}, auth.Identity{}},
		{"malformed header is rejected", auth.Chain(jwks, hs), func(*testing.T) string { return "!!.e30.x" }, auth.Identity{}},
		{"two segments are rejected", auth.Chain(jwks, hs), func(*testing.T) string { return "e30.e30" }, auth.Identity{}},
		{"nested chain routes too", auth.Chain(auth.Chain(hs), jwks), rsTok, user},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.chain.Verify(context.Background(), tt.token(t))
			checkVerify(t, got, err, tt.want)
		})
	}

	t.Run("HS256 rejection does not fetch keys", func(t *testing.T) {
		srv := newJWKSServer(t, rsaJWK("k1", k1))
		_, err := auth.Chain(newTestJWKS(t, srv)).Verify(context.Background(), signHS256(t, devSecret, idClaims(time.Now(), sub)))
		if !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("Verify error = %v, want ErrInvalidToken", err)
		}
		if n := srv.hits.Load(); n != 0 {
			t.Errorf("keys fetched %d times, want 0", n)
		}
	})
	t.Run("verifier without algorithms panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Chain did not panic")
			}
		}()
		auth.Chain(auth.VerifierFunc(func(context.Context, string) (auth.Identity, error) {
			return auth.Identity{ID: "x"}, nil
		}))
	})
}
