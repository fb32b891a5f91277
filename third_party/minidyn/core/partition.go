package core

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/truora/minidyn/interpreter/language"
	"github.com/truora/minidyn/types"
)

// Partition-scoped searches (pickem patch; see PATCH.md at the module root).
//
// A DynamoDB key condition must fix the partition key with an equality and may add one
// condition on the sort key (=, <, <=, >, >=, BETWEEN, begins_with). A Query therefore
// reads one partition, and within it one contiguous run of sort keys. SearchData uses
// both facts: it walks only the keys of the partition (found by binary search in the
// sorted keys) and, for a string sort key, stops at the first key after the run. The
// interpreter still evaluates the whole key condition on every key it walks, so the
// result is the same as walking every key of the table.

// partitionOf returns the partition key value that a key condition fixes, formatted like
// keySchema.GetKey formats it, and true; or false when the expression is not of the form
// `<hash key> = :value [AND <sort key condition>]` (the caller then walks every key).
func partitionOf(input QueryInput, ks keySchema, attrs map[string]string) (string, bool) {
	if input.KeyConditionExpression == "" {
		return "", false
	}

	var toks []language.Token

	l := language.NewLexer(input.KeyConditionExpression)
	for tok := l.NextToken(); tok.Type != language.EOF; tok = l.NextToken() {
		if tok.Type == language.OR || tok.Type == language.NOT || tok.Type == language.ILLEGAL {
			return "", false
		}

		toks = append(toks, tok)
	}

	valueRef, found := "", 0

	for n, tok := range toks {
		if tok.Type != language.IDENT || attributeName(tok.Literal, input.Aliases) != ks.HashKey {
			continue
		}

		found++

		switch {
		case n+2 < len(toks) && toks[n+1].Type == language.EQ && isValueRef(toks[n+2]) && (n+3 == len(toks) || toks[n+3].Type != language.DOT):
			valueRef = toks[n+2].Literal
		case n >= 2 && toks[n-1].Type == language.EQ && isValueRef(toks[n-2]) && (n+1 == len(toks) || toks[n+1].Type != language.DOT):
			valueRef = toks[n-2].Literal
		default:
			return "", false
		}
	}

	if found != 1 {
		return "", false
	}

	v, ok := input.ExpressionAttributeValues[valueRef]
	if !ok || v == nil {
		return "", false
	}

	goVal, ok := getGoValue(v, attrs[ks.HashKey])
	if !ok {
		return "", false
	}

	return fmt.Sprintf("%v", goVal), true
}

func attributeName(literal string, aliases map[string]string) string {
	if strings.HasPrefix(literal, "#") {
		return aliases[literal]
	}

	return literal
}

func isValueRef(tok language.Token) bool {
	return tok.Type == language.IDENT && strings.HasPrefix(tok.Literal, ":")
}

// hashValue returns item's value of ks's hash key, formatted like keySchema.GetKey.
func (t *Table) hashValue(ks keySchema, item map[string]*types.Item) (string, bool) {
	val, err := getItemValue(item, ks.HashKey, t.AttributesDef[ks.HashKey])
	if err != nil {
		return "", false
	}

	return fmt.Sprintf("%v", val), true
}

// searchKeys are the primary keys a search walks, in ascending order of the searched
// key (the table's, or the index's then the table's).
type searchKeys struct {
	n  int
	pk func(n int) string
	// hash is the partition key value the key condition fixes when partitioned is true:
	// the keys are then only those of the partition (and of partitions whose key value
	// starts with hash + keySeparator, which the walk skips).
	hash        string
	partitioned bool
}

