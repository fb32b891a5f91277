package server

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/pickem/api/domain"
)

// Limits bound what one request may cost. The document limits are checked on the parsed
// document before gqlgen validates it (validation's overlapping-fields rule is quadratic
// in the fields, and complexity is computed on the expanded document); the DynamoDB
// budget after validation, before anything runs. Zero values take the defaults.
//
// The defaults come from the largest operations that legitimately run, measured by
// TestLimitsAdmitLegitimateDocuments: the clients' documents (package operations; the
// largest, ScoredEvent, has 89 tokens, 36 fields, depth 6, no alias or directive) and the
// introspection query of graphql-js with every option (hostile.IntrospectionQuery: 184
// tokens, 230 fields once its fragments are expanded, depth 15), which the playground and
// GraphQL tools send where introspection is on.
type Limits struct {
	// MaxTokens is gqlparser's token limit: the parse stops there.
	MaxTokens int
	// MaxFields bounds the fields of the document with every fragment spread expanded
	// (what validation and the complexity calculation walk).
	MaxFields int
	// MaxRepeats bounds how often one response path (say event.matches.id) may be
	// selected, fragments expanded: the overlapping-fields rule compares every pair.
	MaxRepeats int
	// MaxAliases bounds aliased fields.
	MaxAliases int
	// MaxDirectives bounds directives anywhere in the document.
	MaxDirectives int
	// MaxDepth bounds field nesting with fragments expanded.
	MaxDepth int
	// MaxDynamoDBCalls bounds the calls a request plans (FieldCosts).
	MaxDynamoDBCalls int
}

// maxIntrospection bounds __schema and __type selections (fragments expanded): one
// introspection answer costs about 8 ms of CPU, and aliases would multiply it.
const maxIntrospection = 1

// Default limits (see Limits): about 2.5× the introspection query's tokens and 2× its
// fields (6× and 15× the frontend's largest screen), 1.3× its depth, a few aliases and
// directives where the frontend uses none, and 8 selections of one field where the
// frontend and the introspection query make one (a fragment may repeat a field).
const (
	DefaultMaxTokens     = 500
	DefaultMaxFields     = 500
	DefaultMaxAliases    = 30
	DefaultMaxDirectives = 20
	DefaultMaxDepth      = 20
	DefaultMaxRepeats    = 8
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxTokens, DefaultMaxTokens)
	def(&l.MaxFields, DefaultMaxFields)
	def(&l.MaxAliases, DefaultMaxAliases)
	def(&l.MaxDirectives, DefaultMaxDirectives)
	def(&l.MaxDepth, DefaultMaxDepth)
	def(&l.MaxRepeats, DefaultMaxRepeats)
	def(&l.MaxDynamoDBCalls, DefaultMaxDynamoDBCalls)
	return l
}

// guard is the gqlgen extension that enforces Limits, introspection and 32-bit Ints.
type guard struct {
	limits        Limits
	introspection bool
	cache         graphql.Cache[*ast.QueryDocument] // gqlgen's query cache: a hit passed already
	schema        *ast.Schema
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
} = &guard{}

func (g *guard) ExtensionName() string { return "PickemGuard" }

func (g *guard) Validate(es graphql.ExecutableSchema) error {
	g.schema = es.Schema()
	return nil
}

