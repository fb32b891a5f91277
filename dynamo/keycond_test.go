package dynamo

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Every key condition shape reads, on DynamoDB Local, exactly the items the expression
// builder's condition reads, on the table and on the index, in both orders.
func TestKeyCondReadsWhatTheBuilderReads(t *testing.T) {
	f := newFixture(t)
	ctx := ctxT(t)
	for i := range 12 {
		sk := fmt.Sprintf("B#%02d", i)
		if i%3 == 0 {
			sk = fmt.Sprintf("A#%02d", i)
		}
		_, err := f.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
			attrPK: str("KC"), attrSK: str(sk), attrGSIPK: str("KCI"), attrGSISK: str(sk), attrType: str("test"),
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// sortKeys runs q and returns the sort keys (attribute sk) of what it read.
	sortKeys := func(q *dynamodb.QueryInput, sk string) []string {
		var keys []string
		err := f.s.queryEach(ctx, q, func(item map[string]types.AttributeValue) (bool, error) {
			keys = append(keys, itemString(item, sk))
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	key := func(pkAttr, pk string) expression.KeyConditionBuilder {
		return expression.Key(pkAttr).Equal(expression.Value(pk))
	}
	for _, tc := range []struct {
		name    string
		index   string
		pk, sk  string
		cond    keyCond
		builder expression.KeyConditionBuilder
		want    int
	}{
		{"partition", "", attrPK, attrSK, partitionIs(attrPK, "KC"), key(attrPK, "KC"), 12},
		{"between", IndexName, attrGSIPK, attrGSISK, partitionIs(attrGSIPK, "KCI").between(attrGSISK, "B#04", "B#08"),
			key(attrGSIPK, "KCI").And(expression.Key(attrGSISK).Between(expression.Value("B#04"), expression.Value("B#08"))), 4},
		{"begins with", "", attrPK, attrSK, partitionIs(attrPK, "KC").beginsWith(attrSK, "A#"),
			key(attrPK, "KC").And(expression.Key(attrSK).BeginsWith("A#")), 4},
		{"greater", IndexName, attrGSIPK, attrGSISK, partitionIs(attrGSIPK, "KCI").greater(attrGSISK, "B#05"),
			key(attrGSIPK, "KCI").And(expression.Key(attrGSISK).GreaterThan(expression.Value("B#05"))), 4},
		{"at least", "", attrPK, attrSK, partitionIs(attrPK, "KC").atLeast(attrSK, "B#05"),
			key(attrPK, "KC").And(expression.Key(attrSK).GreaterThanEqual(expression.Value("B#05"))), 5},
	} {
		for _, forward := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/forward=%v", tc.name, forward), func(t *testing.T) {
				got := sortKeys(f.s.query(tc.index, tc.cond, 0, forward), tc.sk)
				q, err := f.s.newQuery(tc.index, tc.builder, 0, forward)
				if err != nil {
					t.Fatal(err)
				}
				want := sortKeys(q, tc.sk)
				if !slices.Equal(got, want) || len(got) != tc.want {
					t.Errorf("keyCond read %v, the builder %v (want %d items)", got, want, tc.want)
				}
				// A limit stops the read as the builder's does (queryEach reads one page).
				q = f.s.query(tc.index, tc.cond, 2, forward)
				out, err := f.db.Query(ctx, q)
				if err != nil || len(out.Items) != 2 || itemString(out.Items[0], tc.sk) != want[0] || itemString(out.Items[1], tc.sk) != want[1] {
					t.Errorf("limit 2: %v items, %v; want %v", len(out.Items), err, want[:2])
				}
			})
		}
	}
}

// BenchmarkKeyCondition compares building a Query's key condition with the expression
// builder and with keyCond.
func BenchmarkKeyCondition(b *testing.B) {
	s := &Store{table: "t"}
	b.Run("builder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = s.newQuery("", expression.Key(attrPK).Equal(expression.Value(eventsPK)).
				And(expression.Key(attrSK).BeginsWith(prefixEvent)), 21, false)
		}
	})
	b.Run("keyCond", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.query("", partitionIs(attrPK, eventsPK).beginsWith(attrSK, prefixEvent), 21, false)
		}
	})
}
