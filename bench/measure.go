package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/pickem/api/dynamo/ddb"
)

// probe is one screen at one size and shard count: how to send it through the stack, how
// to check the answer, and its floor. i numbers the iterations (warm-up included, the
// second mode's after the first's) so that writes can vary the caller.
type probe struct {
	shards      int
	screen      int
	name        string
	size        string // what varies: predictions per event, page size, state
	predictions int    // predictions per event, for the plot (0: not applicable)
	request     func(i int) (body []byte, token string)
	check       func(data json.RawMessage) error
	// floor makes the floor's calls with db (its calls are counted in ctx's ddb.Cost)
	// and returns the items read.
	floor     func(ctx context.Context, db *dynamodb.Client, i int) (int, error)
	floorRows int // items the floor must read (-1: not checked)
}

// latency summarises a sample of durations in milliseconds.
type latency struct {
	P50  float64 `json:"p50Ms"`
	P99  float64 `json:"p99Ms"`
	Mean float64 `json:"meanMs"`
	Min  float64 `json:"minMs"`
}

func summarise(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	p99 := int(math.Ceil(0.99*float64(len(s)))) - 1
	return latency{P50: ms(s[len(s)/2]), P99: ms(s[p99]), Mean: ms(sum / time.Duration(len(s))), Min: ms(s[0])}
}

// sample is what one mode of measure found.
type sample struct {
	stack, floor       []time.Duration
	cost, floorCost    ddb.CostSnapshot // of the last measured iteration
	callsMin, callsMax int
	floorMin, floorMax int
	floorItems         int
	answered           bool
}

// measure runs p on the direct path, then in latency mode, warmup+n iterations each,
// stack and floor interleaved (alternating which goes first), checks every answer, and
// returns the screen's row. With answers set, the first answer's body is written there (see
// Options.Answers).
func (e *env) measure(ctx context.Context, p probe, warmup, n int, answers string) (ScreenResult, error) {
	r := ScreenResult{Engine: engineName, Shards: p.shards, Screen: p.screen, Name: p.name, Size: p.size, Predictions: p.predictions, N: n}
	fail := func(err error) (ScreenResult, error) {
		return r, fmt.Errorf("%d shards, screen %d %s (%s): %w", p.shards, p.screen, p.name, p.size, err)
	}
	var samples [2]sample
	for mode, via := range []*path{e.direct, e.slow} {
		s := &samples[mode]
		s.callsMin, s.floorMin = math.MaxInt, math.MaxInt
		offset := mode * (warmup + n)
		runStack := func(i int) error {
			body, token := p.request(offset + i)
			d, b, err := e.post(ctx, via, body, token)
			if err != nil {
				return err
			}
			resp, err := decode(b)
			if err != nil {
				return err
			}
			c := resp.Ext.DynamoDB
			if c == nil {
				return fmt.Errorf("no extensions.dynamodb in %.200s", b)
			}
			if !s.answered {
				s.answered = true
				if err := p.check(resp.Data); err != nil {
					return fmt.Errorf("answer: %w; body %.400s", err, b)
				}
				if answers != "" && mode == 0 {
					if err := writeAnswer(answers, p, b); err != nil {
						return err
					}
				}
			}
			if i >= warmup {
				s.stack = append(s.stack, d)
				s.cost = *c
				s.callsMin, s.callsMax = min(s.callsMin, c.Calls), max(s.callsMax, c.Calls)
			}
			return nil
		}
		runFloor := func(i int) error {
			fctx, c := ddb.WithCost(ctx)
			start := time.Now()
			rows, err := p.floor(fctx, via.db, offset+i)
			d := time.Since(start)
			if err != nil {
				return err
			}
			if i == 0 && p.floorRows >= 0 && rows != p.floorRows {
				return fmt.Errorf("floor read %d items, want %d", rows, p.floorRows)
			}
			if i >= warmup {
				s.floor = append(s.floor, d)
				s.floorCost = c.Snapshot()
				s.floorItems = rows
				s.floorMin, s.floorMax = min(s.floorMin, s.floorCost.Calls), max(s.floorMax, s.floorCost.Calls)
			}
			return nil
		}
		for i := range warmup + n {
			first, second := runStack, runFloor
			if i%2 == 1 {
				first, second = runFloor, runStack
			}
			if err := first(i); err != nil {
				return fail(err)
			}
			if err := second(i); err != nil {
				return fail(err)
			}
		}
	}
	d, l := samples[0], samples[1]
	r.Calls, r.Operations = d.cost.Calls, d.cost.Operations
	r.CallsMin, r.CallsMax = min(d.callsMin, l.callsMin), max(d.callsMax, l.callsMax)
	r.RCU, r.WCU = d.cost.ReadCapacityUnits, d.cost.WriteCapacityUnits
	r.FloorCalls, r.FloorItems = d.floorCost.Calls, d.floorItems
	if min(d.floorMin, l.floorMin) != max(d.floorMax, l.floorMax) {
		return fail(fmt.Errorf("the floor made %d to %d calls", min(d.floorMin, l.floorMin), max(d.floorMax, l.floorMax)))
	}
	r.FloorRCU, r.FloorWCU = d.floorCost.ReadCapacityUnits, d.floorCost.WriteCapacityUnits
	r.Stack, r.Floor = summarise(d.stack), summarise(d.floor)
	r.StackLatency, r.FloorLatency = summarise(l.stack), summarise(l.floor)
	r.RatioP50, r.RatioP99 = ratio(r.Stack.P50, r.Floor.P50), ratio(r.Stack.P99, r.Floor.P99)
	r.RatioP50Latency, r.RatioP99Latency = ratio(r.StackLatency.P50, r.FloorLatency.P50), ratio(r.StackLatency.P99, r.FloorLatency.P99)
	return r, nil
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// writeAnswer writes body to dir/screen<N>-shards<K>-<size>.json.
func writeAnswer(dir string, p probe, body []byte) error {
	size := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(p.size))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("screen%d-shards%d-%s.json", p.screen, p.shards, size)), body, 0o644)
}
