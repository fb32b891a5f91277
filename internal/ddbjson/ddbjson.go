// Package ddbjson decodes DynamoDB's successful answers to GetItem, Query and
// BatchGetItem — the calls every screen reads with — straight from their JSON into the
// SDK's output types, with the result the SDK's own deserializer gives, at a fraction of
// its CPU and allocations (bench/README "Decoding DynamoDB's answers").
//
// Wrap installs it as the client's protocol (dynamodb.Options.Protocol): every other
// operation, every error answer, and every answer holding something this decoder does not
// know (an unknown member, capacity broken down by index, unprocessed keys, malformed
// JSON) goes to the SDK's protocol unchanged, with the body as it arrived. The decoder
// therefore never decides what an answer means; it only makes the common answers cheaper.
package ddbjson

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Wrap returns p with GetItem, Query and BatchGetItem answers decoded by this package.
func Wrap(p smithyhttp.ClientProtocol) smithyhttp.ClientProtocol {
	if w, ok := p.(protocol); ok {
		return w
	}
	return protocol{ClientProtocol: p}
}

// Verified is Option for tests: every answer this package decodes is decoded by the SDK
// too, and mismatch is called with both results when they differ.
func Verified(mismatch func(string)) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		if o.Protocol != nil {
			w, _ := Wrap(o.Protocol).(protocol)
			w.verify = mismatch
			o.Protocol = w
		}
	}
}

// Option is Wrap as a dynamodb.New / NewFromConfig option.
func Option(o *dynamodb.Options) {
	if o.Protocol != nil {
		o.Protocol = Wrap(o.Protocol)
	}
}

// Decoded and Delegated count the answers of the three operations this package decoded
// itself and those it gave to the SDK (tests assert which path an answer took).
var Decoded, Delegated atomic.Int64

type protocol struct {
	smithyhttp.ClientProtocol
	verify func(string) // Verified
}

var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer kept for reuse (a Query page is at most 1 MB of items,
// a little more as JSON); larger ones are left to the collector.
const maxPooled = 2 << 20

func (p protocol) DeserializeResponse(ctx context.Context, schema *smithy.OperationSchema, reg *smithy.TypeRegistry, resp *smithyhttp.Response, out smithy.Deserializable) error {
	if resp.StatusCode < 200 || resp.StatusCode >= 300 || resp.Body == nil {
		return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
	}
	var decode func(*decoder) bool
	switch o := out.(type) {
	case *dynamodb.QueryOutput:
		decode = func(d *decoder) bool { return d.query(o) }
	case *dynamodb.GetItemOutput:
		decode = func(d *decoder) bool { return d.getItem(o) }
	case *dynamodb.BatchGetItemOutput:
		decode = func(d *decoder) bool { return d.batchGetItem(o) }
	default:
		return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
	}
	buf := bufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooled {
			buf.Reset()
			bufs.Put(buf)
		}
	}()
	if resp.ContentLength > 0 && resp.ContentLength < maxPooled {
		buf.Grow(int(resp.ContentLength))
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return &smithy.DeserializationError{Err: err}
	}
	if buf.Len() > 0 {
		d := decoder{b: buf.Bytes()}
		if decode(&d) && d.end() {
			Decoded.Add(1)
			if p.verify != nil {
				p.check(ctx, schema, reg, resp, out, buf.Bytes())
			}
			return nil
		}
	}
	// Not an answer this package knows: the SDK decodes it from the same bytes, into an
	// output the failed attempt may have half filled.
	Delegated.Add(1)
	resetOutput(out)
	// Closing it closes the body that arrived (the SDK's CRC32 check runs on Close).
	resp.Body = readCloser{Reader: bytes.NewReader(bytes.Clone(buf.Bytes())), Closer: resp.Body}
	return p.ClientProtocol.DeserializeResponse(ctx, schema, reg, resp, out)
}

