package auth_test

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pickem/api/internal/testclock"
)

// t0 is the fixed "now" of tests that sign tokens with explicit times.
var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

func newClock(t time.Time) *testclock.Clock { return testclock.New(t) }

// fixedClock returns a clock function that always answers t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// claimsAt returns valid ID-token claims for sub, issued at now.
func claimsAt(now time.Time, sub string) jwt.MapClaims {
	return jwt.MapClaims{
		"sub":       sub,
		"iat":       now.Unix(),
		"exp":       now.Add(time.Hour).Unix(),
		"token_use": "id",
	}
}

// with returns a copy of c with the given changes; a nil value deletes the claim.
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(out, k)
		} else {
			out[k] = kv[i+1]
		}
	}
	return out
}

func signHS256(t *testing.T, secret []byte, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatalf("sign HS256: %v", err)
	}
	return s
}

func signRS256(t *testing.T, key *rsa.PrivateKey, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign RS256: %v", err)
	}
	return s
}

// rawToken builds a compact JWS from an arbitrary header, claims and
// signature function (for tokens the jwt package refuses to make).
func rawToken(t *testing.T, header map[string]any, claims jwt.MapClaims, sign func(signingInput string) []byte) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	in := enc(header) + "." + enc(claims)
	var sig []byte
	if sign != nil {
		sig = sign(in)
	}
	return in + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func hmacSHA256(key []byte) func(string) []byte {
	return func(in string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(in))
		return m.Sum(nil)
	}
}

var rsaKeys = sync.OnceValues(func() ([2]*rsa.PrivateKey, error) {
	var ks [2]*rsa.PrivateKey
	for i := range ks {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return ks, err
		}
		ks[i] = k
	}
	return ks, nil
})

// testKeys returns two RSA keys generated once per test binary.
func testKeys(t *testing.T) (k1, k2 *rsa.PrivateKey) {
	t.Helper()
	ks, err := rsaKeys()
	if err != nil {
		t.Fatalf("generate RSA keys: %v", err)
	}
	return ks[0], ks[1]
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
}

func rsaJWK(kid string, k *rsa.PrivateKey) jwk {
	return jwk{
		Kty: "RSA", Kid: kid, Alg: "RS256", Use: "sig",
		N: base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
	}
}

// jwksServer serves a JWK Set that tests can change, counting fetches.
type jwksServer struct {
	*httptest.Server
	hits   atomic.Int64
	body   atomic.Pointer[[]byte]
	status atomic.Int64
	gate   atomic.Pointer[chan struct{}] // if set, requests wait for it to close
}

func newJWKSServer(t *testing.T, keys ...jwk) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.setKeys(t, keys...)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if g := s.gate.Load(); g != nil {
			<-*g
		}
		if r.URL.Path != "/.well-known/jwks.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(s.status.Load()))
		w.Write(*s.body.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) setKeys(t *testing.T, keys ...jwk) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	s.body.Store(&b)
}

func (s *jwksServer) jwksURL() string { return s.URL + "/.well-known/jwks.json" }
