package config

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// testKey is a valid PICKEM_CURSOR_KEYS value (32 bytes).
const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// lambdaEnv is the least Lambda needs plus m.
func lambdaEnv(m map[string]string) func(string) string {
	all := map[string]string{"PICKEM_CURSOR_KEYS": testKey}
	for k, v := range m {
		all[k] = v
	}
	return env(all)
}

func TestLoadDefaults(t *testing.T) {
	local, err := Load(Local, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if local.Addr != "127.0.0.1:8080" || local.TableName != "pickem" || !local.Playground || !local.CostExtension {
		t.Fatalf("local defaults: %+v", local)
	}
	if len(local.AllowedOrigins) == 0 {
		t.Fatal("local allows no dev-server origin")
	}
	if len(local.CursorKeys) != 0 {
		t.Fatal("local has cursor keys without PICKEM_CURSOR_KEYS")
	}
	lambda, err := Load(Lambda, lambdaEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if lambda.Playground || lambda.CostExtension || len(lambda.AllowedOrigins) != 0 {
		t.Fatalf("lambda defaults: %+v", lambda)
	}
	if local.ScoringBudget != 0 || lambda.ScoringBudget != 20*time.Second {
		t.Fatalf("scoring budgets: local %s, lambda %s", local.ScoringBudget, lambda.ScoringBudget)
	}
	if local.ScoreShards != 1 || lambda.ScoreShards != 1 {
		t.Fatalf("score shards: local %d, lambda %d; want 1", local.ScoreShards, lambda.ScoreShards)
	}
}

func TestLoadScoreShards(t *testing.T) {
	for _, n := range []int{1, 2, 16} {
		c, err := Load(Lambda, lambdaEnv(map[string]string{"PICKEM_SCORE_SHARDS": fmt.Sprint(n)}))
		if err != nil || c.ScoreShards != n {
			t.Errorf("PICKEM_SCORE_SHARDS=%d: %d %v", n, c.ScoreShards, err)
		}
	}
}

func TestLoadScoringBudget(t *testing.T) {
	for v, want := range map[string]time.Duration{"2s": 2 * time.Second, "0": 0, "1m30s": 90 * time.Second} {
		c, err := Load(Lambda, lambdaEnv(map[string]string{"PICKEM_SCORING_BUDGET": v}))
		if err != nil || c.ScoringBudget != want {
			t.Errorf("PICKEM_SCORING_BUDGET=%s: %s %v, want %s", v, c.ScoringBudget, err, want)
		}
	}
}

func TestLoadReadCacheTTL(t *testing.T) {
	for v, want := range map[string]time.Duration{"": DefaultReadCacheTTL, "0": 0, "500ms": 500 * time.Millisecond, "1m": time.Minute} {
		for _, mode := range []Mode{Local, Lambda} {
			c, err := Load(mode, lambdaEnv(map[string]string{"PICKEM_READ_CACHE_TTL": v}))
			if err != nil || c.ReadCacheTTL != want {
				t.Errorf("PICKEM_READ_CACHE_TTL=%q: %s %v, want %s", v, c.ReadCacheTTL, err, want)
			}
		}
	}
}

func TestLoadReadsEnvironment(t *testing.T) {
	c, err := Load(Lambda, lambdaEnv(map[string]string{
		"TABLE_NAME": "t", "DYNAMODB_ENDPOINT": "http://127.0.0.1:8000", "LOG_LEVEL": "debug",
		"PICKEM_ALLOWED_ORIGINS": " https://a.example , https://b.example ", "PICKEM_COST_EXTENSION": "true",
		"COGNITO_USER_POOL_ID": "eu-west-1_abc", "COGNITO_CLIENT_ID": "client",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.TableName != "t" || c.DynamoDBEndpoint == "" || c.LogLevel != slog.LevelDebug || !c.CostExtension ||
		len(c.AllowedOrigins) != 2 || c.AllowedOrigins[1] != "https://b.example" {
		t.Fatalf("config: %+v", c)
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := map[string]struct {
		mode Mode
		env  map[string]string
	}{
		"DevSecretInLambda":     {Lambda, map[string]string{"PICKEM_DEV_SECRET": "s", "PICKEM_CURSOR_KEYS": testKey}},
		"NoCursorKeyInLambda":   {Lambda, map[string]string{}},
		"CursorKeyNotBase64":    {Local, map[string]string{"PICKEM_CURSOR_KEYS": "not base64!"}},
		"CursorKeyTooShort":     {Local, map[string]string{"PICKEM_CURSOR_KEYS": testKey + ",c2hvcnQ="}},
		"PoolWithoutClient":     {Local, map[string]string{"COGNITO_USER_POOL_ID": "eu-west-1_abc"}},
		"BadBool":               {Local, map[string]string{"PICKEM_PLAYGROUND": "maybe"}},
		"BadLogLevel":           {Local, map[string]string{"LOG_LEVEL": "loud"}},
		"BadScoringBudget":      {Lambda, map[string]string{"PICKEM_SCORING_BUDGET": "20"}},
		"NegativeBudget":        {Local, map[string]string{"PICKEM_SCORING_BUDGET": "-1s"}},
		"ReadCacheTTLTooLong":   {Local, map[string]string{"PICKEM_READ_CACHE_TTL": "61s"}},
		"ReadCacheTTLNotTime":   {Local, map[string]string{"PICKEM_READ_CACHE_TTL": "2"}},
		"NoScoreShards":         {Local, map[string]string{"PICKEM_SCORE_SHARDS": "0"}},
		"TooManyScoreShards":    {Lambda, map[string]string{"PICKEM_SCORE_SHARDS": "17", "PICKEM_CURSOR_KEYS": testKey}},
		"ScoreShardsNotANumber": {Local, map[string]string{"PICKEM_SCORE_SHARDS": "sixteen"}},
		"MalformedPoolInJWKS":   {Local, map[string]string{"COGNITO_USER_POOL_ID": "nounderscore", "COGNITO_CLIENT_ID": "c"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := Load(tt.mode, env(tt.env))
			if err == nil {
				_, err = c.Verifier(context.Background())
			}
			if err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestLoadCursorKeys(t *testing.T) {
	c, err := Load(Local, env(map[string]string{
		// Standard, unpadded and URL-safe base64, spaces and empty items.
		"PICKEM_CURSOR_KEYS": " " + testKey + " ,, MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWZn,_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.CursorKeys) != 3 || string(c.CursorKeys[0]) != "0123456789abcdef0123456789abcdef" || len(c.CursorKeys[1]) != 33 {
		t.Fatalf("keys %q", c.CursorKeys)
	}
	_, err = Load(Local, env(map[string]string{"PICKEM_CURSOR_KEYS": "c2VjcmV0LXNlY3JldA=="}))
	if err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Fatalf("error %v quotes the key or is missing", err)
	}
}

func TestLoadLive(t *testing.T) {
	c, err := Load(Lambda, lambdaEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.LiveHTTPDomain != "" || c.LiveNamespace != DefaultLiveNamespace {
		t.Errorf("defaults: domain %q (want empty: push off), namespace %q (want %q)", c.LiveHTTPDomain, c.LiveNamespace, DefaultLiveNamespace)
	}
	c, err = Load(Lambda, lambdaEnv(map[string]string{"PICKEM_LIVE_HTTP_DOMAIN": "abc.appsync-api.eu-west-1.amazonaws.com", "PICKEM_LIVE_NAMESPACE": "shows"}))
	if err != nil || c.LiveHTTPDomain != "abc.appsync-api.eu-west-1.amazonaws.com" || c.LiveNamespace != "shows" {
		t.Errorf("set: %q %q %v", c.LiveHTTPDomain, c.LiveNamespace, err)
	}
	for name, e := range map[string]map[string]string{
		"DomainWithScheme":   {"PICKEM_LIVE_HTTP_DOMAIN": "https://abc.appsync-api.eu-west-1.amazonaws.com"},
		"DomainWithPath":     {"PICKEM_LIVE_HTTP_DOMAIN": "abc.appsync-api.eu-west-1.amazonaws.com/event"},
		"DomainNotAHost":     {"PICKEM_LIVE_HTTP_DOMAIN": "appsync"},
		"NamespaceWithSlash": {"PICKEM_LIVE_NAMESPACE": "pickem/live"},
		"NamespaceDashEnd":   {"PICKEM_LIVE_NAMESPACE": "pickem-"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load(Lambda, lambdaEnv(e)); err == nil || !strings.Contains(err.Error(), "PICKEM_LIVE_") {
				t.Errorf("error %v, want one naming the variable", err)
			}
		})
	}
}
