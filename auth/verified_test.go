package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pickem/api/auth"
)

// A token that verified once is remembered (verifiedTokens) only within its own window:
// every answer stays the one a full verification gives at that instant.
func TestHS256RemembersVerifiedTokensWithinTheirWindow(t *testing.T) {
	const sub = "3f1c2a4e-8b7d-4c1e-9f00-0123456789ab"
	want := auth.Identity{ID: sub, Name: "Ann", Groups: []string{"admin"}}
	claims := with(claimsAt(t0, sub), "name", "Ann", "cognito:groups", []string{"admin"}, "nbf", t0.Add(time.Minute).Unix())
	tok := signHS256(t, devSecret, claims)
	clock := newClock(t0.Add(time.Minute))
	v := auth.NewHS256(devSecret, auth.WithClock(clock.Now))
	ctx := context.Background()

	got, err := v.Verify(ctx, tok)
	checkVerify(t, got, err, want)
	got.Groups[0] = "changed by the caller"
	got, err = v.Verify(ctx, tok)
	checkVerify(t, got, err, want)
	if allocs := testing.AllocsPerRun(20, func() { _, _ = v.Verify(ctx, tok) }); allocs > 2 {
		t.Errorf("a remembered token costs %v allocations, want at most 2 (is it verified again?)", allocs)
	}

	// Another token with the same claims but another signature is not the remembered one.
	forged := tok[:len(tok)-2] + "AA"
	if tok[len(tok)-2:] == "AA" {
		forged = tok[:len(tok)-2] + "BB"
	}
	if _, err := v.Verify(ctx, forged); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("forged signature: %v, want ErrInvalidToken", err)
	}

	// Past exp: within the leeway still valid, beyond it expired, as a full verification.
	clock.Set(t0.Add(time.Hour + 20*time.Second))
	got, err = v.Verify(ctx, tok)
	checkVerify(t, got, err, want)
	clock.Set(t0.Add(time.Hour + 31*time.Second))
	if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrTokenExpired) {
		t.Errorf("expired remembered token: %v, want ErrTokenExpired", err)
	}
	// Before nbf (a clock set back): beyond the leeway not yet valid.
	clock.Set(t0)
	if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("remembered token before its nbf: %v, want ErrInvalidToken", err)
	}
	clock.Set(t0.Add(time.Minute - 10*time.Second))
	got, err = v.Verify(ctx, tok)
	checkVerify(t, got, err, want)
}
