// Package push delivers live messages to the watchers of an event: the message format
// (one JSON object per commit, described by docs/live-message.schema.json), the Publisher
// that sends a message to an event's channel, and the AWS AppSync Events publisher the
// Lambda function uses.
//
// A publish happens after the commit it reports and never decides its outcome: the
// caller logs a Publish error and answers the mutation as committed. Watchers recover a
// lost message from GraphQL (docs/api.md, "Live updates").
package push

import "context"

// Publisher sends one event, a JSON text of at most MaxEventBytes bytes built by Result,
// State, Tiebreaker or Scoring, to a channel: the event's channel as domain.LiveChannel
// returns it ("/<namespace>/…"). It returns an error when the event was not accepted; the
// message is then lost and the caller logs the error. The local server's realtime.Hub
// satisfies it in process; AppSync publishes to AWS AppSync Events.
type Publisher interface {
	Publish(ctx context.Context, channel string, event string) error
}
