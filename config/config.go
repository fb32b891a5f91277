// Package config reads the settings shared by the local server and the Lambda function
// from environment variables (the local server also takes flags for some of them).
package config

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
)

// Mode selects defaults: Local (playground and cost extension on, dev tokens allowed) or
// Lambda (both off, HS256 dev tokens never accepted).
type Mode int

// Modes.
const (
	Local Mode = iota
	Lambda
)

// DefaultLocalOrigins are the dev-server origins allowed by CORS locally.
const DefaultLocalOrigins = "http://localhost:3000,http://localhost:5173,http://localhost:8080,http://127.0.0.1:3000,http://127.0.0.1:5173,http://127.0.0.1:8080"

// Config is the service configuration.
type Config struct {
	Mode             Mode
	Addr             string   // PICKEM_ADDR (local only), default 127.0.0.1:8080
	TableName        string   // TABLE_NAME, default "pickem"
	DynamoDBEndpoint string   // DYNAMODB_ENDPOINT: DynamoDB Local or another engine; empty = AWS (Lambda) or a DynamoDB Local the local server starts
	DevSecret        string   // PICKEM_DEV_SECRET: HS256 secret for dev tokens (local only)
	UserPoolID       string   // COGNITO_USER_POOL_ID: verify Cognito ID tokens of this pool
	ClientID         string   // COGNITO_CLIENT_ID: the app client id tokens must be issued to
	AllowedOrigins   []string // PICKEM_ALLOWED_ORIGINS, comma-separated ("*" for any)
	CostExtension    bool     // PICKEM_COST_EXTENSION
	Playground       bool     // PICKEM_PLAYGROUND
	Introspection    bool     // PICKEM_INTROSPECTION
	// TrustedDocuments (PICKEM_TRUSTED_DOCUMENTS): "builtin" (the committed manifests of
	// the frontend's documents), "embedded" (the manifest built into the binary by
	// `make lambda MANIFEST=path`) or a manifest file's path; only its documents run
	// (admins may send any). Empty, the default: any document runs.
	// server.LoadTrustedDocuments reads it, in the local server and in Lambda alike.
	TrustedDocuments string
	LogLevel         slog.Level // LOG_LEVEL: debug, info, warn, error
	// ScoringBudget (PICKEM_SCORING_BUDGET, a Go duration) bounds one scoreEvent call; 0 =
	// no budget of its own (the request's deadline still bounds it). Default: 20s in Lambda
	// (API Gateway ends every request at 30 s), none locally.
	ScoringBudget time.Duration
	// CursorKeys (PICKEM_CURSOR_KEYS: comma-separated base64 keys of at least 32 bytes)
	// sign page cursors: the first signs, all verify. Required in Lambda, where every
	// instance must share them; locally empty means a random key per run.
	CursorKeys [][]byte
	// ReadCacheTTL (PICKEM_READ_CACHE_TTL, a Go duration from 0 to MaxReadCacheTTL) is how
	// long the store's in-process cache serves the hot public reads (cards, first
	// leaderboard and standings pages); 0 turns it off. Default DefaultReadCacheTTL.
	ReadCacheTTL time.Duration
	// ScoreShards (PICKEM_SCORE_SHARDS, 1 to MaxScoreShards, default 1) is how many index
	// partitions the events and seasons created from now on spread their predictions and
	// standings over. Each event and each season keeps the count it was created with.
	ScoreShards int
	// LiveHTTPDomain (PICKEM_LIVE_HTTP_DOMAIN) is the HTTP domain of the AppSync Event API
	// the Lambda function publishes live messages to, a host name without a scheme
	// (deploy/template.yaml sets it). Empty: push is off and nothing is published. The
	// local server publishes in process and does not read it.
	LiveHTTPDomain string
	// LiveNamespace (PICKEM_LIVE_NAMESPACE, default DefaultLiveNamespace) is the channel
	// namespace of the events' live channels (domain.LiveChannel): the template's channel
	// namespace on AWS, the local server's own locally.
	LiveNamespace string
}

// DefaultLiveNamespace is PICKEM_LIVE_NAMESPACE's default.
const DefaultLiveNamespace = "pickem"

// MaxScoreShards bounds PICKEM_SCORE_SHARDS.
const MaxScoreShards = 16

// DefaultReadCacheTTL is PICKEM_READ_CACHE_TTL's default (dynamo.DefaultReadCacheTTL):
// the TTL the partition-throughput model and the template's reserved concurrency assume.
const DefaultReadCacheTTL = 2 * time.Second

// MaxReadCacheTTL bounds PICKEM_READ_CACHE_TTL: a public answer is never staler than this.
const MaxReadCacheTTL = time.Minute

// DefaultLambdaScoringBudget is PICKEM_SCORING_BUDGET's default in Lambda: with the
// function's 29 s timeout and API Gateway's 30 s, a scoring call returns with time to spare.
const DefaultLambdaScoringBudget = 20 * time.Second

// MinCursorKeyLen is the shortest key PICKEM_CURSOR_KEYS accepts (decoded bytes).
const MinCursorKeyLen = 32

