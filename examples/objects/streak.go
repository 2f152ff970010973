package main

import (
	"github.com/pdnskit/reconcile/backoff"
)

// annotationMissing keeps an object's absence streak across restarts of its
// writer, in the one-line text form of backoff.Streak.
const annotationMissing = "dns.example.com/missing"

// observeMissing records one check of whether o is missing from what its
// writer wants and reports whether it has been missing long enough to be
// collected. The Gate is keyed by the object's reference; the streak is kept
// in o's annotations (the caller writes o back), and put back into the Gate
// when the Gate has none for o, as after a restart. A stored streak that
// does not parse is no streak. The annotation changes only when a check
// counts, so the write it causes, and the re-enqueue that follows, count
// for nothing.
func observeMissing(gate *backoff.Gate, o *RecordSet, missing bool) bool {
	key := o.Ref()
	if _, ok := gate.Current(key); !ok {
		if s, stored := storedStreak(o); stored {
			gate.Resume(key, s)
		}
	}
	sustained := gate.Observe(key, missing)
	s, ok := gate.Current(key)
	text, err := s.MarshalText()
	if !ok || err != nil {
		delete(o.Annotations, annotationMissing)
		if len(o.Annotations) == 0 {
			o.Annotations = nil
		}
		return sustained
	}
	if o.Annotations == nil {
		o.Annotations = make(map[string]string)
	}
	o.Annotations[annotationMissing] = string(text)
	return sustained
}

// storedStreak reads the streak kept in o's annotations; Resume itself
// makes sense of odd values (a start in the future).
func storedStreak(o *RecordSet) (backoff.Streak, bool) {
	var s backoff.Streak
	if err := s.UnmarshalText([]byte(o.Annotations[annotationMissing])); err != nil || s.IsZero() {
		return backoff.Streak{}, false
	}
	return s, true
}
