package awsfaithful

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Item is an item (or a key) in DynamoDB's JSON wire format: attribute name → raw
// attribute value such as {"S":"abc"}.
type Item map[string]json.RawMessage

// S returns the value of attribute name if it is a string or a number, else "".
func (it Item) S(name string) string {
	raw, ok := it[name]
	if !ok {
		return ""
	}
	var v struct {
		S *string `json:"S"`
		N *string `json:"N"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch {
	case v.S != nil:
		return *v.S
	case v.N != nil:
		return *v.N
	}
	return ""
}

// Has reports whether the item has attribute name.
func (it Item) Has(name string) bool { _, ok := it[name]; return ok }

// scalar returns a canonical text of a key attribute's value ("S:abc", "N:12", "B:…").
func scalar(raw json.RawMessage) string {
	var v struct {
		S *string `json:"S"`
		N *string `json:"N"`
		B *string `json:"B"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "?" + string(raw)
	}
	switch {
	case v.S != nil:
		return "S:" + *v.S
	case v.N != nil:
		return "N:" + *v.N
	case v.B != nil:
		return "B:" + *v.B
	}
	return "?" + string(raw)
}

// Wire names of DynamoDB's JSON protocol.
const (
	targetPrefix        = "DynamoDB_20120810."
	streamsTargetPrefix = "DynamoDBStreams_20120810."
	errorPrefix         = "com.amazonaws.dynamodb.v20120810#"
	contentType         = "application/x-amz-json-1.0"
)

// awsError is an error answer in DynamoDB's wire format. Body members other than __type
// are written as given (exception members are case-sensitive: PTEE's is "message",
// TransactionCanceledException's is "Message").
type awsError struct {
	Status int
	Type   string // e.g. "ProvisionedThroughputExceededException"
	Body   map[string]any
}

func (e *awsError) Error() string {
	msg, _ := e.Body["message"].(string)
	if msg == "" {
		msg, _ = e.Body["Message"].(string)
	}
	return e.Type + ": " + msg
}

// write sends the error as AWS would: HTTP 400, x-amzn-ErrorType, JSON with __type.
func (e *awsError) write(w http.ResponseWriter) {
	body := map[string]any{"__type": errorPrefix + e.Type}
	for k, v := range e.Body {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	w.Header().Set("x-amzn-ErrorType", e.Type)
	writeJSON(w, e.Status, b)
}

// writeJSON writes a JSON body with the headers DynamoDB sends, x-amz-crc32 included.
func writeJSON(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("x-amz-crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10))
	if h.Get("x-amzn-RequestId") == "" {
		h.Set("x-amzn-RequestId", newRequestID())
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// throughputExceeded is ProvisionedThroughputExceededException with a throttling reason
// such as "TableWriteKeyRangeThroughputExceeded" (a partition over its per-key limit).
func throughputExceeded(reason, resource string) *awsError {
	return &awsError{Status: 400, Type: "ProvisionedThroughputExceededException", Body: map[string]any{
		"message":           "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
		"ThrottlingReasons": []map[string]string{{"reason": reason, "resource": resource}},
	}}
}

// throttlingException is ThrottlingException (what AWS returns for request rates over
// an on-demand table's limits).
func throttlingException(reason, resource string) *awsError {
	return &awsError{Status: 400, Type: "ThrottlingException", Body: map[string]any{
		"message":           "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.",
		"throttlingReasons": []map[string]string{{"reason": reason, "resource": resource}},
	}}
}

// transactionConflict is TransactionConflictException: a plain write to an item an
// in-flight transaction holds.
func transactionConflict() *awsError {
	return &awsError{Status: 400, Type: "TransactionConflictException", Body: map[string]any{
		"message": "Transaction is ongoing for the item",
	}}
}

// Cancellation reason codes of TransactionCanceledException.
const (
	reasonNone       = "None"
	reasonConflict   = "TransactionConflict"
	reasonThrottling = "ThrottlingError"
)

var reasonMessages = map[string]string{
	reasonConflict:   "Transaction is ongoing for the item",
	reasonThrottling: "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html",
}

// transactionCanceled is TransactionCanceledException with one reason per item.
func transactionCanceled(codes []string) *awsError {
	reasons := make([]map[string]string, len(codes))
	for i, c := range codes {
		reasons[i] = map[string]string{"Code": c}
		if m := reasonMessages[c]; m != "" {
			reasons[i]["Message"] = m
		}
	}
	return &awsError{Status: 400, Type: "TransactionCanceledException", Body: map[string]any{
		"Message":             fmt.Sprintf("Transaction cancelled, please refer cancellation reasons for specific reasons [%s]", strings.Join(codes, ", ")),
		"CancellationReasons": reasons,
	}}
}

// upstreamError is an error answer of DynamoDB Local to one of the engine's own calls.
type upstreamError struct {
	Status  int
	Type    string // without the namespace
	Message string
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("DynamoDB Local: %d %s: %s", e.Status, e.Type, e.Message)
}

func isUpstream(err error, typ string) bool {
	ue, ok := err.(*upstreamError)
	return ok && ue.Type == typ
}

// call sends one request of the engine's own to DynamoDB Local (target is
// "DynamoDB_20120810.X" or "DynamoDBStreams_20120810.X") and decodes the answer into out.
func (e *Engine) call(ctx context.Context, target string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	status, resp, err := e.roundTrip(ctx, target, body, nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		var eb struct {
			Type     string `json:"__type"`
			Message  string `json:"message"`
			Message2 string `json:"Message"`
		}
		_ = json.Unmarshal(resp, &eb)
		_, typ, _ := strings.Cut(eb.Type, "#")
		return &upstreamError{Status: status, Type: typ, Message: eb.Message + eb.Message2}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(resp, out)
}

// roundTrip posts body to DynamoDB Local with target and returns the status and body.
// header, if not nil, supplies the client's headers (signature and all: DynamoDB Local
// does not check signatures, but wants an Authorization header).
func (e *Engine) roundTrip(ctx context.Context, target string, body []byte, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.upstream+"/", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, vs := range header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Host", "Accept-Encoding", "Connection":
		default:
			req.Header[k] = vs
		}
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", target)
	if req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
