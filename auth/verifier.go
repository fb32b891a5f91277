package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

var (
	// ErrInvalidToken is wrapped by every error a Verifier in this package
	// returns for a token that is malformed, badly signed, expired, for the
	// wrong issuer or audience, or carries unusable claims.
	ErrInvalidToken = errors.New("auth: invalid token")
	// ErrDevSecretMismatch is wrapped (with ErrInvalidToken) by the error the HS256
	// verifier returns for a well-formed token signed with another secret: typically a
	// token minted before the dev secret changed.
	ErrDevSecretMismatch = errors.New("auth: HS256 signature does not match the dev secret")
	// ErrTokenExpired is wrapped (with ErrInvalidToken) by the error a Verifier in this
	// package returns for a token past its exp.
	ErrTokenExpired = errors.New("auth: token expired")
	// ErrKeysUnavailable is wrapped by the error the JWKS verifier returns
	// when it could not load the signing keys at all (the JWKS endpoint is
	// unreachable). The token may be fine; it could not be checked.
	ErrKeysUnavailable = errors.New("auth: signing keys unavailable")
)

// Leeway is the clock skew tolerated when checking exp, nbf and iat.
const Leeway = 30 * time.Second

// maxTokenLen bounds the size of a token we are willing to parse.
const maxTokenLen = 16 << 10

// Verifier checks a raw token and returns the identity from its claims.
type Verifier interface {
	Verify(ctx context.Context, token string) (Identity, error)
}

// AlgorithmVerifier is a Verifier that accepts only tokens whose JWS header
// "alg" is one of Algorithms. Chain routes tokens by it. The verifiers made by
// NewHS256, NewJWKS and Chain implement it.
type AlgorithmVerifier interface {
	Verifier
	Algorithms() []string
}

