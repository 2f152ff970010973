package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestFuzzOutputParse(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want FuzzResult
	}{
		{"fuzzed", `fuzz: elapsed: 0s, gathering baseline coverage: 0/12 completed
fuzz: elapsed: 0s, gathering baseline coverage: 12/12 completed, now fuzzing with 2 workers
fuzz: elapsed: 3s, execs: 3924 (1308/sec), new interesting: 6 (total: 18)
fuzz: elapsed: 11s, execs: 10173 (0/sec), new interesting: 19 (total: 31)
PASS`, FuzzResult{Execs: 10173, NewInteresting: 19, Corpus: 31, Elapsed: 11 * time.Second, BaselineDone: 12, BaselineOf: 12}},
		{"baseline unfinished", `fuzz: elapsed: 0s, gathering baseline coverage: 0/942 completed
fuzz: elapsed: 5s, gathering baseline coverage: 378/942 completed
PASS`, FuzzResult{BaselineDone: 378, BaselineOf: 942}},
		{"crasher", `fuzz: elapsed: 2s, execs: 100 (50/sec), new interesting: 0 (total: 3)
--- FAIL: FuzzX (2.01s)
    Failing input written to testdata/fuzz/FuzzX/0123abcd
    To re-run:
FAIL`, FuzzResult{Execs: 100, Corpus: 3, Elapsed: 2 * time.Second, Crasher: "testdata/fuzz/FuzzX/0123abcd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got FuzzResult
			got.parse(c.out)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestEndedByDeadlineRace(t *testing.T) {
	target := FuzzTarget{Package: "example.com/p", Name: "FuzzX"}
	cases := []struct {
		name   string
		result FuzzResult
		want   bool
	}{
		{"passed", FuzzResult{Target: target}, false},
		{"deadline race, no input", FuzzResult{Target: target, Failed: true, Output: `fuzz: elapsed: 21s, execs: 43281 (0/sec), new interesting: 74 (total: 86)
--- FAIL: FuzzX (21.05s)
    context deadline exceeded
FAIL
exit status 1
FAIL	example.com/p	21.133s`}, true},
		{"crasher", FuzzResult{Target: target, Failed: true, Crasher: "testdata/fuzz/FuzzX/0123abcd", Output: `--- FAIL: FuzzX (2.01s)
    context deadline exceeded
FAIL`}, false},
		{"the target's own failure", FuzzResult{Target: target, Failed: true, Output: `--- FAIL: FuzzX (2.01s)
    --- FAIL: FuzzX (0.00s)
        fuzz_test.go:12: context deadline exceeded
FAIL`}, false},
		{"more after the deadline", FuzzResult{Target: target, Failed: true, Output: `--- FAIL: FuzzX (20.01s)
    context deadline exceeded
    fuzz_test.go:12: something else
FAIL`}, false},
		{"another target's line", FuzzResult{Target: target, Failed: true, Output: `--- FAIL: FuzzXY (20.01s)
    context deadline exceeded
FAIL`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.result.endedByDeadlineRace())
		})
	}
}
