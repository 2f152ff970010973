// Package depth says how much of their matrix the slowest integration
// tests run: a share of it by default, in make test, where every test
// binary runs against every server of the matrix on one machine; all of it
// where EnvFull asks, as make reliability does.
//
// What the share leaves out is repetition, never a kind of check: every
// fault case, race and crash still runs, against real PowerDNS, on at least
// one server of the matrix, and every server meets some of them. The whole
// cross product (each case on each server, the longer races) is what make
// reliability runs and RELIABILITY.md reports.
package depth

import "os"

// EnvFull names the variable that asks for the whole matrix: any value
// but "" and "0".
const EnvFull = "PDNS_TEST_FULL"

// Full reports whether the tests run their whole matrix.
func Full() bool {
	v := os.Getenv(EnvFull)
	return v != "" && v != "0"
}

// Pick reports whether the i-th of a test's cases runs on the j-th of n
// servers: on every server with Full, else on one of them, the cases
// dealt out in turn, so that each server gets its share and, with at least
// as many cases as servers, every server meets some.
func Pick(i, j, n int) bool {
	return Full() || n <= 0 || i%n == j%n
}

// Of is full when Full, else quick: the size of a test's loop (rounds,
// objects, seeds) for each depth.
func Of(quick, full int) int {
	if Full() {
		return full
	}
	return quick
}
