// Package deploy holds the AWS SAM template (template.yaml). Its test keeps the template in
// step with the code: the table's keys and index with table.Definition, the IAM
// actions with what ddb.API can call, the environment with what config.Load reads, the
// code location with the Makefile's lambda target.
package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/goccy/go-yaml"

	"github.com/pickem/api/config"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/dynamo/ddb"
	"github.com/pickem/api/dynamo/table"
	"github.com/pickem/api/push"
	"github.com/pickem/api/server"
)

type template struct {
	AWSTemplateFormatVersion string                    `yaml:"AWSTemplateFormatVersion"`
	Transform                string                    `yaml:"Transform"`
	Parameters               map[string]map[string]any `yaml:"Parameters"`
	Resources                map[string]resource       `yaml:"Resources"`
	Outputs                  map[string]map[string]any `yaml:"Outputs"`
}

type resource struct {
	Type           string         `yaml:"Type"`
	Condition      string         `yaml:"Condition"`
	DeletionPolicy string         `yaml:"DeletionPolicy"`
	Properties     map[string]any `yaml:"Properties"`
}

type keyElement struct{ AttributeName, KeyType string }

type tableProps struct {
	BillingMode            string
	AttributeDefinitions   []struct{ AttributeName, AttributeType string }
	KeySchema              []keyElement
	GlobalSecondaryIndexes []struct {
		IndexName      string
		KeySchema      []keyElement
		Projection     struct{ ProjectionType string }
		WarmThroughput warmThroughput
	}
	WarmThroughput                   warmThroughput
	PointInTimeRecoverySpecification struct{ PointInTimeRecoveryEnabled bool }
	DeletionProtectionEnabled        bool
}

type warmThroughput struct{ ReadUnitsPerSecond, WriteUnitsPerSecond int }

// Warm throughput the show needs from its first second (docs/operations.md, "Front door"; the
// partition-throughput model in bench/scale, bench/results/scale.md): scoring 1M predictions
// in under 5 minutes (the 16 score shards moving keys at once, on the table and on the
// index) and the peak submit minute (~2,800 transactions of ~7 WCU a second) need ~40,000
// WCU; the leaderboard and standings rushes read up to ~60,000 RCU a second from the table
// and from the index. A new on-demand table or index starts at 4,000 WCU and 12,000 RCU.
const (
	peakTableWCU = 40_000
	peakIndexWCU = 40_000
	peakTableRCU = 60_000
	peakIndexRCU = 60_000
)

type functionProps struct {
	CodeUri       string
	Handler       string
	Runtime       string
	Architectures []string
	MemorySize    int
	Timeout       int
	Environment   struct{ Variables map[string]any }
	Policies      []struct {
		Statement []struct {
			Effect   string
			Action   []string
			Resource []any
		}
	}
	Events map[string]struct {
		Type       string
		Properties map[string]any
	}
}

func loadTemplate(t *testing.T) template {
	t.Helper()
	b, err := os.ReadFile("template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tpl template
	if err := yaml.Unmarshal(b, &tpl); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	return tpl
}

// props decodes the properties of resource name, which must have type typ, into v.
func props(t *testing.T, tpl template, name, typ string, v any) resource {
	t.Helper()
	r, ok := tpl.Resources[name]
	if !ok {
		t.Fatalf("no resource %s", name)
	}
	if r.Type != typ {
		t.Fatalf("resource %s has type %s, want %s", name, r.Type, typ)
	}
	b, err := json.Marshal(r.Properties)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s properties: %v", name, err)
	}
	return r
}

// js renders v as JSON, to compare intrinsic functions such as {"Ref":"Table"}.
func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTemplateHeader(t *testing.T) {
	tpl := loadTemplate(t)
	if tpl.AWSTemplateFormatVersion != "2010-09-09" || tpl.Transform != "AWS::Serverless-2016-10-31" {
		t.Errorf("format %q transform %q", tpl.AWSTemplateFormatVersion, tpl.Transform)
	}
	var params []string
	for p := range tpl.Parameters {
		params = append(params, p)
	}
	sort.Strings(params)
	if want := []string{"AlarmEmail", "AllowedOrigins", "CursorKeys", "LiveApiKeyExpires", "LivePush", "LogLevel", "ScoreShards", "TrustedDocuments", "UserPoolClientId", "UserPoolId"}; !slices.Equal(params, want) {
		t.Errorf("parameters %v, want %v", params, want)
	}
	for _, o := range []string{"ApiUrl", "TableName", "FunctionName", "AlarmTopic"} {
		if _, ok := tpl.Outputs[o]; !ok {
			t.Errorf("no output %s", o)
		}
	}
	if got := js(tpl.Outputs["ApiUrl"]["Value"]); !strings.Contains(got, "${Api}.execute-api") {
		t.Errorf("ApiUrl = %s", got)
	}
}

