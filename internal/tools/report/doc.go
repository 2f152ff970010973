// Package report runs the library's fault, load and fuzz tests as the
// reliability command asks, and writes what they found as RELIABILITY.md:
// the go test runs and their outcomes, the fuzz campaigns, the load figures
// and the machine they ran on.
package report
