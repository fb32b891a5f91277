package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/pickem/api/bench/frontend"
	"github.com/pickem/api/graph"
	"github.com/pickem/api/internal/hostile"
	"github.com/pickem/api/resolvers"
)

// legitimateDocuments are the documents the limits must admit: the frontend's screens
// (with the variables it sends), the players' contract operations (testdata/operations,
// pages of the largest size) and the introspection query.
func legitimateDocuments(t *testing.T) map[string]frontend.Request {
	ops, err := frontend.PlayerOperations(filepath.Join("..", frontend.OperationsDir))
	if err != nil {
		t.Fatal(err)
	}
	contractVars := map[string]map[string]any{
		"event-list":         {"first": 100, "after": "x", "season": 2025},
		"event-card":         {"id": "2025-07-06-x"},
		"scored-event":       {"id": "2025-07-06-x", "first": 100, "after": "x"},
		"standings":          {"season": 2025, "first": 100, "after": "x"},
		"profile":            {"id": "u1", "first": 100, "after": "x"},
		"me":                 nil,
		"register":           {"name": "Jo"},
		"submit-prediction":  {"eventId": "2025-07-06-x", "picks": []any{}},
		"create-league":      {"name": "Dojo"},
		"league-by-invite":   {"inviteCode": "ABCDEFGHJKLMN"},
		"join-league":        {"inviteCode": "ABCDEFGHJKLMN"},
		"league":             {"id": "00000000-0000-4000-8000-000000000000", "season": 2025, "first": 100, "after": "x"},
		"my-leagues":         nil,
		"rotate-invite-code": {"id": "00000000-0000-4000-8000-000000000000"},
		"leave-league":       {"id": "00000000-0000-4000-8000-000000000000"},
	}
	docs := map[string]frontend.Request{
		"EventList":          {Query: frontend.EventList, Variables: map[string]any{"first": 20}},
		"EventCard":          {Query: frontend.EventCard, Variables: map[string]any{"id": "2025-07-06-x"}},
		"ScoredEvent":        {Query: frontend.ScoredEvent, Variables: map[string]any{"id": "2025-07-06-x", "first": 100}},
		"Standings":          {Query: frontend.Standings, Variables: map[string]any{"season": 2025, "first": 100}},
		"Profile":            {Query: frontend.Profile, Variables: map[string]any{"id": "u1"}},
		"SubmitPrediction":   {Query: frontend.SubmitPrediction, Variables: map[string]any{"eventId": "2025-07-06-x", "picks": []any{}}},
		"ScoreEvent":         {Query: frontend.ScoreEvent, Variables: map[string]any{"eventId": "2025-07-06-x"}},
		"IntrospectionQuery": {Query: hostile.IntrospectionQuery},
	}
	for name, doc := range ops {
		vars, ok := contractVars[name]
		if !ok {
			t.Errorf("testdata/operations/%s.graphql: give it variables in legitimateDocuments", name)
		}
		docs["contract-"+name] = frontend.Request{Query: doc, Variables: vars}
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
