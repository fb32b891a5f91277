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

	"github.com/pickem/api/dynamo/ddb"
)

// probe is one screen at one size: how to send it through the stack, how to check the
// answer, and its floor. i counts iterations (warm-up included) so that writes can vary
// the caller.
type probe struct {
	screen      int
	name        string
	size        string // what varies: predictions per event, page size
	predictions int    // predictions per event, for the plot (0: not applicable)
	request     func(i int) (body []byte, token string)
	check       func(data json.RawMessage) error
	floor       func(ctx context.Context, i int) (int, error) // items read; its calls are counted in ctx's ddb.Cost
	floorRows   int                                           // items the floor must read
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

// measure runs warmup+n iterations of p, stack and floor interleaved (alternating which
// goes first), checks every answer, and returns the screen's row of results. With answers
// set, the first answer's body is written there (see Options.Answers).
func (e *env) measure(ctx context.Context, p probe, warmup, n int, answers string) (ScreenResult, error) {
	r := ScreenResult{Engine: e.eng.name, Screen: p.screen, Name: p.name, Size: p.size, Predictions: p.predictions, N: n}
	var stack, floor []time.Duration
	var cost *ddb.CostSnapshot
	var fcost ddb.CostSnapshot
	runStack := func(i int) error {
		body, token := p.request(i)
		d, b, err := e.post(ctx, body, token)
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
		if cost == nil {
			if err := p.check(resp.Data); err != nil {
				return fmt.Errorf("answer: %w; body %.400s", err, b)
			}
			cost = c
			r.CallsMin, r.CallsMax = c.Calls, c.Calls
			if answers != "" {
				if err := writeAnswer(answers, e.eng.key, p, b); err != nil {
					return err
				}
			}
		}
		r.CallsMin, r.CallsMax = min(r.CallsMin, c.Calls), max(r.CallsMax, c.Calls)
		if i >= warmup {
			stack = append(stack, d)
		}
		return nil
	}
	runFloor := func(i int) error {
		fctx, c := ddb.WithCost(ctx)
		start := time.Now()
		rows, err := p.floor(fctx, i)
		d := time.Since(start)
		if err != nil {
			return err
		}
		if i == 0 {
			if rows != p.floorRows {
				return fmt.Errorf("floor read %d items, want %d", rows, p.floorRows)
			}
			fcost = c.Snapshot()
			r.FloorItems = rows
		}
		if i >= warmup {
			floor = append(floor, d)
		}
		return nil
	}
	for i := range warmup + n {
		first, second := runStack, runFloor
		if i%2 == 1 {
			first, second = runFloor, runStack
		}
		if err := first(i); err != nil {
			return r, fmt.Errorf("screen %d %s (%s) on %s: %w", p.screen, p.name, p.size, e.eng.name, err)
		}
		if err := second(i); err != nil {
			return r, fmt.Errorf("screen %d %s (%s) on %s: %w", p.screen, p.name, p.size, e.eng.name, err)
		}
	}
	r.Calls = cost.Calls
	r.Operations = cost.Operations
	r.RCU, r.WCU = cost.ReadCapacityUnits, cost.WriteCapacityUnits
	r.FloorCalls = fcost.Calls
	r.FloorRCU, r.FloorWCU = fcost.ReadCapacityUnits, fcost.WriteCapacityUnits
	r.Stack, r.Floor = summarise(stack), summarise(floor)
	if r.Floor.P50 > 0 {
		r.RatioP50 = r.Stack.P50 / r.Floor.P50
	}
	if r.Floor.P99 > 0 {
		r.RatioP99 = r.Stack.P99 / r.Floor.P99
	}
	return r, nil
}

// writeAnswer writes body to dir/<engine>-screen<N>-<size>.json.
func writeAnswer(dir, engine string, p probe, body []byte) error {
	size := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(p.size))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-screen%d-%s.json", engine, p.screen, size)), body, 0o644)
}