// check decodes body with the SDK and reports a difference from got.
func (p protocol) check(ctx context.Context, schema *smithy.OperationSchema, reg *smithy.TypeRegistry, resp *smithyhttp.Response, got smithy.Deserializable, body []byte) {
	want := reflect.New(reflect.TypeOf(got).Elem()).Interface().(smithy.Deserializable)
	sdk := *resp
	sdk.Response = new(http.Response)
	*sdk.Response = *resp.Response
	sdk.Body = io.NopCloser(bytes.NewReader(bytes.Clone(body)))
	if err := p.ClientProtocol.DeserializeResponse(ctx, schema, reg, &sdk, want); err != nil {
		p.verify(fmt.Sprintf("ddbjson decoded an answer the SDK refuses (%v): %.500s", err, body))
		return
	}
	if !reflect.DeepEqual(want, got) {
		p.verify(fmt.Sprintf("ddbjson and the SDK decode differently: %.500s\nSDK:     %#v\nddbjson: %#v", body, want, got))
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

func resetOutput(out smithy.Deserializable) {
	switch o := out.(type) {
	case *dynamodb.QueryOutput:
		*o = dynamodb.QueryOutput{ResultMetadata: o.ResultMetadata}
	case *dynamodb.GetItemOutput:
		*o = dynamodb.GetItemOutput{ResultMetadata: o.ResultMetadata}
	case *dynamodb.BatchGetItemOutput:
		*o = dynamodb.BatchGetItemOutput{ResultMetadata: o.ResultMetadata}
	}
}

// The three answers. Each returns false on anything it does not know.

func (d *decoder) query(o *dynamodb.QueryOutput) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "Items":
			items, ok := d.items()
			o.Items = items
			return ok
		case "Count":
			n, ok := d.int32()
			o.Count = n
			return ok
		case "ScannedCount":
			n, ok := d.int32()
			o.ScannedCount = n
			return ok
		case "LastEvaluatedKey":
			m, ok := d.item()
			o.LastEvaluatedKey = m
			return ok
		case "ConsumedCapacity":
			c, ok := d.capacity()
			o.ConsumedCapacity = c
			return ok
		}
		return false
	})
}

func (d *decoder) getItem(o *dynamodb.GetItemOutput) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "Item":
			m, ok := d.item()
			o.Item = m
			return ok
		case "ConsumedCapacity":
			c, ok := d.capacity()
			o.ConsumedCapacity = c
			return ok
		}
		return false
	})
}

func (d *decoder) batchGetItem(o *dynamodb.BatchGetItemOutput) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "Responses":
			r := map[string][]map[string]types.AttributeValue{}
			ok := d.object(func(table []byte) bool {
				items, ok := d.items()
				r[string(table)] = items
				return ok
			})
			o.Responses = r
			return ok
		case "UnprocessedKeys": // only the empty object: keys left over go to the SDK
			o.UnprocessedKeys = map[string]types.KeysAndAttributes{}
			return d.object(func([]byte) bool { return false })
		case "ConsumedCapacity":
			cs := []types.ConsumedCapacity{}
			ok := d.array(func() bool {
				c, ok := d.capacity()
				if c != nil {
					cs = append(cs, *c)
				}
				return ok
			})
			o.ConsumedCapacity = cs
			return ok
		}
		return false
	})
}

// items reads a list of items (never nil, as the SDK's).
func (d *decoder) items() ([]map[string]types.AttributeValue, bool) {
	items := []map[string]types.AttributeValue{}
	ok := d.array(func() bool {
		m, ok := d.item()
		items = append(items, m)
		return ok
	})
	return items, ok
}

// capacity reads a ConsumedCapacity with a total only (ReturnConsumedCapacity TOTAL).
func (d *decoder) capacity() (*types.ConsumedCapacity, bool) {
	c := &types.ConsumedCapacity{}
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "TableName":
			s, ok := d.str()
			c.TableName = &s
			return ok
		case "CapacityUnits":
			f, ok := d.float64()
			c.CapacityUnits = &f
			return ok
		case "ReadCapacityUnits":
			f, ok := d.float64()
			c.ReadCapacityUnits = &f
			return ok
		case "WriteCapacityUnits":
			f, ok := d.float64()
			c.WriteCapacityUnits = &f
			return ok
		}
		return false
	})
	return c, ok
}