// MutateOperationParameters checks the document's shape before gqlgen parses and
// validates it: tokens, fields (fragments expanded), aliases, directives, depth and
// introspection (a document in the query cache passed these checks already); then the
// Int variables as sent (checkRawInts).
func (g *guard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if doc, ok := g.cache.Get(ctx, p.Query); ok {
		return g.checkRawInts(doc, p)
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, g.limits.MaxTokens)
	if err != nil {
		if e, ok := err.(*gqlerror.Error); ok && strings.HasPrefix(e.Message, "exceeded token limit") {
			return limitError("tokens", g.limits.MaxTokens, -1,
				"the document has more than %d tokens", g.limits.MaxTokens)
		}
		return nil // gqlgen reports the parse error
	}
	if ctx.Err() != nil {
		return gqlerror.Errorf("the request was cancelled")
	}
	s := measure(doc, g.limits.MaxFields)
	switch {
	case s.cycle != "":
		e := gqlerror.Errorf("fragment %s spreads itself", shorten(s.cycle, 40))
		e.Extensions = map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}
		return e
	case s.fields > g.limits.MaxFields:
		return limitError("fields", g.limits.MaxFields, s.fields,
			"the document selects %s fields once its fragments are expanded; at most %d", atLeast(s.fields), g.limits.MaxFields)
	case s.depth > g.limits.MaxDepth:
		return limitError("depth", g.limits.MaxDepth, s.depth,
			"the document nests fields %s deep; at most %d", atLeast(s.depth), g.limits.MaxDepth)
	case s.repeats > g.limits.MaxRepeats:
		return limitError("repeats", g.limits.MaxRepeats, s.repeats,
			"the document selects the same field %d times at one place once its fragments are expanded; at most %d", s.repeats, g.limits.MaxRepeats)
	case s.aliases > g.limits.MaxAliases:
		return limitError("aliases", g.limits.MaxAliases, s.aliases,
			"the document has %d aliases; at most %d", s.aliases, g.limits.MaxAliases)
	case s.directives > g.limits.MaxDirectives:
		return limitError("directives", g.limits.MaxDirectives, s.directives,
			"the document has %d directives; at most %d", s.directives, g.limits.MaxDirectives)
	case s.deferred:
		// gqlgen would run the deferred fragments, but this transport writes one response:
		// the client would get hasNext: true, nulls where the schema promises values, and
		// never the rest.
		e := gqlerror.Errorf("@defer is not supported: this API answers with one response; remove @defer")
		e.Extensions = map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}
		return e
	case s.introspection > 0 && !g.introspection:
		e := gqlerror.Errorf("introspection is disabled here: the schema is graph/schema.graphqls")
		e.Extensions = map[string]any{"code": "GRAPHQL_VALIDATION_FAILED"}
		return e
	case s.introspection > maxIntrospection:
		return limitError("introspection", maxIntrospection, s.introspection,
			"the document selects __schema or __type %d times; at most %d", s.introspection, maxIntrospection)
	}
	return g.checkRawInts(doc, p)
}

// checkRawInts refuses the operation's Int variables that are not 32-bit integers as the
// client sent them (JSON numbers such as 1.5, 1e309 or 2^63), before gqlgen coerces them:
// its refusals of those are GRAPHQL_VALIDATION_FAILED and misquote the value ("cannot use
// value 0 as Int"), so that every bad Int variable is BAD_USER_INPUT. The coerced values
// (default values included) are checked again after validation (checkInts).
func (g *guard) checkRawInts(doc *ast.QueryDocument, p *graphql.RawParams) *gqlerror.Error {
	op := doc.Operations.ForName(p.OperationName)
	if op == nil {
		return nil // gqlgen reports it
	}
	for _, v := range op.VariableDefinitions {
		if err := g.checkVariable(p.Variables[v.Variable], v.Type, "$"+v.Variable, 0); err != nil {
			return err
		}
	}
	return nil
}

// MutateOperationContext runs after validation, before anything executes: it refuses
// Int values outside 32 bits and requests over the DynamoDB budget.
func (g *guard) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if err := g.checkInts(opCtx); err != nil {
		return err
	}
	n := plannedCalls(opCtx, g.limits.MaxDynamoDBCalls)
	opCtx.Stats.SetExtension(plannedCallsStat, n)
	if n > g.limits.MaxDynamoDBCalls {
		return limitError("dynamodbCalls", g.limits.MaxDynamoDBCalls, n,
			"the request would make %s DynamoDB calls; at most %d (send fewer fields, or several requests)",
			atLeast(n), g.limits.MaxDynamoDBCalls)
	}
	return nil
}

// atLeast prints n, or "more than 2147483646" when counting saturated.
func atLeast(n int) string {
	if n >= math.MaxInt32 {
		return "more than " + strconv.Itoa(math.MaxInt32-1)
	}
	return strconv.Itoa(n)
}

