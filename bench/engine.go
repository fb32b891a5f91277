package bench

import (
	"context"
	"fmt"
	"os"

	"github.com/pickem/api/internal/dynamotest"
	"github.com/pickem/api/internal/embedded"
)

// Engine keys, as used in flags and results.
const (
	EngineDynamoDBLocal = "dynamodb-local"
	EngineEmbedded      = "embedded"
)

// EmbeddedName is the embedded engine's name in results.
const EmbeddedName = "embedded (minidyn, patched)"

// benchJavaOpts are the JVM flags for DynamoDB Local in a benchmark. The test default
// (internal/dynamotest) stops at the C1 compiler and uses a small serial-GC heap for a cheap
// start; a benchmark runs long enough for C2 to pay off, and with a small heap DynamoDB
// Local's transactions got slower and slower over a run (measured: 80 → 150–220 ms per
// 100-item transaction after ~200 transactions with 1 GB and one GC thread; flat at ~80 ms
// with 3 GB).
const benchJavaOpts = "-Xms2g -Xmx2g -XX:+UseParallelGC"

// engine is a running DynamoDB engine.
type engine struct {
	key      string
	name     string
	endpoint string
	capacity bool   // the engine reports consumed capacity
	javaOpts string // DynamoDB Local's JVM flags
	stop     func()
}

func startEngine(key string) (*engine, error) {
	switch key {
	case EngineDynamoDBLocal:
		if _, ok := os.LookupEnv(dynamotest.EnvJavaOpts); !ok {
			os.Setenv(dynamotest.EnvJavaOpts, benchJavaOpts)
		}
		e, err := dynamotest.Start()
		if err != nil {
			return nil, err
		}
		return &engine{key: key, name: "DynamoDB Local", endpoint: e.Endpoint, capacity: true,
			javaOpts: os.Getenv(dynamotest.EnvJavaOpts), stop: e.Stop}, nil
	case EngineEmbedded:
		e, err := embedded.Start()
		if err != nil {
			return nil, err
		}
		return &engine{key: key, name: EmbeddedName, endpoint: e.Endpoint,
			stop: func() { _ = e.Stop(context.Background()) }}, nil
	}
	return nil, fmt.Errorf("bench: unknown engine %q (want %s or %s)", key, EngineDynamoDBLocal, EngineEmbedded)
}
