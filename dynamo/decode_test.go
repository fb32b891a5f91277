package dynamo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fill sets every field of v, recursively, to a distinct non-zero value: pointers are
// allocated, slices get two elements. A field added to a row struct is therefore filled
// too, and a decoder that forgets it gives a zero where UnmarshalMap does not.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), n)
		}
	default:
		panic(fmt.Sprintf("fill: add a case for %s", v.Type()))
	}
}

// emptyLists sets every slice, recursively, to a non-nil empty slice.
func emptyLists(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			emptyLists(v.Elem())
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	case reflect.Struct:
		for i := range v.NumField() {
			emptyLists(v.Field(i))
		}
	}
}

type decodable interface {
	decode(map[string]types.AttributeValue) error
}

// rowCases returns, for one row type, the shapes it is written in: every field set, the
// zero row (omitempty attributes absent), and every list present but empty.
func rowCases[T any]() map[string]T {
	var full, empty T
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	fill(reflect.ValueOf(&empty).Elem(), &n)
	emptyLists(reflect.ValueOf(&empty).Elem())
	var zero T
	return map[string]T{"Full": full, "Zero": zero, "EmptyLists": empty}
}

// checkDecoder checks that decode gives what attributevalue.UnmarshalMap gives for every
// shape of T that MarshalMap writes.
func checkDecoder[T any, P interface {
	*T
	decodable
}](t *testing.T) {
	for name, row := range rowCases[T]() {
		t.Run(name, func(t *testing.T) {
			item, err := attributevalue.MarshalMap(row)
			if err != nil {
				t.Fatal(err)
			}
			var want, got T
			if err := attributevalue.UnmarshalMap(item, &want); err != nil {
				t.Fatal(err)
			}
			if err := P(&got).decode(item); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decode differs from UnmarshalMap:\n got %#v\nwant %#v", got, want)
			}
			if name == "Full" && !reflect.DeepEqual(got, row) {
				t.Fatalf("decode lost a field:\n got %#v\nwant %#v", got, row)
			}
		})
	}
}

func TestDecodersMatchUnmarshalMap(t *testing.T) {
	t.Run("User", checkDecoder[userRow])
	t.Run("Event", checkDecoder[eventRow])
	t.Run("Match", checkDecoder[matchRow])
	t.Run("Prediction", checkDecoder[predictionRow])
	t.Run("Standing", checkDecoder[standingRow])
}

func TestDecodersNullAttributesAreZero(t *testing.T) {
	// NULL where a value is expected decodes to the zero value, as with UnmarshalMap.
	item, err := attributevalue.MarshalMap(rowCases[matchRow]()["Full"])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"name", "points", "preshow", "championships", "teams", "result"} {
		item[name] = &types.AttributeValueMemberNULL{Value: true}
	}
	var want, got matchRow
	if err := attributevalue.UnmarshalMap(item, &want); err != nil {
		t.Fatal(err)
	}
	if err := got.decode(item); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestDecodersRefuseWrongTypes(t *testing.T) {
	base, err := attributevalue.MarshalMap(rowCases[predictionRow]()["Full"])
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]types.AttributeValue{
		"points":   &types.AttributeValueMemberS{Value: "12"},
		"userName": &types.AttributeValueMemberBOOL{Value: true},
		"season":   &types.AttributeValueMemberN{Value: "2025.5"},
		"picks":    &types.AttributeValueMemberM{},
	}
	for attr, v := range cases {
		t.Run(attr, func(t *testing.T) {
			item := make(map[string]types.AttributeValue, len(base))
			for k, v := range base {
				item[k] = v
			}
			item[attr] = v
			var row predictionRow
			err := row.decode(item)
			if err == nil || !strings.Contains(err.Error(), attr) {
				t.Fatalf("err = %v, want an error naming %q", err, attr)
			}
			if attributevalue.UnmarshalMap(item, &row) == nil {
				t.Fatalf("UnmarshalMap accepts %T in %q: the decoder should too", v, attr)
			}
		})
	}
	t.Run("PickElement", func(t *testing.T) {
		item := make(map[string]types.AttributeValue, len(base))
		for k, v := range base {
			item[k] = v
		}
		item["picks"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"matchId": &types.AttributeValueMemberS{Value: "m"}, "team": &types.AttributeValueMemberS{Value: "x"}}}}}
		var row predictionRow
		if err := row.decode(item); err == nil || !strings.Contains(err.Error(), "team") {
			t.Fatalf("err = %v, want an error naming team", err)
		}
	})
}

// BenchmarkDecodeRows compares UnmarshalMap with the hand decoders on a standings page of
// 100 rows and a leaderboard page of 50 predictions of 10 picks.
func BenchmarkDecodeRows(b *testing.B) {
	standings := make([]map[string]types.AttributeValue, 100)
	predictions := make([]map[string]types.AttributeValue, 50)
	for i := range standings {
		row := rowCases[standingRow]()["Full"]
		standings[i], _ = attributevalue.MarshalMap(row)
	}
	for i := range predictions {
		row := rowCases[predictionRow]()["Full"]
		row.Picks = make([]pickRow, 10)
		for j := range row.Picks {
			row.Picks[j] = pickRow{MatchID: fmt.Sprintf("00000000-0000-4000-8000-%012d", j), Team: j % 3}
		}
		predictions[i], _ = attributevalue.MarshalMap(row)
	}
	b.Run("Standings100/UnmarshalMap", func(b *testing.B) {
		for b.Loop() {
			for _, item := range standings {
				var row standingRow
				if err := attributevalue.UnmarshalMap(item, &row); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Standings100/decode", func(b *testing.B) {
		for b.Loop() {
			for _, item := range standings {
				var row standingRow
				if err := row.decode(item); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Predictions50/UnmarshalMap", func(b *testing.B) {
		for b.Loop() {
			for _, item := range predictions {
				var row predictionRow
				if err := attributevalue.UnmarshalMap(item, &row); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Predictions50/decode", func(b *testing.B) {
		for b.Loop() {
			for _, item := range predictions {
				var row predictionRow
				if err := row.decode(item); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
