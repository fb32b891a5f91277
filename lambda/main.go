// Command lambda runs the Pick'Em API as an AWS Lambda function behind an API Gateway HTTP
// API (payload format 2.0). It serves the same http.Handler as the local server, adapted
// to API Gateway v2 events by aws-lambda-go-api-proxy's httpadapter.
//
// Configuration comes from the environment through config.Load(config.Lambda, …):
// TABLE_NAME, DYNAMODB_ENDPOINT (optional: another engine), COGNITO_USER_POOL_ID and
// COGNITO_CLIENT_ID, PICKEM_CURSOR_KEYS (required: the keys that sign page cursors),
// PICKEM_ALLOWED_ORIGINS, PICKEM_COST_EXTENSION and PICKEM_PLAYGROUND (both off by
// default), PICKEM_INTROSPECTION (default off), PICKEM_TRUSTED_DOCUMENTS ("builtin": only
// the frontend's documents run; "embedded": only those of the manifest built in by
// `make lambda MANIFEST=path`), PICKEM_SCORING_BUDGET (default 20s), PICKEM_READ_CACHE_TTL
// (default 2s), PICKEM_SCORE_SHARDS (default 1), PICKEM_LIVE_HTTP_DOMAIN and
// PICKEM_LIVE_NAMESPACE (push to AppSync Events; empty domain: off), LOG_LEVEL
// (docs/operations.md, "Configuration"). PICKEM_DEV_SECRET is refused: HS256
// development tokens are never accepted in Lambda.
//
// Identity: the HTTP API has no JWT authorizer on its routes (an authorizer cannot be
// optional, and signed-out players read events and standings), so the function verifies
// Cognito ID tokens itself against the pool's JWKS. If API Gateway did attach verified JWT
// claims to the request context, those are used instead.
//
// Build with `make lambda` (provided.al2023, arm64, -tags lambda.norpc), or
// `make lambda MANIFEST=path` to build a trusted-documents manifest in (tag
// pickem_manifest, package operations/embedded).
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/pickem/api/config"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/push"
	"github.com/pickem/api/server"
)

func main() {
	// The background context outlives every invocation: the JWKS verifier's key cache and
	// its hourly refresh live as long as the execution environment.
	fn, err := newFunction(context.Background(), os.Getenv, os.Stdout)
	if err != nil {
		// Lambda reports an init failure (Runtime.ExitError) when the process exits
		// before asking for its first invocation; the message lands in CloudWatch.
		fmt.Fprintln(os.Stderr, "lambda:", err)
		os.Exit(1)
	}
	slog.SetDefault(fn.log)
	lambda.Start(fn.Handle)
}

// function is the Lambda handler: the API's http.Handler behind the API Gateway v2
// adapter, with one JSON access-log line per invocation.
type function struct {
	adapter *httpadapter.HandlerAdapterV2
	log     *slog.Logger
	// live publishes each commit's live message to AppSync Events on channels of
	// liveNamespace (domain.LiveChannel), through the store (dynamo.WithLive); nil and ""
	// when push is off (PICKEM_LIVE_HTTP_DOMAIN empty).
	live          push.Publisher
	liveNamespace string
}

