// Package watchers models a show's live audience on AWS AppSync Events, in virtual time:
// how long a million watchers take to connect under the Event API's connection-rate quota
// (a refused connection retries after a backoff), how long one push takes to reach them all
// under its outbound-message quota, and what the show costs — connection-minutes, publishes,
// deliveries — beside polling the screen every 5 s through a CDN. Every quota, price and
// size is a Figure that names its source, or says that it is assumed and why; `make scale`
// writes the model's table into bench/results/scale.{md,json}.
package watchers

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/pickem/api/domain"
	"github.com/pickem/api/push"
)

// Figure is one input of the model: a quota, a price, a size or a duration, with where it
// comes from. A figure no source gave says so in Assumed, and the report prints that
// beside it.
type Figure struct {
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Source  string  `json:"source,omitempty"`  // where the value was read
	Assumed string  `json:"assumed,omitempty"` // why this value, when no source gave it
}

// Sources of the figures.
const (
	// SourceQuotaTalk is a summary of AWS's re:Invent 2024 talk on AppSync Events (FWM302):
	// "Default quotas of 1 million messages per second outbound and 10,000 messages per
	// second inbound, with no limit on the number of connections". AWS's own quota page
	// (SourceQuotaPage) lists the Event API's quotas; its table could not be read here.
	SourceQuotaTalk = "https://www.antstack.com/talks/reinvent24/real-time-event-patterns-with-websockets-and-aws-appsync-fwm302/"
	// SourceQuotaPage is AWS's "AWS AppSync endpoints and quotas".
	SourceQuotaPage = "https://docs.aws.amazon.com/general/latest/gr/appsync.html"
	// SourceConcepts gives an event's maximum size, 240 KB.
	SourceConcepts = "https://docs.aws.amazon.com/appsync/latest/eventapi/event-api-concepts.html"
	// SourcePriceList is AWS's Price List for AppSync: "$1 per million Event API operations
	// in EU (Ireland)" (the AWSAppSync offer, as the dataset copies it).
	SourcePriceList = "https://huggingface.co/datasets/labofsahil/aws-pricing-dataset/blob/main/AWSAppSync.csv"
	// SourceAppSyncPricing is AppSync's pricing page: $0.08 per million connection-minutes
	// (stated for GraphQL's real-time connections), data transfer at the EC2 rate ($0.09 per
	// GB in its examples).
	SourceAppSyncPricing = "https://aws.amazon.com/appsync/pricing/"
	// SourceCloudFrontPricing is CloudFront's pricing page: $0.085 per GB out, the first 10
	// TB, United States and Europe.
	SourceCloudFrontPricing = "https://aws.amazon.com/cloudfront/pricing/"
	// SourceAPIGatewayWebSocket gives API Gateway WebSocket APIs' default new-connection
	// rate, 500 per second per account and region.
	SourceAPIGatewayWebSocket = "https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-execution-service-websocket-limits-table.html"
)

