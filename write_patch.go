package reconcile

import (
	"context"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// unit is the changes at one name. PowerDNS judges its rules per name, so a
// unit is applied or refused as a whole, and its deletes come first.
type unit struct {
	name    string
	changes []rrset.Change
	// entries are the changes as PATCH entries, built once: a unit may be
	// sent more than once while refusals are isolated.
	entries []powerdns.RRset
	size    int // bytes the entries take in a PATCH body
}

// units groups changes by name, in their order (deletes first, then by name
// and type), and sizes each group's PATCH entries, rendered by entry.
func units(changes []rrset.Change, entry func(rrset.Change) powerdns.RRset) []unit {
	index := make(map[string]int)
	var out []unit
	for _, c := range changes {
		name := c.Key().Name
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, unit{name: name})
		}
		out[i].changes = append(out[i].changes, c)
	}
	for i := range out {
		u := &out[i]
		// Within a name, deletes first: PowerDNS accepts [DELETE A,
		// REPLACE CNAME] and refuses the reverse.
		slices.SortStableFunc(u.changes, func(a, b rrset.Change) int { return deleteRank(a) - deleteRank(b) })
		u.entries = make([]powerdns.RRset, len(u.changes))
		for j, c := range u.changes {
			u.entries[j] = entry(c)
			u.size += patchEntrySize(u.entries[j])
		}
	}
	return out
}

// patchEnvelope is what a PATCH body holds besides its RRsets:
// {"rrsets":[…]} and a newline.
const patchEnvelope = len(`{"rrsets":[]}`) + 1

// batches packs units, in order, into PATCH bodies no larger than limit;
// normally that is one batch.
func batches(units []unit, limit int) [][]unit {
	var out [][]unit
	var cur []unit
	size := patchEnvelope
	for _, u := range units {
		if len(cur) > 0 && size+u.size+1 > limit {
			out = append(out, cur)
			cur, size = nil, patchEnvelope
		}
		cur = append(cur, u)
		size += u.size + 1 // the comma
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// body is the PATCH entries of units, deletes first.
func body(units []unit) []powerdns.RRset {
	n := 0
	for _, u := range units {
		n += len(u.entries)
	}
	out := make([]powerdns.RRset, 0, n)
	for _, deletes := range []bool{true, false} {
		for _, u := range units {
			for j, c := range u.changes {
				if (c.Op == rrset.OpDelete) == deletes {
					out = append(out, u.entries[j])
				}
			}
		}
	}
	return out
}

// outcome is what sending a batch came to.
type outcome struct {
	applied []rrset.Change
	refused []refusedUnit
}

type refusedUnit struct {
	unit     unit
	problems []pdnserrors.Problem
}

// sendBatch sends units as one PATCH through send. When PowerDNS refuses
// it, the units its problems name are refused and the rest is sent again;
// when the problems name none of them, the batch is bisected. A unit sent
// alone and refused is reported with the problems. Other failures end the
// batch with an error.
func sendBatch(ctx context.Context, units []unit, send func(context.Context, []powerdns.RRset) error, out *outcome) error {
	if len(units) == 0 {
		return nil
	}
	err := send(ctx, body(units))
	if err == nil {
		for _, u := range units {
			out.applied = append(out.applied, u.changes...)
		}
		return nil
	}
	apiErr, ok := isRefusal(err)
	if !ok {
		return err
	}
	if len(units) == 1 {
		out.refused = append(out.refused, refusedUnit{units[0], apiErr.Problems})
		return nil
	}
	if !apiErr.TooLarge() { // a body too large names nothing
		named, rest := splitNamed(units, apiErr.Problems)
		if len(named) > 0 {
			for _, u := range named {
				out.refused = append(out.refused, refusedUnit{u, problemsAbout(u.name, apiErr.Problems)})
			}
			return sendBatch(ctx, rest, send, out)
		}
	}
	half := len(units) / 2
	if err := sendBatch(ctx, units[:half], send, out); err != nil {
		return err
	}
	return sendBatch(ctx, units[half:], send, out)
}

// isRefusal reports whether err is PowerDNS refusing the content of a PATCH
// (as opposed to the request failing), and so can be isolated to RRsets.
func isRefusal(err error) (*pdnserrors.APIError, bool) {
	apiErr, ok := pdnserrors.AsAPIError(err)
	if !ok || !apiErr.RefusesContent() {
		return nil, false
	}
	return apiErr, true
}

// splitNamed separates the units whose name a problem names.
func splitNamed(units []unit, problems []pdnserrors.Problem) (named, rest []unit) {
	names := make(map[string]bool, len(problems))
	for _, p := range problems {
		if p.Name != "" {
			names[strings.ToLower(p.Name)] = true
		}
	}
	for _, u := range units {
		if names[u.name] {
			named = append(named, u)
		} else {
			rest = append(rest, u)
		}
	}
	return named, rest
}

// problemsAbout returns the problems naming name.
func problemsAbout(name string, problems []pdnserrors.Problem) []pdnserrors.Problem {
	var out []pdnserrors.Problem
	for _, p := range problems {
		if strings.EqualFold(p.Name, name) {
			out = append(out, p)
		}
	}
	return out
}

// patchEntry renders a change as the API's RRset: a DELETE, or a REPLACE
// with every record enabled and, when comments record ownership, the
// writer's ownership comment and the RRset's note next to its other
// comments.
func patchEntry(c rrset.Change, foreign []powerdns.Comment, withComments bool) powerdns.RRset {
	k := c.Key()
	out := powerdns.RRset{Name: powerdns.String(k.Name), Type: powerdns.RRTypePtr(powerdns.RRType(k.Type))}
	if c.Op == rrset.OpDelete {
		out.ChangeType = powerdns.ChangeTypePtr(powerdns.ChangeTypeDelete)
		return out
	}
	out.ChangeType = powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace)
	out.TTL = powerdns.Uint32(c.New.TTL)
	out.Records = make([]powerdns.Record, len(c.New.Records))
	for i, content := range c.New.Records {
		out.Records[i] = powerdns.Record{Content: powerdns.String(content), Disabled: powerdns.Bool(false)}
	}
	if withComments {
		out.Comments = comments(c.New, foreign)
	}
	return out
}