// VerifierFunc adapts a function to the Verifier interface (handy in tests of
// other packages). It is not an AlgorithmVerifier, so Chain rejects it.
type VerifierFunc func(ctx context.Context, token string) (Identity, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (Identity, error) {
	return f(ctx, token)
}

// Option configures NewHS256 and NewJWKS.
type Option func(*config)

type config struct {
	now        func() time.Time
	issuer     string
	audience   string
	httpClient *http.Client
}

// WithClock makes the verifier use now instead of time.Now to check exp, nbf
// and iat (and, for JWKS, to time retries after a failed key fetch).
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithIssuer makes NewHS256 require the "iss" claim to equal iss. Ignored by
// NewJWKS, which takes the issuer as an argument.
func WithIssuer(iss string) Option { return func(c *config) { c.issuer = iss } }

// WithAudience makes NewHS256 require the "aud" claim to contain aud. Ignored
// by NewJWKS, which takes the client id as an argument.
func WithAudience(aud string) Option { return func(c *config) { c.audience = aud } }

// WithHTTPClient sets the HTTP client NewJWKS uses to fetch keys (default
// http.DefaultClient; each fetch is bounded by a timeout regardless).
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

func newConfig(opts []Option) config {
	c := config{now: time.Now, httpClient: http.DefaultClient}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.httpClient == nil {
		c.httpClient = http.DefaultClient
	}
	return c
}

func (c config) parser(alg string) *jwt.Parser {
	po := []jwt.ParserOption{
		jwt.WithValidMethods([]string{alg}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(c.now),
	}
	if c.issuer != "" {
		po = append(po, jwt.WithIssuer(c.issuer))
	}
	if c.audience != "" {
		po = append(po, jwt.WithAudience(c.audience))
	}
	return jwt.NewParser(po...)
}

// verifyWith parses and checks token with p and kf, then builds the identity.
func verifyWith(p *jwt.Parser, token string, kf jwt.Keyfunc) (Identity, error) {
	if token == "" {
		return Identity{}, fmt.Errorf("%w: empty token", ErrInvalidToken)
	}
	if len(token) > maxTokenLen {
		return Identity{}, fmt.Errorf("%w: token too large", ErrInvalidToken)
	}
	claims := jwt.MapClaims{}
	if _, err := p.ParseWithClaims(token, claims, kf); err != nil {
		switch {
		case errors.Is(err, ErrKeysUnavailable):
			return Identity{}, err
		case errors.Is(err, jwt.ErrTokenExpired):
			return Identity{}, fmt.Errorf("%w: %w: %w", ErrInvalidToken, ErrTokenExpired, err)
		}
		return Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if tu, ok := claims[claimTokenUse]; ok && tu != "id" {
		return Identity{}, fmt.Errorf("%w: token_use %v, want id", ErrInvalidToken, tu)
	}
	id, err := IdentityFromClaims(claims)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	return id, nil
}

// ---------------------------------------------------------------------------
// HS256 (local development and tests only)

type hs256Verifier struct {
	secret []byte
	parser *jwt.Parser
}

// NewHS256 verifies HS256 tokens signed with secret. It is meant for local
// development and tests only and must never be configured in Lambda. It
// requires exp and checks nbf and iat with Leeway; with WithIssuer or
// WithAudience it also checks iss or aud. A token_use claim, when present,
// must be "id". An empty secret makes every token invalid. Use a secret of at
// least 32 random bytes.
func NewHS256(secret []byte, opts ...Option) Verifier {
	c := newConfig(opts)
	return &hs256Verifier{
		secret: append([]byte(nil), secret...),
		parser: c.parser(jwt.SigningMethodHS256.Alg()),
	}
}

func (v *hs256Verifier) Algorithms() []string { return []string{jwt.SigningMethodHS256.Alg()} }

func (v *hs256Verifier) Verify(_ context.Context, token string) (Identity, error) {
	if len(v.secret) == 0 {
		return Identity{}, fmt.Errorf("%w: no HS256 secret configured", ErrInvalidToken)
	}
	id, err := verifyWith(v.parser, token, func(*jwt.Token) (any, error) { return v.secret, nil })
	if errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		err = fmt.Errorf("%w: %w", ErrDevSecretMismatch, err)
	}
	return id, err
}

// MintHS256 makes a development token signed with secret, with claims sub,
// name (omitted if empty), cognito:groups (omitted if empty), iat, exp =
// now+ttl and token_use "id". id.ID must satisfy ValidUserID and ttl must be
// positive.
func MintHS256(secret []byte, id Identity, ttl time.Duration) (string, error) {
	if len(secret) == 0 {
		return "", errors.New("auth: MintHS256: empty secret")
	}
	if !ValidUserID(id.ID) {
		return "", fmt.Errorf("auth: MintHS256: invalid user id %q", id.ID)
	}
	if ttl <= 0 {
		return "", fmt.Errorf("auth: MintHS256: ttl %v must be positive", ttl)
	}
	now := time.Now()
	claims := jwt.MapClaims{
		claimSub:      id.ID,
		"iat":         now.Unix(),
		"exp":         now.Add(ttl).Unix(),
		claimTokenUse: "id",
	}
	if id.Name != "" {
		claims[claimName] = id.Name
	}
	if len(id.Groups) > 0 {
		claims[claimGroups] = append([]string(nil), id.Groups...)
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		return "", fmt.Errorf("auth: MintHS256: %w", err)
	}
	return s, nil
}

// ---------------------------------------------------------------------------
// JWKS (Cognito, RS256)

const (
	// jwksFetchTimeout bounds one fetch of the JWKS document.
	jwksFetchTimeout = 10 * time.Second
	// jwksRefreshInterval is how often cached keys are refreshed in the
	// background (so removed keys stop being trusted).
	jwksRefreshInterval = time.Hour
	// jwksUnknownKIDInterval rate-limits refreshes triggered by tokens with
	// an unknown key id.
	jwksUnknownKIDInterval = time.Minute
	// jwksUnknownKIDWaitMax bounds how long a request waits for the
	// unknown-kid rate limiter plus the refresh itself.
	jwksUnknownKIDWaitMax = 10 * time.Second
	// jwksRetryAfter is the minimum delay before retrying a failed first
	// fetch of the keys.
	jwksRetryAfter = 5 * time.Second
)

type jwksVerifier struct {
	lifetime context.Context // ends the background refresh
	url      string
	cfg      config
	parser   *jwt.Parser

	mu       sync.Mutex
	kf       keyfunc.Keyfunc // nil until the first successful fetch
	inflight *jwksInit       // non-nil while a first fetch runs
	retryAt  time.Time       // no new first fetch before this
	lastErr  error           // error of the last failed first fetch
	// stopRefresh ends the background refresh of the loaded keys. Nothing
	// calls it today: the refresh ends with lifetime.
	stopRefresh context.CancelFunc
}

type jwksInit struct {
	done chan struct{}
	kf   keyfunc.Keyfunc
	err  error
}

// NewJWKS verifies RS256 Cognito ID tokens against the JWK Set at jwksURL.
//
// Keys are fetched lazily on the first verification (never by NewJWKS, which
// succeeds even when the JWKS host is unreachable), cached, refreshed every
// hour in the background and on a token with an unknown key id (at most once
// a minute). A failed first fetch is retried no sooner than 5 s later;
// meanwhile Verify fails with ErrKeysUnavailable. ctx bounds the background
// refresh: pass the server's lifetime context, not a request's.
//
// A token is valid if it is RS256-signed by a key of the set, its iss equals
// issuer exactly, its aud contains clientID, exp (required), nbf and iat hold
// with Leeway, token_use (when present) is "id", and sub satisfies
// ValidUserID. jwksURL must be https (http is allowed for loopback hosts).
func NewJWKS(ctx context.Context, jwksURL, issuer, clientID string, opts ...Option) (Verifier, error) {
	if ctx == nil {
		return nil, errors.New("auth: NewJWKS: nil context")
	}
	u, err := url.Parse(jwksURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("auth: NewJWKS: invalid JWKS URL %q", jwksURL)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !isLoopback(u.Hostname())) {
		return nil, fmt.Errorf("auth: NewJWKS: JWKS URL %q must use https", jwksURL)
	}
	if issuer == "" {
		return nil, errors.New("auth: NewJWKS: empty issuer")
	}
	if clientID == "" {
		return nil, errors.New("auth: NewJWKS: empty client id")
	}
	c := newConfig(opts)
	c.issuer, c.audience = issuer, clientID
	return &jwksVerifier{
		lifetime: ctx,
		url:      jwksURL,
		cfg:      c,
		parser:   c.parser(jwt.SigningMethodRS256.Alg()),
	}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (v *jwksVerifier) Algorithms() []string { return []string{jwt.SigningMethodRS256.Alg()} }

func (v *jwksVerifier) Verify(ctx context.Context, token string) (Identity, error) {
	return verifyWith(v.parser, token, func(t *jwt.Token) (any, error) {
		kf, err := v.keyfunc(ctx)
		if err != nil {
			return nil, err
		}
		return kf.KeyfuncCtx(ctx)(t)
	})
}

// keyfunc returns the cached keyfunc, fetching the JWK Set first if needed.
// Concurrent callers share one fetch; each waits no longer than its ctx.
func (v *jwksVerifier) keyfunc(ctx context.Context) (keyfunc.Keyfunc, error) {
	v.mu.Lock()
	if v.kf != nil {
		kf := v.kf
		v.mu.Unlock()
		return kf, nil
	}
	call := v.inflight
	if call == nil {
		if v.cfg.now().Before(v.retryAt) {
			err := v.lastErr
			v.mu.Unlock()
			return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
		}
		call = &jwksInit{done: make(chan struct{})}
		v.inflight = call
		go v.load(call)
	}
	v.mu.Unlock()

	select {
	case <-call.done:
		return call.kf, call.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for keys: %w", ErrKeysUnavailable, ctx.Err())
	}
}

// load performs the first fetch of the JWK Set and publishes the result.
func (v *jwksVerifier) load(call *jwksInit) {
	kf, stop, err := v.newKeyfunc()
	v.mu.Lock()
	v.inflight = nil
	if err != nil {
		v.lastErr = err
		v.retryAt = v.cfg.now().Add(jwksRetryAfter)
		call.err = fmt.Errorf("%w: %w", ErrKeysUnavailable, err)
	} else {
		v.kf, v.stopRefresh = kf, stop
		call.kf = kf
	}
	v.mu.Unlock()
	close(call.done)
}

// newKeyfunc fetches the JWK Set and returns a keyfunc over it and the
// function that stops its background refresh.
func (v *jwksVerifier) newKeyfunc() (keyfunc.Keyfunc, context.CancelFunc, error) {
	refreshCtx, cancel := context.WithCancel(v.lifetime)
	logRefreshError := func(ctx context.Context, err error) {
		slog.Default().WarnContext(ctx, "auth: refreshing JWK Set failed", "url", v.url, "error", err)
	}
	// NewStorageFromHTTP performs the first fetch synchronously and starts
	// the background refresh goroutine, which refreshCtx ends.
	remote, err := jwkset.NewStorageFromHTTP(v.url, jwkset.HTTPClientStorageOptions{
		Client:              v.cfg.httpClient,
		Ctx:                 refreshCtx,
		HTTPTimeout:         jwksFetchTimeout,
		RefreshErrorHandler: logRefreshError,
		RefreshInterval:     jwksRefreshInterval,
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	storage, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs:          map[string]jwkset.Storage{v.url: remote},
		RateLimitWaitMax:  jwksUnknownKIDWaitMax,
		RefreshUnknownKID: rate.NewLimiter(rate.Every(jwksUnknownKIDInterval), 1),
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	kf, err := keyfunc.New(keyfunc.Options{
		Ctx:          v.lifetime,
		Storage:      storage,
		UseWhitelist: []jwkset.USE{jwkset.UseSig, ""},
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return kf, cancel, nil
}

// CognitoJWKS returns the JWKS URL and issuer of a Cognito user pool such as
// "eu-west-1_AbC123": issuer https://cognito-idp.<region>.amazonaws.com/<poolID>,
// JWKS URL issuer + "/.well-known/jwks.json". The region is the pool id's
// prefix before "_".
func CognitoJWKS(userPoolID string) (jwksURL, issuer string, err error) {
	region, suffix, ok := strings.Cut(userPoolID, "_")
	if !ok || !validRegion(region) || !validPoolSuffix(suffix) {
		return "", "", fmt.Errorf("auth: malformed Cognito user pool id %q (want <region>_<id>, e.g. eu-west-1_AbC123)", userPoolID)
	}
	issuer = "https://cognito-idp." + region + ".amazonaws.com/" + userPoolID
	return issuer + "/.well-known/jwks.json", issuer, nil
}

// validRegion accepts AWS region names such as us-east-1 or us-gov-west-1.
func validRegion(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 3 {
		return false
	}
	for i, p := range parts {
		if p == "" {
			return false
		}
		last := i == len(parts)-1
		for j := 0; j < len(p); j++ {
			c := p[j]
			if last && !('0' <= c && c <= '9') || !last && !('a' <= c && c <= 'z') {
				return false
			}
		}
	}
	return true
}

func validPoolSuffix(s string) bool {
	if s == "" || len(s) > 50 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Chain

type chain struct {
	byAlg map[string]Verifier
	algs  []string
}

// Chain routes each token by the "alg" of its JWS header to the first of vs
// that accepts that algorithm: an HS256 token goes to the HS256 verifier
// only, an RS256 token to the JWKS verifier only, and a token whose alg no
// verifier accepts is invalid. So HS256 is never accepted unless an HS256
// verifier was configured. Nil verifiers are skipped (convenient for optional
// ones); Chain panics if a verifier is not an AlgorithmVerifier.
func Chain(vs ...Verifier) Verifier {
	c := &chain{byAlg: map[string]Verifier{}}
	for _, v := range vs {
		if v == nil {
			continue
		}
		av, ok := v.(AlgorithmVerifier)
		if !ok {
			panic(fmt.Sprintf("auth.Chain: %T is not an AlgorithmVerifier", v))
		}
		for _, alg := range av.Algorithms() {
			if _, dup := c.byAlg[alg]; !dup {
				c.byAlg[alg] = v
				c.algs = append(c.algs, alg)
			}
		}
	}
	return c
}

func (c *chain) Algorithms() []string { return append([]string(nil), c.algs...) }

func (c *chain) Verify(ctx context.Context, token string) (Identity, error) {
	if len(token) > maxTokenLen {
		return Identity{}, fmt.Errorf("%w: token too large", ErrInvalidToken)
	}
	alg, err := headerAlg(token)
	if err != nil {
		return Identity{}, err
	}
	v, ok := c.byAlg[alg]
	if !ok {
		return Identity{}, fmt.Errorf("%w: no verifier for alg %q", ErrInvalidToken, alg)
	}
	return v.Verify(ctx, token)
}

// headerAlg returns the "alg" of a compact JWS's header without verifying it.
func headerAlg(token string) (string, error) {
	head, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return "", fmt.Errorf("%w: malformed token", ErrInvalidToken)
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return "", fmt.Errorf("%w: malformed token header", ErrInvalidToken)
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.Alg == "" {
		return "", fmt.Errorf("%w: malformed token header", ErrInvalidToken)
	}
	return h.Alg, nil
}
