package ddbjson_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/ddbjson"
)

// canned answers every request with its body and status.
type canned struct {
	status int
	body   []byte
}

func (c *canned) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	return &http.Response{
		StatusCode: c.status, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)),
	}, nil
}

func client(c *canned, fast bool) *dynamodb.Client {
	opts := []func(*dynamodb.Options){}
	if fast {
		opts = append(opts, ddbjson.Option)
	}
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", Credentials: aws.AnonymousCredentials{},
		BaseEndpoint: aws.String("http://127.0.0.1:1"), HTTPClient: c,
		RetryMaxAttempts: 1,
	}, opts...)
}

type op string

const (
	query    op = "Query"
	getItem  op = "GetItem"
	batchGet op = "BatchGetItem"
)

// answer is what one client made of a body: the output without its metadata, or the error.
// A panic is reported as an error starting "panic:" (the SDK's JSON deserializer panics
// on some malformed bodies, FuzzDecode's corpus).
func answer(t *testing.T, o op, c *dynamodb.Client) (out any, msg string) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			out, msg = nil, fmt.Sprint("panic: ", p)
		}
	}()
	ctx := context.Background()
	var err error
	switch o {
	case query:
		var q *dynamodb.QueryOutput
		q, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("t")})
		if q != nil {
			q.ResultMetadata = dynamodb.QueryOutput{}.ResultMetadata
			out = q
		}
	case getItem:
		var g *dynamodb.GetItemOutput
		g, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "k"}}})
		if g != nil {
			g.ResultMetadata = dynamodb.GetItemOutput{}.ResultMetadata
			out = g
		}
	case batchGet:
		var b *dynamodb.BatchGetItemOutput
		b, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			"t": {Keys: []map[string]types.AttributeValue{{"PK": &types.AttributeValueMemberS{Value: "k"}}}}}})
		if b != nil {
			b.ResultMetadata = dynamodb.BatchGetItemOutput{}.ResultMetadata
			out = b
		}
	}
	if err != nil {
		return nil, err.Error()
	}
	return out, ""
}

// compare decodes body with the SDK alone and with this package, requires the same
// output or the same error, and reports whether this package decoded it itself.
func compare(t *testing.T, o op, status int, body string) (decoded bool) {
	t.Helper()
	c := &canned{status: status, body: []byte(body)}
	want, wantErr := answer(t, o, client(c, false))
	before, beforeDelegated := ddbjson.Decoded.Load(), ddbjson.Delegated.Load()
	got, gotErr := answer(t, o, client(c, true))
	decoded = ddbjson.Decoded.Load() > before
	if strings.HasPrefix(wantErr, "panic:") {
		if decoded {
			t.Fatalf("%s %.200s: decoded by ddbjson, the SDK panics on it: %s", o, body, wantErr)
		}
		return false
	}
	if wantErr != "" || gotErr != "" {
		if wantErr != gotErr {
			t.Fatalf("%s %.200s\nSDK error: %s\nwith ddbjson: %s", o, body, wantErr, gotErr)
		}
		return decoded
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s %.300s\nSDK:  %s\nddbjson: %s", o, body, dump(want), dump(got))
	}
	if decoded == (ddbjson.Delegated.Load() > beforeDelegated) {
		t.Fatalf("%s: the answer took neither path or both", o)
	}
	return decoded
}

func dump(v any) string { return fmt.Sprintf("%#v", v) }

const capTotal = `"ConsumedCapacity":{"TableName":"t","CapacityUnits":2.5}`

