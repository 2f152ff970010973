package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/internal/testing/reliability"
)

// TestRun is what one go test -json run of the fault tests reported.
type TestRun struct {
	// Outcomes are the outcomes the tests recorded, with the test that
	// recorded each.
	Outcomes []TestOutcome
	// Tests maps every test that ended to how: "pass", "fail" or "skip".
	Tests map[string]string
	// Failures holds the output of each failed test, by test.
	Failures map[string]string
	Elapsed  time.Duration
	// Passed is false when go test failed.
	Passed bool
}

// TestOutcome is an reliability.Outcome and the test that recorded it.
type TestOutcome struct {
	reliability.Outcome
	Package, Test string
}

// Status says how the test that recorded the outcome ended.
func (r *TestRun) Status(o TestOutcome) string { return r.Tests[o.Package+" "+o.Test] }

type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// RunTests runs go test -json with args (flags and packages) from dir,
// echoing package results and failures to echo and the whole stream to raw,
// and collects what the tests recorded.
func RunTests(ctx context.Context, dir string, echo, raw io.Writer, args ...string) (*TestRun, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = echo
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("go test: %w", err)
	}
	run := &TestRun{Tests: make(map[string]string), Failures: make(map[string]string)}
	outputs := make(map[string]*strings.Builder)
	sc := bufio.NewScanner(io.TeeReader(stdout, raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		key := ev.Package + " " + ev.Test
		switch ev.Action {
		case "output":
			if echo != nil && (ev.Test == "" || strings.HasPrefix(ev.Output, "--- FAIL")) {
				_, _ = io.WriteString(echo, ev.Output)
			}
			if ev.Test == "" {
				continue
			}
			if o, ok := reliability.ParseOutcome(ev.Output); ok {
				run.Outcomes = append(run.Outcomes, TestOutcome{Outcome: o, Package: ev.Package, Test: ev.Test})
				continue
			}
			b := outputs[key]
			if b == nil {
				b = new(strings.Builder)
				outputs[key] = b
			}
			b.WriteString(ev.Output)
		case "pass", "fail", "skip":
			if ev.Test != "" {
				run.Tests[key] = ev.Action
				if ev.Action == "fail" && outputs[key] != nil {
					run.Failures[key] = outputs[key].String()
				}
			}
		}
	}
	err = cmd.Wait()
	run.Elapsed = time.Since(began)
	run.Passed = err == nil
	return run, nil
}
