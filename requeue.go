package reconcile

import (
	"errors"
	"math/rand/v2"
	"time"
)

// postponePace is the least wait after an operation postponed for another
// writer's.
const postponePace = time.Second

// minDeferPace is the shortest requeue suggested while deletes wait.
const minDeferPace = time.Second

// resyncJitter is the fraction by which the resync interval is drawn at
// random around its value, so that the objects of one controller do not
// all come back at once.
const resyncJitter = 0.10

// errRefusedOrBlocked stands for an operation that wrote what it could and
// was refused the rest: permanent until something changes.
var errRefusedOrBlocked = errors.New("a write was refused or blocked")

// requeueAfter decides Result.RequeueAfter from how the operation ended.
func (o *op) requeueAfter(err error) time.Duration {
	if !o.gate.writes {
		return 0 // a dry run asks for nothing
	}
	rq, key := o.mem.requeuer(), o.requeueKey
	var input *InputError
	switch {
	case errors.As(err, &input):
		// The caller's data: trying again cannot help until it changes,
		// and the change requeues the object by itself.
		rq.After(key, nil)
		return 0
	case err != nil:
		// Transient failures back off per key; PowerDNS refusing the whole
		// request (401, 404) waits the refusal interval.
		return rq.After(key, err)
	case len(o.res.Refused) > 0 || len(o.res.Blocked) > 0:
		return rq.After(key, errRefusedOrBlocked)
	case len(o.res.Postponed) > 0:
		// Another writer holds the zone for a moment: come back soon, at a
		// jittered time so that two writers do not meet again.
		rq.After(key, nil)
		return postponePace + time.Duration(rand.Int64N(int64(postponePace)))
	case o.res.pending():
		rq.After(key, nil)
		return o.r.deferPace()
	default:
		rq.After(key, nil)
		return jittered(o.r.cfg.resync, resyncJitter)
	}
}

// jittered draws d ± fraction·d at random; 0 stays 0.
func jittered(d time.Duration, fraction float64) time.Duration {
	if d <= 0 {
		return 0
	}
	spread := int64(float64(d) * fraction)
	if spread <= 0 {
		return d
	}
	return d - time.Duration(spread) + time.Duration(rand.Int64N(2*spread+1))
}

// deferPace is how often to sync while deletes wait for the gate: it opens
// after deleteChecks syncs spanning deleteSpan, so syncing every
// span/(checks-1) lets it open as soon as it can.
func (r *Reconciler) deferPace() time.Duration {
	if r.cfg.deleteChecks <= 1 {
		return max(r.cfg.deleteSpan, minDeferPace)
	}
	return max(r.cfg.deleteSpan/time.Duration(r.cfg.deleteChecks-1), minDeferPace)
}