// Params are the model's inputs.
type Params struct {
	Watchers Figure `json:"watchers"`
	Show     Figure `json:"show_seconds"`
	Pushes   Figure `json:"pushes_per_show"`
	// PushBurst is how many pushes are published at once at worst (a result, then the
	// scoring pass it completes).
	PushBurst Figure `json:"push_burst"`
	// Watchers open the card in the JoinWindow before the show, cut into minutes, the peak
	// minute (the last) JoinPeakFactor times the average — bench/scale/sim's card rush.
	JoinWindow     Figure `json:"join_window_seconds"`
	JoinPeakFactor Figure `json:"join_peak_factor"`
	// The Event API's quotas: new connections per second (a token bucket of ConnectBurst),
	// messages delivered and received per second.
	ConnectRate  Figure `json:"connect_rate_per_s"`
	ConnectBurst Figure `json:"connect_burst"`
	OutboundRate Figure `json:"outbound_messages_per_s"`
	InboundRate  Figure `json:"inbound_messages_per_s"`
	// MeteredBytes is what a delivery counts as one operation up to; EventMaxBytes the
	// largest event AppSync takes.
	MeteredBytes  Figure `json:"metered_bytes"`
	EventMaxBytes Figure `json:"event_max_bytes"`
	// A refused connection retries after a delay drawn uniformly below
	// min(RetryCap, RetryBase·2^(attempt−1)) (exponential backoff, full jitter).
	RetryBase Figure `json:"retry_base_seconds"`
	RetryCap  Figure `json:"retry_cap_seconds"`
	// Prices, USD.
	OperationPrice        Figure `json:"usd_per_million_operations"`
	ConnectionMinutePrice Figure `json:"usd_per_million_connection_minutes"`
	TransferPrice         Figure `json:"usd_per_gb_appsync_transfer"`
	CDNRequestPrice       Figure `json:"usd_per_10000_cdn_requests"`
	CDNTransferPrice      Figure `json:"usd_per_gb_cdn_transfer"`
	// Polling: the screen's GET every PollInterval, of PollBytes; with push, the clients'
	// fallback refetch every RefetchInterval.
	PollInterval    Figure `json:"poll_interval_seconds"`
	RefetchInterval Figure `json:"refetch_interval_seconds"`
	PollBytes       Figure `json:"poll_answer_bytes"`
	Seed            uint64 `json:"seed"`
}

// DefaultParams are the model's inputs for a 3-hour show at 1,000,000 watchers with the
// Event API's default quotas. PollBytes has no default: the caller measures it.
func DefaultParams() Params {
	const notFoundQuota = "not found in a source: AWS's quota page (" + SourceQuotaPage + ") could not be read here"
	return Params{
		Watchers:       Figure{Value: 1_000_000, Unit: "watchers", Assumed: "the audience push is designed for"},
		Show:           Figure{Value: 3 * 3600, Unit: "s", Assumed: "a 3-hour show"},
		Pushes:         Figure{Value: 30, Unit: "messages", Assumed: "one per commit a watcher sees: the lock, the card's results, the tie-breaker answer, the scoring passes (an estimate for a card of about ten matches)"},
		PushBurst:      Figure{Value: 2, Unit: "messages", Assumed: "a result, then the scoring pass it completes, within a second"},
		JoinWindow:     Figure{Value: 300, Unit: "s", Assumed: "watchers open the card in the 5 minutes before the show, as bench/scale/sim's card rush"},
		JoinPeakFactor: Figure{Value: 5, Unit: "× the average minute", Assumed: "bench/scale/sim's card rush: the last minute 5× the average, so every watcher in it"},
		ConnectRate: Figure{Value: 500, Unit: "connections/s",
			Assumed: "the Event API's connection-rate quota is " + notFoundQuota + "; API Gateway WebSocket APIs' documented default (" + SourceAPIGatewayWebSocket + ") stands in"},
		ConnectBurst: Figure{Value: 500, Unit: "connections", Assumed: "one second of the rate: no burst is documented"},
		OutboundRate: Figure{Value: 1_000_000, Unit: "messages/s", Source: SourceQuotaTalk},
		InboundRate:  Figure{Value: 10_000, Unit: "messages/s", Source: SourceQuotaTalk},
		MeteredBytes: Figure{Value: 5_000, Unit: "bytes",
			Assumed: "the size up to which a delivery counts as one operation was not found in a source; 5 KB as push's design reads AppSync's pricing, taken as 5,000 bytes, the stricter reading"},
		EventMaxBytes:         Figure{Value: 240 * 1024, Unit: "bytes", Source: SourceConcepts},
		RetryBase:             Figure{Value: 1, Unit: "s", Assumed: "the frontend's reconnect backoff: exponential from 1 s, full jitter"},
		RetryCap:              Figure{Value: 30, Unit: "s", Assumed: "the frontend's reconnect backoff: at most 30 s"},
		OperationPrice:        Figure{Value: 1.00, Unit: "USD per million operations", Source: SourcePriceList},
		ConnectionMinutePrice: Figure{Value: 0.08, Unit: "USD per million connection-minutes", Source: SourceAppSyncPricing, Assumed: "the page states it for AppSync GraphQL's real-time connections; the Event API's was not found"},
		TransferPrice:         Figure{Value: 0.09, Unit: "USD per GB", Source: SourceAppSyncPricing, Assumed: "data transfer is billed at the EC2 rate; $0.09 per GB is the rate of the page's examples"},
		CDNRequestPrice:       Figure{Value: 0.01, Unit: "USD per 10,000 HTTPS requests", Assumed: "CloudFront's HTTPS request rate was not found in a source (" + SourceCloudFrontPricing + " names the unit); $0.0100 per 10,000"},
		CDNTransferPrice:      Figure{Value: 0.085, Unit: "USD per GB", Source: SourceCloudFrontPricing, Assumed: "the first 10 TB's rate, United States and Europe, for every byte: the tiers beyond 10 TB are cheaper"},
		PollInterval:          Figure{Value: 5, Unit: "s", Source: "docs/api.md: a live event's max-age"},
		RefetchInterval:       Figure{Value: 30, Unit: "s", Source: "docs/api.md: the client rule's fallback refetch"},
		Seed:                  1,
	}
}

