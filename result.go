package reconcile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// Result is what one Sync, Apply or Remove did to a zone.
//
// A Result is valid alongside an error: it holds what was done before the
// error (changes applied, blocked, refused) and RequeueAfter, which says
// when to come back in either case. controller-runtime ignores the Result a
// Reconcile returns with an error, so a controller publishes
// ConditionFor(res, err) in its status and returns
// ctrl.Result{RequeueAfter: res.RequeueAfter} with a nil error; returning
// the error instead leaves the pace of retries to the workqueue's rate
// limiter, which knows nothing of refusals that retrying cannot help.
type Result struct {
	// Zone is the zone's canonical name.
	Zone string
	// Applied lists the changes PowerDNS accepted.
	Applied []rrset.Change
	// Blocked lists the writes (and explicit deletes) refused before
	// PowerDNS saw them.
	Blocked []conflict.Conflict
	// Refused lists the changes PowerDNS refused, each with its problems,
	// and the deletes the server's version is known to refuse
	// (rrset.CheckVersion: LUA from PowerDNS 5.1), which are not sent.
	Refused []Refusal
	// Deferred lists the deletes held back on purpose.
	Deferred []Deferral
	// Handovers lists the RRsets of the writer that passed from one owner
	// to another (WithOwner).
	Handovers []Handover
	// Postponed lists the changes not sent because another writer held
	// the zone lock (PostponedFor names it); a later operation sends them.
	// RequeueAfter is then a second or two.
	Postponed    []rrset.Change
	PostponedFor []string
	// RequeueAfter is when the caller should come back. It is the resync
	// interval (WithResync, jittered) when everything is in sync, the
	// refusal interval after a block or refusal (trying sooner cannot
	// help), the deletion gate's pace while deletes are deferred, and a
	// growing wait after transient failures.
	RequeueAfter time.Duration
	// Requests counts the API calls the operation made; Patches the
	// PATCHes among them. An Apply carried out with others (group commit)
	// counts every request of the batch, which each of its callers counts
	// too. Left out are the requests that free a zone lock outside the
	// operation: one the Reconciler kept after it (WithLockHold), freed
	// when its hold runs out or by Close or Forget, and one freed in the
	// background after the operation's context ended; an Observer is told
	// of each as an OperationFreeLock with its own count.
	Requests, Patches int
}

// Refusal is a change PowerDNS refused.
type Refusal struct {
	Change   rrset.Change
	Problems []pdnserrors.Problem
	// Remembered is true when the change was not sent again: it was refused
	// before and neither it nor the data at its name has changed since. A
	// delete refused for the server's version is never sent, and not
	// Remembered: its problem's message is the *rrset.VersionError's.
	Remembered bool
}

func (r Refusal) String() string {
	msgs := make([]string, 0, len(r.Problems))
	for _, p := range r.Problems {
		msgs = append(msgs, p.Message)
	}
	return fmt.Sprintf("%s %s refused: %s", r.Change.Key().Name, r.Change.Key().Type, strings.Join(msgs, "; "))
}

// DeferReason says why a delete was held back.
type DeferReason string

const (
	// DeferGate means the RRset has not been absent from the desired state for
	// long enough (the sustained-absence gate).
	DeferGate DeferReason = "AbsenceNotSustained"
	// DeferGuard means the sync would delete too large a share of the writer's
	// RRsets (the delete guard); ForceDeletes lets it through.
	DeferGuard DeferReason = "DeleteGuard"
	// DeferUpsertOnly means the Reconciler never deletes (WithUpsertOnly).
	DeferUpsertOnly DeferReason = "UpsertOnly"
)

// Deferral is a delete held back on purpose.
type Deferral struct {
	RRset  rrset.RRset
	Reason DeferReason
}

func (d Deferral) String() string {
	return fmt.Sprintf("%s %s delete deferred: %s", d.RRset.Name, d.RRset.Type, d.Reason)
}

// Handover is an RRset of the writer that another object of the writer
// wrote over (WithOwner): the controller arbitrates between its objects, so
// it is allowed, and reported.
type Handover struct {
	Key rrset.Key
	// From is the owner recorded before ("" when none was), To the one
	// recorded now.
	From, To string
}

func (h Handover) String() string {
	from := h.From
	if from == "" {
		from = "no owner"
	}
	return fmt.Sprintf("%s %s handed over from %s to %s", h.Key.Name, h.Key.Type, from, h.To)
}

// PlanResult is what a Sync of a zone would do now: the Result it would
// have before writing (Blocked, Refused as remembered, Deferred, Handovers,
// and Requests, all of them reads), and the changes it would send.
type PlanResult struct {
	Result
	// Plan holds the changes Sync would send, in the order it would send
	// them.
	Plan rrset.Plan
}

// waiting returns the deferrals that wait for something: all but those of
// an upsert-only Reconciler, which never deletes and so waits for nothing.
func (r Result) waiting() []Deferral {
	var out []Deferral
	for _, d := range r.Deferred {
		if d.Reason != DeferUpsertOnly {
			out = append(out, d)
		}
	}
	return out
}

func (r Result) pending() bool { return len(r.waiting()) > 0 }

// detach gives every RRset the Result names records of its own: the
// Sets the zone's memory keeps share theirs with what an operation read
// and was given (memory_reuse.go), and a caller may change what it holds.
// The records are copied into one array.
func (r *Result) detach() {
	n := 0
	countRRset := func(rr *rrset.RRset) {
		if rr != nil {
			n += len(rr.Records)
		}
	}
	countChange := func(c *rrset.Change) { countRRset(c.Old); countRRset(c.New) }
	for i := range r.Applied {
		countChange(&r.Applied[i])
	}
	for i := range r.Postponed {
		countChange(&r.Postponed[i])
	}
	for i := range r.Refused {
		countChange(&r.Refused[i].Change)
	}
	for i := range r.Deferred {
		countRRset(&r.Deferred[i].RRset)
	}
	for i := range r.Blocked {
		countRRset(&r.Blocked[i].RRset)
		for j := range r.Blocked[i].With {
			countRRset(&r.Blocked[i].With[j])
		}
	}
	if n == 0 {
		return
	}
	records := make([]string, 0, n)
	own := func(rr *rrset.RRset) {
		start := len(records)
		records = append(records, rr.Records...)
		rr.Records = records[start:len(records):len(records)]
	}
	ownChange := func(c *rrset.Change) {
		for _, p := range []**rrset.RRset{&c.Old, &c.New} {
			if *p != nil {
				rr := **p
				own(&rr)
				*p = &rr
			}
		}
	}
	for i := range r.Applied {
		ownChange(&r.Applied[i])
	}
	for i := range r.Postponed {
		ownChange(&r.Postponed[i])
	}
	for i := range r.Refused {
		ownChange(&r.Refused[i].Change)
	}
	for i := range r.Deferred {
		own(&r.Deferred[i].RRset)
	}
	for i := range r.Blocked {
		own(&r.Blocked[i].RRset)
		with := slices.Clone(r.Blocked[i].With)
		for j := range with {
			own(&with[j])
		}
		r.Blocked[i].With = with
	}
}
