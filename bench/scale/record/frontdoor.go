package record

import (
	"fmt"
	"os"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/pickem/api/config"
	"github.com/pickem/api/dynamo"
	"github.com/pickem/api/internal/capacity"
)

// AWS account defaults the template does not set (per region).
const (
	// AccountConcurrency is Lambda's default concurrent executions per account.
	AccountConcurrency = 1000
	// AccountAPIRate and AccountAPIBurst are API Gateway's default account throttle.
	AccountAPIRate  = 10000
	AccountAPIBurst = 5000
	// GatewayTimeoutSeconds is the HTTP API's integration timeout.
	GatewayTimeoutSeconds = 30
)

// Throttle is an API Gateway token bucket: Rate requests per second, Burst at once.
type Throttle struct {
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst"`
}

// FrontDoor is what deploy/template.yaml sets between players and DynamoDB.
type FrontDoor struct {
	// Stage is the HTTP API stage's default route throttle (zero: none).
	Stage Throttle `json:"stage"`
	// Routes are per-route throttles by route key ("POST /graphql").
	Routes map[string]Throttle `json:"routes,omitempty"`
	// ReservedConcurrency is the function's reserved concurrency (0: it shares the
	// account's AccountConcurrency).
	ReservedConcurrency int `json:"reservedConcurrency,omitempty"`
	// TimeoutSeconds is the function's timeout.
	TimeoutSeconds int `json:"timeoutSeconds"`
	// ScoringBudgetSeconds is one scoreEvent call's time budget in the function
	// (PICKEM_SCORING_BUDGET in the template, else config's Lambda default), and
	// ScoringMarginSeconds what a call leaves before its deadline (dynamo.ScoringMargin).
	ScoringBudgetSeconds float64 `json:"scoringBudgetSeconds"`
	ScoringMarginSeconds float64 `json:"scoringMarginSeconds"`
	// ReadCacheTTLSeconds is the function's read-cache TTL (PICKEM_READ_CACHE_TTL in the
	// template, else config's default; 0: no cache).
	ReadCacheTTLSeconds float64 `json:"readCacheTtlSeconds,omitempty"`
	// WarmRCU and WarmWCU are the table's declared warm throughput (0: a new on-demand
	// table's capacity.OnDemandStart*); MaxRCU and MaxWCU its on-demand caps (0: none).
	WarmRCU int `json:"warmRcu,omitempty"`
	WarmWCU int `json:"warmWcu,omitempty"`
	MaxRCU  int `json:"maxRcu,omitempty"`
	MaxWCU  int `json:"maxWcu,omitempty"`
	// IndexWarm is each global secondary index's declared warm throughput (read, write
	// units per second) by index name: an index does not share the table's, and starts
	// at capacity.OnDemandStart* without its own.
	IndexWarm map[string][2]int `json:"indexWarm,omitempty"`
}

// IndexRate is what index name serves per second (the table's on-demand caps apply).
func (f FrontDoor) IndexRate(name string) capacity.Rate {
	w := f.IndexWarm[name]
	return capacity.Rate{Read: tableLimit(w[0], f.MaxRCU, int(capacity.OnDemandStart.Read)),
		Write: tableLimit(w[1], f.MaxWCU, int(capacity.OnDemandStart.Write))}
}

// ScoringDeadline is how long after its start a scoreEvent call in the function stops
// starting work: its budget, capped by the function's timeout minus the margin.
func (f FrontDoor) ScoringDeadline() time.Duration {
	d := f.ScoringBudgetSeconds
	if c := float64(f.TimeoutSeconds) - f.ScoringMarginSeconds; d <= 0 || c < d {
		d = c
	}
	return time.Duration(d * float64(time.Second))
}

// Concurrency is the most function instances that can run at once.
func (f FrontDoor) Concurrency() int {
	if f.ReservedConcurrency > 0 {
		return f.ReservedConcurrency
	}
	return AccountConcurrency
}

// TableRCU and TableWCU are what the table serves per second (an index: IndexRate).
func (f FrontDoor) TableRCU() float64 {
	return tableLimit(f.WarmRCU, f.MaxRCU, int(capacity.OnDemandStart.Read))
}

