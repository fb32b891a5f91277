package core

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/truora/minidyn/interpreter"
	"github.com/truora/minidyn/types"
)

// Tests of the pickem patch (PATCH.md): partition-scoped searches, the sorted index and
// per-item transaction rollback.

func createKeyValueTable(t *testing.T) *Table {
	t.Helper()

	table := NewTable("kv")
	table.AttributesDef = map[string]string{"pk": "S", "sk": "S", "gpk": "S", "gsk": "S"}
	table.KeySchema = keySchema{HashKey: "pk", RangeKey: "sk"}
	table.BillingMode = new("PAY_PER_REQUEST")

	all := "ALL"
	err := table.AddGlobalIndexes([]*types.GlobalSecondaryIndex{{
		IndexName:  new("gsi"),
		KeySchema:  []*types.KeySchemaElement{{AttributeName: "gpk", KeyType: "HASH"}, {AttributeName: "gsk", KeyType: "RANGE"}},
		Projection: &types.Projection{ProjectionType: &all},
	}})
	require.NoError(t, err)

	return table
}

func putKV(t *testing.T, table *Table, attrs ...string) {
	t.Helper()

	item := map[string]*types.Item{}
	for n := 0; n+1 < len(attrs); n += 2 {
		item[attrs[n]] = &types.Item{S: new(attrs[n+1])}
	}

	_, err := table.Put(&types.PutItemInput{TableName: new(table.Name), Item: item})
	require.NoError(t, err)
}

func searchSKs(t *testing.T, table *Table, input QueryInput) []string {
	t.Helper()

	items, _, err := table.SearchData(input)
	require.NoError(t, err)

	var out []string

	for _, it := range items {
		attr := "sk"
		if input.Index != "" {
			attr = "gsk"
		}

		out = append(out, types.StringValue(it[attr].S))
	}

	return out
}

func TestSearchDataPartitionWhoseKeyHasTheSeparator(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	// Composite keys "a.b.c", "a.b.d", "a.x" and "a.z": partition "a.b" sorts inside "a".
	// (Items whose composite keys are equal, such as pk "a.b" sk "c" and pk "a" sk "b.c",
	// still collide: see PATCH.md.)
	putKV(t, table, "pk", "a", "sk", "x")
	putKV(t, table, "pk", "a.b", "sk", "c")
	putKV(t, table, "pk", "a", "sk", "z")
	putKV(t, table, "pk", "a", "sk", "b.d")
	putKV(t, table, "pk", "ab", "sk", "x")

	query := func(pk string, forward bool) []string {
		return searchSKs(t, table, QueryInput{
			KeyConditionExpression:    "#pk = :pk",
			Aliases:                   map[string]string{"#pk": "pk"},
			ExpressionAttributeValues: map[string]*types.Item{":pk": {S: new(pk)}},
			ScanIndexForward:          forward,
		})
	}

	c.Equal([]string{"b.d", "x", "z"}, query("a", true))
	c.Equal([]string{"z", "x", "b.d"}, query("a", false))
	c.Equal([]string{"c"}, query("a.b", true))
	c.Equal([]string{"x"}, query("ab", true))
	c.Empty(query("b", true))
}

func TestSearchDataSortKeyRanges(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	for _, sk := range []string{"CARD#000", "CARD#001", "CARD#002", "SCORE#1#u1", "SCORE#2#u2", "UNSCORED#u3"} {
		putKV(t, table, "pk", "USER#u", "sk", sk, "gpk", "EVENT#e", "gsk", sk)
	}

	putKV(t, table, "pk", "USER#v", "sk", "CARD#000", "gpk", "EVENT#f", "gsk", "CARD#000")

	for _, index := range []string{"", "gsi"} {
		hash := "pk"
		rng := "sk"
		value := "USER#u"

		if index != "" {
			hash, rng, value = "gpk", "gsk", "EVENT#e"
		}

		query := func(cond string, values map[string]string, forward bool, limit int64) []string {
			av := map[string]*types.Item{":pk": {S: new(value)}}
			for k, v := range values {
				av[k] = &types.Item{S: new(v)}
			}

			return searchSKs(t, table, QueryInput{
				Index:                     index,
				KeyConditionExpression:    "(#pk = :pk) AND (" + cond + ")",
				Aliases:                   map[string]string{"#pk": hash, "#sk": rng},
				ExpressionAttributeValues: av,
				ScanIndexForward:          forward,
				Limit:                     limit,
			})
		}

		c.Equal([]string{"CARD#000", "CARD#001", "CARD#002"}, query("#sk BETWEEN :lo AND :hi", map[string]string{":lo": "CARD#", ":hi": "CARD$"}, true, 0), index)
		c.Equal([]string{"CARD#002", "CARD#001", "CARD#000"}, query("#sk BETWEEN :lo AND :hi", map[string]string{":lo": "CARD#", ":hi": "CARD$"}, false, 0), index)
		c.Equal([]string{"SCORE#1#u1", "SCORE#2#u2"}, query("begins_with(#sk, :p)", map[string]string{":p": "SCORE#"}, true, 0), index)
		c.Equal([]string{"UNSCORED#u3", "SCORE#2#u2"}, query("#sk > :x", map[string]string{":x": "SCORE#1#u1"}, false, 0), index)
		c.Equal([]string{"CARD#000", "CARD#001"}, query("#sk < :x", map[string]string{":x": "SCORE$"}, true, 2), index)
		c.Equal([]string{"CARD#001"}, query("#sk = :x", map[string]string{":x": "CARD#001"}, true, 0), index)
	}
}

