package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pickem/api/auth"
)

// signHS256 signs arbitrary claims, for tokens MintHS256 refuses to make.
func signHS256(t *testing.T, secret []byte, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestIdentity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	now := time.Now()
	otherSecret, err := auth.MintHS256([]byte("another-secret-0123456789abcdef0123"), auth.Identity{ID: "p-ace", Name: "Ace"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	valid := e.token(t, "p-ace", "Ace")
	none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "p-ace", "exp": now.Add(time.Hour).Unix()})
	noneTok, err := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	badAuth := map[string]http.Header{
		"Garbage":        {"Authorization": {"Bearer not-a-jwt"}},
		"WrongSecret":    {"Authorization": {"Bearer " + otherSecret}},
		"Expired":        {"Authorization": {"Bearer " + signHS256(t, e.secret, jwt.MapClaims{"sub": "p-ace", "iat": now.Add(-3 * time.Hour).Unix(), "exp": now.Add(-2 * time.Hour).Unix()})}},
		"NoExpiry":       {"Authorization": {"Bearer " + signHS256(t, e.secret, jwt.MapClaims{"sub": "p-ace", "iat": now.Unix()})}},
		"NoSubject":      {"Authorization": {"Bearer " + signHS256(t, e.secret, jwt.MapClaims{"name": "Ace", "exp": now.Add(time.Hour).Unix()})}},
		"KeyInSubject":   {"Authorization": {"Bearer " + signHS256(t, e.secret, jwt.MapClaims{"sub": "p-ace#USER", "exp": now.Add(time.Hour).Unix()})}},
		"AccessToken":    {"Authorization": {"Bearer " + signHS256(t, e.secret, jwt.MapClaims{"sub": "p-ace", "token_use": "access", "exp": now.Add(time.Hour).Unix()})}},
		"AlgNone":        {"Authorization": {"Bearer " + noneTok}},
		"TamperedClaims": {"Authorization": {"Bearer " + tamper(t, valid)}},
		"BasicScheme":    {"Authorization": {"Basic cDphY2U="}},
		"EmptyBearer":    {"Authorization": {"Bearer "}},
		"TwoHeaders":     {"Authorization": {"Bearer " + valid, "Bearer " + valid}},
	}
	for name, header := range badAuth {
		t.Run("InvalidToken/"+name, func(t *testing.T) {
			for _, q := range []string{`{ events { edges { cursor } } }`, `{ me { id } }`, `mutation { register(name: "Ace") { id } }`} {
				before := e.calls.Load()
				status, resp := e.post(t, "", map[string]any{"query": q}, header.Clone())
				if status != http.StatusOK {
					t.Fatalf("%s: status %d", q, status)
				}
				wantCode(t, resp.Errors, "UNAUTHENTICATED")
				if string(resp.Data) != "" && string(resp.Data) != "null" {
					t.Fatalf("%s: data %s with a bad token", q, resp.Data)
				}
				if e.calls.Load() != before {
					t.Fatalf("%s: a request with a bad token reached DynamoDB", q)
				}
			}
		})
	}
	t.Run("ValidTokenWorks", func(t *testing.T) {
		me := mustGQL[struct{ Me *tUser }](t, e, valid, `{ me { id name } }`, nil).Me
		if me == nil || me.ID != "p-ace" || me.Name != "Ace" {
			t.Fatalf("me = %+v", me)
		}
		// The scheme is case-insensitive.
		_, resp := e.post(t, "", map[string]any{"query": `{ me { id } }`}, http.Header{"Authorization": {"bearer " + valid}})
		noErrors(t, resp.Errors)
	})
	t.Run("NameFallsBackToUsernameThenSub", func(t *testing.T) {
		for want, claims := range map[string]jwt.MapClaims{
			"ace_user": {"sub": "p-u1", "cognito:username": "ace_user", "exp": now.Add(time.Hour).Unix()},
			"p-u2":     {"sub": "p-u2", "exp": now.Add(time.Hour).Unix()},
		} {
			me := mustGQL[struct{ Me *tUser }](t, e, signHS256(t, e.secret, claims), `{ me { id name } }`, nil).Me
			if me == nil || me.Name != want {
				t.Fatalf("me = %+v, want name %q", me, want)
			}
		}
	})
	t.Run("CognitoGroupsClaimMakesAdmin", func(t *testing.T) {
		tok := signHS256(t, e.secret, jwt.MapClaims{"sub": "p-boss", "cognito:groups": []string{"editors", "admin"}, "exp": now.Add(time.Hour).Unix()})
		ev := mustGQL[struct{ CreateEvent tEvent }](t, e, tok, createEventOp,
			map[string]any{"input": map[string]any{"name": "Grand Slam", "startsAt": "2030-09-20T23:00:00Z"}}).CreateEvent
		if ev.ID != "2030-09-20-grand-slam" {
			t.Fatalf("event %+v", ev)
		}
	})
	t.Run("XUserIdHeaderIsIgnored", func(t *testing.T) {
		spoof := http.Header{"X-User-Id": {"p-ace"}, "X-Amzn-Oidc-Identity": {"p-ace"}, "X-Cognito-Groups": {"admin"}}
		_, resp := e.post(t, "", map[string]any{"query": `{ me { id } }`}, spoof.Clone())
		noErrors(t, resp.Errors)
		if string(resp.Data) != `{"me":null}` {
			t.Fatalf("me with only an X-User-Id header: %s", resp.Data)
		}
		_, resp = e.post(t, "", map[string]any{"query": `mutation { register(name: "Spoofed") { id } }`}, spoof.Clone())
		wantCode(t, resp.Errors, "UNAUTHENTICATED")
		// With a real token the header changes nothing either.
		_, resp = e.post(t, e.token(t, "p-bea", "Bea"), map[string]any{"query": `{ me { id } }`}, spoof.Clone())
		noErrors(t, resp.Errors)
		if string(resp.Data) != `{"me":{"id":"p-bea"}}` {
			t.Fatalf("me = %s", resp.Data)
		}
		_, resp = e.post(t, e.token(t, "p-bea", "Bea"), map[string]any{"query": createEventOp,
			"variables": map[string]any{"input": map[string]any{"name": "Spoofed", "startsAt": "2030-09-21T23:00:00Z"}}}, spoof.Clone())
		wantCode(t, resp.Errors, "FORBIDDEN")
	})
}

