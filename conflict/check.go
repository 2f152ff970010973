package conflict

import (
	"slices"
	"strings"

	"github.com/pdnskit/reconcile/rrset"
)

// Result is what Check decided.
type Result struct {
	// Plan holds the changes that may be sent, in the order PowerDNS must
	// apply them. They are Diff's changes without the blocked writes, plus
	// the deletes Takeover adds; deletes first, then by name and type.
	Plan rrset.Plan `json:"plan"`
	// Conflicts lists why each blocked write is blocked, by key in plan
	// order, then by kind. Empty when nothing is blocked.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Displaced are the live RRsets Plan deletes under Takeover to make
	// room for a write, in canonical order. Diff's own deletes are not
	// among them.
	Displaced []rrset.RRset `json:"displaced,omitempty"`
}

// Blocked reports whether the write at k was blocked.
func (r Result) Blocked(k rrset.Key) bool {
	for _, c := range r.Conflicts {
		if c.Key == k {
			return true
		}
	}
	return false
}

// Check diffs desired against live for writer (rrset.Diff) and keeps the
// changes that break no rule. Each write is judged on the zone as it would
// stand after the plan. A nil Set is empty.
//
// Blame follows what changes: a write that collides with live data the plan
// leaves in place is blocked, and the live data is not touched; two writes
// of the plan that collide with each other are both blocked, whatever else
// blocks either, since the desired set contradicts itself; a write whose
// key is held by another writer (or by none, without adoption) is blocked
// whatever its data, and the live RRset at its key stays, for the other
// writes to be judged against. Deletes are never blocked. A blocked write
// has one Conflict per rule it breaks.
//
// Occluded needs live to hold the NS and DNAME RRsets at the names above
// each write, up to the apex (Ancestors), and, for a write of NS or DNAME,
// the RRsets below its name; what live leaves out is not judged.
//
// writer should not be empty: like Diff, Check then takes every RRset with
// no writer recorded for the writer's own.
//
// Cost: Diff's, plus O(c log c) for c changes and one lookup by name in
// live per name a write touches (the first lookup in a Set builds its index
// by name, once).
func Check(desired, live *rrset.Set, writer string, opts ...CheckOption) Result {
	return CheckPlan(rrset.Diff(desired, live, writer), live, opts...)
}

// CheckPlan judges a plan that Diff made against the live Set it came from,
// by the rules of Check, and returns what may be sent. The writer is
// plan.ManagedBy. The plan may have lost changes on the way (a caller's policy that
// holds some deletes back, or a plan narrowed to some keys): a live RRset
// whose delete is not in the plan stays, and writes are judged next to it.
// Check is CheckPlan of Diff.
func CheckPlan(plan rrset.Plan, live *rrset.Set, opts ...CheckOption) Result {
	o := checkOptions(opts)
	writer := plan.ManagedBy
	j := &judge{
		opts:    o,
		writer:  writer,
		apex:    plan.Zone,
		changes: plan.Changes,
		blocked: make([]bool, len(plan.Changes)),
	}
	disabled := indexDisabled(plan.Zone, o.disabled)
	sites, deleted := j.sites()
	j.standing = make(map[string]standing)
	j.above = func(name string) standing {
		if st, ok := j.standing[name]; ok {
			return st
		}
		var st standing
		for _, rr := range live.ByName(name) {
			if (rr.Type == "NS" || rr.Type == "DNAME") && !slices.Contains(deleted[name], rr.Type) {
				st.live = append(st.live, rr)
			}
		}
		return st
	}
	j.below = j.belowIn(live, sites)
	// Ancestors first, so that the NS and DNAME data standing at a name is
	// known before the names below it are judged.
	slices.SortStableFunc(sites, func(a, b *site) int { return depth(a.name) - depth(b.name) })
	for _, s := range sites {
		writes := make([]*write, 0, len(s.writes))
		for _, i := range s.writes {
			c := j.changes[i]
			w := &write{idx: i, rr: *c.New}
			switch {
			case c.Op == rrset.OpUpdate && c.Old != nil:
				w.holders = []rrset.RRset{*c.Old}
			case c.Op == rrset.OpCreate:
				w.holders = disabled[w.rr.Key()]
			}
			writes = append(writes, w)
		}
		j.judgeSite(s.name, live.ByName(s.name), s.deleted, writes)
	}
	j.finish()
	return j.result(plan)
}

