package auth

import (
	"slices"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Bounds of a verifier's verifiedTokens: at most maxVerifiedTokens entries, each token at
// most maxVerifiedTokenLen bytes (a development token is about 300), so at most 2 MiB of
// keys. Longer tokens are verified in full every time.
const (
	maxVerifiedTokens   = 1024
	maxVerifiedTokenLen = 2 << 10
)

// verifiedTokens remembers the tokens a verifier accepted, keyed by the raw token, so that
// a client sending the same token with every request is not parsed, decoded and
// signature-checked again each time (about a thirtieth of the CPU of a small screen,
// bench/README.md).
//
// It is safe because everything the verification decides is fixed by the token's bytes
// and the verifier's settings (secret, issuer, audience), except time: an entry answers
// only while the clock is within the token's own window — from its iat and nbf to its exp,
// without Leeway — and outside it the token is verified again in full, which applies the
// leeway exactly and gives the precise error (an expired token still answers
// ErrTokenExpired). Only tokens that verified are kept, so only a holder of the secret
// can fill it; when full it is emptied (simple, and refilled by the next requests).
//
// Only the HS256 verifier uses it (the local server, tests, the benchmarks). The JWKS
// verifier does not: keys can leave the key set (its hourly refresh stops trusting them),
// and a remembered token must not outlive its key; in Lambda, API Gateway's authorizer
// has verified the token before the function runs.
type verifiedTokens struct {
	mu sync.Mutex
	m  map[string]verifiedToken
}

type verifiedToken struct {
	id          Identity
	from, until time.Time // valid while from <= now < until
}

// lookup returns the identity of token if it verified before and now is within its
// window.
func (c *verifiedTokens) lookup(token string, now time.Time) (Identity, bool) {
	c.mu.Lock()
	e, ok := c.m[token]
	c.mu.Unlock()
	if !ok || now.Before(e.from) || !now.Before(e.until) {
		return Identity{}, false
	}
	id := e.id
	id.Groups = slices.Clone(id.Groups) // the caller's to keep
	return id, true
}

// add remembers token, which verified with claims as id.
func (c *verifiedTokens) add(token string, id Identity, claims jwt.MapClaims) {
	if len(token) > maxVerifiedTokenLen {
		return
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil { // exp is required: a token without one did not verify
		return
	}
	e := verifiedToken{id: id, until: exp.Time}
	e.id.Groups = slices.Clone(id.Groups)
	for _, get := range []func() (*jwt.NumericDate, error){claims.GetIssuedAt, claims.GetNotBefore} {
		t, err := get()
		if err != nil {
			return
		}
		if t != nil && t.After(e.from) {
			e.from = t.Time
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxVerifiedTokens {
		c.m = make(map[string]verifiedToken)
	}
	c.m[token] = e
}
