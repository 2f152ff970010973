package reconcile

import (
	"fmt"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// Result is what one Sync did to a zone.
type Result struct {
	// Zone is the zone's canonical name.
	Zone string
	// Applied lists the changes PowerDNS accepted.
	Applied []rrset.Change
	// Blocked lists the writes refused before PowerDNS saw them.
	Blocked []conflict.Conflict
	// Refused lists the changes PowerDNS refused, each with its problems.
	Refused []Refusal
	// Deferred lists the deletes held back on purpose.
	Deferred []Deferral
	// Postponed lists the changes not sent because another writer's Sync
	// was writing to the zone (PostponedFor names it); a later Sync sends
	// them. RequeueAfter is then a second or two.
	Postponed    []rrset.Change
	PostponedFor []string
	// RequeueAfter is when the caller should sync the zone again: 0 when
	// nothing is left to do, the refusal interval after a block or refusal
	// (trying sooner cannot help), the deletion gate's pace while deletes
	// are deferred, and a growing wait after transient failures.
	RequeueAfter time.Duration
	// Requests counts the API calls the Sync made; Patches the PATCHes
	// among them.
	Requests, Patches int
}

// Refusal is a change PowerDNS refused.
type Refusal struct {
	Change   rrset.Change
	Problems []pdnserrors.Problem
	// Remembered is true when the change was not sent again: it was refused
	// before and neither it nor the data at its name has changed since.
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

// Condition reasons, matching the Programmed condition DNS controllers
// publish.
const (
	ReasonProgrammed = "Programmed"
	ReasonConflict   = "Conflict"
	ReasonNotOwner   = "NotOwner"
	ReasonPDNSError  = "PDNSError"
	ReasonPending    = "Pending"
)

// Condition summarises a Result as a controller's Programmed condition.
type Condition struct {
	Programmed bool
	Reason     string
	Message    string
}

// Condition maps the Result onto the Programmed condition: false with
// PDNSError when PowerDNS refused a change, Conflict or NotOwner when a write
// was blocked (Conflict wins when both occur), Pending when deletes are
// deferred; true with Programmed otherwise.
func (r Result) Condition() Condition {
	switch {
	case len(r.Refused) > 0:
		return Condition{Reason: ReasonPDNSError, Message: summarise(r.Refused, Refusal.String)}
	case len(r.Blocked) > 0:
		reason := ReasonNotOwner
		for _, c := range r.Blocked {
			if c.Kind != conflict.NotOwner && c.Kind != conflict.Unowned {
				reason = ReasonConflict
			}
		}
		return Condition{Reason: reason, Message: summarise(r.Blocked, conflict.Conflict.String)}
	case len(r.Postponed) > 0:
		return Condition{Reason: ReasonPending, Message: fmt.Sprintf("%d change(s) postponed: %s writing to the zone",
			len(r.Postponed), strings.Join(r.PostponedFor, ", "))}
	case r.pending():
		return Condition{Reason: ReasonPending, Message: summarise(r.waiting(), Deferral.String)}
	}
	msg := fmt.Sprintf("%d change(s) applied", len(r.Applied))
	if len(r.Applied) == 0 {
		msg = "in sync"
	}
	return Condition{Programmed: true, Reason: ReasonProgrammed, Message: msg}
}

// ConditionFor maps the outcome of a Sync onto the Programmed condition: a
// failed Sync is false with PDNSError and the error as message; otherwise
// it is res.Condition().
func ConditionFor(res Result, err error) Condition {
	if err != nil {
		return Condition{Reason: ReasonPDNSError, Message: err.Error()}
	}
	return res.Condition()
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

// summarise renders the first few items, enough for a condition message.
func summarise[T any](items []T, render func(T) string) string {
	const most = 3
	parts := make([]string, 0, min(len(items), most)+1)
	for i, it := range items {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-most))
			break
		}
		parts = append(parts, render(it))
	}
	return strings.Join(parts, "; ")
}
