package main

import (
	"time"

	"github.com/pdnskit/reconcile/backoff"
)

// annotationMissing keeps an object's absence streak across restarts of its
// writer, in the one-line text form of backoff.Streak.
const annotationMissing = "dns.example.com/missing"

// observeMissing records one check of whether o is missing from what its
// writer wants and reports whether it has been missing long enough to be
// collected, and how long until its next check counts (0 when none is
// awaited). The Gate is keyed by the object's reference; the streak is
// kept in o's annotations (the caller writes o back), and
// Gate.ObserveStored goes on from what they hold: after a restart, a
// change of leader, or a write that failed. A stored streak that does not
// parse, or whose checks stopped long ago, is no streak. The annotation
// changes only when a check counts, so the write it causes, and the
// re-enqueue that follows, count for nothing.
func observeMissing(gate *backoff.Gate, o *RecordSet, missing bool) (collect bool, requeueAfter time.Duration) {
	obs := gate.ObserveStored(o.Ref(), o.Annotations[annotationMissing], missing)
	if obs.Changed {
		setAnnotation(o, annotationMissing, obs.Text)
	}
	return obs.Sustained, obs.NextIn
}

// setAnnotation sets o's annotation key to value, or removes it when value
// is empty.
func setAnnotation(o *RecordSet, key, value string) {
	if value == "" {
		delete(o.Annotations, key)
		if len(o.Annotations) == 0 {
			o.Annotations = nil
		}
		return
	}
	if o.Annotations == nil {
		o.Annotations = make(map[string]string)
	}
	o.Annotations[key] = value
}

// storedStreak reads the streak kept in o's annotations, for the story's
// report and checks.
func storedStreak(o *RecordSet) (backoff.Streak, bool) {
	var s backoff.Streak
	if err := s.UnmarshalText([]byte(o.Annotations[annotationMissing])); err != nil || s.IsZero() {
		return backoff.Streak{}, false
	}
	return s, true
}
