package bench

import (
	"os"

	"github.com/pickem/api/internal/dynamotest"
)

// engineName is the engine every screen runs on, as results name it.
const engineName = "DynamoDB Local"

// benchJavaOpts are the JVM flags for DynamoDB Local in a benchmark. The test default
// (internal/dynamolocal) stops at the C1 compiler and uses a small serial-GC heap for a
// cheap start; a benchmark runs long enough for C2 to pay off, and with a small heap
// DynamoDB Local's transactions get slower and slower over a run.
const benchJavaOpts = "-Xms2g -Xmx2g -XX:+UseParallelGC"

// engine is a running DynamoDB Local.
type engine struct {
	endpoint string
	table    string // the table the leagues are loaded into
	javaOpts string // DynamoDB Local's JVM flags, if the run started it
	stop     func()
}

// startEngine starts DynamoDB Local with benchJavaOpts (unless DYNAMODB_LOCAL_JAVA_OPTS
// says otherwise), or uses the test package's engine when DYNAMODB_TEST_ENDPOINT is set
// (internal/dynamotest), in a table of its own.
func startEngine() (*engine, error) {
	if os.Getenv(dynamotest.EnvEndpoint) != "" {
		e, err := dynamotest.Start()
		if err != nil {
			return nil, err
		}
		return &engine{endpoint: e.Endpoint, table: dynamotest.TableName(), stop: e.Stop}, nil
	}
	if _, ok := os.LookupEnv(dynamotest.EnvJavaOpts); !ok {
		os.Setenv(dynamotest.EnvJavaOpts, benchJavaOpts)
	}
	e, err := dynamotest.Start()
	if err != nil {
		return nil, err
	}
	return &engine{endpoint: e.Endpoint, table: "pickem_bench", javaOpts: os.Getenv(dynamotest.EnvJavaOpts), stop: e.Stop}, nil
}
