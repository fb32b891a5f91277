package bench

import (
	"bytes"
	"context"
	"flag"
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

// BenchmarkStack measures what one request of screens 1, 2 and 5 costs this process on
// DynamoDB Local (a separate process, so its work is not counted): the floor (the bare SDK
// calls), the API's handler called in-process (middleware, GraphQL, store, SDK; no HTTP),
// and the whole stack over HTTP on loopback as make bench sends it (client included).
// Stack − Floor is what the API adds; Stack − Handler the HTTP exchange. CPU time per op
// (cpu-ns/op) is the process's user+system time, steadier than wall time on a shared
// machine; the process runs with the Lambda function's GC settings, as make bench does.
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
	eng, err := startEngine(EngineDynamoDBLocal)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.stop()
	opts := DefaultOptions()
	e, err := newEnv(ctx, eng, opts.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	l := newLeague(opts.Now, 60, []int{10, 20}, 0)
	if _, err := l.load(ctx, e); err != nil {
		b.Fatal(err)
	}
	probes, err := e.probes(ctx, l)
	if err != nil {
		b.Fatal(err)
	}
	names := map[int]string{1: "Screen1EventList20", 2: "Screen2EventCardMyPicks", 5: "Screen5Profile"}
	for _, p := range probes {
		name, ok := names[p.screen]
		if !ok || p.predictions > l.sizes[0] {
			continue
		}
		body, token := p.request(0)
		check := func(b *testing.B, resp []byte) {
			r, err := decode(resp)
			if err == nil {
				err = p.check(r.Data)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name+"/Floor", func(b *testing.B) {
			loop(b, func() {
				if _, err := p.floor(ctx, 0); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(name+"/Handler", func(b *testing.B) {
			do := func() *httptest.ResponseRecorder {
				r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json")
				r.Header.Set("Authorization", "Bearer "+token)
				w := httptest.NewRecorder()
				e.srv.Config.Handler.ServeHTTP(w, r)
				return w
			}
			check(b, do().Body.Bytes())
			loop(b, func() { do() })
		})
		b.Run(name+"/Stack", func(b *testing.B) {
			_, resp, err := e.post(ctx, body, token)
			if err != nil {
				b.Fatal(err)
			}
			check(b, resp)
			loop(b, func() {
				if _, _, err := e.post(ctx, body, token); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
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