// newFunction reads the configuration from getenv and wires the store, the token verifier
// and the API handler. Logs are JSON lines written to logw. ctx bounds background work
// (the JWKS refresh); pass a context that lives as long as the process. It does not touch
// the network: the table must exist (CloudFormation creates it) and the signing keys are
// fetched on the first bearer token.
func newFunction(ctx context.Context, getenv func(string) string, logw io.Writer) (*function, error) {
	cfg, err := config.Load(config.Lambda, getenv)
	if err != nil {
		return nil, err
	}
	log := slog.New(requestIDHandler{slog.NewJSONHandler(logw, &slog.HandlerOptions{Level: cfg.LogLevel})})
	var (
		live          push.Publisher
		liveNamespace string
	)
	storeOpts := []dynamo.Option{dynamo.WithScoringBudget(cfg.ScoringBudget), dynamo.WithCursorKeys(cfg.CursorKeys...),
		dynamo.WithReadCacheTTL(cfg.ReadCacheTTL), dynamo.WithScoreShards(cfg.ScoreShards)}
	if cfg.LiveHTTPDomain != "" {
		appsync, err := push.NewAppSyncFromEnv(getenv, cfg.LiveHTTPDomain, log)
		if err != nil {
			return nil, err
		}
		live, liveNamespace = appsync, cfg.LiveNamespace
		storeOpts = append(storeOpts, dynamo.WithLive(live, liveNamespace, log))
	}
	client, err := ddb.NewClient(ctx, cfg.DynamoDBEndpoint)
	if err != nil {
		return nil, err
	}
	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return nil, err
	}
	trusted, err := server.LoadTrustedDocuments(cfg.TrustedDocuments)
	if err != nil {
		return nil, err
	}
	h, err := server.New(server.Config{
		TrustedDocuments: trusted,
		Store:            dynamo.New(client, cfg.TableName, storeOpts...),
		Verifier:         verifier,
		AuthorizerClaims: authorizerClaims,
		AllowedOrigins:   cfg.AllowedOrigins,
		Playground:       cfg.Playground,
		Introspection:    cfg.Introspection,
		CostExtension:    cfg.CostExtension,
		Logger:           log,
		AccessLogAttrs:   apiGatewayAttrs,
		LiveNamespace:    liveNamespace,
	})
	if err != nil {
		return nil, err
	}
	return &function{adapter: httpadapter.NewV2(h), log: log, live: live, liveNamespace: liveNamespace}, nil
}

// Handle serves one API Gateway HTTP API (v2) event. It never returns an error: an event
// that cannot be turned into an HTTP request (a body marked base64 that is not) gets a 400
// with extensions.code BAD_REQUEST, everything else the API's own response. Each
// request is logged once: by the API's access log (server.Config.Logger, with
// apiGatewayAttrs), or here for an event that never reached it.
func (f *function) Handle(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	start := time.Now()
	resp, err := f.adapter.ProxyWithContext(ctx, ev)
	if err != nil {
		// The API's handler always writes a status, so the adapter fails only while
		// converting the event: the request is malformed.
		resp = events.APIGatewayV2HTTPResponse{
			StatusCode: http.StatusBadRequest,
			Headers:    map[string]string{"Content-Type": "application/json"},
			Body:       `{"errors":[{"message":"malformed request","extensions":{"code":"BAD_REQUEST"}}]}`,
		}
		f.log.LogAttrs(ctx, slog.LevelWarn, "request",
			slog.String("method", ev.RequestContext.HTTP.Method),
			slog.String("path", ev.RawPath),
			slog.String("operation", ""),
			slog.Int("status", resp.StatusCode),
			slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
			slog.Int("dynamodbCalls", 0),
			slog.String("caller", "unknown"),
			slog.String("apiRequestId", ev.RequestContext.RequestID),
			slog.String("error", "malformed API Gateway event: "+err.Error()),
		)
	}
	return resp, nil
}

// apiGatewayAttrs adds the API Gateway request id, and whether an authorizer attached
// claims, to a request's access-log line (the Lambda request id comes from
// requestIDHandler).
func apiGatewayAttrs(r *http.Request) []slog.Attr {
	rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok {
		return nil
	}
	return []slog.Attr{slog.String("apiRequestId", rc.RequestID), slog.Bool("authorizerClaims", hasAuthorizerClaims(rc))}
}

// authorizerClaims returns the JWT claims an API Gateway JWT authorizer verified and
// attached to the request's context (arrays such as cognito:groups arrive flattened as
// "[admin editors]"; auth.IdentityFromClaims parses them). It reads the event the adapter
// put in the Go context, never a request header: the adapter's X-GoLambdaProxy-* headers
// are not set on this path and a client could forge them.
func authorizerClaims(r *http.Request) (map[string]string, bool) {
	rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || !hasAuthorizerClaims(rc) {
		return nil, false
	}
	return rc.Authorizer.JWT.Claims, true
}

func hasAuthorizerClaims(rc events.APIGatewayV2HTTPRequestContext) bool {
	return rc.Authorizer != nil && rc.Authorizer.JWT != nil && len(rc.Authorizer.JWT.Claims) > 0
}

// requestIDHandler adds the Lambda request id ("requestId") of the record's context to
// every record logged with a context from an invocation.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		r.AddAttrs(slog.String("requestId", lc.AwsRequestID))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
