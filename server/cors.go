package server

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/rs/cors"
)

// The CORS policy, one list for the code and for deploy/template.yaml's CorsConfiguration
// (in Lambda, API Gateway answers preflights itself; deploy/template_test.go checks that
// the template lists exactly these).
var (
	// CORSAllowedHeaders are the request headers a browser may send cross-origin: the
	// API's own, and those the usual GraphQL clients add (Apollo Client's client
	// awareness and CSRF-prevention headers).
	CORSAllowedHeaders = []string{
		"Authorization", "Content-Type", "Accept",
		"apollographql-client-name", "apollographql-client-version",
		"apollo-require-preflight", "x-apollo-operation-name",
	}
	// CORSAllowedMethods are the methods allowed cross-origin.
	CORSAllowedMethods = []string{http.MethodGet, http.MethodPost, http.MethodOptions}
)

// CORSMaxAge is how long (seconds) a browser may cache a preflight's answer.
const CORSMaxAge = 600

// OriginsVariable is the setting that allows more origins, named in rejection logs.
const OriginsVariable = "PICKEM_ALLOWED_ORIGINS"

// withCORS answers preflights and adds CORS headers for the allowed origins, and logs (at
// warn) what a browser will refuse: a request from an origin that is not allowed, and a
// preflight asking for a method or header that is not. Same-origin requests (the
// playground) are neither checked nor logged.
func withCORS(origins []string, log *slog.Logger, next http.Handler) http.Handler {
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: CORSAllowedMethods,
		AllowedHeaders: CORSAllowedHeaders,
		MaxAge:         CORSMaxAge,
	})
	h := c.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || sameOrigin(r, origin) {
			h.ServeHTTP(w, r)
			return
		}
		logged := logRejection(c, r, origin, log)
		h.ServeHTTP(w, r)
		// A preflight refused for a reason not logged above: rs/cors takes a header list
		// only in the form browsers send it (Fetch standard).
		if !logged && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" &&
			w.Header().Get("Access-Control-Allow-Origin") == "" {
			log.WarnContext(r.Context(), "CORS: preflight refused; the browser will not send the request",
				"origin", origin, "headers", strings.Join(r.Header.Values("Access-Control-Request-Headers"), ", "),
				"why", "the header list must be lower case, sorted and without repeats, as browsers send it")
		}
	})
}

// logRejection logs what the browser will refuse, and reports whether it logged anything.
func logRejection(c *cors.Cors, r *http.Request, origin string, log *slog.Logger) bool {
	ctx := r.Context()
	if !c.OriginAllowed(r) {
		log.WarnContext(ctx, "CORS: origin not allowed; the browser will refuse the answer",
			"origin", origin, "method", r.Method, "path", r.URL.Path,
			"fix", "add the origin to "+OriginsVariable+" (comma-separated, * for any)")
		return true
	}
	method := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || method == "" {
		return false
	}
	logged := false
	if !slices.Contains(CORSAllowedMethods, strings.ToUpper(method)) {
		log.WarnContext(ctx, "CORS: preflight for a method that is not allowed", "origin", origin, "method", method,
			"allowed", strings.Join(CORSAllowedMethods, ", "))
		logged = true
	}
	var refused []string
	for _, list := range r.Header.Values("Access-Control-Request-Headers") {
		for _, h := range strings.Split(list, ",") {
			if h = strings.TrimSpace(h); h != "" && !slices.ContainsFunc(CORSAllowedHeaders, func(a string) bool { return strings.EqualFold(a, h) }) {
				refused = append(refused, h)
			}
		}
	}
	if len(refused) > 0 {
		log.WarnContext(ctx, "CORS: preflight for request headers that are not allowed; the browser will not send the request",
			"origin", origin, "headers", strings.Join(refused, ", "), "allowed", strings.Join(CORSAllowedHeaders, ", "),
			"fix", "send only allowed headers, or add the header to server.CORSAllowedHeaders and deploy/template.yaml")
		logged = true
	}
	return logged
}

// sameOrigin reports whether origin is the request's own (scheme and host).
func sameOrigin(r *http.Request, origin string) bool {
	host := strings.ToLower(r.Host)
	o := strings.ToLower(origin)
	return o == "http://"+host || o == "https://"+host
}
