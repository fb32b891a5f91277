package ddbjson

import (
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// BenchmarkDecode is the decoder alone on BenchmarkQuery's answer (no SDK, no HTTP).
func BenchmarkDecode(b *testing.B) {
	in, err := os.ReadFile("testdata/query20.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var o dynamodb.QueryOutput
		d := decoder{b: in}
		if !d.query(&o) || !d.end() || len(o.Items) != 20 {
			b.Fatal("not decoded")
		}
	}
}
