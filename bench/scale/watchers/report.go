package watchers

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Section markers of the model's part of scale.md: `go run ./bench/cmd/scale -watchers-only`
// replaces what lies between them.
const (
	BeginMarker = "<!-- watchers: begin -->"
	EndMarker   = "<!-- watchers: end -->"
)

// Markdown renders the model's section of scale.md, between BeginMarker and EndMarker.
func (r *Result) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	in, c, ps, cost := r.Params, r.Connect, r.Push, r.Cost
	n := in.Watchers.Value
	p("%s\n## Watchers: a %s-hour show at %s watchers on AppSync Events\n\n", BeginMarker, num(in.Show.Value/3600), num(n))
	p("A model in virtual time (package `bench/scale/watchers`, `go run ./bench/cmd/scale -watchers-only`), not a recording: the watchers open the card in the %s minutes before the show (the last minute %s× the average, as the card rush above) and connect to the Event API; the connection-rate quota, a token bucket, admits what it can every %g ms and a refused watcher retries after an exponential backoff with full jitter. ",
		num(in.JoinWindow.Value/60), num(in.JoinPeakFactor.Value), slot*1000)
	p("A push is %s deliveries leaving at the outbound-message quota. Every input is below with its source, or marked **assumed** with the reason; each is a flag of the model.\n\n", num(n))

	p("| figure | value | what |\n|---|---|---|\n")
	p("| time for %s watchers to connect | **%s s** | first arrival to last connection; %s attempts, %s refused and retried |\n", num(n), num1(c.Seconds), num(float64(c.Attempts)), num(float64(c.Refused)))
	p("| connected when the show starts | %s of %s | the last %s s after the start |\n", num(float64(c.ConnectedAtShowStart)), num(n), num1(c.LastAfterShowStartS))
	p("| a watcher's wait to connect | p50 %s s, p99 %s s, max %s s | from opening the card |\n", num1(c.WaitP50S), num1(c.WaitP99S), num1(c.WaitMaxS))
	p("| connection rate at which nobody waits | %s /s | the busiest second of arrivals (quota: %s /s) |\n", num(c.PeakArrivalsPerS), num(in.ConnectRate.Value))
	if rc := r.Raised; rc != nil {
		p("| with the connection quota at %s /s | all connected in %s s, the last %s s after the start | wait p99 %s s, %s refused |\n",
			num(r.RaisedRate), num1(rc.Seconds), num1(rc.LastAfterShowStartS), num1(rc.WaitP99S), num(float64(rc.Refused)))
	}
	p("| time for one push to reach every watcher | **%s s** (median delivery %s s) | %s deliveries at %s messages/s |\n", num2(ps.Seconds), num2(ps.P50Seconds), num(float64(ps.Deliveries)), num(in.OutboundRate.Value))
	p("| %s pushes published at once | %s s | outbound rate for them all within 1 s: %s /s |\n", num(in.PushBurst.Value), num2(ps.BurstSeconds), num(ps.RateForOneSecond))
	subs := num(ps.SubscribesPerS) + " /s"
	if r.Raised != nil {
		subs += fmt.Sprintf(" (%s /s with the connection quota raised)", num(r.RaisedRate))
	}
	p("| inbound messages | %s /s publishing; subscribes at most %s | quota %s /s; whether a subscribe counts as an inbound message was not found |\n", num(ps.InboundPerS), subs, num(in.InboundRate.Value))
	p("| the largest live message | %s bytes, %s bytes on the socket | %d operation(s) per delivery at %s bytes metered (event limit %s bytes) |\n",
		num(float64(r.Message.EventBytes)), num(float64(r.Message.FrameBytes)), r.Message.OperationsPerDelivery, num(in.MeteredBytes.Value), num(in.EventMaxBytes.Value))

	p("\n**Cost per show** (USD; GB of 2^30 bytes):\n\n| | push (AppSync Events) | polling every %s s through a CDN |\n|---|---|---|\n", num(in.PollInterval.Value))
	p("| connections | %s connection-minutes → **$%s** | – |\n", num(cost.ConnectionMinutes), usd(cost.PushConnectionsUSD))
	p("| operations or requests | %s operations (a connect and a subscribe per watcher, %s publishes, %s deliveries) → **$%s** | %s requests → **$%s** |\n",
		num(cost.Operations), num(in.Pushes.Value), num(in.Pushes.Value*n), usd(cost.PushOperationsUSD), num(cost.PollRequests), usd(cost.PollRequestsUSD))
	p("| bytes | %s GB delivered → **$%s** | %s GB of %s-byte answers → **$%s** |\n", num1(cost.TransferGB), usd(cost.PushTransferUSD), num(cost.PollGB), num(in.PollBytes.Value), usd(cost.PollTransferUSD))
	p("| the clients' fallback refetch every %s s | %s requests, %s GB → **$%s** | – |\n", num(in.RefetchInterval.Value), num(cost.FallbackRequests), num(cost.FallbackGB), usd(cost.PushFallbackUSD))
	p("| total | **$%s** ($%s without the fallback) | **$%s** (%s× push's) |\n", usd(cost.PushTotalUSD), usd(cost.PushWithoutFallback), usd(cost.PollTotalUSD), num1(cost.PollOverPushTimes))

	p("\n**Inputs**:\n\n| input | value | source |\n|---|---|---|\n")
	for _, f := range r.Params.figures() {
		src := f.F.Source
		if src != "" && strings.HasPrefix(src, "http") {
			src = "[" + strings.TrimPrefix(strings.TrimPrefix(src, "https://"), "www.") + "](" + src + ")"
		}
		if f.F.Assumed != "" {
			if src != "" {
				src += "; "
			}
			src += "**assumed**: " + f.F.Assumed
		}
		p("| %s | %s %s | %s |\n", f.Name, num(f.F.Value), f.F.Unit, src)
	}
	p("\nLeft out: connections dropped and re-opened during the show (each a connect, a subscribe and a refetch more), AppSync's free tier, the CDN's origin requests (one per edge per %s s), compression.\n%s\n", num(in.PollInterval.Value), EndMarker)
	return b.String()
}

// num formats v with thousands separators, no decimals unless below 10.
func num(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if math.Abs(v) < 10 && v != math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return commas(int64(math.Round(v)))
}

func num1(v float64) string {
	if math.Abs(v) >= 1000 {
		return num(v)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func num2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func usd(v float64) string {
	if v >= 100 {
		return commas(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// commas prints n with a comma between thousands (1,000,000).
func commas(n int64) string { return english.Sprint(n) }

// english groups digits as the reports write them.
var english = message.NewPrinter(language.English)

// Splice returns md (a scale.md) with its watchers section replaced by r's, or r's
// appended when it has none.
func (r *Result) Splice(md string) string {
	section := r.Markdown()
	i, j := strings.Index(md, BeginMarker), strings.Index(md, EndMarker)
	if i < 0 || j < i {
		return strings.TrimRight(md, "\n") + "\n\n" + section
	}
	return md[:i] + strings.TrimSuffix(section, "\n") + md[j+len(EndMarker):]
}

// SpliceJSON returns js (a scale.json: one object) with its "watchers" member set to r,
// every other member as it was; keys are sorted, as scale.json writes them.
func (r *Result) SpliceJSON(js []byte) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(js, &members); err != nil {
		return nil, fmt.Errorf("scale.json: %w", err)
	}
	w, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	members["watchers"] = w
	out, err := json.MarshalIndent(members, "", "  ")
	return append(out, '\n'), err
}
