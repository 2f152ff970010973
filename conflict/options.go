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
	// plan and before the write. It does so only when every one of them is
	// the writer's own (or, with adoption on, held by no writer). A
	// collision with another writer's RRset, with another write of the same
	// plan, or with a rule no delete can satisfy (SingleRecordType,
	// ApexCNAME, Placement, Occluded) is still a Conflict.
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

// CheckOption configures Check and CheckPlan. WithPolicy is one; so is
// every Option.
type CheckOption interface{ applyCheck(*options) }

// AgainstOption configures Against. WithZone is one; so is every Option.
type AgainstOption interface{ applyAgainst(*options) }

// Option configures Check, CheckPlan and Against alike: WithAdoption,
// WithDisabledLive and WithAllowed. An option that only one of them honours
// has that one's type (WithPolicy is a CheckOption, WithZone an
// AgainstOption), so that passing it to the other does not compile.
type Option interface {
	CheckOption
	AgainstOption
}

// One type per set of calls an option applies to, so that an option's
// dynamic type cannot be asserted to a call it does not apply to either.
type (
	checkOnly   func(*options)
	againstOnly func(*options)
	everywhere  func(*options)
)

func (f checkOnly) applyCheck(o *options)     { f(o) }
func (f againstOnly) applyAgainst(o *options) { f(o) }
func (f everywhere) applyCheck(o *options)    { f(o) }
func (f everywhere) applyAgainst(o *options)  { f(o) }

var (
	_ CheckOption   = checkOnly(nil)
	_ AgainstOption = againstOnly(nil)
	_ Option        = everywhere(nil)
)

type options struct {
	policy   Policy
	adopt    bool
	disabled []rrset.RRset
	allow    []Kind
	zone     string // for Against; "" when not given
}

func defaultOptions() options { return options{policy: Refuse} }

func checkOptions(opts []CheckOption) options {
	o := defaultOptions()
	for _, opt := range opts {
		if opt != nil {
			opt.applyCheck(&o)
		}
	}
	return o
}

func againstOptions(opts []AgainstOption) options {
	o := defaultOptions()
	for _, opt := range opts {
		if opt != nil {
			opt.applyAgainst(&o)
		}
	}
	return o
}

// allowed reports whether the caller switched the rule k off.
func (o *options) allowed(k Kind) bool { return slices.Contains(o.allow, k) }

// WithPolicy sets the policy of Check and CheckPlan; an unknown value is
// taken as Refuse, so that nothing is deleted by mistake. Against takes no
// policy: it deletes nothing, and reports every collision as Refuse does,
// including those with the writer's own data (Conflict.Writers names the
// writer then), which the caller may remove before it writes.
func WithPolicy(p Policy) CheckOption {
	return checkOnly(func(o *options) {
		if p != Takeover {
			p = Refuse
		}
		o.policy = p
	})
}

// WithAdoption lets the writer take live RRsets that have no writer
// recorded, written by hand or by a writer that recorded none. A desired
// RRset at such a key is written, recording its writer, instead of being
// blocked as Unowned; under Takeover such RRsets may also be deleted to
// make room. Off by default. Check, CheckPlan and Against honour it.
func WithAdoption(adopt bool) Option { return everywhere(func(o *options) { o.adopt = adopt }) }

// WithDisabledLive declares the live RRsets whose records are all disabled
// in PowerDNS, each with its ManagedBy (Check, CheckPlan and Against). They
// are not in the live Set (nor in Against's live), since a reader of live
// data drops disabled records. They count for ownership: a desired RRset
// at such a key of another writer is NotOwner, of no writer Unowned (a
// write would replace the disabled records). Exactly as PowerDNS
// ignores disabled records when it checks a write, they count for no type
// rule. A key that is also in the live Set is judged by the live Set alone.
// Names may be spelled in any way the zone accepts; several RRsets at one
// key are several claimants, each listed. Repeated options add up.
func WithDisabledLive(rrsets ...rrset.RRset) Option {
	return everywhere(func(o *options) { o.disabled = append(o.disabled, rrsets...) })
}

// WithAllowed switches off rules that PowerDNS does not enforce, for Check
// and Against alike. A write that breaks only allowed rules goes, and no
// Conflict of an allowed kind is reported.
//
//   - ALIASAndAddress: ALIAS and A or AAAA may share a name (PowerDNS then
//     answers an address query with either).
//   - Occluded: data may be written below a delegation or a DNAME, and a
//     delegation or a DNAME above other writers' data (PowerDNS stores
//     it, and never serves it).
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
	return everywhere(func(o *options) {
		for _, k := range kinds {
			if k.Known() && !k.EnforcedByPowerDNS() && !o.allowed(k) {
				o.allow = append(o.allow, k)
			}
		}
	})
}

// WithZone names the zone for Against. Every name of want and live is
// canonicalised in it, so relative names ("v4", "@") and absolute ones in
// any case, with or without the trailing dot, are one name, and its apex
// is known to the rules that depend on it (ApexCNAME, Placement,
// NSAndDNAME, Occluded). Without it, Against takes names as absolute and
// the apex as the closest name at or above want's that holds an SOA in
// live (every zone read from PowerDNS does); when live holds none, want is
// judged as a name below the apex, and an NS hides nothing, since it may
// be the apex's own. Check takes no zone option: its Sets carry their
// zone. A zone that CanonicalZone refuses counts as none.
func WithZone(zone string) AgainstOption {
	return againstOnly(func(o *options) { o.zone = zone })
}
