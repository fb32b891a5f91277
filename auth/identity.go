// Package auth establishes who is calling the API.
//
// Identity comes only from a verified bearer token (or from claims that API
// Gateway's JWT authorizer already verified); identity headers such as
// X-User-Id are never trusted. Claims follow Cognito ID tokens: "sub" is the
// user id, "name" (else "cognito:username") the display name, and
// "cognito:groups" the groups; the admin group is "admin".
package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/pickem/api/domain"
)

// AdminGroup is the group whose members may administer events and results.
const AdminGroup = "admin"

// MaxNameLen is the maximum length of Identity.Name, in runes.
const MaxNameLen = domain.MaxUserNameLen

// Identity is the caller. The zero value (ID == "") is anonymous.
type Identity struct {
	// ID is the user id (the token's "sub"); it always satisfies ValidUserID
	// unless the identity is anonymous.
	ID string
	// Name is the display name as domain.NameFromToken gives it: a name the
	// store accepts as it is, never empty for a signed-in identity.
	Name string
	// Groups are the caller's groups (Cognito "cognito:groups").
	Groups []string
}

// SignedIn reports whether the caller is signed in (not anonymous).
func (i Identity) SignedIn() bool { return i.ID != "" }

// IsAdmin reports whether the caller is signed in and a member of AdminGroup.
func (i Identity) IsAdmin() bool {
	return i.SignedIn() && slices.Contains(i.Groups, AdminGroup)
}

type identityKey struct{}
type errorKey struct{}

// WithIdentity returns a copy of ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	id.Groups = slices.Clip(slices.Clone(id.Groups))
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity carried by ctx, or the anonymous identity
// if there is none.
func FromContext(ctx context.Context) Identity {
	id, _ := ctx.Value(identityKey{}).(Identity)
	return id
}

// WithError returns a copy of ctx recording that the request carried a token
// that was present but invalid. The GraphQL layer turns it into
// UNAUTHENTICATED. WithError(ctx, nil) clears a previously recorded error.
func WithError(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, errorKey{}, err)
}

// ErrorFromContext returns the error recorded by WithError, or nil if there
// was none.
func ErrorFromContext(ctx context.Context) error {
	err, _ := ctx.Value(errorKey{}).(error)
	return err
}

// ValidUserID reports whether s is acceptable as a user id (domain.ValidateUserID):
// 1–128 characters of [A-Za-z0-9_.:@-]. Cognito subs are UUIDs.
func ValidUserID(s string) bool { return domain.ValidateUserID(s) == nil }

// Claim names used by IdentityFromClaims.
const (
	claimSub      = "sub"
	claimName     = "name"
	claimUsername = "cognito:username"
	claimGroups   = "cognito:groups"
	claimTokenUse = "token_use"
)

// errInvalidClaims is wrapped by every IdentityFromClaims error.
var errInvalidClaims = errors.New("invalid identity claims")

// IdentityFromClaims builds an identity from a claim map: "sub" → ID
// (required, must satisfy ValidUserID); "name" → Name, else
// "cognito:username", else the ID, each cleaned by domain.NameFromToken; "cognito:groups" as a JSON array ([]any or
// []string), or as a string the way API Gateway flattens it: "[admin editors]"
// → ["admin", "editors"]; "admin" and "admin,editors" are accepted too.
// Non-string group entries are ignored and duplicates removed.
func IdentityFromClaims(claims map[string]any) (Identity, error) {
	sub, ok := claims[claimSub].(string)
	if !ok || sub == "" {
		return Identity{}, fmt.Errorf("%w: missing %q claim", errInvalidClaims, claimSub)
	}
	if !ValidUserID(sub) {
		return Identity{}, fmt.Errorf("%w: malformed %q claim", errInvalidClaims, claimSub)
	}
	id := Identity{ID: sub}
	for _, c := range []string{claimName, claimUsername} {
		if s, ok := claims[c].(string); ok {
			if n := domain.NameFromToken(s); n != "" {
				id.Name = n
				break
			}
		}
	}
	if id.Name == "" {
		id.Name = domain.NameFromToken(sub)
	}
	id.Groups = parseGroups(claims[claimGroups])
	return id, nil
}

func parseGroups(v any) []string {
	var raw []string
	switch g := v.(type) {
	case nil:
		return nil
	case []string:
		raw = g
	case []any:
		for _, e := range g {
			if s, ok := e.(string); ok {
				raw = append(raw, s)
			}
		}
	case string:
		s := strings.TrimSpace(g)
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		raw = strings.FieldsFunc(s, func(r rune) bool {
			return r == ',' || unicode.IsSpace(r)
		})
		for i, e := range raw {
			// Tolerate a JSON array rendered as a string: ["admin","editors"].
			raw[i] = strings.Trim(e, `"`)
		}
	default:
		return nil
	}
	var groups []string
	for _, g := range raw {
		g = strings.TrimSpace(g)
		if g != "" && !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	return groups
}
