// Package hostile builds the GraphQL requests a hostile client sends: deep, wide, aliased,
// repeated, oversized and malformed shapes. The server tests assert each one is refused fast
// with a coded error; bench/gqlexec measures what each costs in CPU.
package hostile

import (
	"fmt"
	"strings"
)

// Request is one GraphQL POST body.
type Request struct {
	OperationName string         `json:"operationName,omitempty"`
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables,omitempty"`
}

// Shape is a named hostile request.
type Shape struct {
	Name string
	// Build returns the request; salt varies a comment so that a query cache cannot help
	// (row 2 of the issue).
	Build func(salt int) Request
}

// EventID is the event id the shapes ask for.
const EventID = "2030-06-15-hostile"

// Shapes returns every hostile document shape, in a stable order.
func Shapes() []Shape {
	return []Shape{
		{"Row1Aliases1499", func(int) Request { return Aliases(1499) }},
		{"Row2SameField6000", func(salt int) Request { return SameField(6000, salt) }},
		{"Row2RepeatedRoot7000", func(salt int) Request { return RepeatedRoot(7000, salt) }},
		{"Row10FragmentDoubling24", func(salt int) Request { return FragmentDoubling(24, salt) }},
		{"Directives3000", func(salt int) Request { return Directives(3000, salt) }},
		{"IntrospectionAliases300", func(salt int) Request { return IntrospectionAliases(300, salt, true) }},
		{"IntrospectionDepth40", func(salt int) Request { return IntrospectionDepth(40, salt) }},
		{"Operations2000", func(salt int) Request { return Operations(2000, salt) }},
		{"FragmentFanout", func(salt int) Request { return FragmentFanout(salt) }},
		{"IntrospectionAliases28", func(salt int) Request { return IntrospectionAliases(28, salt, false) }},
		// The most expensive documents the default limits let through: what a client can
		// still make the server do.
		{"WithinLimitsIntrospectionQuery", func(salt int) Request { return Request{Query: IntrospectionQuery + fmt.Sprintf("#%d", salt)} }},
		{"WithinLimitsRepeats", func(salt int) Request { return Repeats(8, salt) }},
		{"WithinLimitsComplexity", func(salt int) Request { return LargestPages(salt) }},
	}
}

// IntrospectionQuery is graphql-js 16's getIntrospectionQuery with every option on
// (descriptions, specifiedByUrl, directiveIsRepeatable, schemaDescription,
// inputValueDeprecation, oneOf): the superset of what the playground (GraphiQL 4) and other
// GraphQL tools send where introspection is on.
const IntrospectionQuery = `query IntrospectionQuery {
  __schema {
    description
    queryType { name kind }
    mutationType { name kind }
    subscriptionType { name kind }
    types { ...FullType }
    directives {
      name
      description
      isRepeatable
      locations
      args(includeDeprecated: true) { ...InputValue }
    }
  }
}

fragment FullType on __Type {
  kind
  name
  description
  specifiedByURL
  isOneOf
  fields(includeDeprecated: true) {
    name
    description
    args(includeDeprecated: true) { ...InputValue }
    type { ...TypeRef }
    isDeprecated
    deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) {
    name
    description
    isDeprecated
    deprecationReason
  }
  possibleTypes { ...TypeRef }
}

fragment InputValue on __InputValue {
  name
  description
  type { ...TypeRef }
  defaultValue
  isDeprecated
  deprecationReason
}

fragment TypeRef on __Type {
  kind
  name
  ofType {
    kind
    name
    ofType {
      kind
      name
      ofType {
        kind
        name
        ofType {
          kind
          name
          ofType {
            kind
            name
            ofType {
              kind
              name
              ofType {
                kind
                name
                ofType {
                  kind
                  name
                  ofType {
                    kind
                    name
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
`

// Repeats selects me n times with the same 30-field fragment: every response path is
// selected n times, and validation compares every pair.
func Repeats(n, salt int) Request {
	var b strings.Builder
	fmt.Fprintf(&b, "query Q%d {", salt)
	for range n {
		b.WriteString(" me { ...P }")
	}
	b.WriteString(` }
fragment P on User { id name standings { season points correct eventsPlayed user { id name } }
  predictions(first: 5) { edges { cursor node { eventId points correct rank updatedAt
    picks { matchId team correct } event { id name startsAt } user { id name } } }
    pageInfo { hasNextPage endCursor } } }`)
	return Request{Query: b.String()}
}