// input is one Figure of Params with its name in the report and its flag.
type input struct {
	Name, Flag string
	F          *Figure
}

// figures lists every input, for the report, the flags and the checks.
func (p *Params) figures() []input {
	return []input{
		{"watchers", "watchers", &p.Watchers}, {"show", "watch-show-s", &p.Show},
		{"pushes per show", "watch-pushes", &p.Pushes}, {"pushes at once", "watch-push-burst", &p.PushBurst},
		{"join window", "watch-join-window-s", &p.JoinWindow}, {"join peak factor", "watch-join-peak", &p.JoinPeakFactor},
		{"connection rate quota", "watch-connect-rate", &p.ConnectRate}, {"connection burst", "watch-connect-burst", &p.ConnectBurst},
		{"outbound message rate quota", "watch-outbound-rate", &p.OutboundRate}, {"inbound message rate quota", "watch-inbound-rate", &p.InboundRate},
		{"metered size of a delivery", "watch-metered-bytes", &p.MeteredBytes}, {"largest event", "watch-event-max-bytes", &p.EventMaxBytes},
		{"reconnect backoff base", "watch-retry-base-s", &p.RetryBase}, {"reconnect backoff cap", "watch-retry-cap-s", &p.RetryCap},
		{"operation price", "watch-operation-usd", &p.OperationPrice}, {"connection-minute price", "watch-connection-minute-usd", &p.ConnectionMinutePrice},
		{"AppSync transfer price", "watch-transfer-usd-gb", &p.TransferPrice}, {"CDN request price", "watch-cdn-request-usd", &p.CDNRequestPrice},
		{"CDN transfer price", "watch-cdn-usd-gb", &p.CDNTransferPrice},
		{"poll interval", "watch-poll-s", &p.PollInterval}, {"fallback refetch interval", "watch-refetch-s", &p.RefetchInterval},
		{"poll answer", "watch-poll-bytes", &p.PollBytes},
	}
}

// Flags registers a flag for every input on fs. A flag the command line sets replaces
// the figure's source with "set by -flag".
func (p *Params) Flags(fs *flag.FlagSet) {
	for _, in := range p.figures() {
		f := in.F
		fs.Func(in.Flag, fmt.Sprintf("watchers model: %s, %s (default %v)", in.Name, f.Unit, f.Value), func(v string) error {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return err
			}
			*f = Figure{Value: x, Unit: f.Unit, Assumed: "set by -" + in.Flag}
			return nil
		})
	}
	fs.Uint64Var(&p.Seed, "watch-seed", p.Seed, "watchers model: random seed")
}

func (p *Params) check() error {
	for _, in := range p.figures() {
		if !(in.F.Value > 0) || math.IsInf(in.F.Value, 0) {
			return fmt.Errorf("watchers: %s (-%s) must be positive, got %v", in.Name, in.Flag, in.F.Value)
		}
	}
	if p.Watchers.Value > 1e8 || p.RetryCap.Value < p.RetryBase.Value || p.ConnectBurst.Value < 1 || p.JoinWindow.Value < 60 {
		return fmt.Errorf("watchers: want at most 100,000,000 watchers, a retry cap ≥ its base, a burst ≥ 1 and a join window of a minute or more")
	}
	return nil
}