// Load reads the configuration from getenv with mode's defaults.
func Load(mode Mode, getenv func(string) string) (Config, error) {
	c := Config{
		Mode:             mode,
		Addr:             or(getenv("PICKEM_ADDR"), "127.0.0.1:8080"),
		TableName:        or(getenv("TABLE_NAME"), "pickem"),
		DynamoDBEndpoint: getenv("DYNAMODB_ENDPOINT"),
		DevSecret:        getenv("PICKEM_DEV_SECRET"),
		TrustedDocuments: getenv("PICKEM_TRUSTED_DOCUMENTS"),
		UserPoolID:       getenv("COGNITO_USER_POOL_ID"),
		ClientID:         getenv("COGNITO_CLIENT_ID"),
	}
	origins := getenv("PICKEM_ALLOWED_ORIGINS")
	if origins == "" && mode == Local {
		origins = DefaultLocalOrigins
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.AllowedOrigins = append(c.AllowedOrigins, o)
		}
	}
	var err error
	if c.CostExtension, err = boolVar(getenv, "PICKEM_COST_EXTENSION", mode == Local); err != nil {
		return c, err
	}
	if c.Playground, err = boolVar(getenv, "PICKEM_PLAYGROUND", mode == Local); err != nil {
		return c, err
	}
	if c.Introspection, err = boolVar(getenv, "PICKEM_INTROSPECTION", mode == Local); err != nil {
		return c, err
	}
	if mode == Lambda {
		c.ScoringBudget = DefaultLambdaScoringBudget
	}
	if v := getenv("PICKEM_SCORING_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("config: PICKEM_SCORING_BUDGET=%q: want a duration such as 20s (0 for no budget)", v)
		}
		c.ScoringBudget = d
	}
	c.ReadCacheTTL = DefaultReadCacheTTL
	if v := getenv("PICKEM_READ_CACHE_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > MaxReadCacheTTL {
			return c, fmt.Errorf("config: PICKEM_READ_CACHE_TTL=%q: want a duration from 0 (off) to %s, such as 2s", v, MaxReadCacheTTL)
		}
		c.ReadCacheTTL = d
	}
	c.ScoreShards = 1
	if v := getenv("PICKEM_SCORE_SHARDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxScoreShards {
			return c, fmt.Errorf("config: PICKEM_SCORE_SHARDS=%q: want a whole number from 1 to %d (1 suits events of up to about 13,000 players; see docs/decisions/score-shards.md)", v, MaxScoreShards)
		}
		c.ScoreShards = n
	}
	c.LiveHTTPDomain = getenv("PICKEM_LIVE_HTTP_DOMAIN")
	if c.LiveHTTPDomain != "" && (strings.ContainsAny(c.LiveHTTPDomain, "/: ") || !strings.Contains(c.LiveHTTPDomain, ".")) {
		return c, fmt.Errorf("config: PICKEM_LIVE_HTTP_DOMAIN=%q: want the Event API's HTTP domain, a host name such as abc.appsync-api.eu-west-1.amazonaws.com (empty: push off)", c.LiveHTTPDomain)
	}
	c.LiveNamespace = or(getenv("PICKEM_LIVE_NAMESPACE"), DefaultLiveNamespace)
	if strings.Contains(c.LiveNamespace, "/") || !domain.ValidChannel(c.LiveNamespace) {
		return c, fmt.Errorf("config: PICKEM_LIVE_NAMESPACE=%q: want a channel namespace of 1 to 50 letters, digits and dashes, starting and ending with a letter or a digit", c.LiveNamespace)
	}
	if lvl := getenv("LOG_LEVEL"); lvl != "" {
		if err := c.LogLevel.UnmarshalText([]byte(lvl)); err != nil {
			return c, fmt.Errorf("config: LOG_LEVEL %q: want debug, info, warn or error", lvl)
		}
	}
	if c.CursorKeys, err = cursorKeys(getenv("PICKEM_CURSOR_KEYS")); err != nil {
		return c, err
	}
	if mode == Lambda && len(c.CursorKeys) == 0 {
		return c, fmt.Errorf("config: PICKEM_CURSOR_KEYS is required in Lambda (every instance must sign page cursors with the same key): generate one with `openssl rand -base64 32`")
	}
	if (c.UserPoolID == "") != (c.ClientID == "") {
		return c, fmt.Errorf("config: COGNITO_USER_POOL_ID and COGNITO_CLIENT_ID go together")
	}
	if mode == Lambda && c.DevSecret != "" {
		return c, fmt.Errorf("config: PICKEM_DEV_SECRET is for local development only and is refused in Lambda")
	}
	return c, nil
}

// Verifier returns the token verifier the configuration asks for: Cognito JWKS (RS256)
// when a user pool is set, HS256 with the dev secret when set (local only), both when both
// are set. With neither, every token is rejected.
func (c Config) Verifier(ctx context.Context) (auth.Verifier, error) {
	var vs []auth.Verifier
	if c.UserPoolID != "" {
		url, iss, err := auth.CognitoJWKS(c.UserPoolID)
		if err != nil {
			return nil, fmt.Errorf("config: COGNITO_USER_POOL_ID: %w", err)
		}
		v, err := auth.NewJWKS(ctx, url, iss, c.ClientID)
		if err != nil {
			return nil, fmt.Errorf("config: JWKS: %w", err)
		}
		vs = append(vs, v)
	}
	if c.DevSecret != "" && c.Mode == Local {
		vs = append(vs, auth.NewHS256([]byte(c.DevSecret)))
	}
	return auth.Chain(vs...), nil
}

// cursorKeys parses PICKEM_CURSOR_KEYS. Errors never quote a key.
func cursorKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, k := range strings.Split(v, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		var b []byte
		var err error
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err = enc.DecodeString(k); err == nil {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("config: PICKEM_CURSOR_KEYS: key %d is not base64", i+1)
		}
		if len(b) < MinCursorKeyLen {
			return nil, fmt.Errorf("config: PICKEM_CURSOR_KEYS: key %d has %d bytes, want at least %d", i+1, len(b), MinCursorKeyLen)
		}
		keys = append(keys, b)
	}
	return keys, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func boolVar(getenv func(string) string, name string, def bool) (bool, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("config: %s=%q: want true or false", name, v)
	}
	return b, nil
}