// shape is what measure found.
type shape struct {
	fields, depth, aliases, directives int
	// repeats is the most times one response path (the chain of response keys from the
	// root) is selected once fragments are expanded: validation's overlapping-fields rule
	// compares every pair of them, down through their sub-selections.
	repeats int
	// introspection counts __schema and __type selections, fragments expanded.
	introspection int
	cycle         string // a fragment that spreads itself, if any
	deferred      bool   // a fragment is spread with @defer
}

// measure walks doc: fields and depth with fragment spreads expanded (each fragment
// measured once and memoised, so a fragment spread twice by each of 24 fragments costs
// 24 walks, not 2^24; counts saturate), aliases and directives as written. Unused
// fragments count as if an operation spread them (validation walks them too). Only when
// the fields fit maxFields does it expand the document to count repeats.
func measure(doc *ast.QueryDocument, maxFields int) shape {
	m := &measurer{doc: doc, frags: map[string]*fragSize{}}
	var total size
	for _, op := range doc.Operations {
		m.directives += len(op.Directives)
		for _, v := range op.VariableDefinitions {
			m.directives += len(v.Directives)
		}
		total = total.plus(m.selections(op.SelectionSet))
	}
	var unused []*ast.FragmentDefinition
	for _, frag := range doc.Fragments {
		m.directives += len(frag.Directives)
		if _, used := m.frags[frag.Name]; !used {
			unused = append(unused, frag)
			total = total.plus(m.fragment(frag.Name))
		}
	}
	s := shape{fields: total.fields, depth: total.depth, introspection: total.introspection,
		aliases: m.aliases, directives: m.directives, cycle: m.cycle, deferred: m.deferred}
	if s.cycle == "" && s.fields <= maxFields {
		r := &repeatCounter{doc: doc, counts: map[string]int{}, budget: 4 * maxFields}
		for i, op := range doc.Operations {
			r.walk(op.SelectionSet, strconv.Itoa(i))
		}
		for _, frag := range unused {
			r.walk(frag.SelectionSet, "..."+frag.Name)
		}
		s.repeats = r.max
		if r.budget < 0 {
			s.fields = maxFields + 1 // cannot happen without a cycle; refuse anyway
		}
	}
	return s
}

// size is what a selection set holds once expanded: fields, depth, and __schema/__type
// selections.
type size struct{ fields, depth, introspection int }

// plus is s and t side by side.
func (s size) plus(t size) size {
	return size{addCapped(s.fields, t.fields), max(s.depth, t.depth), addCapped(s.introspection, t.introspection)}
}

type fragSize struct {
	size
	done bool
}

type measurer struct {
	doc                 *ast.QueryDocument
	frags               map[string]*fragSize
	aliases, directives int
	cycle               string
	deferred            bool
}

func (m *measurer) fragment(name string) size {
	if f, ok := m.frags[name]; ok {
		if !f.done && m.cycle == "" {
			m.cycle = name
		}
		return f.size
	}
	f := &fragSize{}
	m.frags[name] = f
	if def := m.doc.Fragments.ForName(name); def != nil {
		f.size = m.selections(def.SelectionSet)
	}
	f.done = true
	return f.size
}

// selections returns what sel holds, expanded.
func (m *measurer) selections(sel ast.SelectionSet) size {
	var total size
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			m.directives += len(s.Directives)
			if s.Alias != "" && s.Alias != s.Name {
				m.aliases++
			}
			sub := m.selections(s.SelectionSet)
			sub.fields = addCapped(sub.fields, 1)
			sub.depth++
			if s.Name == "__schema" || s.Name == "__type" {
				sub.introspection = addCapped(sub.introspection, 1)
			}
			total = total.plus(sub)
		case *ast.FragmentSpread:
			m.directives += len(s.Directives)
			m.deferred = m.deferred || s.Directives.ForName("defer") != nil
			total = total.plus(m.fragment(s.Name))
		case *ast.InlineFragment:
			m.directives += len(s.Directives)
			m.deferred = m.deferred || s.Directives.ForName("defer") != nil
			total = total.plus(m.selections(s.SelectionSet))
		}
	}
	return total
}

// repeatCounter counts how often each response path is selected, fragments expanded. It
// runs on documents without fragment cycles whose expansion fits the field limit; budget
// bounds its steps all the same.
type repeatCounter struct {
	doc    *ast.QueryDocument
	counts map[string]int
	max    int
	budget int
}