// Message is the largest live message and what one delivery of it weighs.
type Message struct {
	// EventBytes is the largest event the push constructors build (push.Scoring with the
	// longest ids, names of four-byte characters and the largest numbers: what
	// push.TestLargestMessageFits checks against push.MaxEventBytes).
	EventBytes int `json:"event_bytes"`
	// FrameBytes is its data message on the socket: {"type":"data","id":…,"event":"…"},
	// the event as a JSON string, a 36-character subscription id.
	FrameBytes int `json:"frame_bytes"`
	// OperationsPerDelivery is ⌈EventBytes / MeteredBytes⌉.
	OperationsPerDelivery int `json:"operations_per_delivery"`
}

// LargestMessage builds the largest message the push constructors can build: a SCORING
// message of the longest event id with LeaderboardRows rows of the longest user ids, names
// of MaxUserNameLen four-byte characters and the largest numbers.
func LargestMessage() (string, error) {
	longEvent := "2026-04-05-" + strings.Repeat("w", domain.MaxEventIDLen-11)
	name := strings.Repeat("😀", domain.MaxUserNameLen)
	var rows []domain.Prediction
	for i := range push.LeaderboardRows {
		big := math.MaxInt64
		rows = append(rows, domain.Prediction{User: domain.UserRef{ID: strings.Repeat("u", domain.MaxUserIDLen-1) + string(rune('a'+i)), Name: name},
			Points: &big, Rank: &big, Place: &big})
	}
	return push.Scoring(push.Head{EventID: longEvent, Version: math.MaxInt64}, domain.StateBroadcast, math.MaxInt64, rows)
}

// measureMessage weighs event as delivered and metered.
func measureMessage(event string, meteredBytes float64) (Message, error) {
	frame, err := json.Marshal(struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Event string `json:"event"`
	}{"data", strings.Repeat("0", 36), event})
	if err != nil {
		return Message{}, err
	}
	return Message{EventBytes: len(event), FrameBytes: len(frame), OperationsPerDelivery: int(math.Ceil(float64(len(event)) / meteredBytes))}, nil
}

// Connect is how the audience joined.
type Connect struct {
	// PeakArrivalsPerS is the most watchers that open the card in one second: the
	// connection rate at which nobody waits.
	PeakArrivalsPerS float64 `json:"peak_arrivals_per_s"`
	// Seconds is the time from the first arrival to the last connection.
	Seconds float64 `json:"seconds"`
	// LastAfterShowStartS is when the last watcher connected, from the show's start (the
	// end of the join window); negative: before it.
	LastAfterShowStartS float64 `json:"last_after_show_start_s"`
	// ConnectedAtShowStart counts the watchers connected when the show starts.
	ConnectedAtShowStart int `json:"connected_at_show_start"`
	// Wait* are the times from a watcher's arrival to its connection.
	WaitP50S float64 `json:"wait_p50_s"`
	WaitP99S float64 `json:"wait_p99_s"`
	WaitMaxS float64 `json:"wait_max_s"`
	Attempts int64   `json:"attempts"`
	Refused  int64   `json:"refused"`
	// Finished is false when some watcher was still not connected at the model's horizon.
	Finished bool `json:"finished"`
}

// Push is one publish reaching the audience.
type Push struct {
	Deliveries int `json:"deliveries"`
	// Seconds is the time for the last delivery of one push to leave under the outbound
	// quota; P50Seconds the median delivery's; BurstSeconds the last of PushBurst pushes
	// published at once.
	Seconds      float64 `json:"seconds"`
	P50Seconds   float64 `json:"p50_seconds"`
	BurstSeconds float64 `json:"burst_seconds"`
	// RateForOneSecond is the outbound rate at which PushBurst pushes reach everyone within
	// a second.
	RateForOneSecond float64 `json:"outbound_rate_for_one_second"`
	// InboundPerS is the most messages per second the publisher sends (PushBurst); the
	// subscribe messages arrive at most at the connection rate (SubscribesPerS).
	InboundPerS    float64 `json:"inbound_per_s"`
	SubscribesPerS float64 `json:"subscribes_per_s"`
}

