package push

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// The AppSync publisher's defaults.
const (
	// DefaultBudget bounds one Publish, retries included: the request that committed
	// waits for it before it answers (a Lambda function is frozen once it answers).
	DefaultBudget = time.Second
	// DefaultAttemptTimeout bounds one attempt, so that a request stuck on a dead
	// connection leaves time for another on a new one. AppSync answers a publish in tens
	// of milliseconds.
	DefaultAttemptTimeout = 400 * time.Millisecond
	// BaseBackoff and MaxBackoff shape the wait before retry n: uniformly random in
	// [0, min(MaxBackoff, BaseBackoff × 2^n)].
	BaseBackoff = 25 * time.Millisecond
	MaxBackoff  = 200 * time.Millisecond
)

// The failure metric, in CloudWatch embedded metric format: one log line per failed
// Publish, which CloudWatch Logs turns into the metric MetricNamespace/MetricPublishFailures
// with the dimension FunctionName (deploy/template.yaml's LivePublishFailuresAlarm).
const (
	MetricNamespace       = "PickemAPI"
	MetricPublishFailures = "LivePublishFailures"
)

// SigningService is the SigV4 service name of AppSync's event endpoints.
const SigningService = "appsync"

// AppSyncConfig configures NewAppSync.
type AppSyncConfig struct {
	// HTTPDomain is the Event API's HTTP domain (deploy/template.yaml's LiveHTTPDomain
	// output), without a scheme: events are posted to https://<HTTPDomain>/event.
	HTTPDomain string
	// Region is the API's region, the one the request is signed for.
	Region string
	// Credentials sign each request (SigV4, service appsync). In Lambda: the function
	// role's temporary credentials, with their session token.
	Credentials aws.CredentialsProvider
	// FunctionName is the value of the failure metric's FunctionName dimension.
	FunctionName string
	// Logger receives the failure metric's line; required.
	Logger *slog.Logger
	// Client sends the requests; nil: http.DefaultClient.
	Client *http.Client
	// Budget bounds one Publish, retries included; 0: DefaultBudget.
	Budget time.Duration
	// AttemptTimeout bounds one attempt; 0: DefaultAttemptTimeout.
	AttemptTimeout time.Duration
	// Backoff returns the wait before retry n (1 for the first retry); nil: random in
	// [0, min(MaxBackoff, BaseBackoff × 2^n)].
	Backoff func(retry int) time.Duration
	// Now is the clock that signs requests and stamps the metric; nil: time.Now.
	Now func() time.Time
}

// AppSync publishes to an AppSync Event API's HTTP endpoint, one event per request,
// signed with SigV4 for service appsync. It is safe for concurrent use.
type AppSync struct {
	url            string
	region         string
	creds          aws.CredentialsProvider
	signer         *v4.Signer
	client         *http.Client
	log            *slog.Logger
	functionName   string
	budget         time.Duration
	attemptTimeout time.Duration
	backoff        func(int) time.Duration
	now            func() time.Time
}

var _ Publisher = (*AppSync)(nil)

// NewAppSync returns a publisher to the Event API cfg describes. It does not touch the
// network.
func NewAppSync(cfg AppSyncConfig) (*AppSync, error) {
	switch {
	case cfg.HTTPDomain == "" || strings.ContainsAny(cfg.HTTPDomain, "/ "):
		return nil, fmt.Errorf("push: AppSync HTTP domain %q: want a host name such as abc.appsync-api.eu-west-1.amazonaws.com", cfg.HTTPDomain)
	case cfg.Region == "":
		return nil, errors.New("push: AppSync publisher needs a region")
	case cfg.Credentials == nil:
		return nil, errors.New("push: AppSync publisher needs credentials")
	case cfg.FunctionName == "" || cfg.Logger == nil:
		return nil, errors.New("push: AppSync publisher needs a logger and a function name for its failure metric")
	case cfg.Budget < 0 || cfg.AttemptTimeout < 0:
		return nil, errors.New("push: AppSync publisher budget and attempt timeout must not be negative")
	}
	p := &AppSync{
		url:            "https://" + cfg.HTTPDomain + "/event",
		region:         cfg.Region,
		creds:          aws.NewCredentialsCache(cfg.Credentials),
		signer:         v4.NewSigner(),
		client:         cfg.Client,
		log:            cfg.Logger,
		functionName:   cfg.FunctionName,
		budget:         cmp.Or(cfg.Budget, DefaultBudget),
		attemptTimeout: cmp.Or(cfg.AttemptTimeout, DefaultAttemptTimeout),
		backoff:        cfg.Backoff,
		now:            cfg.Now,
	}
	if p.client == nil {
		p.client = http.DefaultClient
	}
	if p.backoff == nil {
		p.backoff = jitterBackoff
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// NewAppSyncFromEnv returns the Lambda function's publisher to the Event API at
// httpDomain, from what Lambda puts in the environment: the region (AWS_REGION), the
// role's temporary credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN) and the function's name (AWS_LAMBDA_FUNCTION_NAME), as the DynamoDB
// client reads them.
func NewAppSyncFromEnv(getenv func(string) string, httpDomain string, log *slog.Logger) (*AppSync, error) {
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		return nil, errors.New("push: no AWS credentials to sign publishes: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them)")
	}
	return NewAppSync(AppSyncConfig{
		HTTPDomain:   httpDomain,
		Region:       getenv("AWS_REGION"),
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN")),
		FunctionName: getenv("AWS_LAMBDA_FUNCTION_NAME"),
		Logger:       log,
	})
}

// Publish posts event to channel and waits for AppSync's answer, for at most the
// budget (or ctx's deadline, if sooner). A 429, a 5xx, a timeout or a broken connection
// is retried with backoff while the budget lasts; any other non-2xx answer, and a 200
// whose failed list is not empty, is not. On failure it logs the failure metric and
// returns the last attempt's error.
func (p *AppSync) Publish(ctx context.Context, channel, event string) error {
	ctx, cancel := context.WithTimeout(ctx, p.budget)
	defer cancel()
	body, err := json.Marshal(publishRequest{Channel: channel, Events: []string{event}})
	if err != nil {
		return fmt.Errorf("push: publish to %s: %w", channel, err)
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])

	attempts := 0
	for {
		attempts++
		retry, err := p.attempt(ctx, body, hash)
		if err == nil {
			return nil
		}
		if retry {
			retry = p.wait(ctx, p.backoff(attempts))
		}
		if !retry {
			err = fmt.Errorf("push: publish to %s (%d attempts): %w", channel, attempts, err)
			p.logFailure(ctx, channel, attempts, err)
			return err
		}
	}
}

