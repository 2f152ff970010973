package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// report is what one run did or would do, in a form both outputs render.
type report struct {
	Zone      string              `json:"zone"`
	ManagedBy string              `json:"managedBy"`
	File      string              `json:"file"`
	Applied   bool                `json:"applied"` // false: a dry run
	Changes   []rrset.Change      `json:"changes"` // planned, or applied
	Blocked   []conflict.Conflict `json:"blocked"`
	Refused   []refusal           `json:"refused"`
	Deferred  []deferral          `json:"deferred"`
	Postponed []rrset.Change      `json:"postponed"`
	// PostponedFor names the writers whose Sync held the zone.
	PostponedFor []string  `json:"postponedFor,omitempty"`
	Skipped      []skipped `json:"skipped"`
}

type refusal struct {
	Name       string    `json:"name"`
	Type       string    `json:"type"`
	Op         rrset.Op  `json:"op"`
	Problems   []problem `json:"problems"`
	Remembered bool      `json:"remembered,omitempty"`
}

// problem is one of PowerDNS's reasons for a refusal.
type problem struct {
	Reason  pdnserrors.Reason `json:"reason"`
	Message string            `json:"message"`
}

type deferral struct {
	Name   string                `json:"name"`
	Type   string                `json:"type"`
	Reason reconcile.DeferReason `json:"reason"`
}

func newReport(cfg *config, zf *zoneFile) *report {
	return &report{
		Zone: cfg.zone, ManagedBy: cfg.managedBy, File: cfg.file, Applied: cfg.apply,
		Changes: []rrset.Change{}, Blocked: []conflict.Conflict{}, Refused: []refusal{},
		Deferred: []deferral{}, Postponed: []rrset.Change{}, Skipped: append([]skipped{}, zf.skipped...),
	}
}

func (r *report) addRefused(rs []reconcile.Refusal) {
	for _, x := range rs {
		k := x.Change.Key()
		ps := make([]problem, 0, len(x.Problems))
		for _, p := range x.Problems {
			ps = append(ps, problem{Reason: p.Reason, Message: p.Message})
		}
		r.Refused = append(r.Refused, refusal{Name: k.Name, Type: k.Type, Op: x.Change.Op, Problems: ps, Remembered: x.Remembered})
	}
}

func (r *report) addDeferred(ds []reconcile.Deferral) {
	for _, d := range ds {
		r.Deferred = append(r.Deferred, deferral{Name: d.RRset.Name, Type: d.RRset.Type, Reason: d.Reason})
	}
}

// held reports whether anything was (or would be) not written: the exit
// code is then exitBlocked.
func (r *report) held() bool {
	return len(r.Blocked)+len(r.Refused)+len(r.Deferred)+len(r.Postponed) > 0
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *report) writeText(w io.Writer) {
	plan := rrset.Plan{Zone: r.Zone, ManagedBy: r.ManagedBy, Changes: r.Changes}
	switch {
	case r.Applied && len(r.Changes) == 0:
		fmt.Fprintf(w, "Nothing applied to %s by %s: no changes.\n", r.Zone, r.ManagedBy)
	case r.Applied:
		fmt.Fprintf(w, "Applied to %s by %s: %d created, %d updated, %d deleted.\n", r.Zone, r.ManagedBy,
			plan.Count(rrset.OpCreate), plan.Count(rrset.OpUpdate), plan.Count(rrset.OpDelete))
		for _, c := range r.Changes {
			fmt.Fprintln(w, c)
		}
	default:
		fmt.Fprint(w, plan)
	}
	section(w, "Blocked, not written:", r.Blocked, func(c conflict.Conflict) string { return c.String() })
	if hint := blockedHint(r.Blocked, r.ManagedBy); hint != "" {
		fmt.Fprintln(w, "  ("+hint+")")
	}
	section(w, "Refused by PowerDNS:", r.Refused, func(x refusal) string {
		msgs := make([]string, 0, len(x.Problems))
		for _, p := range x.Problems {
			msgs = append(msgs, p.Message)
		}
		s := x.Name + " " + x.Type + " " + x.Op.String() + ": " + strings.Join(msgs, "; ")
		if x.Remembered {
			s += " (refused before, not sent again)"
		}
		return s
	})
	section(w, "Deletes held back:", r.Deferred, func(d deferral) string {
		return d.Name + " " + d.Type + ": " + deferText(d.Reason)
	})
	if len(r.Postponed) > 0 {
		fmt.Fprintf(w, "Postponed: %d change(s), %s writing to the zone; run again.\n",
			len(r.Postponed), strings.Join(r.PostponedFor, ", "))
	}
	section(w, "Skipped from "+r.File+":", r.Skipped, func(s skipped) string {
		return fmt.Sprintf("line %d: %s %s: %s", s.Line, s.Name, s.Type, s.Reason)
	})
	if !r.Applied {
		if len(r.Changes) > 0 {
			fmt.Fprintln(w, "Dry run: nothing was written. Run again with -apply to write these changes.")
		} else {
			fmt.Fprintln(w, "Dry run: nothing was written.")
		}
	}
}

// blockedHint names the flag that would let blocked writes through, where
// one would: never for another writer's data.
func blockedHint(blocked []conflict.Conflict, writer string) string {
	var unowned, own, other bool
	for _, c := range blocked {
		if c.Kind == conflict.Unowned {
			unowned = true
		}
		for _, rr := range c.With {
			switch rr.ManagedBy {
			case "":
				unowned = true
			case writer:
				own = true
			default:
				other = true
			}
		}
	}
	switch {
	case other || len(blocked) == 0:
		return ""
	case unowned:
		return "-adopt lets the writer take RRsets no writer holds, and -adopt -takeover replace them"
	case own:
		return "-takeover lets a write replace the writer's own RRsets in its way"
	}
	return ""
}

func deferText(r reconcile.DeferReason) string {
	switch r {
	case reconcile.DeferGuard:
		return "this run would delete over 30% of the writer's RRsets in the zone; -force-deletes lets it"
	default:
		return string(r)
	}
}

func section[T any](w io.Writer, title string, items []T, render func(T) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	for _, it := range items {
		fmt.Fprintln(w, "  "+render(it))
	}
}
