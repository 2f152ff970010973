package bench

import (
	"slices"
	"time"
)

// Stats summarises the timed runs of one cell.
type Stats struct {
	Runs             int
	Median, Min, Max time.Duration
}

// Summarise returns the median, minimum and maximum of d; the median of an
// even number of runs is the mean of the middle two.
func Summarise(d []time.Duration) Stats {
	if len(d) == 0 {
		return Stats{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stats{Runs: len(s), Median: m, Min: s[0], Max: s[len(s)-1]}
}