// LargestPages asks for the largest pages the complexity limit lets through (one ranked
// list: a standings page is one Query per score shard, and two do not fit the DynamoDB
// budget).
func LargestPages(salt int) Request {
	return Request{Query: fmt.Sprintf(`query Q%d($s: Int!) {
  a: standings(season: $s, first: 100) { edges { cursor node { rank points correct eventsPlayed user { id name } } } pageInfo { hasNextPage endCursor } }
  b: events(first: 100) { edges { cursor node { id name startsAt state } } pageInfo { hasNextPage endCursor } }
}`, salt), Variables: map[string]any{"s": 2025}}
}

// Aliases is row 1: n aliases of event(id: $e) { id } in one anonymous request (n = 1,499
// is 33 KB).
func Aliases(n int) Request {
	var b strings.Builder
	b.WriteString("query($e: ID!) {")
	for i := range n {
		fmt.Fprintf(&b, " a%d: event(id: $e) { id }", i)
	}
	b.WriteString(" }")
	return Request{Query: b.String(), Variables: map[string]any{"e": EventID}}
}

// SameField is row 2: { me { id id id … } } with n ids and a comment that defeats a cache.
func SameField(n, salt int) Request {
	return Request{Query: "{ me {" + strings.Repeat(" id", n) + fmt.Sprintf(" } } #%d", salt)}
}

// RepeatedRoot is row 2's variant: { me{id} me{id} … } n times (n = 7,000 is 42 KB).
func RepeatedRoot(n, salt int) Request {
	return Request{Query: "{" + strings.Repeat("me{id}", n) + fmt.Sprintf("} #%d", salt)}
}

// FragmentDoubling is row 10: levels fragments, each spreading the next one twice (24
// levels: a 959-byte document whose expansion has 2^24 fields).
func FragmentDoubling(levels, salt int) Request {
	var b strings.Builder
	fmt.Fprintf(&b, "query Q%d { me { ...F0 } }\n", salt)
	for i := range levels - 1 {
		fmt.Fprintf(&b, "fragment F%d on User { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on User { id }\n", levels-1)
	return Request{Query: b.String()}
}

// Directives puts n @include directives on one field.
func Directives(n, salt int) Request {
	return Request{Query: "{ me" + strings.Repeat(" @include(if: true)", n) + fmt.Sprintf(" { id } } #%d", salt)}
}

// IntrospectionAliases asks for the schema's types and fields n times (with their types
// when withTypes).
func IntrospectionAliases(n, salt int, withTypes bool) Request {
	sel := "types { name fields { name } }"
	if withTypes {
		sel = "types { name fields { name type { name } } }"
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " s%d: __schema { %s }", i, sel)
	}
	fmt.Fprintf(&b, " } #%d", salt)
	return Request{Query: b.String()}
}

// IntrospectionDepth nests fields { type { … } } depth times under __type.
func IntrospectionDepth(depth, salt int) Request {
	q := `{ __type(name: "Query") { ` + strings.Repeat("fields { type { ofType { ", depth) + "name" +
		strings.Repeat(" } } }", depth) + fmt.Sprintf(" } } #%d", salt)
	return Request{Query: q}
}

// Operations sends n named operations and runs the last.
func Operations(n, salt int) Request {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "query Q%d { me { id } }\n", i)
	}
	fmt.Fprintf(&b, "#%d", salt)
	return Request{Query: b.String(), OperationName: fmt.Sprintf("Q%d", n-1)}
}

// FragmentFanout is 20 fragments each spreading every later one: 2 KB, an expansion of
// 2^19 fields, and many fragment pairs for the overlapping-fields rule.
func FragmentFanout(salt int) Request {
	const n = 20
	var b strings.Builder
	fmt.Fprintf(&b, "query Q%d { me { ...F0 } }\n", salt)
	for i := range n {
		fmt.Fprintf(&b, "fragment F%d on User { id", i)
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&b, " ...F%d", j)
		}
		b.WriteString(" }\n")
	}
	return Request{Query: b.String()}
}
