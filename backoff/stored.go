package backoff

import "time"

// Observation is what ObserveStored found: the Gate's answer, and what to
// keep in the store.
type Observation struct {
	// Sustained reports whether the condition is now sustained, as Observe
	// does: act on it.
	Sustained bool
	// Text is the streak's text form to keep in the store, such as an
	// annotation; "" when the key has no streak (the check did not hold),
	// which means remove it from the store.
	Text string
	// Changed reports whether Text differs from the stored text: only then
	// is there something to write back (set, or remove when Text is "").
	// Text changes only when a check counts, at most as many times as the
	// Gate has checks, so the write, and the re-check it may trigger, count
	// for nothing.
	Changed bool
	// NextIn is how long until a check of the key next counts, for a
	// controller's RequeueAfter (Gate.NextIn). It is 0 when no check is
	// to wait for: the key has no streak, the Gate is open, or a check now
	// would count (a Gate without a span).
	NextIn time.Duration
	// Discarded is why a stored streak was not taken up, or nil: a
	// *StreakTextError for text that is not a streak's text form, or
	// ErrStaleStreak for a streak whose next check is past due by more
	// than the Gate's stale bound. Either way the check went on as on a
	// key without a streak, and Changed says to replace the stored text.
	Discarded error
}

// ObserveStored records one check of key's condition, as Observe does, on
// the streak kept in a store, and returns what to store back. stored is
// the text the store holds for key ("" for none), as the last call's
// Observation.Text left it. A controller keeping the streak in an
// annotation writes:
//
//	obs := gate.ObserveStored(ref, o.Annotations[annotation], missing)
//	if obs.Changed {
//		setOrDelete(o.Annotations, annotation, obs.Text) // then write o back
//	}
//	if obs.Sustained {
//		// act: delete the object
//	}
//	return ctrl.Result{RequeueAfter: obs.NextIn}, nil
//
// The stored text is the streak: when it differs from the streak the Gate
// holds for key, the Gate takes it up as Resume does (a stored streak that
// is stale or not a streak is dropped, and Discarded says why; empty text
// is no streak), and when it is the same the Gate goes on with its own.
// So a restart, a change of leader and a write of the store that failed
// all go on from what the store holds, and an edit of the store is
// honoured, never trusted beyond what Resume allows.
func (g *Gate) ObserveStored(key, stored string, holds bool) Observation {
	var s Streak
	parseErr := s.UnmarshalText([]byte(stored))
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()

	var out Observation
	h, ok := g.streaks[key]
	switch {
	case parseErr != nil:
		delete(g.streaks, key)
		out.Discarded = parseErr
	case ok && sameStreak(h.streak, s):
		// The store holds what the Gate holds: go on with it.
	default:
		out.Discarded = g.resume(key, s, now)
	}
	out.Sustained = g.observe(key, holds, now)
	if h, ok := g.streaks[key]; ok {
		// A clock outside the years 0 to 9999 leaves the streak without
		// a text form: nothing is stored, and a restart starts again.
		if text, err := h.streak.MarshalText(); err == nil {
			out.Text = string(text)
		}
		if !out.Sustained {
			out.NextIn = max(g.next(h.streak).Sub(now), 0)
		}
	}
	out.Changed = out.Text != stored
	return out
}

// sameStreak reports whether a and b are one streak, whatever the location
// of their times. Empty stored text is never the streak the Gate holds: no
// streak in the store is one that ended.
func sameStreak(a, b Streak) bool {
	return a.Checks == b.Checks && a.Since.Equal(b.Since) && a.Last.Equal(b.Last)
}