// keysToSearch returns the keys a search of idx (nil: the table) must walk.
func (t *Table) keysToSearch(input QueryInput, idx *index, ks keySchema) searchKeys {
	hash, partitioned := "", false
	if !input.Scan {
		hash, partitioned = partitionOf(input, ks, t.AttributesDef)
	}

	if idx != nil {
		entries := idx.entries
		if partitioned {
			entries = idx.partition(hash)
		}

		return searchKeys{n: len(entries), pk: func(n int) string { return entries[n].pk }, hash: hash, partitioned: partitioned}
	}

	keys := t.SortedKeys
	if partitioned {
		keys = partitionKeys(t.SortedKeys, hash, ks.RangeKey != "")
	}

	return searchKeys{n: len(keys), pk: func(n int) string { return keys[n] }, hash: hash, partitioned: partitioned}
}

// partitionKeys returns the run of sorted composite keys of the partition hash.
func partitionKeys(sorted []string, hash string, hasRange bool) []string {
	if !hasRange {
		lo := sort.SearchStrings(sorted, hash)
		if lo < len(sorted) && sorted[lo] == hash {
			return sorted[lo : lo+1]
		}

		return nil
	}

	prefix := hash + keySeparator
	rest := sorted[sort.SearchStrings(sorted, prefix):]
	hi := sort.Search(len(rest), func(n int) bool { return !strings.HasPrefix(rest[n], prefix) })

	return rest[:hi]
}

// nativeKeyMatch returns a Go function equivalent to the key condition of input when both
// keys of ks are strings and the condition is `<hash> = :v` with at most one sort-key
// condition of the forms DynamoDB allows (`<sort> op :a` with op one of = < <= > >= or
// its mirror `:a op <sort>`, `<sort> BETWEEN :a AND :b`, `begins_with(<sort>, :a)`), every
// value a string, in either order around AND: the interpreter's string comparisons are
// Go's, so the answer is the same, without converting each key to interpreter objects and
// evaluating the expression (pickem patch). Anything else returns false: the interpreter
// then evaluates it, and reports what is wrong with it.
//
// The function answers whether an item is in the condition's partition (the walk skips
// partitions whose key starts with this one's and a separator) and whether it matches.
func nativeKeyMatch(input QueryInput, ks keySchema, attrs map[string]string) (func(item map[string]*types.Item) (inPartition, matched bool), bool) {
	if input.KeyConditionExpression == "" || attrs[ks.HashKey] != "S" || (ks.RangeKey != "" && attrs[ks.RangeKey] != "S") {
		return nil, false
	}

	var toks []language.Token

	l := language.NewLexer(input.KeyConditionExpression)
	for tok := l.NextToken(); tok.Type != language.EOF; tok = l.NextToken() {
		if tok.Type == language.ILLEGAL {
			return nil, false
		}

		toks = append(toks, tok)
	}

	is := func(tok language.Token, attr string) bool {
		return attr != "" && tok.Type == language.IDENT && attributeName(tok.Literal, input.Aliases) == attr
	}
	str := func(tok language.Token) (string, bool) {
		if !isValueRef(tok) {
			return "", false
		}

		v, ok := input.ExpressionAttributeValues[tok.Literal]
		if !ok || v == nil || v.S == nil {
			return "", false
		}

		return *v.S, true
	}

	// hashAt matches `<hash> = :v` or `:v = <hash>` at toks[at:at+3].
	hashAt := func(at int) (string, bool) {
		if at+3 > len(toks) || toks[at+1].Type != language.EQ {
			return "", false
		}

		if is(toks[at], ks.HashKey) {
			return str(toks[at+2])
		}

		if is(toks[at+2], ks.HashKey) {
			return str(toks[at])
		}

		return "", false
	}

	// sortAt matches one sort-key condition that takes all of toks[at:end].
	sortAt := func(at, end int) (func(string) bool, bool) {
		t := toks[at:end]
		switch {
		case len(t) == 3 && is(t[0], ks.RangeKey):
			a, ok := str(t[2])
			return compareWith(t[1].Type, a), ok && compareWith(t[1].Type, a) != nil
		case len(t) == 3 && is(t[2], ks.RangeKey):
			a, ok := str(t[0])
			op := mirror(t[1].Type)
			return compareWith(op, a), ok && compareWith(op, a) != nil
		case len(t) == 5 && is(t[0], ks.RangeKey) && t[1].Type == language.BETWEEN && t[3].Type == language.AND:
			lo, ok1 := str(t[2])
			hi, ok2 := str(t[4])
			return func(sk string) bool { return lo <= sk && sk <= hi }, ok1 && ok2
		case len(t) == 6 && t[0].Type == language.IDENT && t[0].Literal == "begins_with" && t[1].Type == language.LPAREN &&
			is(t[2], ks.RangeKey) && t[3].Type == language.COMMA && t[5].Type == language.RPAREN:
			p, ok := str(t[4])
			return func(sk string) bool { return strings.HasPrefix(sk, p) }, ok
		}

		return nil, false
	}

	var (
		hash   string
		onSort func(string) bool
		ok     bool
	)

	switch {
	case len(toks) == 3:
		hash, ok = hashAt(0)
	case len(toks) > 4:
		// `<hash> = :v AND <sort condition>`, else `<sort condition> AND <hash> = :v`.
		if toks[3].Type == language.AND {
			if hash, ok = hashAt(0); ok {
				onSort, ok = sortAt(4, len(toks))
			}
		}

		if !ok && toks[len(toks)-4].Type == language.AND {
			if hash, ok = hashAt(len(toks) - 3); ok {
				onSort, ok = sortAt(0, len(toks)-4)
			}
		}
	}

	if !ok {
		return nil, false
	}

	return func(item map[string]*types.Item) (inPartition, matched bool) {
		h, found := item[ks.HashKey]
		if !found || h.S == nil || *h.S != hash {
			return false, false
		}

		if onSort == nil {
			return true, true
		}

		s, found := item[ks.RangeKey]

		return true, found && s.S != nil && onSort(*s.S)
	}, true
}

