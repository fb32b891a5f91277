package deploy

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/pickem/api/config"
	"github.com/pickem/api/push"
)

// TestTemplatePush checks the AppSync Event API of push (docs/operations.md, "Push"):
// watchers connect and subscribe with the API key or a user-pool token, only the function
// publishes (AWS_IAM) and its role may publish to the live namespace and nothing else,
// the namespace is the one the function names its channels in, the key's expiry is the
// parameter's, the outputs give the frontend what it needs, and LivePush=disabled removes
// all of it.
func TestTemplatePush(t *testing.T) {
	tpl := loadTemplate(t)
	const on = `{"Fn::Equals":[{"Ref":"LivePush"},"enabled"]}`

	t.Run("ParameterAndCondition", func(t *testing.T) {
		p := tpl.Parameters["LivePush"]
		if js(p["AllowedValues"]) != `["enabled","disabled"]` || p["Default"] != "enabled" {
			t.Errorf("LivePush %s default %v, want enabled or disabled, enabled by default", js(p["AllowedValues"]), p["Default"])
		}
		var conds struct {
			Conditions map[string]any `yaml:"Conditions"`
		}
		readYAML(t, &conds)
		if got := js(conds.Conditions["PushEnabled"]); got != on {
			t.Errorf("PushEnabled = %s, want %s", got, on)
		}
		for name, r := range tpl.Resources {
			if strings.HasPrefix(r.Type, "AWS::AppSync::") || name == "LivePublishFailuresAlarm" {
				if r.Condition != "PushEnabled" {
					t.Errorf("%s (%s) has condition %q, want PushEnabled", name, r.Type, r.Condition)
				}
			}
		}
	})

	t.Run("AuthModes", func(t *testing.T) {
		type mode struct{ AuthType string }
		var api struct {
			EventConfig struct {
				AuthProviders []struct {
					AuthType      string
					CognitoConfig map[string]any
				}
				ConnectionAuthModes, DefaultPublishAuthModes, DefaultSubscribeAuthModes []mode
			}
		}
		props(t, tpl, "LiveApi", "AWS::AppSync::Api", &api)
		types := func(ms []mode) []string {
			var out []string
			for _, m := range ms {
				out = append(out, m.AuthType)
			}
			sort.Strings(out)
			return out
		}
		watchers := []string{"AMAZON_COGNITO_USER_POOLS", "API_KEY"}
		c := api.EventConfig
		if got := types(c.ConnectionAuthModes); !slices.Equal(got, watchers) {
			t.Errorf("connection modes %v, want %v", got, watchers)
		}
		if got := types(c.DefaultSubscribeAuthModes); !slices.Equal(got, watchers) {
			t.Errorf("subscribe modes %v, want %v", got, watchers)
		}
		if got := types(c.DefaultPublishAuthModes); !slices.Equal(got, []string{"AWS_IAM"}) {
			t.Errorf("publish modes %v, want only AWS_IAM (the function's role)", got)
		}
		var providers []string
		for _, p := range c.AuthProviders {
			providers = append(providers, p.AuthType)
			if p.AuthType == "AMAZON_COGNITO_USER_POOLS" {
				if js(p.CognitoConfig["UserPoolId"]) != `{"Ref":"UserPoolId"}` || js(p.CognitoConfig["AppIdClientRegex"]) != `{"Fn::Sub":"^${UserPoolClientId}$"}` {
					t.Errorf("Cognito provider %s: want the app's pool and exactly its client", js(p.CognitoConfig))
				}
			}
		}
		sort.Strings(providers)
		if want := []string{"AMAZON_COGNITO_USER_POOLS", "API_KEY", "AWS_IAM"}; !slices.Equal(providers, want) {
			t.Errorf("auth providers %v, want %v", providers, want)
		}
		var ns struct {
			ApiId                                any
			Name                                 string
			PublishAuthModes, SubscribeAuthModes any
		}
		props(t, tpl, "LiveNamespace", "AWS::AppSync::ChannelNamespace", &ns)
		if js(ns.ApiId) != `{"Fn::GetAtt":["LiveApi","ApiId"]}` || ns.PublishAuthModes != nil || ns.SubscribeAuthModes != nil {
			t.Errorf("namespace on %s, modes %s/%s: want LiveApi's, with the API's modes", js(ns.ApiId), js(ns.PublishAuthModes), js(ns.SubscribeAuthModes))
		}
		var fn functionProps
		props(t, tpl, "Function", "AWS::Serverless::Function", &fn)
		if env := fn.Environment.Variables["PICKEM_LIVE_NAMESPACE"]; ns.Name != env || ns.Name != config.DefaultLiveNamespace {
			t.Errorf("namespace %q, the function's PICKEM_LIVE_NAMESPACE %v, config's default %q: want one name", ns.Name, env, config.DefaultLiveNamespace)
		}
	})

	t.Run("RolePublishesToTheNamespaceOnly", func(t *testing.T) {
		var fn struct{ Policies []any }
		props(t, tpl, "Function", "AWS::Serverless::Function", &fn)
		var appsync []string
		for _, p := range fn.Policies {
			if s := js(p); strings.Contains(s, "appsync") {
				appsync = append(appsync, s)
			}
		}
		want := `{"Fn::If":["PushEnabled",{"Statement":[{"Action":["appsync:EventPublish"],"Effect":"Allow","Resource":[{"Fn::GetAtt":["LiveNamespace","ChannelNamespaceArn"]}],"Sid":"PickemLivePublish"}],"Version":"2012-10-17"},{"Ref":"AWS::NoValue"}]}`
		if len(appsync) != 1 || appsync[0] != want {
			t.Errorf("AppSync policies %v\nwant exactly %s", appsync, want)
		}
	})

	t.Run("ApiKeyExpiry", func(t *testing.T) {
		p := tpl.Parameters["LiveApiKeyExpires"]
		if p["Type"] != "Number" || js(p["Default"]) != "0" || js(p["MinValue"]) != "0" {
			t.Errorf("LiveApiKeyExpires %s: want a Number, 0 by default (AppSync's 7 days)", js(p))
		}
		var key struct{ ApiId, Expires any }
		props(t, tpl, "LiveApiKey", "AWS::AppSync::ApiKey", &key)
		if js(key.ApiId) != `{"Fn::GetAtt":["LiveApi","ApiId"]}` || js(key.Expires) != `{"Fn::If":["LiveApiKeyHasExpiry",{"Ref":"LiveApiKeyExpires"},{"Ref":"AWS::NoValue"}]}` {
			t.Errorf("key on %s expires %s", js(key.ApiId), js(key.Expires))
		}
	})

	t.Run("Outputs", func(t *testing.T) {
		for name, want := range map[string]string{
			"LiveRealtimeDomain": `{"Fn::GetAtt":["LiveApi","Dns.Realtime"]}`,
			"LiveHTTPDomain":     `{"Fn::GetAtt":["LiveApi","Dns.Http"]}`,
			"LiveApiKey":         `{"Fn::GetAtt":["LiveApiKey","ApiKey"]}`,
		} {
			o := tpl.Outputs[name]
			if js(o["Value"]) != want || o["Condition"] != "PushEnabled" {
				t.Errorf("output %s = %s (condition %v), want %s under PushEnabled", name, js(o["Value"]), o["Condition"], want)
			}
		}
	})

	t.Run("AlarmOnTheFunctionsMetric", func(t *testing.T) {
		var a alarm
		props(t, tpl, "LivePublishFailuresAlarm", "AWS::CloudWatch::Alarm", &a)
		if a.Namespace != push.MetricNamespace || a.MetricName != push.MetricPublishFailures || a.Statistic != "Sum" || a.Threshold != 0 {
			t.Errorf("alarm on %s/%s %s > %v, want the sum of %s/%s above 0", a.Namespace, a.MetricName, a.Statistic, a.Threshold, push.MetricNamespace, push.MetricPublishFailures)
		}
	})
}

// readYAML decodes template.yaml into v.
func readYAML(t *testing.T, v any) {
	t.Helper()
	b, err := os.ReadFile("template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
}
