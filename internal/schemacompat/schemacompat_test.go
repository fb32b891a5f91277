package schemacompat

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// released is the schema of the last release; the API's schema is graph/*.graphqls.
const released = "../../graph/released/schema.graphqls"

func load(t *testing.T, name string, files ...string) *ast.Schema {
	t.Helper()
	var srcs []*ast.Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, &ast.Source{Name: f, Input: string(b)})
	}
	s, err := gqlparser.LoadSchema(srcs...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// allowedBreaks are the changes since the last release that are not additive, each exactly
// as Breaking words it, with its reason. Nothing else may break a client; every document
// clients hold (testdata/operations) must still validate (TestHeldDocumentsStillValidate).
var allowedBreaks = map[string]string{
	"field Prediction.event changed type from EventRef! to Event!": "one cache entity per event: a normalized cache " +
		"(Apollo, urql, Relay) keys objects by type and id, so a prediction's event must be the Event that updateEvent " +
		"answers (docs/decisions/one-entity-per-thing.md); EventRef's fields are Event's, so every selection of it still validates",
	"field Prediction.user changed type from UserRef! to User!": "one cache entity per player: a rename answers a User, so " +
		"the leaderboard's players must be Users (docs/decisions/one-entity-per-thing.md); UserRef's fields are User's",
	"field Standing.user changed type from UserRef! to User!": "one cache entity per player, as Prediction.user",
	"type EventRef was removed": "no field returns it once Prediction.event is an Event; a fragment on EventRef is the " +
		"only client code it breaks, and the frontend's documents have none",
}

// TestSchemaHasNoBreakingChange is the check in `make test`: every change to the schema
// since the last release must keep existing clients working, but for allowedBreaks.
func TestSchemaHasNoBreakingChange(t *testing.T) {
	current, err := filepath.Glob("../../graph/*.graphqls")
	if err != nil || len(current) == 0 {
		t.Fatalf("no schema in graph/: %v", err)
	}
	var unexpected []string
	found := map[string]bool{}
	for _, c := range Breaking(load(t, "released", released), load(t, "current", current...)) {
		found[c] = true
		if _, ok := allowedBreaks[c]; !ok {
			unexpected = append(unexpected, c)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("graph/*.graphqls breaks clients of the released schema (%s):\n  %s\n"+
			"Make the change additive (a new field or argument, deprecate the old one), or, for a "+
			"release that breaks clients on purpose, name the change with its reason in allowedBreaks.",
			released, strings.Join(unexpected, "\n  "))
	}
	for c := range allowedBreaks {
		if !found[c] {
			t.Errorf("allowedBreaks names %q, which the schema no longer makes: remove it", c)
		}
	}
}

// TestHeldDocumentsStillValidate checks that every document clients held at the last
// release (testdata/operations: operations/ as it was then) validates against the current
// schema: a change allowed in allowedBreaks must not break them.
func TestHeldDocumentsStillValidate(t *testing.T) {
	current, err := filepath.Glob("../../graph/*.graphqls")
	if err != nil || len(current) == 0 {
		t.Fatalf("no schema in graph/: %v", err)
	}
	s := load(t, "current", current...)
	docs, err := filepath.Glob("testdata/operations/*.graphql")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no documents in testdata/operations: %v", err)
	}
	for _, f := range docs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, errs := gqlparser.LoadQueryWithRules(s, string(b), nil); len(errs) > 0 {
			t.Errorf("%s no longer validates: %v", filepath.Base(f), errs)
		}
	}
}

func schema(t *testing.T, sdl string) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "test", Input: sdl})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const base = `
type Query { event(id: ID!, first: Int): Event  events(season: Int): [Event!]! }
type Mutation { score(id: ID!, dryRun: Boolean): Report! }
type Event implements Node { id: ID! name: String state: State! tags: [String!] }
interface Node { id: ID! }
type Report { scored: Int! }
enum State { UPCOMING BROADCAST SCORED }
union Item = Event | Report
input PickInput { matchId: ID! team: Int! note: String }
directive @cost(weight: Int) on FIELD_DEFINITION | OBJECT
`

