package conflict

import (
	"strings"

	"github.com/pdnskit/reconcile/rrset"
)

// Occlusion: resolvers never see data below a delegation (an NS RRset at a
// name other than the zone apex) or below a DNAME: the authoritative server
// answers a query for such a name with a referral or a synthesised CNAME
// instead. PowerDNS stores it without a word. The exception is glue: an A
// or AAAA at a name that the delegation's own NS records point to, which
// PowerDNS hands out with the referral.

// standing is the NS and DNAME data at one name after the plan: live RRsets
// that stay, and writes of the plan that go.
type standing struct {
	live, writes []rrset.RRset
}

// occlusion records, as a finding of w's own, the data that would hide w
// and the other writers' data that w would hide.
func (j *judge) occlusion(w *write) {
	if j.opts.allowed(Occluded) {
		return
	}
	for _, a := range ancestors(w.rr.Name, j.apex) {
		st := j.above(a)
		for _, rr := range st.live {
			if j.hides(rr, w.rr) {
				f := w.find(Occluded)
				f.own = true
				f.With = append(f.With, rr)
			}
		}
		for _, rr := range st.writes {
			if j.hides(rr, w.rr) {
				f := w.find(Occluded)
				f.own = true
				f.Desired = append(f.Desired, rr)
			}
		}
	}
	if !j.hidesBelow(w.rr) {
		return
	}
	for _, rr := range j.below(w.rr.Name) {
		if j.hides(w.rr, rr) {
			f := w.find(Occluded)
			f.own = true
			f.With = append(f.With, rr)
		}
	}
}

// hidesBelow reports whether top, at its name, hides what is below it.
func (j *judge) hidesBelow(top rrset.RRset) bool {
	switch top.Type {
	case "DNAME":
		return true
	case "NS":
		// Without a known apex an NS may be the apex's own.
		return j.apex != "" && top.Name != j.apex
	}
	return false
}

// hides reports whether top, at an ancestor of data's name, hides data.
func (j *judge) hides(top, data rrset.RRset) bool {
	if !j.hidesBelow(top) {
		return false
	}
	return top.Type != "NS" || !isGlue(top, data)
}

// isGlue reports whether data is an address of a name that the NS RRset
// ns points to.
func isGlue(ns, data rrset.RRset) bool {
	if !isAddress(data.Type) {
		return false
	}
	for _, target := range ns.Records {
		t := strings.ToLower(target)
		if !strings.HasSuffix(t, ".") {
			t += "."
		}
		if t == data.Name {
			return true
		}
	}
	return false
}

// othersData reports whether rr is data the writer may not delete: another
// writer's, or, without adoption, no writer's.
func (j *judge) othersData(rr rrset.RRset) bool {
	return rr.ManagedBy != j.writer && (rr.ManagedBy != "" || !j.opts.adopt)
}

// Ancestors returns the names above name, closest first, up to and
// including the apex of zone. They are the names at which Check and
// Against look for an NS or a DNAME that would hide data written at name
// (Occluded). A
// caller that reads live data name by name reads these too. Both names
// may be spelled in any way CanonicalName accepts; nil when either does
// not canonicalise, and for the apex itself.
func Ancestors(zone, name string) []string {
	z, err := rrset.CanonicalZone(zone)
	if err != nil {
		return nil
	}
	n, err := rrset.CanonicalName(z, name)
	if err != nil {
		return nil
	}
	return ancestors(n, z)
}

// ancestors returns the names above name, closest first, up to and
// including apex; nil when name is not below apex. With no apex (""), every
// name above name but the root.
func ancestors(name, apex string) []string {
	var out []string
	for p, ok := parent(name); ok; p, ok = parent(p) {
		if p == apex {
			return append(out, p)
		}
		if p == "." {
			break
		}
		out = append(out, p)
	}
	if apex != "" {
		return nil
	}
	return out
}

// parent returns the name one label above a canonical absolute name, whose
// labels may hold escaped dots; false for the root.
func parent(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '\\':
			i++
		case '.':
			if i+1 == len(name) {
				if i == 0 {
					return "", false
				}
				return ".", true
			}
			return name[i+1:], true
		}
	}
	return "", false
}

// isBelow reports whether name is strictly below top; both canonical.
func isBelow(name, top string) bool {
	if top == "." {
		return name != "."
	}
	if !strings.HasSuffix(name, "."+top) {
		return false
	}
	// The dot before top must be a separator, not an escaped one.
	for _, a := range ancestors(name, "") {
		if a == top {
			return true
		}
	}
	return false
}

// compareNames orders canonical names as a Set does (RFC 4034 §6.1): label
// by label from the right, a name before the names below it.
func compareNames(a, b string) int {
	la, lb := labels(a), labels(b)
	for i := 0; i < len(la) && i < len(lb); i++ {
		if c := strings.Compare(la[len(la)-1-i], lb[len(lb)-1-i]); c != 0 {
			return c
		}
	}
	return len(la) - len(lb)
}

// labels splits a canonical absolute name into its labels, left to right.
func labels(name string) []string {
	var out []string
	for p, ok := parent(name); ok; p, ok = parent(p) {
		n := len(name) - len(p)
		if p != "." {
			n-- // the separator
		}
		out = append(out, strings.TrimSuffix(name[:n], "."))
		name = p
	}
	return out
}
