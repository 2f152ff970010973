package bench

import (
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		in   []time.Duration
		want Stats
	}{
		{"none", nil, Stats{}},
		{"odd", []time.Duration{5 * ms, 1 * ms, 3 * ms}, Stats{Runs: 3, Median: 3 * ms, Min: 1 * ms, Max: 5 * ms}},
		{"even", []time.Duration{4 * ms, 1 * ms, 2 * ms, 8 * ms}, Stats{Runs: 4, Median: 3 * ms, Min: 1 * ms, Max: 8 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarise(tc.in); got != tc.want {
				t.Errorf("Summarise(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
