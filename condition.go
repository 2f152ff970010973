package reconcile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// ConditionType is the type of the condition DNS controllers publish about a
// write: Programmed, True once PowerDNS holds what the object asks for.
const ConditionType = "Programmed"

// ConditionReason is the reason of a Programmed condition, in the CamelCase
// form Kubernetes conditions use.
type ConditionReason string

// The reasons a Condition gives.
const (
	// ReasonProgrammed: PowerDNS holds what was asked (status True).
	ReasonProgrammed ConditionReason = "Programmed"
	// ReasonConflict: a write was blocked by other data at its name.
	ReasonConflict ConditionReason = "Conflict"
	// ReasonNotOwner: the RRset belongs to another writer, or to nobody and
	// adoption is off.
	ReasonNotOwner ConditionReason = "NotOwner"
	// ReasonPDNSError: PowerDNS refused a change or could not be reached.
	ReasonPDNSError ConditionReason = "PDNSError"
	// ReasonPending: deletes wait for the deletion gate, or another writer
	// held the zone for a moment.
	ReasonPending ConditionReason = "Pending"
	// ReasonInvalidInput: the caller's data cannot be written (an
	// *InputError, or an RRset blocked by a rule it breaks on its own, such
	// as two CNAME records): nothing was sent, and trying again cannot
	// help until the data changes.
	ReasonInvalidInput ConditionReason = "InvalidInput"
	// ReasonZoneNotFound: the zone does not exist on the server.
	ReasonZoneNotFound ConditionReason = "ZoneNotFound"
	// ReasonZoneInUse: DeleteZone refused a zone that still holds other
	// writers' RRsets (a *ZoneInUseError whose NotOwner is false).
	ReasonZoneInUse ConditionReason = "ZoneInUse"
)

// Condition summarises an operation as a controller's Programmed condition.
type Condition struct {
	Programmed bool
	Reason     ConditionReason
	Message    string
}

// Status returns "True" or "False", as metav1.ConditionStatus spells them.
func (c Condition) Status() string {
	if c.Programmed {
		return "True"
	}
	return "False"
}

// Condition maps the Result onto the Programmed condition. It is false
// with PDNSError when PowerDNS refused a change; InvalidInput, Conflict or
// NotOwner when a write was blocked (in that order when several occur);
// Pending when deletes are deferred or changes postponed. Otherwise it is
// true with Programmed.
func (r Result) Condition() Condition {
	switch {
	case len(r.Refused) > 0:
		return Condition{Reason: ReasonPDNSError, Message: summarise(r.Refused, Refusal.String)}
	case len(r.Blocked) > 0:
		return Condition{Reason: blockedReason(r.Blocked), Message: summarise(r.Blocked, conflict.Conflict.String)}
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
	if len(r.Handovers) > 0 {
		msg += "; " + summarise(r.Handovers, Handover.String)
	}
	return Condition{Programmed: true, Reason: ReasonProgrammed, Message: msg}
}

// blockedReason names what blocked writes wait for, the most urgent first:
// InvalidInput when an RRset breaks a rule on its own (only the object can
// change that), Conflict when other data stands in the way, NotOwner when
// only ownership does.
func blockedReason(blocked []conflict.Conflict) ConditionReason {
	reason := ReasonNotOwner
	for _, c := range blocked {
		switch {
		case c.Kind.Intrinsic():
			return ReasonInvalidInput
		case c.Kind != conflict.NotOwner && c.Kind != conflict.Unowned:
			reason = ReasonConflict
		}
	}
	return reason
}

// ConditionFor maps the outcome of an operation onto the Programmed
// condition. An *InputError is InvalidInput, a zone the server does not
// have is ZoneNotFound, a zone DeleteZone or UpdateZone refused
// (*ZoneInUseError) NotOwner when the caller did not make it and ZoneInUse
// otherwise, any other error PDNSError, each with the error as
// message; without an error it is res.Condition(). A controller can hand
// raw records to Sync or Apply and publish this, without validating them
// first.
func ConditionFor(res Result, err error) Condition {
	var input *InputError
	var inUse *ZoneInUseError
	switch {
	case err == nil:
		return res.Condition()
	case errors.As(err, &input):
		return Condition{Reason: ReasonInvalidInput, Message: err.Error()}
	case errors.As(err, &inUse) && inUse.NotOwner():
		return Condition{Reason: ReasonNotOwner, Message: err.Error()}
	case errors.As(err, &inUse):
		return Condition{Reason: ReasonZoneInUse, Message: err.Error()}
	case pdnserrors.IsZoneNotFound(err):
		return Condition{Reason: ReasonZoneNotFound, Message: err.Error()}
	default:
		return Condition{Reason: ReasonPDNSError, Message: err.Error()}
	}
}

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
