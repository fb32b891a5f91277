package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/pickem/api/bench/gqlexec"
	"github.com/pickem/api/internal/dynamotest"
)

// BenchmarkStack measures what one request of every screen costs this process on DynamoDB
// Local (a separate process, so its work is not counted), at 1 shard (and screens 3 and 4
// at 16 too): the floor (the bare SDK calls), the API's handler called in-process
// (middleware, GraphQL, store, SDK; no HTTP), and the whole stack over HTTP on loopback as
// make bench sends it (client included). Stack − Floor is what the API adds; Stack −
// Handler the HTTP exchange. CPU time per op (cpu-ns/op) is the process's user+system
// time, steadier than wall time on a shared machine; the process runs with the Lambda
// function's GC settings, as make bench does. A tiny data set: the smallest size of every
// screen.
//
//	go test ./bench -run '^$' -bench Stack -benchmem -count 6
func BenchmarkStack(b *testing.B) {
	gc, err := gqlexec.DeployedGC(filepath.Join("..", "deploy", "template.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	defer gc.Apply()()
	ctx := context.Background()
	// An engine of its own, with the JVM flags of make bench, not the tests' shared one.
	b.Setenv(dynamotest.EnvEndpoint, "")
	eng, err := startEngine()
	if err != nil {
		b.Fatal(err)
	}
	defer eng.stop()
	opts := DefaultOptions()
	e, err := newEnv(ctx, eng, opts.Now, opts.Latency)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	sc := Scale{Players: 60, Sizes: []int{10, 20}, PastFillers: 1}
	var leagues []*league
	for i, k := range opts.Shards {
		leagues = append(leagues, newLeague(opts.Now, opts.Now.Year()-i, k, sc, false))
	}
	if _, err := load(ctx, e, leagues); err != nil {
		b.Fatal(err)
	}
	groups, err := e.loadLeagues(ctx, sc.Players, []int{10})
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range leagues {
		for _, p := range append(e.probes(l, leagues), e.leagueProbes(l, groups)...) {
			name := stackName(p)
			if p.predictions > l.sizes[0] || l.shards > 1 && p.screen != 3 && p.screen != 4 {
				continue
			}
			check := func(b *testing.B, resp []byte) {
				r, err := decode(resp)
				if err == nil {
					err = p.check(r.Data)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			i := 0 // numbers the requests (submits vary the player)
			b.Run(name+"/Floor", func(b *testing.B) {
				loop(b, func() {
					i++
					if _, err := p.floor(ctx, e.direct.db, i); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(name+"/Handler", func(b *testing.B) {
				do := func() *httptest.ResponseRecorder {
					i++
					body, token := p.request(i)
					r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("Accept", "application/json")
					r.Header.Set("Authorization", "Bearer "+token)
					w := httptest.NewRecorder()
					e.direct.srv.Config.Handler.ServeHTTP(w, r)
					return w
				}
				check(b, do().Body.Bytes())
				loop(b, func() { do() })
			})
			b.Run(name+"/Stack", func(b *testing.B) {
				post := func() []byte {
					i++
					body, token := p.request(i)
					_, resp, err := e.post(ctx, e.direct, body, token)
					if err != nil {
						b.Fatal(err)
					}
					return resp
				}
				check(b, post())
				loop(b, func() { post() })
			})
		}
	}
}

// stackName is p's sub-benchmark: the names gqlexec's screens have (and BenchmarkStack had
// for screens 1, 2 and 5), the state of a card other than UPCOMING and the shard count
// other than 1 appended.
func stackName(p probe) string {
	var name string
	switch p.screen {
	case 1:
		name = "Screen1EventList20"
	case 2:
		name = "Screen2EventCardMyPicks"
		if state, _, _ := strings.Cut(p.size, ","); state != "UPCOMING" {
			name += strings.ToUpper(state[:1]) + strings.ToLower(state[1:])
		}
	case 3:
		name = "Screen3ScoredEventTop50"
	case 4:
		name = "Screen4Standings" + strings.Fields(p.size)[0]
	case 5:
		name = "Screen5Profile"
	case 6:
		name = "Screen6SubmitPrediction"
	case 8:
		name = "Screen8LeagueStandings50"
	}
	if p.shards > 1 {
		name += fmt.Sprintf("Shards%d", p.shards)
	}
	return name
}

var (
	loopProfile = flag.String("loopprofile", "", "write a CPU profile of each BenchmarkStack loop (setup excluded) to DIR/<sub-benchmark>.prof")
	loopAllocs  = flag.Bool("loopallocs", false, "with -loopprofile, write allocation profiles instead (DIR/<sub-benchmark>.allocs0 before the loop, .allocs after)")
)

// loop runs f b.N times and reports CPU time and allocations per op.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	switch {
	case *loopProfile != "" && *loopAllocs:
		// Allocations: the profile after the loop minus the one before it
		// (go tool pprof -sample_index alloc_objects -diff_base X.allocs0 X.allocs).
		runtime.MemProfileRate = 64
		writeAllocs(b, "0")
		defer writeAllocs(b, "")
	case *loopProfile != "":
		out, err := os.Create(filepath.Join(*loopProfile, strings.ReplaceAll(b.Name(), "/", "_")+".prof"))
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	cpu := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func writeAllocs(b *testing.B, suffix string) {
	runtime.GC()
	out, err := os.Create(filepath.Join(*loopProfile, strings.ReplaceAll(b.Name(), "/", "_")+".allocs"+suffix))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	if err := pprof.Lookup("allocs").WriteTo(out, 0); err != nil {
		b.Fatal(err)
	}
}
