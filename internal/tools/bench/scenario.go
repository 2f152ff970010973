package bench

import "fmt"

// Scenario is one kind of sync: what the zone holds before it and what is
// desired.
type Scenario int

// The scenarios, in the order they are run and reported. The zero value is
// invalid.
const (
	// Initial writes every RRset into a zone that holds only its SOA and
	// NS.
	Initial Scenario = iota + 1
	// Changed gives 1% of the RRsets new records.
	Changed
	// NoOp syncs a zone that already holds exactly what is desired.
	NoOp
	// Deleted drops 10% of the RRsets from what is desired.
	Deleted
)

// Scenarios lists every scenario in order.
func Scenarios() []Scenario { return []Scenario{Initial, Changed, NoOp, Deleted} }

var scenarioNames = map[Scenario]string{
	Initial: "initial",
	Changed: "changed",
	NoOp:    "noop",
	Deleted: "deleted",
}

var scenarioTitles = map[Scenario]string{
	Initial: "initial sync",
	Changed: "1% changed",
	NoOp:    "no-op sync",
	Deleted: "10% deleted",
}

// String is the scenario's name in flags: initial, changed, noop, deleted.
func (s Scenario) String() string {
	if n, ok := scenarioNames[s]; ok {
		return n
	}
	return fmt.Sprintf("Scenario(%d)", int(s))
}

// Title is the scenario's name in reports.
func (s Scenario) Title() string {
	if t, ok := scenarioTitles[s]; ok {
		return t
	}
	return s.String()
}

// ParseScenario reads a scenario's String.
func ParseScenario(name string) (Scenario, error) {
	for s, n := range scenarioNames {
		if n == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown scenario %q: want initial, changed, noop or deleted", name)
}

// Change is one RRset a writer must write (Delete false) or delete.
type Change struct {
	Spec   Spec
	Delete bool
}

// Case is one scenario at one size: the zone before, what is desired, and
// what must change.
type Case struct {
	Scenario Scenario
	N        int
	// Start is what the zone holds before the sync, besides its SOA and
	// NS; every RRset of it owned by ManagedBy.
	Start []Spec
	// Desired is what the zone must hold after the sync, besides its SOA
	// and NS.
	Desired []Spec
	// Changes are the RRsets whose data differs between Start and
	// Desired: what the floor's one PATCH carries.
	Changes []Change
	// Objects are what a per-object controller reconciles in this
	// scenario: the objects that changed, as their watch events say; in a
	// no-op sync, which only a periodic resync or a restart causes, every
	// object.
	Objects []Change
}

// NewCase builds scenario s over the workload of n RRsets.
func NewCase(s Scenario, n int) (Case, error) {
	base := Workload(n)
	c := Case{Scenario: s, N: n, Start: base}
	switch s {
	case Initial:
		c.Start = nil
		c.Desired = base
		c.Changes = replaces(base)
		c.Objects = c.Changes
	case Changed:
		c.Desired = append([]Spec(nil), base...)
		// One RRset in every hundred, the types taking turns.
		for j := 0; 100*j < n; j++ {
			i := 100*j + j%10
			if i >= n {
				break
			}
			c.Desired[i] = spec(i, 1)
			c.Changes = append(c.Changes, Change{Spec: c.Desired[i]})
		}
		c.Objects = c.Changes
	case NoOp:
		c.Desired = base
		c.Objects = replaces(base)
	case Deleted:
		// One RRset in every ten, the types taking turns.
		for i, sp := range base {
			if i%10 == (i/10)%10 {
				c.Changes = append(c.Changes, Change{Spec: sp, Delete: true})
				continue
			}
			c.Desired = append(c.Desired, sp)
		}
		c.Objects = c.Changes
	default:
		return Case{}, fmt.Errorf("new case: %v is not a scenario", s)
	}
	return c, nil
}

func replaces(specs []Spec) []Change {
	out := make([]Change, len(specs))
	for i, s := range specs {
		out[i] = Change{Spec: s}
	}
	return out
}
