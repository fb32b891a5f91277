package gqlexec

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pickem/api/internal/hostile"
	"github.com/pickem/api/server"
)

// salt makes every hostile request of a process unique.
var salt atomic.Int64

// BenchmarkHostile measures what each hostile document shape (internal/hostile) costs the handler
// in CPU, from the request body to the response, with a different comment on every
// request so that no cache helps. The target is at most 10 ms of CPU per request.
func BenchmarkHostile(b *testing.B) {
	s := NewStore()
	// Introspection on, as the local server has it: the worse case.
	now := time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)
	h := server.NewGraphQL(server.Config{Store: s, Now: func() time.Time { return now }, Introspection: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
