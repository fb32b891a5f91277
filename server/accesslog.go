package server

import (
	"context"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/pickem/api/auth"
	"github.com/pickem/api/dynamo/ddb"
)

// The access log: one line per request, at info, written when the response is done:
//
//	msg=request method=POST path=/graphql operation=Card status=200 durationMs=3.1 dynamodbCalls=2 readCapacityUnits=1.5 writeCapacityUnits=0 caller=p1
//
// readCapacityUnits and writeCapacityUnits are the capacity DynamoDB reported for the
// request's calls (every call asks for it), left out when no call reported any (none made,
// or an engine that reports none);
// operation is the GraphQL operation's name, or for an anonymous one its type and
// top-level fields ("query {events}"), cut to maxNameLen bytes (a document may name its
// operation with most of a 64 KiB body); caller is the signed-in user's id, "anonymous", or
// "invalid token". The local server writes it as text, Lambda as JSON (with the Lambda and
// API Gateway request ids added by lambda/main.go).

// requestInfo is what the layers of one request learn for its access-log line.
type requestInfo struct {
	mu        sync.Mutex
	operation string
	caller    string
}

type requestInfoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return ri
}

// accessLog wraps the whole handler: it counts the request's DynamoDB calls and logs its
// line, with the attributes extra returns (nil: none) appended.
func accessLog(log *slog.Logger, extra func(*http.Request) []slog.Attr, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, cost := ddb.WithCost(r.Context())
		ri := &requestInfo{caller: "anonymous"}
		ctx = context.WithValue(ctx, requestInfoKey{}, ri)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))

		spent := cost.Snapshot()
		ri.mu.Lock()
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("operation", ri.operation),
			slog.Int("status", sw.code()),
			slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
			slog.Int("dynamodbCalls", spent.Calls),
		}
		if spent.ReadCapacityUnits != nil { // as DynamoDB reported them (if it did)
			attrs = append(attrs, slog.Float64("readCapacityUnits", *spent.ReadCapacityUnits),
				slog.Float64("writeCapacityUnits", *spent.WriteCapacityUnits))
		}
		attrs = append(attrs, slog.String("caller", ri.caller))
		ri.mu.Unlock()
		if extra != nil {
			attrs = append(attrs, extra(r)...)
		}
		log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
	})
}

// noteCaller records who the caller is; it runs after auth.Middleware.
func noteCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ri := infoFrom(r.Context()); ri != nil {
			caller := "anonymous"
			if auth.ErrorFromContext(r.Context()) != nil {
				caller = "invalid token"
			} else if id := auth.FromContext(r.Context()); id.SignedIn() {
				caller = id.ID
			}
			ri.mu.Lock()
			ri.caller = caller
			ri.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// noteOperation records the GraphQL operation's name (gqlgen AroundOperations).
func noteOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if ri := infoFrom(ctx); ri != nil && graphql.HasOperationContext(ctx) {
		name := shorten(operationName(graphql.GetOperationContext(ctx)), maxNameLen)
		ri.mu.Lock()
		ri.operation = name
		ri.mu.Unlock()
	}
	return next(ctx)
}

func operationName(oc *graphql.OperationContext) string {
	op := oc.Operation
	if op == nil {
		return oc.OperationName
	}
	if op.Name != "" {
		return op.Name
	}
	var fields []string
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			fields = append(fields, f.Name)
		} else {
			fields = append(fields, "...")
		}
	}
	sort.Strings(fields)
	return string(op.Operation) + " {" + strings.Join(fields, " ") + "}"
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the underlying writer (flush, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
