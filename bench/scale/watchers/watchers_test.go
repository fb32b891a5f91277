package watchers

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pickem/api/push"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestConnectionsQueueAtTheQuota: four watchers arriving at once at 1 connection a second
// (a bucket of one, full), each refused watcher retrying 1 s later: one connects at the end
// of the first slot, the next three a second apart; 4 + 3 + 2 + 1 = 10 attempts, 6 refused.
func TestConnectionsQueueAtTheQuota(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	got, attempts, refused := Connections([]float64{0, 0, 0.001, 0.002}, 1, 1, func(int) float64 { return 1 }, 1, rng)
	slices.Sort(got)
	want := []float64{0.01, 1.01, 2.01, 3.01}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Fatalf("connected at %v, want %v", got, want)
		}
	}
	if attempts != 10 || refused != 6 {
		t.Errorf("%d attempts, %d refused; want 10 and 6", attempts, refused)
	}
}

// TestConnectionsBurst: a bucket of 3 tokens at 1 a second admits three of five watchers
// arriving at once; the other two, retrying every second, connect a second apart.
func TestConnectionsBurst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	got, attempts, refused := Connections(make([]float64, 5), 1, 3, func(int) float64 { return 1 }, 1, rng)
	slices.Sort(got)
	want := []float64{0.01, 0.01, 0.01, 1.01, 2.01}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Fatalf("connected at %v, want %v", got, want)
		}
	}
	if attempts != 5+2+1 || refused != 3 {
		t.Errorf("%d attempts, %d refused; want 8 and 3", attempts, refused)
	}
}

// TestConnectionsBackoffGrows: the retry delay is the backoff of the watcher's refusals so
// far — 1 s, 2 s, 4 s, then the cap, 8 s — so with a bucket of one that refills in 10 s, a
// watcher arriving with another retries at 1, 3, 7 and 15 s and gets in at the fourth retry.
func TestConnectionsBackoffGrows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	got, attempts, refused := Connections([]float64{0, 0}, 0.1, 1, func(a int) float64 { return math.Pow(2, float64(a-1)) }, 8, rng)
	slices.Sort(got)
	if !near(got[0], 0.01) || !near(got[1], 15.01) {
		t.Fatalf("connected at %v, want 0.01 and 15.01 (retries at 1.01, 3.01, 7.01, 15.01; the bucket refills at 10.01)", got)
	}
	if attempts != 2+4 || refused != 4 {
		t.Errorf("%d attempts, %d refused; want 6 and 4", attempts, refused)
	}
}

// TestArrivalsFollowTheProfile: 600 arrivals over 5 minutes, the last minute 2× the
// average: 240 in it, 90 in each other minute; at 5× every one is in the last minute.
func TestArrivalsFollowTheProfile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		peak float64
		want []int
	}{{2, []int{90, 90, 90, 90, 240}}, {5, []int{0, 0, 0, 0, 600}}} {
		got := make([]int, 5)
		arr := Arrivals(600, 300, tc.peak, rng)
		for _, a := range arr {
			got[int(a/60)]++
		}
		if !slices.Equal(got, tc.want) || !slices.IsSorted(arr) {
			t.Errorf("peak %v: per minute %v, want %v (sorted %v)", tc.peak, got, tc.want, slices.IsSorted(arr))
		}
	}
}

// TestDelivered: 1,000 deliveries at 100 a second leave over (1,000 − 1) / 100 = 9.99 s
// (the first with the bucket's one token); two pushes at once 19.99 s; a bucket of 1,000
// sends one push at once.
func TestDelivered(t *testing.T) {
	for _, tc := range []struct {
		n, pushes, burst int
		rate, want       float64
	}{{1000, 1, 1, 100, 9.99}, {1000, 2, 1, 100, 19.99}, {1000, 1, 1000, 100, 0}, {1_000_000, 1, 1, 1_000_000, 0.999999}} {
		if got := Delivered(tc.n, tc.pushes, tc.rate, tc.burst); !near(got, tc.want) {
			t.Errorf("Delivered(%d, %d, %v, %d) = %v, want %v", tc.n, tc.pushes, tc.rate, tc.burst, got, tc.want)
		}
	}
}