// compareWith returns `sk op a` for a comparison token type, nil for any other token.
func compareWith(op language.TokenType, a string) func(string) bool {
	switch op {
	case language.EQ:
		return func(sk string) bool { return sk == a }
	case language.LT:
		return func(sk string) bool { return sk < a }
	case language.LTE:
		return func(sk string) bool { return sk <= a }
	case language.GT:
		return func(sk string) bool { return sk > a }
	case language.GTE:
		return func(sk string) bool { return sk >= a }
	}

	return nil
}

// mirror turns `:a op <sort>` into `<sort> op' :a`.
func mirror(op language.TokenType) language.TokenType {
	switch op {
	case language.LT:
		return language.GT
	case language.LTE:
		return language.GTE
	case language.GT:
		return language.LT
	case language.GTE:
		return language.LTE
	}

	return op
}

// nativeProjection returns the attribute names a projection expression lists when it is a
// plain list of top-level names (`a, #b, c`: names, or aliases declared for names; no
// nested path, no duplicate, no reserved word), else false (pickem patch). Projecting such
// a list is taking those attributes of the item, which searchResult then does without the
// interpreter (that parsed the expression and converted every attribute of every item
// returned); anything else is left to the interpreter, which reports what is wrong with it.
func nativeProjection(expr string, aliases map[string]string) ([]string, bool) {
	if expr == "" {
		return nil, false
	}

	var names []string

	l := language.NewLexer(expr)
	for n, tok := 0, l.NextToken(); tok.Type != language.EOF; n, tok = n+1, l.NextToken() {
		if n%2 == 1 {
			if tok.Type != language.COMMA {
				return nil, false
			}

			continue
		}

		if tok.Type != language.IDENT || strings.ContainsAny(tok.Literal, ".[]") {
			return nil, false
		}

		name := tok.Literal
		if strings.HasPrefix(name, "#") {
			if name = aliases[name]; name == "" {
				return nil, false
			}
		} else if strings.HasPrefix(name, ":") || language.IsReservedWord(strings.ToUpper(name)) {
			return nil, false
		}

		if slices.Contains(names, name) {
			return nil, false
		}

		names = append(names, name)
	}

	if len(names) == 0 || strings.HasSuffix(strings.TrimSpace(expr), ",") {
		return nil, false
	}

	return names, true
}
