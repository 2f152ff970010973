package reconcile

import (
	"time"
)

// Observer is told what a Reconciler does, for metrics: every request to
// PowerDNS, every wait for a zone lock, and the end of every operation.
//
// The Reconciler calls an Observer from the goroutines of its operations,
// several at once, so an implementation must be safe for concurrent use and
// quick: it runs on the operation's path. Package metrics has one that
// counts for Prometheus.
type Observer interface {
	// ObserveRequest is called once per HTTP request to PowerDNS, retries
	// included, when its answer's headers arrive or it fails.
	ObserveRequest(RequestEvent)
	// ObserveLock is called once per wait for a zone lock: when the
	// operation holds it, or gives up and postpones its writes.
	ObserveLock(LockEvent)
	// ObserveOperation is called once per operation, when it returns.
	ObserveOperation(OperationEvent)
}

// RequestEvent is one HTTP request to PowerDNS.
type RequestEvent struct {
	// Method is the request's HTTP method.
	Method string
	// Status is the answer's HTTP status, or 0 when there was no answer
	// (a transport error or a timeout).
	Status int
	// Duration runs from sending the request to the answer's headers.
	Duration time.Duration
}

// LockEvent is one wait for a zone lock.
type LockEvent struct {
	// Wait runs from the first attempt to take the lock to holding it or
	// giving up.
	Wait time.Duration
	// Taken is false when the operation did not take the lock: another
	// writer held it for longer than WithLockWait, the attempt failed, or,
	// found held, the zone read without it showed that the operation had
	// nothing to send (a create blocked by what the zone holds).
	Taken bool
}

// Operation names a Reconciler method, as OperationEvent and metrics label
// it.
type Operation string

// The operations of a Reconciler.
const (
	OperationSync       Operation = "sync"
	OperationPlan       Operation = "plan"
	OperationApply      Operation = "apply"
	OperationRemove     Operation = "remove"
	OperationVerify     Operation = "verify"
	OperationEnsureZone Operation = "ensure_zone"
	OperationDeleteZone Operation = "delete_zone"
	OperationZoneStatus Operation = "zone_status"
	// OperationFreeLock is a zone lock freed outside any other operation:
	// one kept between operations (WithLockHold) whose hold ran out, one
	// Close or Forget frees, or one an operation whose context ended left
	// to free in the background. Its requests are in no other operation's
	// Result.
	OperationFreeLock Operation = "free_lock"
)

// OperationEvent is one operation, when it returns.
type OperationEvent struct {
	Operation Operation
	// Zone is the zone as the caller spelled it, or its canonical name
	// once it was read as one. It is for logs: a metric labelled by zone
	// grows with the number of zones.
	Zone string
	// Duration runs from the call to its return.
	Duration time.Duration
	// Result is what Sync, Plan, Apply or Remove returned; for Verify,
	// EnsureZone and DeleteZone it holds the zone and the request count.
	Result Result
	// Err is the error the operation returned.
	Err error
	// Reason is ConditionFor(Result, Err).Reason: what the operation's
	// outcome means to a controller.
	Reason ConditionReason
}

// WithObserver has the Reconciler tell o about its requests, lock waits and
// operations. A nil Observer observes nothing.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// observed tells the Reconciler's Observer, if any, that an operation
// started at start has returned *res and *err; deferred, it sees what the
// operation returns.
func (r *Reconciler) observed(op Operation, zone string, start time.Time, resp *Result, errp *error) {
	if r.cfg.observer == nil {
		return
	}
	res, err := *resp, *errp
	if res.Zone != "" {
		zone = res.Zone
	}
	r.cfg.observer.ObserveOperation(OperationEvent{
		Operation: op,
		Zone:      zone,
		Duration:  time.Since(start),
		Result:    res,
		Err:       err,
		Reason:    ConditionFor(res, err).Reason,
	})
}

// lockWaited tells the Reconciler's Observer, if any, about a wait for a
// zone lock that started at start.
func (r *Reconciler) lockWaited(start time.Time, taken bool) {
	if r.cfg.observer != nil {
		r.cfg.observer.ObserveLock(LockEvent{Wait: time.Since(start), Taken: taken})
	}
}

// requestObserver returns what the transport calls per request, or nil.
func (c *config) requestObserver() func(method string, status int, took time.Duration) {
	if c.observer == nil {
		return nil
	}
	o := c.observer
	return func(method string, status int, took time.Duration) {
		o.ObserveRequest(RequestEvent{Method: method, Status: status, Duration: took})
	}
}