// tamper changes the payload of a signed token without re-signing it.
func tamper(t *testing.T, tok string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q", tok)
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok, claims); err != nil {
		t.Fatal(err)
	}
	claims["cognito:groups"] = []string{"admin"}
	b, _ := json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

// TestTokenNamesWithInvisibleCharacters: a token's name with characters a player name may
// not hold (format characters such as a zero-width space or a bidi override, controls) is
// the name without them, the same one everywhere: the caller's identity, the profile the
// first prediction creates, the prediction's name, a league's member row.
func TestTokenNamesWithInvisibleCharacters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ev := e.createEvent(t, "Name Night", e.clock.Now().Add(24*time.Hour), threeMatchCard()...)
	for _, c := range []struct{ id, name, want string }{
		{"p-zwsp", "Ann\u200bMarie", "AnnMarie"},
		{"p-bidi", "\u202eEvil Twin", "Evil Twin"},
		{"p-ctrl", "Tab\tName\x00", "TabName"},
		{"p-soft", "Soft\u00adHyphen", "SoftHyphen"},
	} {
		t.Run(c.id, func(t *testing.T) {
			tok := e.token(t, c.id, c.name)
			p := e.submit(t, tok, ev, 0, 0, 0)
			if p.User.Name != c.want {
				t.Errorf("the first prediction's name is %q, want %q", p.User.Name, c.want)
			}
			me := mustGQL[struct{ Me struct{ Name string } }](t, e, tok, `{ me { name } }`, nil)
			if me.Me.Name != c.want {
				t.Errorf("the profile's name is %q, want %q", me.Me.Name, c.want)
			}
		})
	}
}
