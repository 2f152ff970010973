package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Plan says what Run measures.
type Plan struct {
	// Rules say which writers run which scenarios at which sizes on which
	// servers, and how often; the first rule that covers a cell decides
	// its runs.
	Rules []Rule
	// Warmup is the number of untimed runs of each writer that is not per
	// object before the first scenario it runs at each size on each
	// server; a per-object writer's first requests warm the server
	// anyway.
	Warmup int
	// MaxBodyMB is the servers' webserver-max-bodysize, in MB; the
	// reconciler is told the same limit, and the floors split their
	// bodies under it as the reconciler does.
	MaxBodyMB int
	// Versions, when not empty, keeps only the servers whose version
	// starts with one of them; Backends only those of these backends.
	Versions, Backends []string
}

// Rule is one line of a Plan: Writers run Scenarios at Sizes on the
// servers On selects, Runs timed runs per cell.
type Rule struct {
	Writers   []WriterID
	Sizes     []int
	On        []Selector
	Scenarios []Scenario
	Runs      int
}

// Selector picks servers: "all"; a backend ("gsqlite3", "lmdb",
// "gpgsql"); a backend and a version prefix ("lmdb/4.9"); or a backend's
// newest server ("gsqlite3/newest"), which is the last one configured
// (PDNS_TEST_IMAGES and its kin list versions oldest first).
type Selector string

// ServerKey identifies a server of the matrix: a version on a backend.
type ServerKey struct {
	Backend, Version string
}

func (k ServerKey) String() string { return k.Version + " " + k.Backend }

// Matches reports whether s selects the server k; newest says whether k
// is the last configured server of its backend.
func (s Selector) Matches(k ServerKey, newest bool) bool {
	if s == "all" {
		return true
	}
	backend, version, hasVersion := strings.Cut(string(s), "/")
	if backend != k.Backend {
		return false
	}
	switch {
	case !hasVersion:
		return true
	case version == "newest":
		return newest
	default:
		return strings.HasPrefix(k.Version, version)
	}
}

// String renders r as ParseRules reads it, e.g.
// "a+c:1000+10000:all:initial+noop:15".
func (r Rule) String() string {
	ws := make([]string, len(r.Writers))
	for i, w := range r.Writers {
		ws[i] = w.Flag()
	}
	ns := make([]string, len(r.Sizes))
	for i, n := range r.Sizes {
		ns[i] = strconv.Itoa(n)
	}
	on := make([]string, len(r.On))
	for i, s := range r.On {
		on[i] = string(s)
	}
	sc := make([]string, len(r.Scenarios))
	for i, s := range r.Scenarios {
		sc[i] = s.String()
	}
	return fmt.Sprintf("%s:%s:%s:%s:%d", strings.Join(ws, "+"), strings.Join(ns, "+"), strings.Join(on, "+"), strings.Join(sc, "+"), r.Runs)
}

