package bench

import (
	"bufio"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GoBench is one benchmark of `go test -bench` output, over all its
// -count runs.
type GoBench struct {
	// Name is the benchmark's name without its -GOMAXPROCS suffix, e.g.
	// "BenchmarkPipeline/initial/n=1000".
	Name string
	// Runs holds each run's metrics by unit: "ns/op", "B/op",
	// "allocs/op", "ns/rrset".
	Runs []map[string]float64
}

// Median is the median of the runs' values of unit.
func (b GoBench) Median(unit string) float64 {
	var v []float64
	for _, r := range b.Runs {
		if x, ok := r[unit]; ok {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// N is the size in the benchmark's name ("…/n=1000"), or 0.
func (b GoBench) N() int {
	_, after, ok := strings.Cut(b.Name, "n=")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(after)
	return n
}

// Family is the name without its size, e.g. "BenchmarkPipeline/initial".
func (b GoBench) Family() string {
	i := strings.LastIndex(b.Name, "/n=")
	if i < 0 {
		return b.Name
	}
	return b.Name[:i]
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// goBenchDuration adds up the durations `go test` reports for its packages
// ("ok  <package>  45.2s"), or says that there were none.
func goBenchDuration(out []byte) string {
	var total time.Duration
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "ok" {
			continue
		}
		if d, err := time.ParseDuration(f[len(f)-1]); err == nil {
			total += d
		}
	}
	if total == 0 {
		return "not run"
	}
	return total.Round(time.Second).String()
}

// ParseGoBench reads `go test -bench` output, keeping benchmarks in the
// order they first appear.
func ParseGoBench(r io.Reader) ([]GoBench, error) {
	var out []GoBench
	index := map[string]int{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a log line, not a result
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		metrics := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			metrics[f[i+1]] = v
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, GoBench{Name: name})
		}
		out[i].Runs = append(out[i].Runs, metrics)
	}
	return out, sc.Err()
}