func TestSearchDataPagesThroughAPartition(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	for _, sk := range []string{"1", "2", "3", "4", "5"} {
		putKV(t, table, "pk", "p", "sk", sk)
		putKV(t, table, "pk", "q", "sk", sk)
	}

	input := QueryInput{
		KeyConditionExpression:    "#pk = :pk AND #sk >= :lo",
		Aliases:                   map[string]string{"#pk": "pk", "#sk": "sk"},
		ExpressionAttributeValues: map[string]*types.Item{":pk": {S: new("p")}, ":lo": {S: new("2")}},
		ScanIndexForward:          true,
		Limit:                     2,
	}

	var got []string

	for pages := 0; pages < 5; pages++ {
		items, last, err := table.SearchData(input)
		c.NoError(err)

		for _, it := range items {
			got = append(got, *it["sk"].S)
		}

		if len(last) == 0 {
			break
		}

		input.ExclusiveStartKey = last
	}

	c.Equal([]string{"2", "3", "4", "5"}, got)
}

func TestSearchDataLimitCountsItemsBeforeTheFilter(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	for _, sk := range []string{"1", "2", "3", "4"} {
		putKV(t, table, "pk", "p", "sk", sk, "color", map[bool]string{true: "red", false: "blue"}[sk != "2"])
	}

	items, last, err := table.SearchData(QueryInput{
		KeyConditionExpression:    "#pk = :pk",
		FilterExpression:          "#c = :red",
		Aliases:                   map[string]string{"#pk": "pk", "#c": "color"},
		ExpressionAttributeValues: map[string]*types.Item{":pk": {S: new("p")}, ":red": {S: new("red")}},
		ScanIndexForward:          true,
		Limit:                     2,
	})
	c.NoError(err)
	c.Len(items, 1) // items 1 and 2 were read; 2 is blue
	c.Equal("2", *last["sk"].S)
}

func TestIndexFollowsItemsInAndOutOfASparseIndex(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	putKV(t, table, "pk", "1", "sk", "x", "gpk", "g", "gsk", "a")
	putKV(t, table, "pk", "2", "sk", "x")
	putKV(t, table, "pk", "3", "sk", "x", "gpk", "g", "gsk", "c")

	query := func() []string {
		return searchSKs(t, table, QueryInput{
			Index:                     "gsi",
			KeyConditionExpression:    "gpk = :g",
			ExpressionAttributeValues: map[string]*types.Item{":g": {S: new("g")}},
			ScanIndexForward:          true,
		})
	}
	update := func(pk, expr string, values map[string]*types.Item) {
		_, err := table.Update(&types.UpdateItemInput{
			TableName:                 new(table.Name),
			Key:                       map[string]*types.Item{"pk": {S: new(pk)}, "sk": {S: new("x")}},
			UpdateExpression:          expr,
			ExpressionAttributeValues: values,
		})
		c.NoError(err)
	}

	c.Equal([]string{"a", "c"}, query())

	// Item 2 gains the index key: it enters the index, the others stay.
	update("2", "SET gpk = :g, gsk = :b", map[string]*types.Item{":g": {S: new("g")}, ":b": {S: new("b")}})
	c.Equal([]string{"a", "b", "c"}, query())

	// Item 1 loses its sort key in the index: it leaves the index.
	update("1", "REMOVE gsk", nil)
	c.Equal([]string{"b", "c"}, query())

	// Item 3 moves within the index.
	update("3", "SET gsk = :z", map[string]*types.Item{":z": {S: new("0")}})
	c.Equal([]string{"0", "b"}, query())
	c.EqualValues(2, table.Indexes["gsi"].count())
}

func TestRestoreItemPutsTheItemAndItsIndexEntryBack(t *testing.T) {
	c := require.New(t)
	table := createKeyValueTable(t)

	putKV(t, table, "pk", "1", "sk", "x", "gpk", "g", "gsk", "a")

	existing := table.SnapshotItem("1.x")
	absent := table.SnapshotItem("2.x")

	putKV(t, table, "pk", "1", "sk", "x", "gpk", "g", "gsk", "z")
	putKV(t, table, "pk", "2", "sk", "x", "gpk", "g", "gsk", "b")

	c.NoError(table.RestoreItem(absent))
	c.NoError(table.RestoreItem(existing))

	c.Equal([]string{"1.x"}, table.SortedKeys)
	c.Equal("a", *table.Data["1.x"]["gsk"].S)
	c.Equal([]indexEntry{{indexKey: "g.a", pk: "1.x"}}, table.Indexes["gsi"].entries)
}

