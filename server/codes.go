package server

// Codes of refusals the server itself decides (the domain's codes are in package domain;
// gqlgen adds GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED and
// PERSISTED_QUERY_NOT_FOUND).
const (
	// CodeLimitExceeded refuses a document over one of the limits in limits.go (tokens,
	// fields, aliases, directives, depth, complexity, DynamoDB calls). It is gqlgen's
	// complexity code, so that one code covers every "ask for less" refusal.
	CodeLimitExceeded = "COMPLEXITY_LIMIT_EXCEEDED"
	// CodeUntrustedDocument refuses a document that is not in the trusted-documents
	// manifest (PICKEM_TRUSTED_DOCUMENTS).
	CodeUntrustedDocument = "UNTRUSTED_DOCUMENT"
)
