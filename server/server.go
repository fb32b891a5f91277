// Package server builds the one http.Handler that both mains serve: GraphQL at /graphql,
// an optional playground at /, /healthz, with CORS, a body-size limit, bearer-token
// identity, per-request DynamoDB cost reporting and error codes in extensions.code.
package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/domain"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/graph"
	"github.com/pickem/api/resolvers"
)

// PlaygroundAssetsPath is where a Config.PlaygroundHandler serves its files.
const PlaygroundAssetsPath = "/playground/"

// Defaults for Config's zero values. DefaultComplexityLimit is 1.3× the players' largest
// operation (the contract's ScoredEvent with 100 leaderboard rows and their picks: 1,907;
// TestLimitsAdmitLegitimateDocuments keeps 20% of room).
const (
	DefaultMaxBodyBytes    = 64 << 10
	DefaultComplexityLimit = 2500
)

// Config is what the handler needs. Store is required; everything else has a default.
type Config struct {
	Store resolvers.Store
	// Verifier checks bearer tokens; nil accepts none (every token is UNAUTHENTICATED).
	Verifier auth.Verifier
	// AuthorizerClaims returns claims an API Gateway JWT authorizer already verified.
	AuthorizerClaims func(*http.Request) (map[string]string, bool)
	// AllowedOrigins for CORS; empty allows no cross-origin browser calls.
	AllowedOrigins []string
	// Playground serves the GraphQL playground at GET /.
	Playground bool
	// PlaygroundHandler, if set, is the playground: it gets GET / and GET
	// PlaygroundAssetsPath… (the local server's serves GraphiQL from vendored files,
	// internal/playground). Nil uses gqlgen's page, which loads GraphiQL from a CDN.
	PlaygroundHandler http.Handler
	// CostExtension adds each request's DynamoDB calls and consumed capacity to the
	// response's extensions.dynamodb.
	CostExtension bool
	// Introspection answers __schema and __type (PICKEM_INTROSPECTION). Off, they are
	// refused before execution; the schema file is the clients' source of truth.
	Introspection bool
	// TrustedDocuments, when not nil, is the only documents that run (by hex SHA-256, see
	// LoadTrustedDocuments); callers in the admin group may send any. Automatic persisted
	// queries are off then: a client sends a trusted document or its id (Transport: an
	// extensions.persistedQuery hash, documentId or doc_id).
	TrustedDocuments map[string]string
	// Limits bound one request's document and DynamoDB calls (zero values: defaults).
	Limits       Limits
	MaxBodyBytes int64
	// MaxQueryStringBytes bounds GET query strings (default DefaultMaxQueryStringBytes).
	MaxQueryStringBytes int
	// PublicMaxAge is the max-age of public answers: anonymous GETs of persisted queries
	// (see Transport.cacheControl). 0: DefaultPublicMaxAge; negative: none is public.
	PublicMaxAge    time.Duration
	ComplexityLimit int
	// Logger receives the access log (one info line per request, see accesslog.go), CORS
	// rejections (warn) and internal errors.
	Logger *slog.Logger
	// AccessLogAttrs, if set, adds attributes to a request's access-log line (Lambda: the
	// API Gateway request id).
	AccessLogAttrs func(*http.Request) []slog.Attr
	Now            func() time.Time
	// LiveNamespace is the channel namespace the store publishes live messages in
	// (dynamo.WithLive): Event.liveChannel names the channel in it. Empty: push is off and
	// liveChannel is null.
	LiveNamespace string
}