// belowIn returns, for a name where the plan writes NS or DNAME, the live
// RRsets below it that are other writers' data, in canonical order. The
// index is built on first use, in one walk over live.
func (j *judge) belowIn(live *rrset.Set, sites []*site) func(string) []rrset.RRset {
	var index map[string][]rrset.RRset
	return func(name string) []rrset.RRset {
		if index == nil {
			index = make(map[string][]rrset.RRset)
			tops := make(map[string]bool)
			for _, s := range sites {
				for _, i := range s.writes {
					if t := j.changes[i].New.Type; t == "NS" || t == "DNAME" {
						tops[s.name] = true
					}
				}
			}
			for rr := range live.All() {
				if !j.othersData(rr) {
					continue
				}
				for _, a := range ancestors(rr.Name, j.apex) {
					if tops[a] {
						index[a] = append(index[a], rr)
					}
				}
			}
		}
		return index[name]
	}
}

// depth counts the labels of a canonical name.
func depth(name string) int {
	n := 0
	for p, ok := parent(name); ok; p, ok = parent(p) {
		n++
	}
	return n
}

// judge holds one Check, or one Against.
type judge struct {
	opts    options
	writer  string
	apex    string // "" when unknown (Against without a zone)
	changes []rrset.Change

	// above returns the NS and DNAME data at a name above a write, as it
	// stands after the plan; below the other writers' data below a name.
	above func(name string) standing
	below func(name string) []rrset.RRset
	// standing holds what above answers for the names judged so far
	// (Check only).
	standing map[string]standing

	blocked   []bool // per write index
	byWrite   map[int][]Conflict
	conflicts []Conflict
	displaced []rrset.RRset
}

// site is one name the plan writes at.
type site struct {
	name    string
	deleted []string // types the plan deletes at the name
	writes  []int    // indexes of the creates and updates at the name
}

// sites groups the plan by name, in the plan's order of writes, and
// returns the types the plan deletes per name.
func (j *judge) sites() ([]*site, map[string][]string) {
	byName := make(map[string]*site)
	var out []*site
	get := func(name string) *site {
		s, ok := byName[name]
		if !ok {
			s = &site{name: name}
			byName[name] = s
		}
		return s
	}
	for i, c := range j.changes {
		k := c.Key()
		switch {
		case c.Op == rrset.OpDelete:
			s := get(k.Name)
			s.deleted = append(s.deleted, k.Type)
		case c.New != nil:
			s := get(k.Name)
			if len(s.writes) == 0 {
				out = append(out, s)
			}
			s.writes = append(s.writes, i)
		}
	}
	deleted := make(map[string][]string)
	for name, s := range byName {
		if len(s.deleted) > 0 {
			deleted[name] = s.deleted
		}
	}
	return out, deleted
}

// indexDisabled keys the disabled RRsets canonically in zone, as the
// plan's keys are; a key may have several claimants.
func indexDisabled(zone string, disabled []rrset.RRset) map[rrset.Key][]rrset.RRset {
	if len(disabled) == 0 {
		return nil
	}
	out := make(map[rrset.Key][]rrset.RRset, len(disabled))
	for _, rr := range disabled {
		k := canonicalKey(zone, rr.Name, rr.Type)
		rr.Name, rr.Type = k.Name, k.Type
		out[k] = append(out[k], rr)
	}
	return out
}

// write is one create or update being judged.
type write struct {
	idx int
	rr  rrset.RRset
	// holders are the RRsets that hold its key: live, or, when none is
	// live, disabled. They decide ownership.
	holders []rrset.RRset
	// replaces are the live RRsets at its key that it replaces if it goes,
	// and that stay if it is blocked.
	replaces []rrset.RRset
	findings []finding
	// held: blocked on its own (its key or its data), before any
	// collision is judged; its live RRset, if any, stays.
	held    bool
	blocked bool
	// internal: it collides with another write of the plan; hard: with
	// live data Takeover may not delete.
	internal, hard bool
	victims        []int // entries Takeover would delete for it
}

// finding is a Conflict in the making.
type finding struct {
	Conflict
	// own: the rule concerns the write alone (its key or its data), and
	// holds whatever else is deleted.
	own bool
}

