package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Plan says what Run measures.
type Plan struct {
	Sizes     []int
	Scenarios []Scenario
	// Fast are the writers that run in every scenario at every size on
	// every server: Sync and Floor.
	Fast []WriterID
	// Slow says where the writers that make a request per RRset run.
	Slow []SlowRun
	// Runs are the timed runs per cell of a fast writer, SlowRuns those of
	// a slow one, whose run is hundreds or thousands of requests: fewer of
	// them keep the benchmark within minutes. Warmup is the number of
	// untimed runs of each fast writer before the first scenario at each
	// size on each server; a slow writer's first requests warm the server
	// anyway.
	Runs, SlowRuns, Warmup int
	// MaxBodyMB is the servers' webserver-max-bodysize, in MB; the
	// reconciler is told the same limit.
	MaxBodyMB int
	// Versions, when not empty, keeps only the servers whose version
	// starts with one of them.
	Versions []string
}

// SlowRun is where a slow writer runs: in Scenarios at size N on the
// servers On names: "all", "newest" (the last configured server) or a
// version prefix such as "5.1".
type SlowRun struct {
	Writer    WriterID
	N         int
	On        string
	Scenarios []Scenario
}

// String renders r as ParseSlowRuns reads it, e.g. "b:1000:all:initial+noop".
func (r SlowRun) String() string {
	names := make([]string, len(r.Scenarios))
	for i, s := range r.Scenarios {
		names[i] = s.String()
	}
	return fmt.Sprintf("%s:%d:%s:%s", r.Writer.Flag(), r.N, r.On, strings.Join(names, "+"))
}

// ParseSlowRuns reads space-separated SlowRun strings.
func ParseSlowRuns(s string) ([]SlowRun, error) {
	var out []SlowRun
	for _, f := range strings.Fields(s) {
		parts := strings.Split(f, ":")
		if len(parts) != 4 {
			return nil, fmt.Errorf("slow run %q: want writer:size:servers:scenario+scenario…", f)
		}
		w, err := ParseWriter(parts[0])
		if err != nil {
			return nil, err
		}
		if !w.Slow() {
			return nil, fmt.Errorf("slow run %q: writer %s runs everywhere already", f, parts[0])
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("slow run %q: size %q is not a positive number", f, parts[1])
		}
		r := SlowRun{Writer: w, N: n, On: parts[2]}
		for _, name := range strings.Split(parts[3], "+") {
			sc, err := ParseScenario(name)
			if err != nil {
				return nil, fmt.Errorf("slow run %q: %w", f, err)
			}
			r.Scenarios = append(r.Scenarios, sc)
		}
		out = append(out, r)
	}
	return out, nil
}

// writers lists the writers that run scenario s at size n on a server of
// version; last is true for the last configured server.
func (p Plan) writers(n int, s Scenario, version string, last bool) []WriterID {
	var out []WriterID
	for _, w := range Writers() {
		if slices.Contains(p.Fast, w) {
			out = append(out, w)
			continue
		}
		for _, r := range p.Slow {
			if r.Writer == w && r.N == n && slices.Contains(r.Scenarios, s) && r.runsOn(version, last) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func (r SlowRun) runsOn(version string, last bool) bool {
	switch r.On {
	case "all":
		return true
	case "newest":
		return last
	default:
		return strings.HasPrefix(version, r.On)
	}
}

// runs is the number of timed runs of writer w in a cell.
func (p Plan) runs(w WriterID) int {
	if w.Slow() {
		return p.SlowRuns
	}
	return p.Runs
}

// warmups is the number of untimed runs of writer w in scenario s.
func (p Plan) warmups(w WriterID, s Scenario) int {
	if w.Slow() || len(p.Scenarios) == 0 || s != p.Scenarios[0] {
		return 0
	}
	return p.Warmup
}
