// Package backoff decides when to try again: it retries transient failures
// with jittered exponential backoff and stops at once on permanent ones, gives
// controllers requeue hints that never turn a refusal into a hot loop, and
// offers a sustained-condition gate that a caller consults before acting on
// an observation that might be a one-off (such as deleting records whose
// names vanished from one read).
//
// The package is pure: time comes through a Clock, so tests never sleep.
package backoff