// Cost is a show's bill, push beside polling, in USD.
type Cost struct {
	ConnectionMinutes float64 `json:"connection_minutes"`
	// Operations: a connect and a subscribe per watcher, a publish per push, a delivery per
	// watcher per push (OperationsPerDelivery each).
	Operations          float64 `json:"operations"`
	TransferGB          float64 `json:"transfer_gb"`
	FallbackRequests    float64 `json:"fallback_requests"`
	FallbackGB          float64 `json:"fallback_gb"`
	PushConnectionsUSD  float64 `json:"push_connection_minutes_usd"`
	PushOperationsUSD   float64 `json:"push_operations_usd"`
	PushTransferUSD     float64 `json:"push_transfer_usd"`
	PushFallbackUSD     float64 `json:"push_fallback_refetch_usd"`
	PushTotalUSD        float64 `json:"push_total_usd"`
	PollRequests        float64 `json:"poll_requests"`
	PollGB              float64 `json:"poll_gb"`
	PollRequestsUSD     float64 `json:"poll_requests_usd"`
	PollTransferUSD     float64 `json:"poll_transfer_usd"`
	PollTotalUSD        float64 `json:"poll_total_usd"`
	PollOverPushTimes   float64 `json:"poll_over_push"`
	PushWithoutFallback float64 `json:"push_without_fallback_usd"`
}

// Result is the model's output: scale.json's "watchers".
type Result struct {
	Params  Params  `json:"params"`
	Message Message `json:"message"`
	Connect Connect `json:"connect"`
	// Raised is Connect again with the connection quota at RaisedRate: the busiest second's
	// arrivals rounded up to a thousand, the quota to ask for.
	RaisedRate float64  `json:"raised_connect_rate_per_s"`
	Raised     *Connect `json:"raised_connect"`
	Push       Push     `json:"push"`
	Cost       Cost     `json:"cost"`
}

// gb is a byte count in the GB AWS's pricing examples use (2^30 bytes).
func gb(bytes float64) float64 { return bytes / (1 << 30) }

// slot is the simulation's time step, in seconds: admissions happen at the end of a slot.
const (
	slot         = 0.01
	slotDuration = 10 * time.Millisecond
)

// horizon is the most virtual time the connection model runs for, in seconds.
const horizon = 24 * 3600

// Run runs the model.
func Run(p Params) (*Result, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	event, err := LargestMessage()
	if err != nil {
		return nil, err
	}
	msg, err := measureMessage(event, p.MeteredBytes.Value)
	if err != nil {
		return nil, err
	}
	if float64(msg.EventBytes) > p.EventMaxBytes.Value {
		return nil, fmt.Errorf("watchers: the largest message has %d bytes, over AppSync's %v", msg.EventBytes, p.EventMaxBytes.Value)
	}
	res := &Result{Params: p, Message: msg}
	n := int(p.Watchers.Value)
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed))

	arrivals := Arrivals(n, p.JoinWindow.Value, p.JoinPeakFactor.Value, rng)
	base, capS := p.RetryBase.Value, p.RetryCap.Value
	backoff := func(attempt int) float64 {
		return rng.Float64() * math.Min(capS, base*math.Pow(2, float64(attempt-1)))
	}
	connected, attempts, refused := Connections(arrivals, p.ConnectRate.Value, int(p.ConnectBurst.Value), backoff, capS, rng)
	res.Connect = summariseConnect(arrivals, connected, attempts, refused, p.JoinWindow.Value)
	if res.RaisedRate = 1000 * math.Ceil(res.Connect.PeakArrivalsPerS/1000); res.RaisedRate > p.ConnectRate.Value {
		// The burst scales with the rate: the same seconds of it.
		burst := int(math.Max(1, p.ConnectBurst.Value*res.RaisedRate/p.ConnectRate.Value))
		c, a, f := Connections(arrivals, res.RaisedRate, burst, backoff, capS, rng)
		raised := summariseConnect(arrivals, c, a, f, p.JoinWindow.Value)
		res.Raised = &raised
	}

	res.Push = Push{Deliveries: n, InboundPerS: p.PushBurst.Value, SubscribesPerS: math.Min(p.ConnectRate.Value, res.Connect.PeakArrivalsPerS)}
	res.Push.Seconds = Delivered(n, 1, p.OutboundRate.Value, 1)
	res.Push.P50Seconds = Delivered(n/2, 1, p.OutboundRate.Value, 1)
	res.Push.BurstSeconds = Delivered(n, int(p.PushBurst.Value), p.OutboundRate.Value, 1)
	res.Push.RateForOneSecond = float64(n) * p.PushBurst.Value

	res.Cost = Bill(p, msg, connected)
	return res, nil
}

