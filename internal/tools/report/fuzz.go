package report

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// FuzzTarget is one fuzz test of the module.
type FuzzTarget struct {
	// Package is its import path, Name its function.
	Package, Name string
}

func (f FuzzTarget) String() string { return f.Package + "." + f.Name }

// FuzzResult is what one fuzz campaign did.
type FuzzResult struct {
	Target FuzzTarget
	Budget time.Duration
	// Execs counts the inputs run, as go test -fuzz last reported them;
	// Interesting the inputs that widened coverage (new, of the total in
	// the corpus).
	Execs                  int64
	NewInteresting, Corpus int
	Elapsed                time.Duration
	// BaselineDone and BaselineOf are how far go test got running the
	// corpus it has (seeds, testdata/fuzz and its cache) before fuzzing
	// (BaselineDone < BaselineOf when the budget ran out first, and Execs
	// is then 0).
	BaselineDone, BaselineOf int
	Failed                   bool
	// Crasher is where go test wrote the failing input (testdata/fuzz/…),
	// which plain go test replays from then on.
	Crasher string
	// Output is the end of go test's output when the campaign failed.
	Output string
	// DeadlineRaces counts the campaigns of this target that Go's fuzzing
	// coordinator ended with "context deadline exceeded" at the end of the
	// budget and no input written (go.dev/issue/75804, fixed in Go 1.27:
	// under CPU starvation a worker still busy when -fuzztime runs out is
	// reported as a failure). Such a campaign found nothing and is run
	// again, up to maxDeadlineRaces times; the fields above are the last
	// campaign's, and RaceOutput the end of the first raced one.
	DeadlineRaces int
	RaceOutput    string
}

// maxDeadlineRaces bounds how often a campaign ended by Go's fuzzing
// deadline race is run again before its failure is reported as it is.
const maxDeadlineRaces = 2

// ListFuzzTargets lists every fuzz test of the packages (as go test -list
// '^Fuzz' finds them), run from dir.
func ListFuzzTargets(ctx context.Context, dir string, packages ...string) ([]FuzzTarget, error) {
	if len(packages) == 0 {
		packages = []string{"./..."}
	}
	args := append([]string{"test", "-run", "^$", "-list", "^Fuzz"}, packages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -list: %w\n%s", err, tail(string(out), 30))
	}
	var (
		targets []FuzzTarget
		pending []string
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Fuzz"):
			pending = append(pending, strings.TrimSpace(line))
		case strings.HasPrefix(line, "ok "):
			f := strings.Fields(line)
			if len(f) >= 2 {
				for _, name := range pending {
					targets = append(targets, FuzzTarget{Package: f[1], Name: name})
				}
			}
			pending = nil
		default:
			pending = nil
		}
	}
	return targets, nil
}

var (
	execsLine    = regexp.MustCompile(`fuzz: elapsed: (\d+)s, execs: (\d+) .*?(?:new interesting: (\d+) \(total: (\d+)\))?$`)
	crasherLine  = regexp.MustCompile(`(testdata/fuzz/\S+)`)
	baselineLine = regexp.MustCompile(`gathering baseline coverage: (\d+)/(\d+) completed`)
)

// RunFuzz fuzzes one target for budget (go test -fuzz), from dir. A
// campaign that Go's coordinator ended by its own deadline race, with no
// failing input, is run again (see FuzzResult.DeadlineRaces).
func RunFuzz(ctx context.Context, dir string, t FuzzTarget, budget time.Duration) (FuzzResult, error) {
	var races int
	var raceOutput string
	for {
		res, err := runFuzzOnce(ctx, dir, t, budget)
		if err != nil || !res.endedByDeadlineRace() || races == maxDeadlineRaces {
			res.DeadlineRaces, res.RaceOutput = races, raceOutput
			return res, err
		}
		if races == 0 {
			raceOutput = res.Output
		}
		races++
	}
}

// endedByDeadlineRace reports whether a failed campaign failed only by the
// coordinator's "context deadline exceeded", with no failing input.
func (r *FuzzResult) endedByDeadlineRace() bool {
	if !r.Failed || r.Crasher != "" {
		return false
	}
	lines := strings.Split(r.Output, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "--- FAIL: "+r.Target.Name+" ") {
			rest := lines[i+1:]
			return len(rest) > 0 && strings.TrimSpace(rest[0]) == "context deadline exceeded" &&
				(len(rest) == 1 || strings.TrimSpace(rest[1]) == "FAIL")
		}
	}
	return false
}

func runFuzzOnce(ctx context.Context, dir string, t FuzzTarget, budget time.Duration) (FuzzResult, error) {
	res := FuzzResult{Target: t, Budget: budget}
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-fuzz", "^"+t.Name+"$",
		"-fuzztime", budget.String(), t.Package)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	res.parse(string(out))
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return res, fmt.Errorf("go test -fuzz %s: %w", t, err)
		}
		res.Failed = true
		res.Output = tail(string(out), 40)
	}
	return res, nil
}

func (r *FuzzResult) parse(out string) {
	for _, line := range strings.Split(out, "\n") {
		if m := execsLine.FindStringSubmatch(line); m != nil {
			secs, _ := strconv.Atoi(m[1])
			r.Elapsed = time.Duration(secs) * time.Second
			r.Execs, _ = strconv.ParseInt(m[2], 10, 64)
			if m[3] != "" {
				r.NewInteresting, _ = strconv.Atoi(m[3])
				r.Corpus, _ = strconv.Atoi(m[4])
			}
		}
		if m := baselineLine.FindStringSubmatch(line); m != nil {
			r.BaselineDone, _ = strconv.Atoi(m[1])
			r.BaselineOf, _ = strconv.Atoi(m[2])
		}
		if strings.Contains(line, "Failing input written to") {
			if m := crasherLine.FindStringSubmatch(line); m != nil {
				r.Crasher = m[1]
			}
		}
	}
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
