package bench

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// loadTest drives p's request through the stack (the direct path) at full speed with
// `workers` concurrent closed-loop clients for d, with vegeta (v12.13.0, as a library:
// pinned in go.mod). The load generator, the API and the engine share the machine's cores,
// so the figures are CPU-bound: they compare screens, not production capacity.
func (e *env) loadTest(p probe, workers int, d time.Duration) (LoadResult, error) {
	body, token := p.request(0)
	hdr := http.Header{"Content-Type": []string{"application/json"}}
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	target := vegeta.Target{Method: http.MethodPost, URL: e.direct.srv.URL + "/graphql", Body: body, Header: hdr}
	atk := vegeta.NewAttacker(
		vegeta.Workers(uint64(workers)), vegeta.MaxWorkers(uint64(workers)),
		vegeta.Connections(workers), vegeta.MaxConnections(workers),
		vegeta.KeepAlive(true), vegeta.Timeout(30*time.Second),
	)
	var m vegeta.Metrics
	gqlErrors := 0
	for res := range atk.Attack(vegeta.NewStaticTargeter(target), vegeta.Rate{Freq: 0}, d, p.name) {
		if bytes.Contains(res.Body, []byte(`"errors"`)) {
			gqlErrors++
		}
		m.Add(res)
	}
	m.Close()
	if gqlErrors > 0 {
		return LoadResult{}, fmt.Errorf("load screen %d at %d shards: %d answers with GraphQL errors", p.screen, p.shards, gqlErrors)
	}
	r := LoadResult{
		Shards: p.shards, Screen: p.screen, Name: p.name, Size: p.size, Workers: workers,
		Seconds: m.Duration.Seconds(), Requests: int(m.Requests), Throughput: m.Throughput, Success: m.Success,
		P50: float64(m.Latencies.P50.Microseconds()) / 1000, P99: float64(m.Latencies.P99.Microseconds()) / 1000,
	}
	if m.Success < 1 {
		return r, fmt.Errorf("load screen %d at %d shards: success %.1f%%, errors %v", p.screen, p.shards, 100*m.Success, m.Errors)
	}
	return r, nil
}
