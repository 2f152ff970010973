package bench

import (
	"math"
	"strings"
	"testing"
)

func TestParseGoBench(t *testing.T) {
	const out = `goos: linux
BenchmarkPipeline/initial/n=1000-2   248   7799321 ns/op   7799 ns/rrset   753113 B/op   8049 allocs/op
BenchmarkPipeline/initial/n=1000-2   250   7000000 ns/op   7000 ns/rrset   753113 B/op   8049 allocs/op
BenchmarkPipeline/initial/n=1000-2   240   9000000 ns/op   9000 ns/rrset   753113 B/op   8049 allocs/op
BenchmarkPipeline/initial/n=100000-2   1   1675733221 ns/op   16757 ns/rrset
    pipeline_test.go:1: BenchmarkPipeline a log line
PASS
`
	got, err := ParseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d benchmarks, want 2: %+v", len(got), got)
	}
	b := got[0]
	if b.Name != "BenchmarkPipeline/initial/n=1000" || b.Family() != "BenchmarkPipeline/initial" || b.N() != 1000 {
		t.Errorf("name %q, family %q, n %d", b.Name, b.Family(), b.N())
	}
	if len(b.Runs) != 3 || b.Median("ns/rrset") != 7799 || b.Median("allocs/op") != 8049 {
		t.Errorf("runs %d, median ns/rrset %v, allocs %v", len(b.Runs), b.Median("ns/rrset"), b.Median("allocs/op"))
	}
	if !math.IsNaN(got[1].Median("B/op")) {
		t.Errorf("a missing unit has median %v, want NaN", got[1].Median("B/op"))
	}
	if d := goBenchDuration([]byte(out + "ok  \tgithub.com/x\t45.194s\nok  \tgithub.com/x\t10.1s\n")); d != "55s" {
		t.Errorf("goBenchDuration = %q, want 55s", d)
	}
	growth, allowed, ok := nlognGrowth(got)
	if !ok || math.Abs(growth-16757.0/7799) > 1e-9 || math.Abs(allowed-5.0/3) > 1e-9 {
		t.Errorf("nlognGrowth = %v, %v, %v", growth, allowed, ok)
	}
}