// New returns the API's http.Handler.
func New(cfg Config) (http.Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: Config.Store is required")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ComplexityLimit <= 0 {
		cfg.ComplexityLimit = DefaultComplexityLimit
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	gql := NewGraphQL(cfg)

	mux := http.NewServeMux()
	mux.Handle("/graphql", limitBody(cfg.MaxBodyBytes, gql))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeRequestError(w, r, badRequest(http.StatusMethodNotAllowed, "/healthz answers GET"))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	switch {
	case cfg.Playground && cfg.PlaygroundHandler != nil:
		mux.Handle("GET /{$}", cfg.PlaygroundHandler)
		mux.Handle("GET "+PlaygroundAssetsPath, cfg.PlaygroundHandler)
	case cfg.Playground:
		mux.Handle("GET /{$}", playground.Handler("Pick'Em API", "/graphql"))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeRequestError(w, r, &requestError{status: http.StatusNotFound, code: domain.CodeNotFound,
			message: "no such path: the API is at /graphql"})
	})
	var h http.Handler = mux
	h = answerBeforeDeadline(h)
	h = noteCaller(h)
	h = auth.Middleware(cfg.Verifier, cfg.AuthorizerClaims, h)
	h = withCORS(cfg.AllowedOrigins, cfg.Logger, h)
	h = accessLog(cfg.Logger, cfg.AccessLogAttrs, h)
	return h, nil
}

// NewGraphQL returns the gqlgen handler alone (no CORS, auth or body limit): transports
// GET/POST, a query cache, automatic persisted queries, a complexity limit, the error
// presenter and a recover func.
func NewGraphQL(cfg Config) *handler.Server {
	if cfg.ComplexityLimit <= 0 {
		cfg.ComplexityLimit = DefaultComplexityLimit
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	schema := graph.NewExecutableSchema(graph.Config{
		Resolvers:  &resolvers.Resolver{Store: cfg.Store, Now: cfg.Now, LiveNamespace: cfg.LiveNamespace},
		Complexity: complexityRoot(),
	})
	limits := cfg.Limits.withDefaults()
	queries := newByteCache(DefaultQueryCacheBytes, queryDocWeight[*ast.QueryDocument])
	srv := handler.New(schema)
	srv.AddTransport(Transport{MaxQueryStringBytes: cfg.MaxQueryStringBytes, PublicMaxAge: cfg.PublicMaxAge})
	srv.SetQueryCache(queries)
	srv.SetParserTokenLimit(limits.MaxTokens)
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	// Extensions run in the order they are added: trusted documents (or else APQ) resolve
	// a hash to its document,
	// the guard bounds the document before gqlgen validates it and the DynamoDB calls
	// before anything runs, then gqlgen computes the complexity.
	if cfg.TrustedDocuments != nil {
		srv.Use(trustedDocuments{byHash: cfg.TrustedDocuments})
	} else {
		srv.Use(extension.AutomaticPersistedQuery{Cache: newByteCache(DefaultAPQCacheBytes, apqWeight)})
	}
	srv.Use(&guard{limits: limits, introspection: cfg.Introspection, cache: queries})
	srv.Use(extension.FixedComplexityLimit(cfg.ComplexityLimit))
	srv.SetErrorPresenter(presenter(cfg.Logger, cfg.ComplexityLimit))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		cfg.Logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		return domain.Errorf(domain.CodeInternal, "internal error")
	})
	srv.AroundOperations(noteOperation)
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if err := auth.ErrorFromContext(ctx); err != nil {
			return graphql.OneShot(tokenError(err))
		}
		return next(ctx)
	})
	if cfg.CostExtension {
		srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
			resp := next(ctx)
			if c := ddb.CostFromContext(ctx); c != nil && resp != nil {
				if resp.Extensions == nil {
					resp.Extensions = map[string]any{}
				}
				resp.Extensions["dynamodb"] = costReport{CostSnapshot: c.Snapshot(), PlannedCalls: PlannedCalls(ctx)}
			}
			return resp
		})
	}
	return srv
}

// costReport is extensions.dynamodb: what the request cost, and what the budget planned
// (FieldCosts; -1 when the request was refused before planning).
type costReport struct {
	ddb.CostSnapshot
	PlannedCalls int `json:"plannedCalls"`
}