// TestNativeKeyMatchIsTheInterpreters: every key condition nativeKeyMatch takes answers
// what the interpreter answers, on keys around each bound; the forms it must leave to the
// interpreter are refused.
func TestNativeKeyMatchIsTheInterpreters(t *testing.T) {
	table := createKeyValueTable(t)
	ks := table.KeySchema
	s := func(v string) *types.Item { return &types.Item{S: new(v)} }
	values := map[string]*types.Item{":p": s("P#1"), ":a": s("b"), ":b": s("d"), ":n": {N: new("3")}}
	aliases := map[string]string{"#p": "pk", "#s": "sk"}

	taken := []string{
		"pk = :p", ":p = pk", "#p = :p",
		"#p = :p AND #s = :a", "#p = :p AND #s < :a", "#p = :p AND #s <= :a", "#p = :p AND #s > :a", "#p = :p AND #s >= :a",
		"#p = :p AND :a < #s", "#p = :p AND :a <= #s", "#p = :p AND :a > #s", "#p = :p AND :a >= #s", "#p = :p AND :a = #s",
		"#p = :p AND #s BETWEEN :a AND :b", "#p = :p AND begins_with(#s, :a)",
		"#s > :a AND #p = :p", "#s BETWEEN :a AND :b AND #p = :p", "begins_with(#s, :a) AND :p = #p",
	}
	refused := []string{
		"", "#p = :p OR #s = :a", "(#p = :p)", "#p = :p AND (#s = :a)", "#p = :p AND #s = :n", "#p = :n",
		"#p = :p AND #s <> :a", "#p = :p AND #p = :p", "#s = :a", "#p = :p AND begins_with(#p, :a)",
		"#p = :p AND #s = :missing", "#p = :p AND size(#s) > :a",
	}

	var items []map[string]*types.Item
	for _, pk := range []string{"P#1", "P#2", "P#1.x"} {
		for _, sk := range []string{"", "a", "b", "b0", "bz", "c", "d", "d0", "e"} {
			items = append(items, map[string]*types.Item{"pk": s(pk), "sk": s(sk)})
		}
	}

	for _, expr := range taken {
		input := QueryInput{KeyConditionExpression: expr, Aliases: aliases, ExpressionAttributeValues: values}

		native, ok := nativeKeyMatch(input, ks, table.AttributesDef)
		require.True(t, ok, expr)

		for _, item := range items {
			want, err := table.InterpreterMatch(interpreter.MatchInput{
				TableName: table.Name, Expression: expr, ExpressionType: interpreter.ExpressionTypeKey,
				Item: item, Aliases: aliases, Attributes: values,
			})
			require.NoError(t, err, expr)

			inPartition, got := native(item)
			require.Equal(t, want, got, "%s on %s/%s", expr, *item["pk"].S, *item["sk"].S)
			require.Equal(t, *item["pk"].S == "P#1", inPartition, expr)
		}
	}

	for _, expr := range refused {
		_, ok := nativeKeyMatch(QueryInput{KeyConditionExpression: expr, Aliases: aliases, ExpressionAttributeValues: values}, ks, table.AttributesDef)
		require.False(t, ok, expr)
	}
}

// TestNativeProjectionIsTheInterpreters: a plain list of top-level names projects what the
// interpreter projects, from the table and from an index, attributes missing or nested
// included; other projection expressions are left to the interpreter.
func TestNativeProjectionIsTheInterpreters(t *testing.T) {
	table := createKeyValueTable(t)
	aliases := map[string]string{"#p": "pk", "#n": "nested", "#l": "list"}
	s := func(v string) *types.Item { return &types.Item{S: new(v)} }

	putKV(t, table, "pk", "a", "sk", "1", "gpk", "g", "gsk", "1", "x", "one")
	_, err := table.Put(&types.PutItemInput{TableName: new(table.Name), Item: map[string]*types.Item{
		"pk": s("a"), "sk": s("2"), "gpk": s("g"), "gsk": s("2"), "x": s("two"),
		"nested": {M: map[string]*types.Item{"k": s("v"), "n": {N: new("3")}}},
		"list":   {L: []*types.Item{s("e1"), {M: map[string]*types.Item{"z": s("w")}}}},
	}})
	require.NoError(t, err)

	taken := []string{"x", "#p, x", "#n", "#l, sk, absent", "gsk, #p, #n, #l, x, sk"}
	refused := []string{"", "x,", ", x", "x x", "#n.k", "#l[0]", "#undeclared", "x, x", ":v", "size", "missing"}

	for _, expr := range taken {
		names, ok := nativeProjection(expr, aliases)
		require.True(t, ok, expr)

		for _, idx := range []*index{nil, table.Indexes["gsi"]} {
			for _, stored := range table.Data {
				native := QueryInput{ProjectionExpression: expr, Aliases: aliases, projected: names}
				got, matched, err := table.searchResult(native, idx, stored)
				require.NoError(t, err)
				require.True(t, matched)

				interpreted := native
				interpreted.projected = nil
				want, _, err := table.searchResult(interpreted, idx, stored)
				require.NoError(t, err, expr)
				require.Equal(t, want, got, expr)
			}
		}
	}

	for _, expr := range refused {
		_, ok := nativeProjection(expr, aliases)
		require.False(t, ok, expr)
	}
}