// Arrivals returns n arrival times (seconds from the window's start, ascending): the
// window cut into minutes, the last minute peak times the average (at most all of them),
// the others sharing the rest evenly, each arrival at random within its minute.
func Arrivals(n int, window, peak float64, rng *rand.Rand) []float64 {
	minutes := max(1, int(window/60))
	shares := make([]float64, minutes)
	last := math.Min(1, peak/float64(minutes))
	for i := range shares {
		shares[i] = (1 - last) / float64(max(1, minutes-1))
	}
	shares[minutes-1] = last
	out := make([]float64, 0, n)
	left := n
	for m, share := range shares {
		k := min(left, int(math.Round(share*float64(n))))
		if m == minutes-1 {
			k = left
		}
		left -= k
		for range k {
			out = append(out, 60*(float64(m)+rng.Float64()))
		}
	}
	slices.Sort(out)
	return out
}

// Connections admits watchers arriving at arrivals (seconds, ascending) through a
// connection-rate quota, a token bucket of rate per second and burst (full at the start):
// at the end of every slot the bucket admits as many of that slot's attempts as it has
// tokens, chosen at random; each refused watcher tries again backoff(its refusals so far)
// seconds later (at least a slot, at most maxDelay). It returns each watcher's connection
// time (the end of its slot; +Inf if still refused at the horizon), the attempts and the
// refusals.
func Connections(arrivals []float64, ratePerS float64, burst int, backoff func(attempt int) float64, maxDelay float64, rng *rand.Rand) ([]float64, int64, int64) {
	n := len(arrivals)
	connected := make([]float64, n)
	for i := range connected {
		connected[i] = math.Inf(1)
	}
	if n == 0 {
		return connected, 0, 0
	}
	lim := rate.NewLimiter(rate.Limit(ratePerS), burst)
	epoch := time.Unix(0, 0)
	// The end of slot k in virtual time: exact, where float seconds would round.
	endOf := func(k int) time.Time { return epoch.Add(time.Duration(k+1) * slotDuration) }
	// The attempts of each slot, by slot modulo the ring's length: longer than any delay.
	ring := make([][]int32, int(math.Ceil(maxDelay/slot))+2)
	refusals := make([]uint16, n)
	var attempts, refused int64
	next, done := 0, 0
	for k := int(arrivals[0] / slot); done < n && float64(k)*slot < horizon; k++ {
		end := float64(k+1) * slot
		cur := &ring[k%len(ring)]
		for next < n && arrivals[next] < end {
			*cur = append(*cur, int32(next))
			next++
		}
		m := len(*cur)
		if m == 0 {
			continue
		}
		attempts += int64(m)
		admit := min(m, int(lim.TokensAt(endOf(k))+1e-9))
		if admit > 0 && !lim.AllowN(endOf(k), admit) {
			panic("watchers: the bucket refused the tokens it had")
		}
		ids := *cur
		for i := range admit { // a random admit of the m, to the front
			j := i + rng.IntN(m-i)
			ids[i], ids[j] = ids[j], ids[i]
			connected[ids[i]] = end
		}
		done += admit
		for _, id := range ids[admit:] {
			refused++
			if refusals[id] < math.MaxUint16 {
				refusals[id]++
			}
			d := math.Min(maxDelay, backoff(int(refusals[id])))
			later := k + max(1, int(math.Ceil(d/slot)))
			ring[later%len(ring)] = append(ring[later%len(ring)], id)
		}
		*cur = ids[:0]
	}
	return connected, attempts, refused
}

