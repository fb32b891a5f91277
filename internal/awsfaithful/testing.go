package awsfaithful

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/internal/dynamotest"
)

// New starts an engine in front of the test package's DynamoDB Local (the package's
// TestMain must call dynamotest.Main) and closes it when the test ends.
func New(t testing.TB, cfg Config) *Engine {
	t.Helper()
	if cfg.Upstream == "" {
		cfg.Upstream = dynamotest.Endpoint(t)
	}
	e, err := Start(cfg)
	if err != nil {
		t.Fatalf("awsfaithful: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// Client returns an SDK client for the engine, configured as dynamotest.Client (region,
// static credentials, no response checksums) with optFns applied, then BaseEndpoint set
// to the engine.
func (e *Engine) Client(t testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	return dynamotest.Client(t, append(optFns, e.EndpointOption)...)
}

// EndpointOption is a client option pointing the client at the engine.
func (e *Engine) EndpointOption(o *dynamodb.Options) { o.BaseEndpoint = aws.String(e.Endpoint()) }
