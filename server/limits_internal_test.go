package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/pickem/api/graph"
	"github.com/pickem/api/internal/hostile"
	"github.com/pickem/api/operations"
	"github.com/pickem/api/resolvers"
)

// gqlRequest is a document with the variables sent with it.
type gqlRequest struct {
	Query     string
	Variables map[string]any
}

// legitimateDocuments are the documents the limits must admit: every document of package
// operations, with pages of the largest size, and the introspection query.
func legitimateDocuments(t *testing.T) map[string]gqlRequest {
	const eid, lid, code = "2025-07-06-x", "00000000-0000-4000-8000-000000000000", "ABCDEFGHJKLMN"
	vars := map[string]map[string]any{
		"event-list":                  {"first": 100, "after": "x", "season": 2025},
		"event-card":                  {"id": eid},
		"scored-event":                {"id": eid, "first": 100, "after": "x"},
		"standings":                   {"season": 2025, "first": 100, "after": "x"},
		"profile":                     {"id": "u1", "first": 100, "after": "x"},
		"me":                          nil,
		"register":                    {"name": "Jo"},
		"submit-prediction":           {"eventId": eid, "picks": []any{}},
		"create-league":               {"name": "Dojo"},
		"league-by-invite":            {"inviteCode": code},
		"join-league":                 {"inviteCode": code},
		"league-standings":            {"id": lid, "season": 2025, "first": 100, "after": "x"},
		"my-leagues":                  nil,
		"rotate-invite-code":          {"id": lid},
		"leave-league":                {"id": lid},
		"admin-create-event":          {"input": map[string]any{"name": "X", "startsAt": "2025-07-06T20:00:00Z", "matches": []any{}}},
		"admin-event":                 {"id": eid},
		"admin-events":                {"first": 100, "season": 2025},
		"admin-lock-event":            {"id": eid},
		"admin-set-result":            {"eventId": eid, "matchId": lid, "result": nil},
		"admin-set-tiebreaker-answer": {"eventId": eid, "answer": 1000000},
		"admin-score-event":           {"eventId": eid, "dryRun": true},
		"admin-standings":             {"season": 2025, "first": 100, "after": "x"},
		"admin-audit-log":             {"eventId": eid, "first": 100, "after": "x"},
		"admin-rename-league":         {"id": lid, "name": "Dojo"},
		"admin-delete-league":         {"id": lid},
		"admin-rename-player":         {"id": "u1", "name": "Jo"},
		"admin-player-leagues":        {"id": "u1"},
	}
	docs := map[string]gqlRequest{"IntrospectionQuery": {Query: hostile.IntrospectionQuery}}
	for _, name := range operations.Names() {
		v, ok := vars[name]
		if !ok {
			t.Errorf("operations/%s.graphql: give it variables in legitimateDocuments", name)
		}
		docs[name] = gqlRequest{Query: operations.Text(name), Variables: v}
	}
	return docs
}

func countTokens(q string) int {
	l := lexer.New(&ast.Source{Input: q})
	n := 0
	for {
		tok, err := l.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return n
		}
		n++
	}
}

// TestLimitsAdmitLegitimateDocuments measures every legitimate document against the
// default limits (the figures Limits' comments quote are logged here), and checks each
// one passes with room to spare.
func TestLimitsAdmitLegitimateDocuments(t *testing.T) {
	es := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}, Complexity: complexityRoot()})
	l := Limits{}.withDefaults()
	for name, req := range legitimateDocuments(t) {
		t.Run(name, func(t *testing.T) {
			doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: req.Query}, l.MaxTokens)
			if err != nil {
				t.Fatal(err)
			}
			if errs := validator.ValidateWithRules(es.Schema(), doc, nil); len(errs) > 0 {
				t.Fatal(errs)
			}
			vars := map[string]any{}
			if req.Variables != nil {
				b, _ := json.Marshal(req.Variables)
				dec := json.NewDecoder(strings.NewReader(string(b)))
				dec.UseNumber()
				_ = dec.Decode(&vars)
			}
			op := doc.Operations[0]
			coerced, err := validator.VariableValues(es.Schema(), op, vars)
			if err != nil {
				t.Fatal(err)
			}
			opCtx := &graphql.OperationContext{RawQuery: req.Query, Doc: doc, Operation: op, Variables: coerced}
			s := measure(doc, l.MaxFields)
			tokens := countTokens(req.Query)
			calls := plannedCalls(opCtx, l.MaxDynamoDBCalls)
			cplx := complexity.Calculate(context.Background(), es, op, coerced)
			t.Logf("%-18s tokens %3d fields %3d depth %2d repeats %d aliases %d directives %d complexity %4d DynamoDB calls %d",
				name, tokens, s.fields, s.depth, s.repeats, s.aliases, s.directives, cplx, calls)
			for what, c := range map[string][2]int{
				"tokens": {tokens, l.MaxTokens}, "fields": {s.fields, l.MaxFields}, "depth": {s.depth, l.MaxDepth},
				"repeats": {s.repeats, l.MaxRepeats}, "aliases": {s.aliases, l.MaxAliases},
				"directives": {s.directives, l.MaxDirectives}, "complexity": {cplx, DefaultComplexityLimit},
			} {
				if c[0]*5 > c[1]*4 {
					t.Errorf("%s: %d is within 20%% of the limit %d", what, c[0], c[1])
				}
			}
			if calls > l.MaxDynamoDBCalls && op.Operation != ast.Mutation {
				t.Errorf("plans %d DynamoDB calls, over %d", calls, l.MaxDynamoDBCalls)
			}
		})
	}
}

// TestFieldCostsCoverTheSchema: every root field reads DynamoDB, so each has a cost; and
// every cost names a field of the schema.
func TestFieldCostsCoverTheSchema(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &resolvers.Resolver{}}).Schema()
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if _, ok := fieldCosts[root.Name+"."+f.Name]; !ok {
				t.Errorf("%s.%s has no entry in FieldCosts", root.Name, f.Name)
			}
		}
	}
	for _, c := range FieldCosts {
		typ, field, _ := strings.Cut(c.Field, ".")
		def := schema.Types[typ]
		if def == nil || def.Fields.ForName(field) == nil {
			t.Errorf("FieldCosts names %s, which the schema does not have", c.Field)
		}
		for _, p := range append(c.FreeUnder, c.ZeroUnder...) {
			pt, pf, _ := strings.Cut(p, ".")
			if d := schema.Types[pt]; d == nil || d.Fields.ForName(pf) == nil {
				t.Errorf("%s: parent %s is not in the schema", c.Field, p)
			}
		}
	}
}
