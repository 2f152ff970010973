package backoff_test

import (
	"context"
	"fmt"
	"strconv"
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
// standing in for its annotations), so that a restart does not start it
// again: the new Gate opens on the third check, two minutes after the first,
// as the old one would have.
func ExampleGate_Restore() {
	clock := backofftest.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	annotations := map[string]string{}
	observe := func(gate *backoff.Gate, key string, missing bool) bool {
		if _, _, ok := gate.Streak(key); !ok && annotations["since"] != "" {
			since, _ := time.Parse(time.RFC3339, annotations["since"])
			checks, _ := strconv.Atoi(annotations["checks"])
			gate.Restore(key, since, checks) // nonsense restores as no streak
		}
		open := gate.Observe(key, missing)
		if since, checks, ok := gate.Streak(key); ok {
			annotations["since"], annotations["checks"] = since.Format(time.RFC3339), strconv.Itoa(checks)
		} else {
			delete(annotations, "since")
			delete(annotations, "checks")
		}
		return open
	}

	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	fmt.Println(observe(gate, "default/api", true), annotations)
	clock.Advance(time.Minute)
	fmt.Println(observe(gate, "default/api", true), annotations)

	// The manager restarts: a new Gate, the annotations kept.
	gate = backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	clock.Advance(time.Minute)
	fmt.Println(observe(gate, "default/api", true), annotations)
	// Output:
	// false map[checks:1 since:2025-01-01T00:00:00Z]
	// false map[checks:2 since:2025-01-01T00:00:00Z]
	// true map[checks:3 since:2025-01-01T00:00:00Z]
}
