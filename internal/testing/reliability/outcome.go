package reliability

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Outcome is what one fault did, as a test measured it.
type Outcome struct {
	// Group is the kind of fault: "kill", "proxy", "replicas", "writers",
	// "secrets".
	Group string `json:"group"`
	// Fault says what was done, e.g. "zone GET answers 503".
	Fault string `json:"fault"`
	// Server names the PowerDNS, e.g. "pdns-5.1.5-gsqlite3".
	Server string `json:"server"`
	// Store is the ownership store, when it matters.
	Store string `json:"store,omitempty"`
	// Result says what the library did, e.g. "retryable error after 3
	// attempts, nothing written".
	Result string `json:"result"`
	// Attempts counts the faulted requests that reached the proxy or the
	// server, when counted.
	Attempts int `json:"attempts,omitempty"`
	// Elapsed is how long the Sync took.
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// outcomeMarker starts the log line of an Outcome.
const outcomeMarker = "reliability-outcome: "

// Record logs o where the report command finds it (in go test -json's
// output). The test's own status says whether the outcome was acceptable.
func Record(tb testing.TB, o Outcome) {
	tb.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		tb.Fatalf("encode outcome: %v", err)
	}
	tb.Log(outcomeMarker + string(b))
}

// ParseOutcome reads an Outcome from a line of test output.
func ParseOutcome(line string) (Outcome, bool) {
	_, rest, ok := strings.Cut(line, outcomeMarker)
	if !ok {
		return Outcome{}, false
	}
	var o Outcome
	if err := json.Unmarshal([]byte(strings.TrimSpace(rest)), &o); err != nil {
		return Outcome{}, false
	}
	return o, true
}