// TestTemplateTrustedDocuments: the TrustedDocuments parameter offers exactly the values
// that name a manifest built into the function (server.LoadTrustedDocuments) and "" (any
// document), builtin by default. A manifest file's path is not offered: the code package
// carries a manifest, the environment cannot.
func TestTemplateTrustedDocuments(t *testing.T) {
	p := loadTemplate(t).Parameters["TrustedDocuments"]
	if got, want := js(p["AllowedValues"]), js([]string{server.BuiltinTrustedDocuments, server.EmbeddedTrustedDocuments, ""}); got != want {
		t.Errorf("AllowedValues %s, want %s", got, want)
	}
	if p["Default"] != server.BuiltinTrustedDocuments {
		t.Errorf("Default %v, want %s", p["Default"], server.BuiltinTrustedDocuments)
	}
	for _, v := range []string{server.BuiltinTrustedDocuments, ""} {
		if _, err := server.LoadTrustedDocuments(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
}

func TestTemplateTableMatchesTableDefinition(t *testing.T) {
	tpl := loadTemplate(t)
	var got tableProps
	r := props(t, tpl, "Table", "AWS::DynamoDB::Table", &got)
	def := table.Definition("ignored")

	if got.BillingMode != string(def.BillingMode) {
		t.Errorf("BillingMode %s, want %s", got.BillingMode, def.BillingMode)
	}
	wantAttrs := map[string]string{}
	for _, a := range def.AttributeDefinitions {
		wantAttrs[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	gotAttrs := map[string]string{}
	for _, a := range got.AttributeDefinitions {
		gotAttrs[a.AttributeName] = a.AttributeType
	}
	if !reflect.DeepEqual(gotAttrs, wantAttrs) {
		t.Errorf("AttributeDefinitions %v, want %v", gotAttrs, wantAttrs)
	}
	keys := func(ks []keyElement) string { return js(ks) }
	if keys(got.KeySchema) != wantKeys(def.KeySchema) {
		t.Errorf("KeySchema %s, want %s", keys(got.KeySchema), wantKeys(def.KeySchema))
	}
	if len(got.GlobalSecondaryIndexes) != len(def.GlobalSecondaryIndexes) {
		t.Fatalf("%d GSIs, want %d", len(got.GlobalSecondaryIndexes), len(def.GlobalSecondaryIndexes))
	}
	for i, want := range def.GlobalSecondaryIndexes {
		g := got.GlobalSecondaryIndexes[i]
		if g.IndexName != aws.ToString(want.IndexName) || g.IndexName != table.IndexName {
			t.Errorf("GSI %d named %q, want %q (table.IndexName %q)", i, g.IndexName, aws.ToString(want.IndexName), table.IndexName)
		}
		if keys(g.KeySchema) != wantKeys(want.KeySchema) {
			t.Errorf("GSI %s KeySchema %s, want %s", g.IndexName, keys(g.KeySchema), wantKeys(want.KeySchema))
		}
		if g.Projection.ProjectionType != string(want.Projection.ProjectionType) {
			t.Errorf("GSI %s projection %s, want %s", g.IndexName, g.Projection.ProjectionType, want.Projection.ProjectionType)
		}
	}
	if w := got.WarmThroughput; w.WriteUnitsPerSecond < peakTableWCU || w.ReadUnitsPerSecond < peakTableRCU {
		t.Errorf("table warm throughput %+v, want at least %d WCU and %d RCU", w, peakTableWCU, peakTableRCU)
	}
	for _, g := range got.GlobalSecondaryIndexes {
		if g.WarmThroughput.WriteUnitsPerSecond < peakIndexWCU || g.WarmThroughput.ReadUnitsPerSecond < peakIndexRCU {
			t.Errorf("GSI %s warm throughput %+v, want at least %d WCU and %d RCU", g.IndexName, g.WarmThroughput, peakIndexWCU, peakIndexRCU)
		}
	}
	if !got.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled {
		t.Error("point-in-time recovery is off")
	}
	if !got.DeletionProtectionEnabled {
		t.Error("deletion protection is off")
	}
	if r.DeletionPolicy != "Retain" {
		t.Errorf("DeletionPolicy %q, want Retain", r.DeletionPolicy)
	}
}

// wantKeys renders an SDK key schema like the template's.
func wantKeys(ks []types.KeySchemaElement) string {
	out := make([]keyElement, len(ks))
	for i, k := range ks {
		out[i] = keyElement{AttributeName: aws.ToString(k.AttributeName), KeyType: string(k.KeyType)}
	}
	return js(out)
}

func TestTemplateFunction(t *testing.T) {
	tpl := loadTemplate(t)
	var fn functionProps
	props(t, tpl, "Function", "AWS::Serverless::Function", &fn)

	if fn.Runtime != "provided.al2023" || fn.Handler != "bootstrap" || !slices.Equal(fn.Architectures, []string{"arm64"}) {
		t.Errorf("runtime %q handler %q architectures %v", fn.Runtime, fn.Handler, fn.Architectures)
	}
	if fn.MemorySize != 512 {
		t.Errorf("memory %d MB, want 512", fn.MemorySize)
	}

	t.Run("TimeoutAndScoringBudgetFitAPIGateway", func(t *testing.T) {
		// API Gateway's HTTP API ends every request at 30 s: the function must stop before,
		// and a scoring call (its budget, then the work in flight within
		// dynamo.ScoringMargin, then its live message within dynamo.LiveMargin) must end
		// before the function does.
		const apiGateway = 30 * time.Second
		timeout := time.Duration(fn.Timeout) * time.Second
		budget, err := time.ParseDuration(fmt.Sprint(fn.Environment.Variables["PICKEM_SCORING_BUDGET"]))
		if err != nil {
			t.Fatalf("PICKEM_SCORING_BUDGET: %v", err)
		}
		margin := dynamo.ScoringMargin + dynamo.LiveMargin
		if timeout >= apiGateway || budget <= 0 || budget+margin > timeout {
			t.Errorf("timeout %s, scoring budget %s (+%s margin): want budget + margin <= timeout < %s", timeout, budget, margin, apiGateway)
		}
	})

	t.Run("CodeUriIsTheMakefileZip", func(t *testing.T) {
		mk, err := os.ReadFile("../Makefile")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^LAMBDA_ZIP\s*:=\s*(\S+)\s*$`).FindSubmatch(mk)
		if m == nil {
			t.Fatal("no LAMBDA_ZIP := … in the Makefile")
		}
		if want := "../" + string(m[1]); fn.CodeUri != want {
			t.Errorf("CodeUri %q, want %q (the Makefile's LAMBDA_ZIP, relative to deploy/)", fn.CodeUri, want)
		}
	})

	t.Run("EnvironmentIsWhatConfigReads", func(t *testing.T) {
		read := map[string]bool{}
		if _, err := config.Load(config.Lambda, func(k string) string {
			read[k] = true
			if k == "PICKEM_CURSOR_KEYS" {
				return "ZGVwbG95LXRlc3QtY3Vyc29yLWtleS0wMTIzNDU2Nzg5"
			}
			return ""
		}); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"TABLE_NAME":               `{"Ref":"Table"}`,
			"COGNITO_USER_POOL_ID":     `{"Ref":"UserPoolId"}`,
			"COGNITO_CLIENT_ID":        `{"Ref":"UserPoolClientId"}`,
			"PICKEM_ALLOWED_ORIGINS":   `{"Fn::Join":[",",{"Ref":"AllowedOrigins"}]}`,
			"LOG_LEVEL":                `{"Ref":"LogLevel"}`,
			"PICKEM_SCORING_BUDGET":    `"20s"`,
			"PICKEM_READ_CACHE_TTL":    `"2s"`,
			"PICKEM_SCORE_SHARDS":      `{"Ref":"ScoreShards"}`,
			"PICKEM_CURSOR_KEYS":       `{"Ref":"CursorKeys"}`,
			"PICKEM_TRUSTED_DOCUMENTS": `{"Ref":"TrustedDocuments"}`,
			"PICKEM_LIVE_HTTP_DOMAIN":  `{"Fn::If":["PushEnabled",{"Fn::GetAtt":["LiveApi","Dns.Http"]},""]}`,
			"PICKEM_LIVE_NAMESPACE":    `"` + config.DefaultLiveNamespace + `"`,
		}
		// Read by the Go runtime itself; bench/gqlexec's BenchmarkGraphQLDeployedGC uses
		// the same values.
		runtimeVars := map[string]string{"GOGC": `"400"`, "GOMEMLIMIT": `"400MiB"`}
		for name, w := range runtimeVars {
			if got := js(fn.Environment.Variables[name]); got != w {
				t.Errorf("%s = %s, want %s", name, got, w)
			}
		}
		for name, v := range fn.Environment.Variables {
			if _, ok := runtimeVars[name]; ok {
				continue
			}
			if !read[name] {
				t.Errorf("environment variable %s is not read by config.Load", name)
			}
			if w, ok := want[name]; !ok {
				t.Errorf("unexpected environment variable %s", name)
			} else if js(v) != w {
				t.Errorf("%s = %s, want %s", name, js(v), w)
			}
		}
		for name := range want {
			if _, ok := fn.Environment.Variables[name]; !ok {
				t.Errorf("environment variable %s missing", name)
			}
		}
	})

	t.Run("RoutesWithoutAuthorizer", func(t *testing.T) {
		var routes []string
		for name, ev := range fn.Events {
			if ev.Type != "HttpApi" {
				t.Errorf("event %s has type %s, want HttpApi", name, ev.Type)
			}
			if js(ev.Properties["ApiId"]) != `{"Ref":"Api"}` {
				t.Errorf("event %s ApiId %s, want the template's Api", name, js(ev.Properties["ApiId"]))
			}
			if _, ok := ev.Properties["Auth"]; ok {
				t.Errorf("event %s has Auth: a JWT authorizer would reject signed-out players", name)
			}
			routes = append(routes, ev.Properties["Method"].(string)+" "+ev.Properties["Path"].(string))
		}
		sort.Strings(routes)
		if want := []string{"GET /graphql", "GET /healthz", "POST /graphql"}; !slices.Equal(routes, want) {
			t.Errorf("routes %v, want %v", routes, want)
		}
	})

	t.Run("PolicyIsWhatTheStoreCalls", func(t *testing.T) {
		var actions []string
		var resources []string
		for _, p := range fn.Policies {
			for _, s := range p.Statement {
				if s.Effect != "Allow" {
					t.Errorf("statement effect %s", s.Effect)
				}
				actions = append(actions, s.Action...)
				for _, r := range s.Resource {
					resources = append(resources, js(r))
				}
			}
		}
		if len(actions) == 0 {
			t.Fatal("no inline policy statements (managed policy templates such as DynamoDBCrudPolicy grant more than the store uses)")
		}
		sort.Strings(actions)
		if want := storeActions(t); !slices.Equal(actions, want) {
			t.Errorf("IAM actions %v, want exactly %v", actions, want)
		}
		sort.Strings(resources)
		want := []string{`{"Fn::GetAtt":["Table","Arn"]}`, `{"Fn::Sub":"${Table.Arn}/index/*"}`}
		if !slices.Equal(resources, want) {
			t.Errorf("resources %v, want %v", resources, want)
		}
	})
}

// runtimeActions maps each runtime method of ddb.API to the IAM actions it needs.
// TransactWriteItems is not an IAM action: each item is authorised as what it does.
var runtimeActions = map[string][]string{
	"GetItem":            {"dynamodb:GetItem"},
	"BatchGetItem":       {"dynamodb:BatchGetItem"},
	"Query":              {"dynamodb:Query"},
	"PutItem":            {"dynamodb:PutItem"},
	"UpdateItem":         {"dynamodb:UpdateItem"},
	"TransactWriteItems": {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"},
}

// provisioning are ddb.API methods used only to create the table (Store.EnsureTable,
// for tests and the local server); in AWS, CloudFormation does that and the function is
// not allowed to.
var provisioning = map[string]bool{"CreateTable": true, "DescribeTable": true, "UpdateContinuousBackups": true}

// operatorOnly are ddb.API methods only the admin command calls (Scan: admin migrate),
// run with the operator's own credentials; the function never calls them and is not
// allowed to.
var operatorOnly = map[string]bool{"Scan": true}

// storeActions returns the sorted IAM actions for every method of ddb.API, failing the
// test for a method it does not know.
func storeActions(t *testing.T) []string {
	t.Helper()
	api := reflect.TypeFor[ddb.API]()
	set := map[string]bool{}
	for i := range api.NumMethod() {
		m := api.Method(i).Name
		if provisioning[m] || operatorOnly[m] {
			continue
		}
		acts, ok := runtimeActions[m]
		if !ok {
			t.Errorf("ddb.API has method %s: grant its IAM action in template.yaml and map it in runtimeActions (or list it in provisioning or operatorOnly)", m)
			continue
		}
		for _, a := range acts {
			set[a] = true
		}
	}
	var out []string
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func TestTemplateHTTPAPI(t *testing.T) {
	tpl := loadTemplate(t)
	var api struct {
		Auth              any
		StageName         string
		CorsConfiguration struct {
			AllowOrigins any
			AllowMethods []string
			AllowHeaders []string
			MaxAge       int
		}
	}
	props(t, tpl, "Api", "AWS::Serverless::HttpApi", &api)
	if api.Auth != nil {
		t.Errorf("Api has Auth %s: no authorizer may be on the routes", js(api.Auth))
	}
	if api.StageName != "" {
		t.Errorf("StageName %q: the $default stage keeps paths as the server routes them", api.StageName)
	}
	c := api.CorsConfiguration
	if js(c.AllowOrigins) != `{"Ref":"AllowedOrigins"}` {
		t.Errorf("CORS AllowOrigins %s, want the AllowedOrigins parameter", js(c.AllowOrigins))
	}
	// API Gateway answers preflights itself: it must allow what the function allows
	// (server's one list), no more, no less.
	if got, want := lowerSet(c.AllowMethods), lowerSet(server.CORSAllowedMethods); !slices.Equal(got, want) {
		t.Errorf("CORS AllowMethods %v, want server.CORSAllowedMethods %v", got, want)
	}
	if got, want := lowerSet(c.AllowHeaders), lowerSet(server.CORSAllowedHeaders); !slices.Equal(got, want) {
		t.Errorf("CORS AllowHeaders %v, want server.CORSAllowedHeaders %v", got, want)
	}
	if c.MaxAge != server.CORSMaxAge {
		t.Errorf("CORS MaxAge %d, want server.CORSMaxAge %d", c.MaxAge, server.CORSMaxAge)
	}
}

// lowerSet returns the distinct lowercased values, sorted.
func lowerSet(vs []string) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, strings.ToLower(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTemplateFrontDoor checks what stands between players and DynamoDB (docs/operations.md, "Front
// door"): the stage throttle, the function's reserved concurrency, and that the read cache
// the reserved concurrency is sized with is on.
func TestTemplateFrontDoor(t *testing.T) {
	tpl := loadTemplate(t)
	var api struct {
		DefaultRouteSettings struct{ ThrottlingRateLimit, ThrottlingBurstLimit float64 }
	}
	props(t, tpl, "Api", "AWS::Serverless::HttpApi", &api)
	var fn struct {
		ReservedConcurrentExecutions int
		Environment                  struct{ Variables map[string]any }
	}
	props(t, tpl, "Function", "AWS::Serverless::Function", &fn)

	// The submit load: 1,000,000 picks in the last hour, the peak minute 10× the
	// average, must pass the stage; more than API Gateway's default account quota (10,000
	// requests/s, bursts of 5,000) would be a setting that cannot take effect.
	const submitPeak = 1_000_000.0 / 3600 * 10
	r := api.DefaultRouteSettings
	if r.ThrottlingRateLimit < submitPeak || r.ThrottlingRateLimit > 10_000 || r.ThrottlingBurstLimit < 1 || r.ThrottlingBurstLimit > 5_000 {
		t.Errorf("stage throttle %v/s, burst %v: want at least the submit peak (%.0f/s) and at most the account's 10,000/s, 5,000",
			r.ThrottlingRateLimit, r.ThrottlingBurstLimit, submitPeak)
	}
	// Reserved: at most what an account may reserve (1,000 by default, 100 left unreserved).
	if c := fn.ReservedConcurrentExecutions; c < 1 || c > 900 {
		t.Errorf("ReservedConcurrentExecutions %d: want 1..900", c)
	}
	ttl, err := time.ParseDuration(fmt.Sprint(fn.Environment.Variables["PICKEM_READ_CACHE_TTL"]))
	if err != nil || ttl <= 0 {
		t.Errorf("PICKEM_READ_CACHE_TTL %v: the read cache must be on (the reserved concurrency bounds partition reads through it)", fn.Environment.Variables["PICKEM_READ_CACHE_TTL"])
	}
}

// alarm is the part of an AWS::CloudWatch::Alarm the test reads.
type alarm struct {
	Namespace, MetricName, Statistic, ComparisonOperator string
	Dimensions                                           []struct {
		Name  string
		Value any
	}
	Metrics []struct {
		Id         string
		Expression string
		MetricStat *struct {
			Metric struct {
				Namespace, MetricName string
				Dimensions            []struct {
					Name  string
					Value any
				}
			}
		}
	}
	Threshold    float64
	AlarmActions []any
	OKActions    []any
}

// watches returns "namespace/metric dimension=value …" for every metric the alarm reads.
func (a alarm) watches() []string {
	var out []string
	one := func(ns, name string, dims []struct {
		Name  string
		Value any
	}) {
		w := ns + "/" + name
		for _, d := range dims {
			w += " " + d.Name + "=" + js(d.Value)
		}
		out = append(out, w)
	}
	if a.MetricName != "" {
		one(a.Namespace, a.MetricName, a.Dimensions)
	}
	for _, m := range a.Metrics {
		if m.MetricStat != nil {
			one(m.MetricStat.Metric.Namespace, m.MetricStat.Metric.MetricName, m.MetricStat.Metric.Dimensions)
		}
	}
	sort.Strings(out)
	return out
}

// TestTemplateAlarms: the alarms — throttled requests (API stage, Lambda,
// DynamoDB), TransactionConflicts, function errors, duration near the timeout — each on
// the stack's own resources and notifying the alarm topic.
func TestTemplateAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	var fn functionProps
	props(t, tpl, "Function", "AWS::Serverless::Function", &fn)
	tbl, function, api := `{"Ref":"Table"}`, `{"Ref":"Function"}`, `{"Ref":"Api"}`
	want := map[string][]string{
		"ApiThrottledAlarm":      {"AWS/ApiGateway/4xx ApiId=" + api, "AWS/ApiGateway/Count ApiId=" + api},
		"FunctionThrottlesAlarm": {"AWS/Lambda/Throttles FunctionName=" + function},
		"DynamoDBThrottledAlarm": {
			"AWS/DynamoDB/ReadThrottleEvents TableName=" + tbl, "AWS/DynamoDB/ReadThrottleEvents TableName=" + tbl + ` GlobalSecondaryIndexName="` + table.IndexName + `"`,
			"AWS/DynamoDB/WriteThrottleEvents TableName=" + tbl, "AWS/DynamoDB/WriteThrottleEvents TableName=" + tbl + ` GlobalSecondaryIndexName="` + table.IndexName + `"`,
		},
		"TransactionConflictAlarm": {"AWS/DynamoDB/TransactionConflict TableName=" + tbl},
		"FunctionErrorsAlarm":      {"AWS/Lambda/Errors FunctionName=" + function},
		"FunctionDurationAlarm":    {"AWS/Lambda/Duration FunctionName=" + function},
		"LivePublishFailuresAlarm": {push.MetricNamespace + "/" + push.MetricPublishFailures + " FunctionName=" + function},
	}
	found := 0
	for name, r := range tpl.Resources {
		if r.Type != "AWS::CloudWatch::Alarm" {
			continue
		}
		found++
		w, ok := want[name]
		if !ok {
			t.Errorf("alarm %s is not one the test knows", name)
			continue
		}
		var a alarm
		props(t, tpl, name, r.Type, &a)
		sort.Strings(w)
		if got := a.watches(); !slices.Equal(got, w) {
			t.Errorf("%s watches %v, want %v", name, got, w)
		}
		topic := `[{"Ref":"AlarmTopic"}]`
		if js(a.AlarmActions) != topic || js(a.OKActions) != topic {
			t.Errorf("%s notifies %s and %s, want the AlarmTopic both ways", name, js(a.AlarmActions), js(a.OKActions))
		}
		if name == "FunctionDurationAlarm" {
			// Near the timeout: above any scoring call (budget + margins), below the timeout.
			budget, _ := time.ParseDuration(fmt.Sprint(fn.Environment.Variables["PICKEM_SCORING_BUDGET"]))
			lo, hi := (budget + dynamo.ScoringMargin + dynamo.LiveMargin).Milliseconds(), int64(fn.Timeout)*1000
			if a.Statistic != "Maximum" || int64(a.Threshold) <= lo || int64(a.Threshold) >= hi {
				t.Errorf("duration alarm: %s > %v ms; want Maximum between %d and %d ms", a.Statistic, a.Threshold, lo, hi)
			}
		}
	}
	if found != len(want) {
		t.Errorf("%d alarms, want %d", found, len(want))
	}
	if _, ok := tpl.Resources["AlarmTopic"]; !ok || tpl.Resources["AlarmTopic"].Type != "AWS::SNS::Topic" {
		t.Error("no AlarmTopic SNS topic")
	}
}
