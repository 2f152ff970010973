package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/pdnskit/reconcile/internal/tools/machine"
)

// ServerInfo is a server as it reported itself, and the machine's load
// while it was measured.
type ServerInfo struct {
	Version string
	Backend string
	// Store is where the library records ownership on this server:
	// "comments" or "metadata".
	Store  string
	Target string
	// Newest is true for the last configured server of its backend.
	Newest bool
	// LoadBefore and LoadAfter are the load averages when its
	// measurements began and ended.
	LoadBefore, LoadAfter string
	Took                  time.Duration
}

// Key identifies the server.
func (s ServerInfo) Key() ServerKey { return ServerKey{Backend: s.Backend, Version: s.Version} }

// Label names the server in reports: version, backend and ownership
// store, e.g. "4.9.18 lmdb (metadata)".
func (s ServerInfo) Label() string { return s.Version + " " + s.Backend + " (" + s.Store + ")" }

// Sample is one timed run.
type Sample struct {
	Duration time.Duration
	// CPU is the CPU time this process (the client) used in the run: what
	// the writer's own code costs, next to the time it waits for PowerDNS.
	CPU    time.Duration
	Counts Counts
}

// Cell is every timed run of one writer in one scenario at one size on one
// server.
type Cell struct {
	Version  string
	Backend  string
	N        int
	Scenario Scenario
	Writer   WriterID
	Warmups  int
	Samples  []Sample
}

// Stats summarises the cell's run times.
func (c Cell) Stats() Stats {
	d := make([]time.Duration, len(c.Samples))
	for i, s := range c.Samples {
		d[i] = s.Duration
	}
	return Summarise(d)
}

// Server returns the server k.
func (r *Results) Server(k ServerKey) (ServerInfo, bool) {
	for _, s := range r.Servers {
		if s.Key() == k {
			return s, true
		}
	}
	return ServerInfo{}, false
}

// Results is everything Run measured.
type Results struct {
	Plan              Plan
	Servers           []ServerInfo
	Cells             []Cell
	Started, Finished time.Time
	// Machine is where they were measured.
	Machine *machine.Machine `json:",omitempty"`
	// Command is the command line that measured them.
	Command string
}

// Save writes the results as JSON, so that a report can be written again
// without measuring again.
func (r *Results) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	return os.WriteFile(path, b, 0o644)
}

// LoadResults reads results written by Save.
func LoadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode results %s: %w", path, err)
	}
	return &r, nil
}

// Key identifies the cell's server.
func (c Cell) Key() ServerKey { return ServerKey{Backend: c.Backend, Version: c.Version} }

// Cell returns the cell of writer w in scenario s at size n on server k.
func (r *Results) Cell(k ServerKey, n int, s Scenario, w WriterID) (Cell, bool) {
	for _, c := range r.Cells {
		if c.Key() == k && c.N == n && c.Scenario == s && c.Writer == w {
			return c, true
		}
	}
	return Cell{}, false
}
