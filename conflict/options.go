package conflict

import (
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

// Option configures Check.
type Option func(*options)

type options struct {
	policy   Policy
	adopt    bool
	disabled []rrset.RRset
	allowed  map[Kind]bool
}

func defaultOptions() options { return options{policy: Refuse} }

// WithPolicy sets the policy; an unknown value is taken as Refuse, so that
// nothing is deleted by mistake.
func WithPolicy(p Policy) Option {
	return func(o *options) {
		if p != Takeover {
			p = Refuse
		}
		o.policy = p
	}
}

// WithAdoption lets the writer take live RRsets that have no writer
// recorded (written by hand, or by a writer that recorded none): a desired
// RRset at such a key is written, recording its writer, instead of being
// blocked as Unowned; under Takeover such RRsets may also be deleted to
// make room. Off by default.
func WithAdoption(adopt bool) Option { return func(o *options) { o.adopt = adopt } }

// WithDisabledLive declares the live RRsets whose records are all disabled
// in PowerDNS, each with its ManagedBy; they are not in the live Set, since
// a reader of live data drops disabled records. They count for ownership: a
// desired RRset at such a key of another writer is NotOwner, of no writer
// Unowned (a write would replace the disabled records). Exactly as PowerDNS
// ignores disabled records when it checks a write, they count for no type
// rule. A key that is also in the live Set is judged by the live Set alone.
// Repeated options add up.
func WithDisabledLive(rrsets ...rrset.RRset) Option {
	return func(o *options) { o.disabled = append(o.disabled, rrsets...) }
}

// WithAllowed switches off rules that PowerDNS does not enforce itself, for
// zones that rely on them: WithAllowed(ALIASAndAddress) lets an ALIAS stand
// next to A and AAAA. Kinds PowerDNS enforces (EnforcedByPowerDNS) and the
// ownership kinds (NotOwner, Unowned) are ignored: PowerDNS would refuse
// the first anyway, and ownership is not a rule but whose data it is
// (WithAdoption governs unowned RRsets). Repeated options add up.
func WithAllowed(kinds ...Kind) Option {
	return func(o *options) {
		for _, k := range kinds {
			if k.EnforcedByPowerDNS() || k == NotOwner || k == Unowned {
				continue
			}
			if o.allowed == nil {
				o.allowed = make(map[Kind]bool)
			}
			o.allowed[k] = true
		}
	}
}