// TestBill works a show of 10 watchers by hand: connected at 0 s, the show from 60 s to
// 3,660 s: 61 minutes each, 610 connection-minutes at $1 per million = $0.00061. Two pushes
// of a 1,500-byte event metered per 1,000 bytes (2 operations per delivery): 10 connects +
// 10 subscribes + 2 publishes + 2 × 10 × 2 deliveries = 62 operations at $2 per million =
// $0.000124; 20 frames of 2,000 bytes = 40,000 bytes at $1 per GB. The fallback: 10 × 3,600
// / 30 = 1,200 requests of 1,024 bytes; polling: 10 × 3,600 / 5 = 7,200 requests at $0.01
// per 10,000 = $0.0072, 7,372,800 bytes at $0.5 per GB.
func TestBill(t *testing.T) {
	f := func(v float64) Figure { return Figure{Value: v} }
	p := Params{JoinWindow: f(60), Show: f(3600), Pushes: f(2), ConnectionMinutePrice: f(1), OperationPrice: f(2), TransferPrice: f(1),
		CDNRequestPrice: f(0.01), CDNTransferPrice: f(0.5), PollInterval: f(5), RefetchInterval: f(30), PollBytes: f(1024)}
	c := Bill(p, Message{EventBytes: 1500, FrameBytes: 2000, OperationsPerDelivery: 2}, make([]float64, 10))
	const gib = 1 << 30
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"connection-minutes", c.ConnectionMinutes, 610}, {"connections USD", c.PushConnectionsUSD, 0.00061},
		{"operations", c.Operations, 62}, {"operations USD", c.PushOperationsUSD, 0.000124},
		{"transfer GB", c.TransferGB, 40_000.0 / gib}, {"transfer USD", c.PushTransferUSD, 40_000.0 / gib},
		{"fallback requests", c.FallbackRequests, 1200}, {"fallback USD", c.PushFallbackUSD, 1200.0/1e4*0.01 + 1200*1024.0/gib*0.5},
		{"poll requests", c.PollRequests, 7200}, {"poll requests USD", c.PollRequestsUSD, 0.0072},
		{"poll GB", c.PollGB, 7_372_800.0 / gib}, {"poll transfer USD", c.PollTransferUSD, 7_372_800.0 / gib * 0.5},
		{"push total", c.PushTotalUSD, 0.00061 + 0.000124 + 40_000.0/gib + 1200.0/1e4*0.01 + 1200*1024.0/gib*0.5},
		{"poll total", c.PollTotalUSD, 0.0072 + 7_372_800.0/gib*0.5},
	} {
		if !near(x.got, x.want) {
			t.Errorf("%s = %v, want %v", x.name, x.got, x.want)
		}
	}
	// A watcher that never connected costs no connection-minute.
	if c := Bill(p, Message{}, []float64{math.Inf(1), 3600}); !near(c.ConnectionMinutes, 1) {
		t.Errorf("connection-minutes %v, want 1 (60 s of the one connected)", c.ConnectionMinutes)
	}
}

// TestLargestMessage: the model weighs the largest message the constructors build (within
// push.MaxEventBytes) and counts its operations by the metered size.
func TestLargestMessage(t *testing.T) {
	event, err := LargestMessage()
	if err != nil {
		t.Fatal(err)
	}
	if len(event) > push.MaxEventBytes || len(event) < 4*push.MaxEventBytes/5 {
		t.Fatalf("largest message %d bytes: want close to, and within, %d", len(event), push.MaxEventBytes)
	}
	for _, tc := range []struct {
		metered float64
		want    int
	}{{5000, 1}, {1000, int(math.Ceil(float64(len(event)) / 1000))}, {float64(len(event)), 1}, {float64(len(event) - 1), 2}} {
		m, err := measureMessage(event, tc.metered)
		if err != nil {
			t.Fatal(err)
		}
		// The frame quotes the event: each of its " gains a \.
		frame := len(`{"type":"data","id":"`) + 36 + len(`","event":"`) + len(event) + strings.Count(event, `"`) + len(`"}`)
		if m.EventBytes != len(event) || m.FrameBytes != frame || m.OperationsPerDelivery != tc.want {
			t.Errorf("metered %v: %+v, want %d event bytes, %d frame bytes, %d operations", tc.metered, m, len(event), frame, tc.want)
		}
	}
}

