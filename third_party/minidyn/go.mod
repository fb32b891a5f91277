module github.com/truora/minidyn

go 1.26

require (
	github.com/aws/aws-sdk-go-v2 v1.36.3
	github.com/aws/aws-sdk-go-v2/config v1.17.8
	github.com/aws/aws-sdk-go-v2/credentials v1.12.21
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.43.1
	github.com/aws/smithy-go v1.22.3
	github.com/google/go-cmp v0.7.0
	github.com/stretchr/testify v1.11.1
)
