package bench

import (
	"slices"
	"strings"
	"time"
)

// perRequest renders the mean time of one request per endpoint, the median
// over the runs, e.g. "GET zone 6.1 ms, PATCH zone 8.0 ms".
func perRequest(c Cell) string {
	var endpoints []string
	for _, s := range c.Samples {
		for e := range s.Counts.Calls {
			if !slices.Contains(endpoints, e) {
				endpoints = append(endpoints, e)
			}
		}
	}
	slices.SortFunc(endpoints, func(a, b string) int { return endpointRank(a) - endpointRank(b) })
	parts := make([]string, 0, len(endpoints))
	for _, e := range endpoints {
		d := make([]time.Duration, 0, len(c.Samples))
		for _, s := range c.Samples {
			if n := s.Counts.Calls[e]; n > 0 {
				d = append(d, s.Counts.Times[e]/time.Duration(n))
			}
		}
		parts = append(parts, e+" "+fmtDuration(Summarise(d).Median))
	}
	return strings.Join(parts, ", ")
}

// metadataEndpoints are the requests of the zone write lock.
var metadataEndpoints = []string{"GET metadata", "POST metadata", "DELETE metadata", "PUT metadata"}

func endpointRank(e string) int {
	for i, x := range []string{"GET zone", "PATCH zone", "GET metadata", "POST metadata", "DELETE metadata", "PUT metadata"} {
		if e == x {
			return i
		}
	}
	return 99
}

// medianTime is the median over the runs of the time spent in requests to
// the endpoints, "—" when there were none.
func medianTime(c Cell, endpoints ...string) string {
	d := make([]time.Duration, len(c.Samples))
	called := false
	for i, s := range c.Samples {
		for _, e := range endpoints {
			d[i] += s.Counts.Times[e]
			called = called || s.Counts.Calls[e] > 0
		}
	}
	if !called {
		return "—"
	}
	return fmtDuration(Summarise(d).Median)
}

// medianRest is the median over the runs of the time outside requests.
func medianRest(c Cell) string {
	d := make([]time.Duration, len(c.Samples))
	for i, s := range c.Samples {
		d[i] = s.Duration
		for _, t := range s.Counts.Times {
			d[i] -= t
		}
	}
	return fmtDuration(Summarise(d).Median)
}

func medianCPU(c Cell) time.Duration {
	d := make([]time.Duration, len(c.Samples))
	for i, s := range c.Samples {
		d[i] = s.CPU
	}
	return Summarise(d).Median
}

func medianBytes(c Cell, sent bool) int64 {
	d := make([]time.Duration, len(c.Samples))
	for i, s := range c.Samples {
		if sent {
			d[i] = time.Duration(s.Counts.Sent)
		} else {
			d[i] = time.Duration(s.Counts.Received)
		}
	}
	return int64(Summarise(d).Median)
}
