package dynamo

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient returns a DynamoDB client with the cost-counting option installed, configured
// from the environment only: the region from AWS_REGION (or AWS_DEFAULT_REGION), the
// credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, which is
// how Lambda hands a function its role's credentials. The SDK's default chain (shared
// config files, SSO, STS, the instance metadata service) is deliberately not linked: the
// Lambda function needs none of it, and leaving it out makes the bootstrap smaller and its
// init shorter (bench/README.md).
//
// With an endpoint (DynamoDB Local, the embedded engine) the region defaults to us-east-1,
// the credentials to static local ones, and response checksums are not validated. Without
// one, a missing region or missing credentials is an error.
func NewClient(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	_ = ctx // the environment is read synchronously; ctx is kept for callers' symmetry
	cfg := aws.Config{Region: os.Getenv("AWS_REGION")}
	if cfg.Region == "" {
		cfg.Region = os.Getenv("AWS_DEFAULT_REGION")
	}
	key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	switch {
	case key != "" && secret != "":
		cfg.Credentials = credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))
	case endpoint != "":
		cfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
	default:
		return nil, errors.New("dynamo: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them)")
	}
	if cfg.Region == "" {
		if endpoint == "" {
			return nil, errors.New("dynamo: no AWS region: set AWS_REGION (Lambda sets it)")
		}
		cfg.Region = "us-east-1"
	}
	return dynamodb.NewFromConfig(cfg, CostOption, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.DisableValidateResponseChecksum = true
		}
	}), nil
}
