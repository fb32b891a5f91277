package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrNoVerifier is recorded (wrapped in ErrInvalidToken) when a request
// carries a bearer token but Middleware was given no Verifier.
var ErrNoVerifier = errors.New("no token verifier configured")

// Middleware establishes the caller's identity and stores it in the request
// context (read it with FromContext):
//
//   - If authorizerClaims is non-nil and returns non-empty claims (API
//     Gateway's JWT authorizer already verified a token and attached its
//     claims), the identity is built from those with IdentityFromClaims.
//   - Otherwise the "Authorization: Bearer <token>" header (scheme
//     case-insensitive) is verified with v.
//   - No Authorization header (or an empty one) → anonymous.
//   - A token that fails verification, a malformed or non-Bearer
//     Authorization header, or more than one Authorization header → the
//     caller stays anonymous and the error is recorded with WithError; the
//     request continues and the GraphQL layer answers UNAUTHENTICATED.
//
// Identity headers such as X-User-Id are never trusted.
func Middleware(v Verifier, authorizerClaims func(*http.Request) (map[string]string, bool), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := identify(r, v, authorizerClaims)
		ctx := WithIdentity(r.Context(), id)
		if err != nil {
			ctx = WithError(ctx, err)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func identify(r *http.Request, v Verifier, authorizerClaims func(*http.Request) (map[string]string, bool)) (Identity, error) {
	if authorizerClaims != nil {
		if claims, ok := authorizerClaims(r); ok && len(claims) > 0 {
			m := make(map[string]any, len(claims))
			for k, val := range claims {
				m[k] = val
			}
			id, err := IdentityFromClaims(m)
			if err != nil {
				return Identity{}, fmt.Errorf("%w: authorizer claims: %w", ErrInvalidToken, err)
			}
			return id, nil
		}
	}

	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0 || len(values) == 1 && strings.TrimSpace(values[0]) == "":
		return Identity{}, nil
	case len(values) > 1:
		return Identity{}, fmt.Errorf("%w: multiple Authorization headers", ErrInvalidToken)
	}
	token, err := bearerToken(values[0])
	if err != nil {
		return Identity{}, err
	}
	if v == nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrInvalidToken, ErrNoVerifier)
	}
	return v.Verify(r.Context(), token)
}

// bearerToken extracts the token of an "Authorization: Bearer <token>" value.
func bearerToken(h string) (string, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("%w: Authorization scheme is not Bearer", ErrInvalidToken)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", fmt.Errorf("%w: empty bearer token", ErrInvalidToken)
	}
	return token, nil
}