// tokenError is the response to a request whose bearer token was present but invalid.
func tokenError(err error) *graphql.Response {
	code, msg := domain.CodeUnauthenticated, "the bearer token is invalid or expired"
	switch {
	case errors.Is(err, auth.ErrKeysUnavailable):
		code, msg = domain.CodeInternal, "sign-in keys are unavailable right now; try again"
	case errors.Is(err, auth.ErrTokenExpired):
		msg = "the bearer token has expired: sign in again (locally: take a token from the server's banner or `go run ./admin token`)"
	case errors.Is(err, auth.ErrDevSecretMismatch):
		// Only the local server accepts HS256 tokens at all.
		msg = "the bearer token was not signed with this server's dev secret: the secret may have changed since it was minted " +
			"(another -data directory or PICKEM_DEV_SECRET); take a token from the server's banner or `go run ./admin token`"
	}
	return &graphql.Response{Errors: gqlerror.List{{Message: msg, Extensions: map[string]any{"code": string(code)}}}}
}

// presenter maps domain errors to extensions.code with their safe message, keeps gqlgen's
// own codes (parse, validation, complexity), and turns anything else into INTERNAL, logged
// (UNAVAILABLE is logged too, as a warning with its cause).
func presenter(log *slog.Logger, complexityLimit int) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var de *domain.Error
		if errors.As(err, &de) {
			switch de.Code {
			case domain.CodeInternal:
				log.ErrorContext(ctx, "internal error", "err", err.Error(), "path", gqlErr.Path.String())
			case domain.CodeUnavailable: // throttling, conflicts, timeouts: worth watching
				log.WarnContext(ctx, "unavailable", "err", err.Error(), "path", gqlErr.Path.String())
			}
			gqlErr.Message = de.Message
			gqlErr.Extensions = map[string]any{"code": string(de.Code)}
			return gqlErr
		}
		if code, ok := gqlErr.Extensions["code"]; ok {
			if code == CodeLimitExceeded && gqlErr.Extensions["limit"] == nil {
				gqlErr.Extensions["limit"] = "complexity" // gqlgen's complexity limit
				gqlErr.Extensions["max"] = complexityLimit
			}
			return gqlErr
		}
		var inner *gqlerror.Error
		if errors.As(err, &inner) && inner.Err == nil && gqlErr.Path == nil {
			// A request-level error from gqlgen without a code (unreadable body, persisted
			// query hash mismatch): the request was bad.
			gqlErr.Extensions = map[string]any{"code": string(domain.CodeBadUserInput)}
			return gqlErr
		}
		log.ErrorContext(ctx, "internal error", "err", err.Error(), "path", gqlErr.Path.String())
		gqlErr.Message = "internal error"
		gqlErr.Extensions = map[string]any{"code": string(domain.CodeInternal)}
		return gqlErr
	}
}

// limitBody answers 413 for bodies over max bytes and counts DynamoDB calls per request.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength < 0 && r.Body != nil {
			// Unknown length (chunked): read at most max+1 bytes to learn it.
			b, _ := io.ReadAll(io.LimitReader(r.Body, max+1))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		if r.ContentLength > max {
			writeRequestError(w, r, bodyTooLarge(max))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		ctx := r.Context()
		if ddb.CostFromContext(ctx) == nil { // New's access log counts them already
			ctx, _ = ddb.WithCost(ctx)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// complexityRoot counts list fields as first × their selection, so page size bounds the
// work. A `first` outside 1..100 counts no rows: the resolver refuses it before reading.
func complexityRoot() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	page := func(child int, first *int, def int) int {
		n := def
		if first != nil {
			n = *first
		}
		if n < 1 || n > domain.MaxPageSize {
			n = 0 // refused by the resolver before any read
		}
		return 1 + n*child
	}
	c.Query.Events = func(child int, first *int, _ *string, _ *int) int { return page(child, first, domain.DefaultPageSize) }
	c.Query.Standings = func(child int, _ int, first *int, _ *string) int { return page(child, first, 50) }
	c.Event.Leaderboard = func(child int, first *int, _ *string) int { return page(child, first, 50) }
	c.User.Predictions = func(child int, first *int, _ *string) int { return page(child, first, domain.DefaultPageSize) }
	c.Event.Matches = func(child int) int { return 1 + domain.MaxMatches*child }
	c.League.Standings = func(child int, _ int, first *int, _ *string) int { return page(child, first, 50) }
	c.User.Leagues = func(child int) int { return 1 + domain.MaxLeaguesPerPlayer*child }
	return c
}