// TestRunConnectsAtTheQuota: 20,000 watchers in one minute at 100 connections a second (a
// bucket of 100): the first 100 at once, the rest 199 s of quota later at the earliest, at
// most a backoff cap (30 s) more; one push of 20,000 at 1,000 a second takes 19.999 s.
func TestRunConnectsAtTheQuota(t *testing.T) {
	p := DefaultParams()
	p.Watchers.Value, p.ConnectRate.Value, p.ConnectBurst.Value, p.OutboundRate.Value, p.PollBytes.Value = 20_000, 100, 100, 1000, 5000
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Connect
	if !c.Finished || c.Seconds < 199 || c.Seconds > 199+30+1 || c.Attempts != c.Refused+20_000 {
		t.Errorf("connect %+v: want everyone connected in 199 to 230 s, attempts = refusals + 20,000", c)
	}
	if r.Raised == nil || r.RaisedRate < c.PeakArrivalsPerS || r.Raised.WaitP99S > 0.02 {
		t.Errorf("raised to %v: %+v; want a rate at which nobody waits beyond the slot", r.RaisedRate, r.Raised)
	}
	if !near(r.Push.Seconds, 19.999) || !near(r.Push.BurstSeconds, 39.999) {
		t.Errorf("push %+v: want 19.999 s, 39.999 s for two", r.Push)
	}
	if r.Cost.Operations != 2*20_000+30+30*20_000 {
		t.Errorf("operations %v, want 2 × 20,000 + 30 + 30 × 20,000", r.Cost.Operations)
	}
}

func TestRunRefusesBadParams(t *testing.T) {
	for name, edit := range map[string]func(*Params){
		"NoPollBytes":      func(p *Params) {},
		"ZeroRate":         func(p *Params) { p.PollBytes.Value, p.ConnectRate.Value = 1, 0 },
		"CapBelowBase":     func(p *Params) { p.PollBytes.Value, p.RetryCap.Value = 1, 0.5 },
		"MessageOverLimit": func(p *Params) { p.PollBytes.Value, p.EventMaxBytes.Value = 1, 100 },
	} {
		t.Run(name, func(t *testing.T) {
			p := DefaultParams()
			edit(&p)
			if _, err := Run(p); err == nil {
				t.Error("ran")
			}
		})
	}
}

// TestEveryInputSaysWhereItComesFrom: each default input has a source or says why it is
// assumed; a flag that sets one says so instead.
func TestEveryInputSaysWhereItComesFrom(t *testing.T) {
	p := DefaultParams()
	for _, in := range p.figures() {
		if in.F.Source == "" && in.F.Assumed == "" && in.Name != "poll answer" {
			t.Errorf("%s: no source and no assumption", in.Name)
		}
	}
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	p.Flags(fs)
	if err := fs.Parse([]string{"-watch-outbound-rate", "2000000"}); err != nil {
		t.Fatal(err)
	}
	if f := p.OutboundRate; f.Value != 2_000_000 || f.Source != "" || f.Assumed != "set by -watch-outbound-rate" || f.Unit != "messages/s" {
		t.Errorf("after -watch-outbound-rate: %+v", f)
	}
}

func TestSplice(t *testing.T) {
	p := DefaultParams()
	p.Watchers.Value, p.PollBytes.Value = 1000, 5000
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	section := r.Markdown()
	for _, tc := range []struct{ name, md string }{
		{"Appended", "# scale\n\nthe rest\n"},
		{"Replaced", "# scale\n\nthe rest\n\n" + BeginMarker + "\nold figures\n" + EndMarker + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Splice(tc.md)
			if got != "# scale\n\nthe rest\n\n"+section || strings.Contains(got, "old figures") {
				t.Errorf("spliced:\n%s", got)
			}
		})
	}
	js, err := r.SpliceJSON([]byte(`{"after": {"score_seconds": 216.3}, "before": [1, 2.50], "watchers": {"old": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if string(got["before"]) != "[\n    1,\n    2.50\n  ]" || strings.Contains(string(got["watchers"]), "old") || !strings.Contains(string(got["watchers"]), `"raised_connect_rate_per_s"`) {
		t.Errorf("scale.json spliced: %s", js)
	}
}