func (r *repeatCounter) walk(sel ast.SelectionSet, path string) {
	for _, s := range sel {
		if r.budget--; r.budget < 0 {
			return
		}
		switch s := s.(type) {
		case *ast.Field:
			key := path + "/" + s.Alias
			if s.Alias == "" {
				key = path + "/" + s.Name
			}
			r.counts[key]++
			r.max = max(r.max, r.counts[key])
			r.walk(s.SelectionSet, key)
		case *ast.FragmentSpread:
			if def := r.doc.Fragments.ForName(s.Name); def != nil {
				r.walk(def.SelectionSet, path)
			}
		case *ast.InlineFragment:
			r.walk(s.SelectionSet, path)
		}
	}
}

// checkInts refuses Int literals and variables outside GraphQL's 32-bit Int, before any
// resolver (or the complexity function) sees them.
func (g *guard) checkInts(opCtx *graphql.OperationContext) *gqlerror.Error {
	for _, v := range opCtx.Operation.VariableDefinitions {
		if err := g.checkVariable(opCtx.Variables[v.Variable], v.Type, "$"+v.Variable, 0); err != nil {
			return err
		}
		if err := checkLiteral(v.DefaultValue); err != nil {
			return err
		}
	}
	var walk func(sel ast.SelectionSet) *gqlerror.Error
	walk = func(sel ast.SelectionSet) *gqlerror.Error {
		for _, s := range sel {
			switch s := s.(type) {
			case *ast.Field:
				for _, a := range s.Arguments {
					if err := checkLiteral(a.Value); err != nil {
						return err
					}
				}
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			case *ast.InlineFragment:
				if err := walk(s.SelectionSet); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(opCtx.Operation.SelectionSet); err != nil {
		return err
	}
	for _, f := range opCtx.Doc.Fragments {
		if err := walk(f.SelectionSet); err != nil {
			return err
		}
	}
	return nil
}

func intOutOfRange(where string) *gqlerror.Error {
	return &gqlerror.Error{Message: where + " is not a 32-bit Int (GraphQL's Int is -2147483648..2147483647)",
		Extensions: map[string]any{"code": string(domain.CodeBadUserInput)}}
}

// checkLiteral checks the Int literals in v (arguments, default values, nested lists
// and input objects) whose expected type is Int.
func checkLiteral(v *ast.Value) *gqlerror.Error {
	if v == nil {
		return nil
	}
	if v.Kind == ast.IntValue && v.ExpectedType != nil && v.ExpectedType.Name() == "Int" {
		if _, err := strconv.ParseInt(v.Raw, 10, 32); err != nil {
			return intOutOfRange("the literal " + shorten(v.Raw, 24))
		}
	}
	for _, c := range v.Children {
		if err := checkLiteral(c.Value); err != nil {
			return err
		}
	}
	return nil
}

// checkVariable checks a variable's coerced value against its type: Ints within 32
// bits, through lists and input objects.
func (g *guard) checkVariable(v any, t *ast.Type, where string, depth int) *gqlerror.Error {
	if v == nil || t == nil || depth > 32 {
		return nil
	}
	if t.Elem != nil {
		// Coercion leaves lists as []any or typed slices ([]map[string]any for a single
		// input object coerced to a list).
		list := reflect.ValueOf(v)
		if list.Kind() != reflect.Slice {
			return g.checkVariable(v, t.Elem, where, depth+1)
		}
		for i := range list.Len() {
			if err := g.checkVariable(list.Index(i).Interface(), t.Elem, where+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if t.NamedType == "Int" {
		n, ok := asInt64(v)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return intOutOfRange("variable " + shorten(where, 64))
		}
		return nil
	}
	def := g.schema.Types[t.NamedType]
	obj, ok := v.(map[string]any)
	if def == nil || def.Kind != ast.InputObject || !ok {
		return nil
	}
	for _, f := range def.Fields {
		if err := g.checkVariable(obj[f.Name], f.Type, where+"."+f.Name, depth+1); err != nil {
			return err
		}
	}
	return nil
}
