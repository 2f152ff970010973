package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	pdnserrors "github.com/pdnskit/reconcile/errors"
)

func ExampleRetry() {
	// A fake clock, so that the example does not wait; a real caller omits
	// WithClock and WithJitter.
	clock := backofftest.NewAutoClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	opts := []backoff.RetryOption{backoff.WithClock(clock), backoff.WithJitter(0)}

	// A server that is down twice, then answers: retried.
	calls := 0
	err := backoff.Retry(context.Background(), func(context.Context) error {
		calls++
		if calls <= 2 {
			return pdnserrors.Parse(503, []byte("Service Unavailable"))
		}
		return nil
	}, opts...)
	fmt.Println(err, calls, clock.Waits())

	// A refusal: returned at once, as it is.
	calls = 0
	err = backoff.Retry(context.Background(), func(context.Context) error {
		calls++
		return pdnserrors.Parse(422, []byte(`{"error": "RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset"}`))
	}, opts...)
	fmt.Println(pdnserrors.IsConflict(err), calls)
	// Output:
	// <nil> 3 [500ms 1s]
	// true 1
}

func ExampleGate() {
	clock := backofftest.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	// Delete a record only once its name has been missing from the desired
	// state on 3 consecutive checks over at least 2 minutes.
	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	missing := []bool{true, true, false, true, true, true}
	for _, m := range missing {
		fmt.Println(gate.Observe("api.example.com.", m))
		clock.Advance(time.Minute)
	}
	// Output:
	// false
	// false
	// false
	// false
	// false
	// true
}

func ExampleRequeue() {
	requeue := backoff.NewRequeue(backoff.WithJitter(0))
	conflict := pdnserrors.Parse(422, []byte(`{"error": "RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset"}`))
	outage := pdnserrors.Parse(502, []byte("Bad Gateway"))

	fmt.Println(requeue.After("default/gateway", conflict))
	fmt.Println(requeue.After("default/gateway", outage))
	fmt.Println(requeue.After("default/gateway", outage))
	fmt.Println(requeue.After("default/gateway", nil))
	// Output:
	// 10m0s
	// 1s
	// 2s
	// 0s
}

// A controller keeps the streak in the object it is about (here a map
// standing in for its annotations), in one line, so that a restart does not
// start it again: the new Gate opens on the third check, two minutes after
// the first, as the old one would have. The annotation changes only when a
// check counts.
func ExampleGate_Resume() {
	clock := backofftest.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	const annotation = "example.com/missing"
	annotations := map[string]string{}
	observe := func(gate *backoff.Gate, key string, missing bool) bool {
		if _, ok := gate.Current(key); !ok {
			var stored backoff.Streak
			if err := stored.UnmarshalText([]byte(annotations[annotation])); err == nil {
				gate.Resume(key, stored) // odd values resume as no streak, or start the span now
			}
		}
		open := gate.Observe(key, missing)
		if s, ok := gate.Current(key); ok {
			text, _ := s.MarshalText()
			annotations[annotation] = string(text)
		} else {
			delete(annotations, annotation)
		}
		return open
	}

	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	fmt.Println(observe(gate, "default/api", true), annotations[annotation])
	clock.Advance(time.Second) // re-enqueued by its own write: not a check that counts
	fmt.Println(observe(gate, "default/api", true), annotations[annotation])
	clock.Advance(time.Minute)
	fmt.Println(observe(gate, "default/api", true), annotations[annotation])

	// The manager restarts: a new Gate, the annotations kept.
	gate = backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	clock.Advance(time.Minute)
	fmt.Println(observe(gate, "default/api", true), annotations[annotation])
	// Output:
	// false 1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z
	// false 1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z
	// false 2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:01Z
	// true 3 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:02:01Z
}

// A controller keeps the streak in an annotation of the object it is about
// (here a map standing in for them) with one call per check: ObserveStored
// takes the stored text and says what to store back, and when to requeue.
// A restart goes on from the annotation; a streak restored from a backup
// made long ago starts again.
func ExampleGate_ObserveStored() {
	clock := backofftest.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	const annotation = "example.com/missing"
	annotations := map[string]string{}
	check := func(gate *backoff.Gate, missing bool) {
		obs := gate.ObserveStored("default/api", annotations[annotation], missing)
		if obs.Changed {
			if obs.Text == "" {
				delete(annotations, annotation)
			} else {
				annotations[annotation] = obs.Text
			}
		}
		fmt.Printf("sustained=%v write=%v requeue=%v %q\n", obs.Sustained, obs.Changed, obs.NextIn, annotations[annotation])
		if obs.Discarded != nil {
			fmt.Println(" ", obs.Discarded)
		}
	}

	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	check(gate, true)
	clock.Advance(time.Second) // re-enqueued by its own write: counts for nothing
	check(gate, true)
	clock.Advance(59 * time.Second)
	check(gate, true)

	gate = backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock)) // a restart
	clock.Advance(time.Minute)
	check(gate, true)
	check(gate, false) // the condition ends: the annotation goes

	annotations[annotation] = "3 checks from 2024-01-01T00:00:00Z to 2024-01-01T00:02:00Z" // from a backup
	check(gate, true)
	// Output:
	// sustained=false write=true requeue=1m0s "1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z"
	// sustained=false write=false requeue=59s "1 check from 2025-01-01T00:00:00Z to 2025-01-01T00:00:00Z"
	// sustained=false write=true requeue=1m0s "2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z"
	// sustained=true write=true requeue=0s "3 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:02:00Z"
	// sustained=false write=true requeue=0s ""
	// sustained=false write=true requeue=1m0s "1 check from 2025-01-01T00:02:00Z to 2025-01-01T00:02:00Z"
	//   backoff: stored streak is stale: its next check is past due by more than the gate's stale bound
}

// A controller requeues after NextIn, a duration on the Gate's own clock:
// sooner, the check would not count.
func ExampleGate_NextIn() {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := backofftest.NewClock(start)
	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	for !gate.Observe("default/api", true) {
		requeueAfter, _ := gate.NextIn("default/api")
		fmt.Println("requeue after", requeueAfter)
		clock.Advance(requeueAfter)
	}
	fmt.Println("open after", clock.Now().Sub(start))
	// Output:
	// requeue after 1m0s
	// requeue after 1m0s
	// open after 2m0s
}

// A controller requeues at Next: sooner, the check would not count.
func ExampleGate_Next() {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := backofftest.NewClock(start)
	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	for !gate.Observe("default/api", true) {
		next, _ := gate.Next("default/api")
		requeueAfter := next.Sub(clock.Now())
		fmt.Println("requeue after", requeueAfter)
		clock.Advance(requeueAfter)
	}
	fmt.Println("open after", clock.Now().Sub(start))
	// Output:
	// requeue after 1m0s
	// requeue after 1m0s
	// open after 2m0s
}

func ExampleStreak_UnmarshalText() {
	var s backoff.Streak
	err := s.UnmarshalText([]byte("2 checks from 2025-01-01T00:00:00Z to 2025-01-01T00:01:00Z"))
	fmt.Println(s.Checks, s.Since.Format(time.TimeOnly), s.Last.Format(time.TimeOnly), err)

	err = s.UnmarshalText([]byte("2025-01-01T00:00:00Z"))
	var textErr *backoff.StreakTextError
	fmt.Println(errors.As(err, &textErr), errors.Is(err, backoff.ErrStreakForm))
	// Output:
	// 2 00:00:00 00:01:00 <nil>
	// true true
}
