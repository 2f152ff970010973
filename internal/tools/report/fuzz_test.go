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
