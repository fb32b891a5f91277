package main

import (
	"testing"

	"github.com/pickem/api/config"
	"github.com/pickem/api/internal/testlog"
	"github.com/pickem/api/push"
)

// TestFunctionLivePublisher: with PICKEM_LIVE_HTTP_DOMAIN the function publishes to
// AppSync Events with the role's credentials Lambda puts in the environment; without it,
// push is off.
func TestFunctionLivePublisher(t *testing.T) {
	const domain = "abc123.appsync-api.eu-west-1.amazonaws.com"
	role := []string{"AWS_ACCESS_KEY_ID", "ASIAPICKEMTEST", "AWS_SECRET_ACCESS_KEY", "secret", "AWS_SESSION_TOKEN", "token",
		"AWS_REGION", "eu-west-1", "AWS_LAMBDA_FUNCTION_NAME", "pickem-api"}

	t.Run("OffWithoutDomain", func(t *testing.T) {
		fn, err := newFunction(t.Context(), testEnv(t, "unused", role...), &testlog.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if fn.live != nil {
			t.Errorf("publisher %T without PICKEM_LIVE_HTTP_DOMAIN", fn.live)
		}
	})
	t.Run("AppSyncWithDomain", func(t *testing.T) {
		fn, err := newFunction(t.Context(), testEnv(t, "unused", append(role, "PICKEM_LIVE_HTTP_DOMAIN", domain)...), &testlog.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := fn.live.(*push.AppSync); !ok || fn.liveNamespace != config.DefaultLiveNamespace {
			t.Errorf("publisher %T on namespace %q, want *push.AppSync on %q", fn.live, fn.liveNamespace, config.DefaultLiveNamespace)
		}
	})
	t.Run("RefusedWithoutCredentials", func(t *testing.T) {
		if _, err := newFunction(t.Context(), testEnv(t, "unused", "PICKEM_LIVE_HTTP_DOMAIN", domain), &testlog.Buffer{}); err == nil {
			t.Error("started without credentials to sign publishes")
		}
	})
}