// Delivered returns when the last of pushes × n deliveries, all published at time 0,
// leaves under an outbound quota of ratePerS with burst (a token bucket full at the
// publish): delivery k (from 0) leaves at max(0, k + 1 − burst) / ratePerS.
func Delivered(n, pushes int, ratePerS float64, burst int) float64 {
	total := n * pushes
	return math.Max(0, float64(total-burst)) / ratePerS
}

func summariseConnect(arrivals, connected []float64, attempts, refused int64, showStart float64) Connect {
	c := Connect{Attempts: attempts, Refused: refused, Finished: true}
	if len(arrivals) == 0 {
		return c
	}
	perSecond := map[int]int{}
	for _, a := range arrivals {
		perSecond[int(a)]++
	}
	for _, k := range perSecond {
		c.PeakArrivalsPerS = max(c.PeakArrivalsPerS, float64(k))
	}
	waits := make([]float64, len(arrivals))
	last := 0.0
	for i, t := range connected {
		if math.IsInf(t, 1) {
			c.Finished = false
			waits[i] = t
			continue
		}
		waits[i] = t - arrivals[i]
		last = max(last, t)
		if t <= showStart {
			c.ConnectedAtShowStart++
		}
	}
	slices.Sort(waits)
	q := func(f float64) float64 { return waits[max(0, int(math.Ceil(f*float64(len(waits))))-1)] }
	c.WaitP50S, c.WaitP99S, c.WaitMaxS = q(0.5), q(0.99), waits[len(waits)-1]
	c.Seconds = last - arrivals[0]
	c.LastAfterShowStartS = last - showStart
	return c
}

// Bill prices the show: with push, every watcher connected from its connection time to
// the show's end, a connect and a subscribe each, every push published once and delivered
// to every watcher, and the clients' fallback refetch through the CDN; with polling, every
// watcher's GET every PollInterval for the whole show through the CDN.
func Bill(p Params, msg Message, connected []float64) Cost {
	var c Cost
	n := float64(len(connected))
	end := p.JoinWindow.Value + p.Show.Value
	for _, t := range connected {
		if !math.IsInf(t, 1) {
			c.ConnectionMinutes += math.Max(0, end-t) / 60
		}
	}
	deliveries := p.Pushes.Value * n
	c.Operations = 2*n + p.Pushes.Value + deliveries*float64(msg.OperationsPerDelivery)
	c.TransferGB = gb(deliveries * float64(msg.FrameBytes))
	c.FallbackRequests = n * math.Floor(p.Show.Value/p.RefetchInterval.Value)
	c.FallbackGB = gb(c.FallbackRequests * p.PollBytes.Value)
	c.PushConnectionsUSD = c.ConnectionMinutes / 1e6 * p.ConnectionMinutePrice.Value
	c.PushOperationsUSD = c.Operations / 1e6 * p.OperationPrice.Value
	c.PushTransferUSD = c.TransferGB * p.TransferPrice.Value
	c.PushFallbackUSD = c.FallbackRequests/1e4*p.CDNRequestPrice.Value + c.FallbackGB*p.CDNTransferPrice.Value
	c.PushWithoutFallback = c.PushConnectionsUSD + c.PushOperationsUSD + c.PushTransferUSD
	c.PushTotalUSD = c.PushWithoutFallback + c.PushFallbackUSD
	c.PollRequests = n * math.Floor(p.Show.Value/p.PollInterval.Value)
	c.PollGB = gb(c.PollRequests * p.PollBytes.Value)
	c.PollRequestsUSD = c.PollRequests / 1e4 * p.CDNRequestPrice.Value
	c.PollTransferUSD = c.PollGB * p.CDNTransferPrice.Value
	c.PollTotalUSD = c.PollRequestsUSD + c.PollTransferUSD
	if c.PushTotalUSD > 0 {
		c.PollOverPushTimes = c.PollTotalUSD / c.PushTotalUSD
	}
	return c
}
