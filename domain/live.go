package domain

import (
	"regexp"
	"strings"
)

// Channels of live updates follow AppSync Events' channel rule: a path of at most
// MaxChannelSegments segments, the first one the channel namespace, each matching
// channelSegment. Subscriptions may end in a "/*" wildcard; that belongs to the protocol,
// not to a channel.
const MaxChannelSegments = 5

// channelSegment is one segment of a channel: 1–50 letters, digits and dashes, starting
// and ending with a letter or a digit.
var channelSegment = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?$`)

// liveChunk is the longest piece of an event id that one channel segment carries: with the
// letter wrapped around it a segment is at most 50 characters.
const liveChunk = 48

// liveWrap is the letter around each piece of an event id. Event ids hold only lowercase
// letters, digits and dashes, so a segment "X<piece>X" always starts and ends with a
// letter, whatever dashes the piece starts or ends with.
const liveWrap = "X"

// LiveChannel returns the channel on which the live updates of event eventID are published
// in namespace: "/<namespace>" followed by the id cut into pieces of 48 characters (the
// last one shorter), each as a segment "X<piece>X". An id of MaxEventIDLen characters
// takes three segments, four with the namespace. The mapping is deterministic and
// injective: removing the first and last letter of each segment after the namespace and
// joining them gives the id back. Clients never build it: they read Event.liveChannel.
// Returns BAD_USER_INPUT if eventID fails ValidateEventID or namespace is not a channel
// segment.
func LiveChannel(namespace, eventID string) (string, error) {
	if !channelSegment.MatchString(namespace) {
		return "", BadInput("invalid channel namespace %q", truncate(namespace, 32))
	}
	if err := ValidateEventID(eventID); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("/" + namespace)
	for rest := eventID; rest != ""; {
		piece := rest[:min(liveChunk, len(rest))]
		rest = rest[len(piece):]
		b.WriteString("/" + liveWrap + piece + liveWrap)
	}
	return b.String(), nil
}

// ValidChannel reports whether channel is a channel path (not a wildcard): 1 to
// MaxChannelSegments segments separated by "/", each of 1–50 letters, digits and dashes
// starting and ending with a letter or a digit. A leading "/" is optional, as in
// AppSync Events' subscribe message; nothing may follow the last segment.
func ValidChannel(channel string) bool {
	segments := strings.Split(strings.TrimPrefix(channel, "/"), "/")
	if len(segments) > MaxChannelSegments {
		return false
	}
	for _, s := range segments {
		if !channelSegment.MatchString(s) {
			return false
		}
	}
	return true
}