func TestAnswersDecodedAsTheSDKDoes(t *testing.T) {
	every := `{"s":{"S":"héllo \"quoted\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 <&>"},"e":{"S":""},` +
		`"n":{"N":"-12.5e3"},"b":{"B":"AAEC/w=="},"eb":{"B":""},"t":{"BOOL":true},"f":{"BOOL":false},` +
		`"z":{"NULL":true},"m":{"M":{"a":{"S":"x"},"in":{"M":{}}}},"em":{"M":{}},` +
		`"l":{"L":[{"S":"a"},{"N":"1"},{"L":[]},{"M":{"k":{"BOOL":false}}}]},"el":{"L":[]},` +
		`"ss":{"SS":["a","b"]},"ns":{"NS":["1","2.5"]},"bs":{"BS":["AA==","AQI="]}}`
	cases := []struct {
		name    string
		op      op
		status  int
		body    string
		decoded bool
	}{
		{"query every type", query, 200, `{"Count":2,"Items":[` + every + `,{"PK":{"S":"p"}}],"ScannedCount":2,` + capTotal + `}`, true},
		{"query with a next page", query, 200, `{"Count":1,"Items":[{"PK":{"S":"p"}}],"LastEvaluatedKey":{"PK":{"S":"p"},"SK":{"S":"s"}},"ScannedCount":1}`, true},
		{"query, nothing found", query, 200, `{"Count":0,"Items":[],"ScannedCount":0}`, true},
		{"query, white space", query, 200, " {\n\t\"Count\" : 1 , \"Items\" : [ { \"a\" : { \"S\" : \"x\" } } ] } \n", true},
		{"query, read and write units", query, 200, `{"Count":0,"Items":[],"ConsumedCapacity":{"TableName":"t","CapacityUnits":1.0,"ReadCapacityUnits":1.0,"WriteCapacityUnits":0}}`, true},
		{"get item", getItem, 200, `{"Item":` + every + `,` + capTotal + `}`, true},
		{"get item, none", getItem, 200, `{}`, true},
		{"get item, none, capacity", getItem, 200, `{` + capTotal + `}`, true},
		{"batch get", batchGet, 200, `{"Responses":{"t":[` + every + `],"u":[]},"UnprocessedKeys":{},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":1.5},{"TableName":"u","CapacityUnits":0.5}]}`, true},
		{"batch get, no capacity", batchGet, 200, `{"Responses":{"t":[{"a":{"N":"1"}}]},"UnprocessedKeys":{}}`, true},
		// Left to the SDK: what this package does not know.
		{"capacity by index", query, 200, `{"Count":0,"Items":[],"ConsumedCapacity":{"TableName":"t","CapacityUnits":1,"Table":{"CapacityUnits":1}}}`, false},
		{"unknown member", query, 200, `{"Count":0,"Items":[],"Other":1}`, false},
		{"unknown attribute type", query, 200, `{"Count":1,"Items":[{"a":{"X":"1"}}]}`, false},
		{"unprocessed keys", batchGet, 200, `{"Responses":{"t":[]},"UnprocessedKeys":{"t":{"Keys":[{"PK":{"S":"k"}}]}}}`, false},
		{"lone surrogate", query, 200, `{"Count":1,"Items":[{"a":{"S":"\ud83d"}}]}`, false},
		{"bad base64", query, 200, `{"Count":1,"Items":[{"a":{"B":"!!"}}]}`, false},
		{"duplicate attribute", query, 200, `{"Count":1,"Items":[{"a":{"S":"1"},"a":{"S":"2"}}]}`, false},
		{"truncated", query, 200, `{"Count":1,"Items":[{"a":{"S":"1"}`, false},
		{"trailing garbage", query, 200, `{"Count":0,"Items":[]} x`, false},
		{"error answer", query, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"no table"}`, false},
		{"throttled", getItem, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := compare(t, c.op, c.status, c.body); got != c.decoded {
				t.Errorf("decoded by ddbjson = %v, want %v", got, c.decoded)
			}
		})
	}
}

// TestRandomItemsDecodedAsTheSDKDoes compares random items of every type, with every
// escape encoding/json writes and raw UTF-8, in all three answers.
func TestRandomItemsDecodedAsTheSDKDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var items []string
		for range 1 + r.IntN(5) {
			items = append(items, randomItem(r, 0))
		}
		list := strings.Join(items, ",")
		if !compare(t, query, 200, `{"Count":`+strconv.Itoa(len(items))+`,"Items":[`+list+`],"LastEvaluatedKey":`+items[0]+`,`+capTotal+`}`) {
			t.Fatal("random query answer left to the SDK")
		}
		if !compare(t, getItem, 200, `{"Item":`+items[0]+`}`) {
			t.Fatal("random item left to the SDK")
		}
		if !compare(t, batchGet, 200, `{"Responses":{"t":[`+list+`]},"UnprocessedKeys":{}}`) {
			t.Fatal("random batch answer left to the SDK")
		}
	}
}

func randomString(r *rand.Rand) string {
	const pieces = "aZ09 \"\\/<>&\u2028\u2029\t\n\x01é€😀"
	runes := []rune(pieces)
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	j, _ := json.Marshal(b.String())
	return string(j)
}

func randomItem(r *rand.Rand, depth int) string {
	var attrs []string
	seen := map[string]bool{}
	for range r.IntN(6) {
		name := randomString(r)
		if seen[name] {
			continue
		}
		seen[name] = true
		attrs = append(attrs, name+":"+randomValue(r, depth))
	}
	return "{" + strings.Join(attrs, ",") + "}"
}

func randomValue(r *rand.Rand, depth int) string {
	n := 10
	if depth > 2 {
		n = 7 // no more nesting
	}
	b64 := func() string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return `"` + base64.StdEncoding.EncodeToString(b) + `"`
	}
	many := func(f func() string) string {
		var s []string
		for range r.IntN(4) {
			s = append(s, f())
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	num := func() string { return `"` + strconv.FormatFloat(r.NormFloat64()*1e6, 'g', -1, 64) + `"` }
	switch r.IntN(n) {
	case 0:
		return `{"S":` + randomString(r) + `}`
	case 1:
		return `{"N":` + num() + `}`
	case 2:
		return `{"B":` + b64() + `}`
	case 3:
		return `{"BOOL":` + strconv.FormatBool(r.IntN(2) == 0) + `}`
	case 4:
		return `{"NULL":true}`
	case 5:
		return `{"SS":` + many(func() string { return randomString(r) }) + `}`
	case 6:
		return `{"NS":` + many(num) + `}`
	case 7:
		return `{"BS":` + many(b64) + `}`
	case 8:
		return `{"M":` + randomItem(r, depth+1) + `}`
	default:
		return `{"L":` + many(func() string { return randomValue(r, depth+1) }) + `}`
	}
}

// FuzzDecode: on any body, the answer with this package is the SDK's answer (or its
// error), and this package does not panic.
func FuzzDecode(f *testing.F) {
	f.Add(`{"Count":1,"Items":[{"a":{"S":"x\u00e9"},"b":{"L":[{"N":"1"}]}}],"ScannedCount":1}`)
	f.Add(`{"Item":{"a":{"M":{"b":{"BS":["AA=="]}}}}}`)
	f.Add(`{"Responses":{"t":[{"a":{"NULL":true}}]},"UnprocessedKeys":{}}`)
	f.Add(`{"Count":0,"Items":[],"ConsumedCapacity":{"TableName":"t","CapacityUnits":1}}`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, o := range []op{query, getItem, batchGet} {
			compare(t, o, 200, body)
		}
	})
}

// BenchmarkQuery decodes a page of 20 event rows (screen 1's answer, 17 attributes
// each: testdata/query20.json) with the SDK alone and with this package, HTTP excluded.
//
//	go test ./internal/ddbjson -run '^$' -bench . -benchmem
func BenchmarkQuery(b *testing.B) {
	body, err := os.ReadFile("testdata/query20.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, fast := range []bool{false, true} {
		name := "SDK"
		if fast {
			name = "ddbjson"
		}
		b.Run(name, func(b *testing.B) {
			c := client(&canned{status: 200, body: body}, fast)
			in := &dynamodb.QueryInput{TableName: aws.String("t")}
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.Query(context.Background(), in)
				if err != nil || len(out.Items) != 20 {
					b.Fatal(err)
				}
			}
		})
	}
}