func TestBreaking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(string) string
		want   []string // substrings of the changes found; none: not breaking
	}{
		{"AddedFieldAndType", func(s string) string {
			return strings.Replace(s, "tags: [String!] }", "tags: [String!] venue: String }\ntype Venue { name: String }", 1)
		}, nil},
		{"AddedOptionalArgument", func(s string) string { return strings.Replace(s, "first: Int)", "first: Int, after: String)", 1) }, nil},
		{"AddedEnumValue", func(s string) string { return strings.Replace(s, "SCORED }", "SCORED CANCELLED }", 1) }, nil},
		{"OutputBecomesNonNull", func(s string) string { return strings.Replace(s, "name: String ", "name: String! ", 1) }, nil},
		{"InputBecomesNullable", func(s string) string { return strings.Replace(s, "team: Int!", "team: Int", 1) }, nil},
		{"RemovedField", func(s string) string { return strings.Replace(s, "name: String ", "", 1) }, []string{"field Event.name was removed"}},
		{"RemovedType", func(s string) string {
			s = strings.Replace(s, "type Report { scored: Int! }", "", 1)
			s = strings.Replace(s, "= Event | Report", "= Event", 1)
			return strings.Replace(s, "score(id: ID!, dryRun: Boolean): Report!", "score(id: ID!, dryRun: Boolean): Int!", 1)
		}, []string{"type Report was removed", "field Mutation.score changed type from Report! to Int!"}},
		{"OutputBecomesNullable", func(s string) string { return strings.Replace(s, "state: State!", "state: State", 1) }, []string{"field Event.state changed type from State! to State"}},
		{"ListElementBecomesNullable", func(s string) string { return strings.Replace(s, "[Event!]!", "[Event]!", 1) }, []string{"field Query.events changed type"}},
		{"RemovedArgument", func(s string) string { return strings.Replace(s, "(season: Int)", "", 1) }, []string{"argument season of field Query.events was removed"}},
		{"ArgumentBecomesRequired", func(s string) string { return strings.Replace(s, "dryRun: Boolean)", "dryRun: Boolean!)", 1) }, []string{"argument dryRun of field Mutation.score changed type"}},
		{"RequiredArgumentAdded", func(s string) string { return strings.Replace(s, "first: Int)", "first: Int, season: Int!)", 1) }, []string{"required argument season was added to field Query.event"}},
		{"RequiredArgumentWithDefaultIsFine", func(s string) string { return strings.Replace(s, "first: Int)", "first: Int, season: Int! = 2026)", 1) }, nil},
		{"RemovedEnumValue", func(s string) string { return strings.Replace(s, " BROADCAST", "", 1) }, []string{"enum value State.BROADCAST was removed"}},
		{"RemovedUnionMember", func(s string) string { return strings.Replace(s, "= Event | Report", "= Event", 1) }, []string{"Report was removed from union Item"}},
		{"RemovedInterface", func(s string) string { return strings.Replace(s, "implements Node ", "", 1) }, []string{"Event no longer implements Node"}},
		{"RequiredInputFieldAdded", func(s string) string { return strings.Replace(s, "note: String }", "note: String points: Int! }", 1) }, []string{"required input field PickInput.points was added"}},
		{"InputFieldBecomesRequired", func(s string) string { return strings.Replace(s, "note: String", "note: String!", 1) }, []string{"input field PickInput.note changed type from String to String!"}},
		{"KindChanged", func(s string) string {
			s = strings.Replace(s, "= Event | Report", "= Event", 1)
			return strings.Replace(s, "type Report { scored: Int! }", "interface Report { scored: Int! }\ntype R implements Report { scored: Int! }", 1)
		}, []string{"type Report changed from OBJECT to INTERFACE"}},
		{"DirectiveLocationRemoved", func(s string) string { return strings.Replace(s, "FIELD_DEFINITION | OBJECT", "FIELD_DEFINITION", 1) }, []string{"directive @cost can no longer be used on OBJECT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Breaking(schema(t, base), schema(t, tc.change(base)))
			if len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("not breaking, but found %q", got)
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
					t.Errorf("changes %q lack %q", got, w)
				}
			}
		})
	}
}
