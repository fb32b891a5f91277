package core

import (
	"fmt"
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