// TableWCU is the table's write units per second.
func (f FrontDoor) TableWCU() float64 {
	return tableLimit(f.WarmWCU, f.MaxWCU, int(capacity.OnDemandStart.Write))
}

func tableLimit(warm, maxUnits, start int) float64 {
	u := start
	if warm > 0 {
		u = warm
	}
	if maxUnits > 0 {
		u = min(u, maxUnits)
	}
	return float64(u)
}

// readFrontDoor reads the front door's settings from a SAM template.
func readFrontDoor(path string) (FrontDoor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return FrontDoor{}, err
	}
	var t struct {
		Resources map[string]struct {
			Type       string         `yaml:"Type"`
			Properties map[string]any `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(b, &t); err != nil {
		return FrontDoor{}, fmt.Errorf("scale: %s: %w", path, err)
	}
	fd := FrontDoor{TimeoutSeconds: 3, // Lambda's default timeout
		ScoringBudgetSeconds: config.DefaultLambdaScoringBudget.Seconds(), ScoringMarginSeconds: dynamo.ScoringMargin.Seconds(),
		ReadCacheTTLSeconds: config.DefaultReadCacheTTL.Seconds()}
	for _, r := range t.Resources {
		p := r.Properties
		switch r.Type {
		case "AWS::Serverless::HttpApi", "AWS::ApiGatewayV2::Stage":
			fd.Stage = throttleOf(p["DefaultRouteSettings"])
			if routes, ok := p["RouteSettings"].(map[string]any); ok {
				fd.Routes = map[string]Throttle{}
				for k, v := range routes {
					fd.Routes[k] = throttleOf(v)
				}
			}
		case "AWS::Serverless::Function", "AWS::Lambda::Function":
			if v, ok := number(p["Timeout"]); ok {
				fd.TimeoutSeconds = int(v)
			}
			if v, ok := number(p["ReservedConcurrentExecutions"]); ok {
				fd.ReservedConcurrency = int(v)
			}
			env, _ := p["Environment"].(map[string]any)
			vars, _ := env["Variables"].(map[string]any)
			if v, ok := vars["PICKEM_SCORING_BUDGET"].(string); ok {
				d, err := time.ParseDuration(v)
				if err != nil {
					return fd, fmt.Errorf("scale: %s: PICKEM_SCORING_BUDGET %q: %w", path, v, err)
				}
				fd.ScoringBudgetSeconds = d.Seconds()
			}
			if v, ok := vars["PICKEM_READ_CACHE_TTL"].(string); ok {
				d, err := time.ParseDuration(v)
				if err != nil {
					return fd, fmt.Errorf("scale: %s: PICKEM_READ_CACHE_TTL %q: %w", path, v, err)
				}
				fd.ReadCacheTTLSeconds = d.Seconds()
			}
		case "AWS::DynamoDB::Table":
			if w, ok := p["WarmThroughput"].(map[string]any); ok {
				r, _ := number(w["ReadUnitsPerSecond"])
				wr, _ := number(w["WriteUnitsPerSecond"])
				fd.WarmRCU, fd.WarmWCU = int(r), int(wr)
			}
			gsis, _ := p["GlobalSecondaryIndexes"].([]any)
			for _, g := range gsis {
				gm, _ := g.(map[string]any)
				name, _ := gm["IndexName"].(string)
				if w, ok := gm["WarmThroughput"].(map[string]any); ok && name != "" {
					r, _ := number(w["ReadUnitsPerSecond"])
					wr, _ := number(w["WriteUnitsPerSecond"])
					if fd.IndexWarm == nil {
						fd.IndexWarm = map[string][2]int{}
					}
					fd.IndexWarm[name] = [2]int{int(r), int(wr)}
				}
			}
			if o, ok := p["OnDemandThroughput"].(map[string]any); ok {
				r, _ := number(o["MaxReadRequestUnits"])
				wr, _ := number(o["MaxWriteRequestUnits"])
				fd.MaxRCU, fd.MaxWCU = int(r), int(wr)
			}
		}
	}
	return fd, nil
}

func throttleOf(v any) Throttle {
	m, ok := v.(map[string]any)
	if !ok {
		return Throttle{}
	}
	rate, _ := number(m["ThrottlingRateLimit"])
	burst, _ := number(m["ThrottlingBurstLimit"])
	return Throttle{Rate: rate, Burst: int(burst)}
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