func (w *write) find(k Kind) *finding {
	for i := range w.findings {
		if w.findings[i].Kind == k {
			return &w.findings[i]
		}
	}
	w.findings = append(w.findings, finding{Conflict: Conflict{Key: w.rr.Key(), Kind: k, RRset: w.rr}})
	return &w.findings[len(w.findings)-1]
}

// entry is an RRset at the site: live data the plan leaves, or a write.
type entry struct {
	rr    rrset.RRset
	write *write // nil for live data
	// pinned: live data at the key of a held write, which Takeover must
	// not delete since the writer asked for that key.
	pinned bool
	victim bool
}

// judgeSite judges the writes at one name against live, the RRsets at the
// name (several may share a key), of which the plan deletes the types in
// deleted.
func (j *judge) judgeSite(name string, live []rrset.RRset, deleted []string, writes []*write) {
	atApex := name == j.apex
	for _, w := range writes {
		j.ownership(w)
		for _, k := range selfKinds(w.rr, atApex) {
			w.find(k).own = true
		}
		j.occlusion(w)
		w.held = len(w.findings) > 0
		w.blocked = w.held
	}
	writeOf := func(typ string) *write {
		for _, w := range writes {
			if w.rr.Type == typ {
				return w
			}
		}
		return nil
	}

	// Live data stays unless the plan deletes it or replaces it with a
	// write that may go. Every write is an entry, held or not: two writes
	// that collide are both blocked, whatever else blocks either, since
	// the desired set contradicts itself.
	var entries []*entry
	for _, l := range live {
		if slices.Contains(deleted, l.Type) {
			continue
		}
		w := writeOf(l.Type)
		if w != nil && !w.held {
			w.replaces = append(w.replaces, l)
			continue
		}
		entries = append(entries, &entry{rr: l, pinned: w != nil})
	}
	for _, w := range writes {
		entries = append(entries, &entry{rr: w.rr, write: w})
	}
	slices.SortStableFunc(entries, func(a, b *entry) int { return strings.Compare(a.rr.Type, b.rr.Type) })

	for _, w := range writes {
		j.collide(w, entries, atApex)
	}
	for _, w := range writes {
		if w.blocked || len(w.findings) == 0 {
			continue
		}
		if j.opts.policy != Takeover || w.internal || w.hard {
			w.blocked = true
			continue
		}
		for _, v := range w.victims {
			entries[v].victim = true
		}
	}
	if !atApex {
		j.nsAndDNAME(writes, entries)
	}
	j.emit(writes, entries)
	if j.standing != nil {
		j.standing[name] = standingAt(entries)
	}
}

// standingAt returns the NS and DNAME data a site holds once judged: live
// data that stays, and the writes that go.
func standingAt(entries []*entry) standing {
	var st standing
	keep := func(rr rrset.RRset) bool { return rr.Type == "NS" || rr.Type == "DNAME" }
	for _, e := range entries {
		switch {
		case e.victim || !keep(e.rr):
		case e.write == nil:
			st.live = append(st.live, e.rr)
		case !e.write.blocked:
			st.writes = append(st.writes, e.rr)
		case !e.write.held:
			// A blocked write leaves the live RRsets at its key in place.
			st.live = append(st.live, e.write.replaces...)
		}
	}
	return st
}

// ownership holds a write at a key held by another writer, or by none:
// each holder that is not the writer's own is listed.
func (j *judge) ownership(w *write) {
	for _, holder := range w.holders {
		kind := Kind("")
		switch {
		case holder.ManagedBy == j.writer:
		case holder.ManagedBy != "":
			kind = NotOwner
		case !j.opts.adopt:
			kind = Unowned
		}
		if kind == "" || j.opts.allowed(kind) {
			continue
		}
		f := w.find(kind)
		f.own = true
		f.With = append(f.With, holder)
	}
}

// collide records what w collides with at its name.
func (j *judge) collide(w *write, entries []*entry, atApex bool) {
	for i, e := range entries {
		k := pairKind(w.rr.Type, e.rr.Type, atApex)
		if k == "" || j.opts.allowed(k) {
			continue
		}
		f := w.find(k)
		if e.write != nil {
			f.Desired = append(f.Desired, e.rr)
			w.internal = true
			continue
		}
		f.With = append(f.With, e.rr)
		w.victims = append(w.victims, i)
		if !j.deletable(e) {
			w.hard = true
		}
	}
}

