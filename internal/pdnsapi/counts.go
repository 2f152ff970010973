package pdnsapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Counts counts round trips by method and status, for tests and benchmarks
// that check how many requests an operation made (one PATCH per zone, not
// one per RRset). Pass its Observe to WithObserver. The zero value is ready
// to use and safe for concurrent use.
type Counts struct {
	mu sync.Mutex
	m  map[countKey]int
}

type countKey struct {
	method string
	status int
}

// Observe counts one round trip; status 0 stands for a transport error.
func (c *Counts) Observe(method string, statusCode int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[countKey]int)
	}
	c.m[countKey{method, statusCode}]++
}

// Get returns how many round trips had method and status.
func (c *Counts) Get(method string, statusCode int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[countKey{method, statusCode}]
}

// Method returns how many round trips had method, whatever their status.
func (c *Counts) Method(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.m {
		if k.method == method {
			n += v
		}
	}
	return n
}

// Statuses returns how many round trips, of any method, had a status from
// lo up to but not including hi: Statuses(500, 600) counts the 5xx answers.
func (c *Counts) Statuses(lo, hi int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.m {
		if k.status >= lo && k.status < hi {
			n += v
		}
	}
	return n
}

// Total returns how many round trips there were.
func (c *Counts) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.m {
		n += v
	}
	return n
}

// Reset forgets every count.
func (c *Counts) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

// String lists the counts in a stable order, e.g. "GET 200: 2, PATCH 422: 1".
func (c *Counts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := slices.SortedFunc(maps.Keys(c.m), func(a, b countKey) int {
		if a.method != b.method {
			return strings.Compare(a.method, b.method)
		}
		return a.status - b.status
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d: %d", k.method, k.status, c.m[k]))
	}
	return strings.Join(parts, ", ")
}
