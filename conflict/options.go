package conflict

import (
	"slices"
	"strconv"

	"github.com/pdnskit/reconcile/rrset"
)

// Policy says what Check does with a write that collides with live data on
// a type rule.
type Policy int

const (
	// Refuse blocks the write and reports a Conflict. It is the zero value
	// and the default: nothing is deleted that Diff did not delete.
	Refuse Policy = iota
	// Takeover deletes the live RRsets the write collides with, in the same
	// plan and before the write, when every one of them is the writer's
	// own (or, with adoption on, held by no writer). A collision with
	// another writer's RRset, with another write of the same plan, or with
	// a rule no delete can satisfy (SingleRecordType, ApexCNAME, Placement)
	// is still a Conflict.
	//
	// A taken-over RRset is deleted even when it is in the desired Set (as
	// a delete held back by the caller is): keep such an RRset in the
	// desired Set only while it is live, or the next Check takes the name
	// back for it.
	Takeover
)

var policyNames = [...]string{Refuse: "refuse", Takeover: "takeover"}

// String returns "refuse" or "takeover"; "Policy(n)" for another value.
func (p Policy) String() string {
	if p >= 0 && int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// Option configures Check and Against. Each option says which of them it
// applies to: WithPolicy only to Check (Against changes nothing, so it has
// nothing to take over), WithZone only to Against (Check takes the zone
// from its Sets); the others to both.
type Option func(*options)

type options struct {
	policy   Policy
	adopt    bool
	disabled []rrset.RRset
	allow    []Kind
	zone     string // for Against; "" when not given
}

func defaultOptions() options { return options{policy: Refuse} }

func newOptions(opts []Option) options {
	o := defaultOptions()
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// allowed reports whether the caller switched the rule k off.
func (o *options) allowed(k Kind) bool { return slices.Contains(o.allow, k) }

// WithPolicy sets the policy of Check; an unknown value is taken as
// Refuse, so that nothing is deleted by mistake. Against ignores it: it
// reports every collision, as Refuse does, including those with the
// writer's own data (Conflict.Writers names the writer then), which the
// caller may remove before it writes.
func WithPolicy(p Policy) Option {
	return func(o *options) {
		if p != Takeover {
			p = Refuse
		}
		o.policy = p
	}
}

// WithAdoption (Check and Against) lets the writer take live RRsets that
// have no writer
// recorded (written by hand, or by a writer that recorded none): a desired
// RRset at such a key is written, recording its writer, instead of being
// blocked as Unowned; under Takeover such RRsets may also be deleted to
// make room. Off by default.
func WithAdoption(adopt bool) Option { return func(o *options) { o.adopt = adopt } }

// WithDisabledLive (Check and Against) declares the live RRsets whose
// records are all disabled in PowerDNS, each with its ManagedBy; they are
// not in the live Set (nor in Against's live), since a reader of live data
// drops disabled records. They count for ownership: a
// desired RRset at such a key of another writer is NotOwner, of no writer
// Unowned (a write would replace the disabled records). Exactly as PowerDNS
// ignores disabled records when it checks a write, they count for no type
// rule. A key that is also in the live Set is judged by the live Set alone.
// Names may be spelled in any way the zone accepts; several RRsets at one
// key are several claimants, each listed. Repeated options add up.
func WithDisabledLive(rrsets ...rrset.RRset) Option {
	return func(o *options) { o.disabled = append(o.disabled, rrsets...) }
}

// WithAllowed switches off rules that PowerDNS does not enforce, for Check
// and Against alike: a write that breaks only allowed rules goes, and no
// Conflict of an allowed kind is reported.
//
//   - ALIASAndAddress: ALIAS and A or AAAA may share a name (PowerDNS then
//     answers an address query with either).
//   - NotOwner: a write may replace another writer's RRset, and records
//     its own writer in its place.
//   - Unowned: a write may replace an RRset with no writer recorded, as
//     with WithAdoption; unlike WithAdoption, it does not let Takeover
//     delete such RRsets.
//
// A kind PowerDNS enforces (Kind.EnforcedByPowerDNS), or a kind this
// package does not know, is ignored: switching such a rule off would only
// move the refusal from here to a 422 of PowerDNS. A caller that takes the
// kinds from configuration should refuse those itself and say so. Repeated
// options add up.
func WithAllowed(kinds ...Kind) Option {
	return func(o *options) {
		for _, k := range kinds {
			if k.Known() && !k.EnforcedByPowerDNS() && !o.allowed(k) {
				o.allow = append(o.allow, k)
			}
		}
	}
}

// WithZone names the zone for Against: every name of want and live is
// canonicalised in it, so relative names ("v4", "@") and absolute ones in
// any case, with or without the trailing dot, are one name, and its apex
// is known to the rules that depend on it (ApexCNAME, Placement,
// NSAndDNAME). Without it, Against takes names as absolute and the apex as
// the closest name at or above want's that holds an SOA in live (every
// zone read from PowerDNS does); when live holds none, want is judged as a
// name below the apex. Check ignores it: its Sets carry their zone. A zone
// that CanonicalZone refuses counts as none.
func WithZone(zone string) Option { return func(o *options) { o.zone = zone } }
