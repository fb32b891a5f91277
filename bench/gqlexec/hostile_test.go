package gqlexec

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/pickem/api/internal/hostile"
)

// salt makes every hostile request of a process unique.
var salt atomic.Int64

// BenchmarkHostile measures what each hostile document shape of issue 9 costs the handler
// in CPU, from the request body to the response, with a different comment on every
// request so that no cache helps. The target is at most 10 ms of CPU per request.
func BenchmarkHostile(b *testing.B) {
	s := NewStore()
	h := newHandler(s)
	for _, shape := range hostile.Shapes() {
		b.Run(shape.Name, func(b *testing.B) {
			bodies := func(i int) []byte {
				body, err := json.Marshal(shape.Build(i))
				if err != nil {
					b.Fatal(err)
				}
				return body
			}
			b.ReportAllocs()
			var cpu, built int64
			for b.Loop() {
				b.StopTimer()
				body := bodies(int(salt.Add(1)))
				b.StartTimer()
				c := cpuTime()
				do(h, body, player)
				cpu += int64(cpuTime() - c)
				built += int64(len(body))
			}
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(built)/float64(b.N), "req-bytes")
		})
	}
}