// ParseRules reads space-separated Rule strings:
// writers:sizes:servers:scenarios:runs, each list joined by "+",
// scenarios "all" for every scenario.
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, f := range strings.Fields(s) {
		r, err := parseRule(f)
		if err != nil {
			return nil, fmt.Errorf("plan rule %q: %w", f, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRule(f string) (Rule, error) {
	parts := strings.Split(f, ":")
	if len(parts) != 5 {
		return Rule{}, fmt.Errorf("want writers:sizes:servers:scenarios:runs")
	}
	var r Rule
	for _, name := range strings.Split(parts[0], "+") {
		w, err := ParseWriter(name)
		if err != nil {
			return Rule{}, err
		}
		r.Writers = append(r.Writers, w)
	}
	for _, size := range strings.Split(parts[1], "+") {
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 {
			return Rule{}, fmt.Errorf("size %q is not a positive number", size)
		}
		r.Sizes = append(r.Sizes, n)
	}
	for _, sel := range strings.Split(parts[2], "+") {
		if err := checkSelector(sel); err != nil {
			return Rule{}, err
		}
		r.On = append(r.On, Selector(sel))
	}
	if parts[3] == "all" {
		r.Scenarios = Scenarios()
	} else {
		for _, name := range strings.Split(parts[3], "+") {
			sc, err := ParseScenario(name)
			if err != nil {
				return Rule{}, err
			}
			r.Scenarios = append(r.Scenarios, sc)
		}
	}
	runs, err := strconv.Atoi(parts[4])
	if err != nil || runs < 1 {
		return Rule{}, fmt.Errorf("runs %q is not a positive number", parts[4])
	}
	r.Runs = runs
	return r, nil
}

// backends are the backends a Selector may name.
var backends = []string{"gsqlite3", "lmdb", "gpgsql", "gmysql"}

func checkSelector(sel string) error {
	if sel == "all" {
		return nil
	}
	backend, version, hasVersion := strings.Cut(sel, "/")
	if !slices.Contains(backends, backend) {
		return fmt.Errorf("servers %q: want all, a backend (%s), backend/newest or backend/<version prefix>", sel, strings.Join(backends, ", "))
	}
	if hasVersion && version == "" {
		return fmt.Errorf("servers %q: no version after the slash", sel)
	}
	return nil
}

// Restrict keeps only the given sizes (none: all) and caps every rule's
// runs at runs (0: no cap), for a quick run of a plan.
func (p Plan) Restrict(sizes []int, runs int) Plan {
	out := p
	out.Rules = nil
	for _, r := range p.Rules {
		if len(sizes) > 0 {
			r.Sizes = slices.DeleteFunc(slices.Clone(r.Sizes), func(n int) bool { return !slices.Contains(sizes, n) })
			if len(r.Sizes) == 0 {
				continue
			}
		}
		if runs > 0 {
			r.Runs = min(r.Runs, runs)
		}
		out.Rules = append(out.Rules, r)
	}
	return out
}

// Sizes lists every size of the plan, smallest first.
func (p Plan) Sizes() []int {
	var out []int
	for _, r := range p.Rules {
		out = append(out, r.Sizes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Selects reports whether the plan measures anything on server k, and
// whether the -versions and -backends filters keep it.
func (p Plan) Selects(k ServerKey, newest bool) bool {
	if len(p.Versions) > 0 && !slices.ContainsFunc(p.Versions, func(v string) bool { return strings.HasPrefix(k.Version, v) }) {
		return false
	}
	if len(p.Backends) > 0 && !slices.Contains(p.Backends, k.Backend) {
		return false
	}
	return len(p.SizesOn(k, newest)) > 0
}

// SizesOn lists the sizes the plan measures on server k, smallest first.
func (p Plan) SizesOn(k ServerKey, newest bool) []int {
	var out []int
	for _, r := range p.Rules {
		if r.runsOn(k, newest) {
			out = append(out, r.Sizes...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (r Rule) runsOn(k ServerKey, newest bool) bool {
	return slices.ContainsFunc(r.On, func(s Selector) bool { return s.Matches(k, newest) })
}

func (r Rule) covers(w WriterID, n int, s Scenario, k ServerKey, newest bool) bool {
	return slices.Contains(r.Writers, w) && slices.Contains(r.Sizes, n) && slices.Contains(r.Scenarios, s) && r.runsOn(k, newest)
}

// Planned is one writer in one cell, with its runs.
type Planned struct {
	Writer        WriterID
	Runs, Warmups int
}

// Cells lists the writers that run scenario s at size n on server k, in
// report order, each with its timed and untimed runs.
func (p Plan) Cells(k ServerKey, newest bool, n int, s Scenario) []Planned {
	var out []Planned
	for _, w := range Writers() {
		for _, r := range p.Rules {
			if !r.covers(w, n, s, k, newest) {
				continue
			}
			pl := Planned{Writer: w, Runs: r.Runs}
			if !w.PerObject() && p.firstScenario(w, n, k, newest) == s {
				pl.Warmups = p.Warmup
			}
			out = append(out, pl)
			break
		}
	}
	return out
}

// firstScenario is the first scenario w runs at size n on server k.
func (p Plan) firstScenario(w WriterID, n int, k ServerKey, newest bool) Scenario {
	for _, s := range Scenarios() {
		for _, r := range p.Rules {
			if r.covers(w, n, s, k, newest) {
				return s
			}
		}
	}
	return 0
}

// RunsAt counts the runs, timed and untimed, the plan makes on server
// k at size n: what its duration grows with.
func (p Plan) RunsAt(k ServerKey, newest bool, n int) (runs int) {
	for _, s := range Scenarios() {
		for _, c := range p.Cells(k, newest, n, s) {
			runs += c.Runs + c.Warmups
		}
	}
	return runs
}