// attempt makes one signed request. retry reports whether the failure is one to retry.
func (p *AppSync) attempt(ctx context.Context, body []byte, hash string) (retry bool, err error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, p.attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	creds, err := p.creds.Retrieve(ctx)
	if err != nil {
		return false, fmt.Errorf("credentials: %w", err)
	}
	if err := p.signer.SignHTTP(ctx, creds, req, hash, SigningService, p.region, p.now()); err != nil {
		return false, fmt.Errorf("sign: %w", err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return true, err // timeouts and broken connections
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return true, fmt.Errorf("read answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("AppSync answered %d: %s", resp.StatusCode, snippet(answer))
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return false, fmt.Errorf("AppSync answered %d: %s", resp.StatusCode, snippet(answer))
	}
	var out publishResponse
	if err := json.Unmarshal(answer, &out); err != nil {
		return false, fmt.Errorf("AppSync answered %d with an unreadable body: %s", resp.StatusCode, snippet(answer))
	}
	if len(out.Failed) > 0 {
		f := out.Failed[0]
		return false, fmt.Errorf("AppSync refused the event: %s %s", f.Code, f.Message)
	}
	return false, nil
}

// wait sleeps for d unless ctx ends first or has no time left for d; it reports whether
// a retry may follow.
func (p *AppSync) wait(ctx context.Context, d time.Duration) bool {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= d {
		return false
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// logFailure writes one failure as a CloudWatch embedded metric format line: the _aws
// member names the metric, the root member LivePublishFailures holds its value and
// FunctionName its dimension.
func (p *AppSync) logFailure(ctx context.Context, channel string, attempts int, err error) {
	meta := emfMetadata{
		Timestamp: p.now().UnixMilli(),
		CloudWatchMetrics: []emfDirective{{
			Namespace:  MetricNamespace,
			Dimensions: [][]string{{"FunctionName"}},
			Metrics:    []emfMetric{{Name: MetricPublishFailures, Unit: "Count"}},
		}},
	}
	p.log.LogAttrs(ctx, slog.LevelError, "live publish failed",
		slog.Any("_aws", meta),
		slog.String("FunctionName", p.functionName),
		slog.Int(MetricPublishFailures, 1),
		slog.String("channel", channel),
		slog.Int("attempts", attempts),
		slog.String("error", err.Error()),
	)
}

// publishRequest is the body of POST /event.
type publishRequest struct {
	Channel string   `json:"channel"`
	Events  []string `json:"events"`
}

// publishResponse is AppSync's answer to POST /event: one entry per event.
type publishResponse struct {
	Successful []publishEntry `json:"successful"`
	Failed     []publishEntry `json:"failed"`
}

type publishEntry struct {
	Identifier string `json:"identifier"`
	Index      int    `json:"index"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
}

// The embedded metric format's metadata (docs: CloudWatch, "Specification: Embedded
// metric format").
type emfMetadata struct {
	Timestamp         int64          `json:"Timestamp"`
	CloudWatchMetrics []emfDirective `json:"CloudWatchMetrics"`
}

type emfDirective struct {
	Namespace  string      `json:"Namespace"`
	Dimensions [][]string  `json:"Dimensions"`
	Metrics    []emfMetric `json:"Metrics"`
}

type emfMetric struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// jitterBackoff is the default Backoff: "full jitter".
func jitterBackoff(retry int) time.Duration {
	ceiling := min(MaxBackoff, BaseBackoff<<min(retry, 10))
	return rand.N(ceiling + 1)
}

// snippet is the start of an answer's body, for an error message.
func snippet(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