// deletable reports whether Takeover may delete e for the writer.
func (j *judge) deletable(e *entry) bool {
	if e.pinned || e.write != nil {
		return false
	}
	return e.rr.ManagedBy == j.writer || (e.rr.ManagedBy == "" && j.opts.adopt)
}

// nsAndDNAME blocks every write at a name below the apex that would still
// hold both NS and DNAME, and says so even for writes blocked already:
// PowerDNS checks the whole name on each write, whatever the type written.
// Only live data can get there, since a write of either type next to the
// other is blocked or takes the other over.
func (j *judge) nsAndDNAME(writes []*write, entries []*entry) {
	var ns, dname []rrset.RRset
	add := func(rr rrset.RRset) {
		switch rr.Type {
		case "NS":
			ns = append(ns, rr)
		case "DNAME":
			dname = append(dname, rr)
		}
	}
	for _, e := range entries {
		switch {
		case e.victim:
		case e.write == nil:
			add(e.rr)
		case e.write.blocked && !e.write.held:
			// A blocked write leaves the live RRsets at its key in place.
			// (A write that goes is judged by collide; a held one left
			// them as pinned entries.)
			for _, rr := range e.write.replaces {
				add(rr)
			}
		}
	}
	if len(ns) == 0 || len(dname) == 0 {
		return
	}
	for _, w := range writes {
		w.blocked = true
		if slices.ContainsFunc(w.findings, func(f finding) bool { return f.Kind == NSAndDNAME }) {
			continue
		}
		f := w.find(NSAndDNAME)
		f.own = true
		f.With = slices.Concat(dname, ns)
	}
	for _, e := range entries {
		e.victim = false
	}
}

// emit records the site's verdicts. A blocked write does not list what the
// plan deletes, which it no longer collides with.
func (j *judge) emit(writes []*write, entries []*entry) {
	for _, e := range entries {
		if e.victim {
			j.displaced = append(j.displaced, e.rr)
		}
	}
	for _, w := range writes {
		if !w.blocked {
			continue
		}
		j.blocked[w.idx] = true
		var out []Conflict
		for _, f := range w.findings {
			if len(j.displaced) > 0 {
				f.With = slices.DeleteFunc(f.With, func(rr rrset.RRset) bool {
					return slices.ContainsFunc(entries, func(e *entry) bool {
						return e.victim && e.write == nil && e.rr.Key() == rr.Key()
					})
				})
			}
			if !f.own && len(f.With) == 0 && len(f.Desired) == 0 {
				continue
			}
			out = append(out, f.Conflict)
		}
		slices.SortStableFunc(out, compareConflicts)
		if j.byWrite == nil {
			j.byWrite = make(map[int][]Conflict)
		}
		j.byWrite[w.idx] = out
	}
}

// finish lists the conflicts by write, in plan order, which is canonical:
// by key.
func (j *judge) finish() {
	for i := range j.blocked {
		j.conflicts = append(j.conflicts, j.byWrite[i]...)
	}
}

// result assembles the allowed plan.
func (j *judge) result(diff rrset.Plan) Result {
	plan := rrset.Plan{Zone: diff.Zone, ManagedBy: diff.ManagedBy, Changes: make([]rrset.Change, 0, len(diff.Changes)+len(j.displaced))}
	for _, c := range diff.Changes {
		if c.Op == rrset.OpDelete {
			plan.Changes = append(plan.Changes, c)
		}
	}
	var displaced []rrset.RRset
	if len(j.displaced) > 0 {
		for _, rr := range j.displaced {
			old := rr
			plan.Changes = append(plan.Changes, rrset.Change{Op: rrset.OpDelete, Old: &old})
		}
		plan.Changes = sortDeletes(plan.Zone, plan.Changes)
		displaced = sortRRsets(plan.Zone, j.displaced)
	}
	for i, c := range diff.Changes {
		if c.Op != rrset.OpDelete && !j.blocked[i] {
			plan.Changes = append(plan.Changes, c)
		}
	}
	return Result{Plan: plan, Conflicts: j.conflicts, Displaced: displaced}
}
