package main

import (
	"strconv"
	"time"

	"github.com/pdnskit/reconcile/backoff"
)

// The annotations that keep an object's absence streak across restarts of
// its writer.
const (
	annotationMissingSince  = "dns.example.com/missing-since"
	annotationMissingChecks = "dns.example.com/missing-checks"
)

// observeMissing records one check of whether o is missing from what its
// writer wants and reports whether it has been missing long enough to be
// collected. The Gate is keyed by the object's reference; the streak is kept
// in o's annotations (the caller writes o back), and put back into the Gate
// when the Gate has none for o, as after a restart. A stored streak that
// does not parse is no streak.
func observeMissing(gate *backoff.Gate, o *RecordSet, missing bool) bool {
	key := o.Ref()
	if _, _, ok := gate.Streak(key); !ok {
		if since, checks, stored := storedStreak(o); stored {
			gate.Restore(key, since, checks)
		}
	}
	sustained := gate.Observe(key, missing)
	since, checks, ok := gate.Streak(key)
	if !ok {
		delete(o.Annotations, annotationMissingSince)
		delete(o.Annotations, annotationMissingChecks)
		if len(o.Annotations) == 0 {
			o.Annotations = nil
		}
		return sustained
	}
	if o.Annotations == nil {
		o.Annotations = make(map[string]string)
	}
	o.Annotations[annotationMissingSince] = since.UTC().Format(time.RFC3339Nano)
	o.Annotations[annotationMissingChecks] = strconv.Itoa(checks)
	return sustained
}

// storedStreak reads the streak kept in o's annotations; Restore itself
// makes sense of odd values (no checks, a start in the future).
func storedStreak(o *RecordSet) (since time.Time, checks int, ok bool) {
	s, okSince := o.Annotations[annotationMissingSince]
	n, okChecks := o.Annotations[annotationMissingChecks]
	if !okSince || !okChecks {
		return time.Time{}, 0, false
	}
	since, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, 0, false
	}
	checks, err = strconv.Atoi(n)
	if err != nil {
		return time.Time{}, 0, false
	}
	return since, checks, true
}
