package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/internal/tools/report"
)

// TestReportLoadTables: every row of the load tables, run or failed, one
// writer or several, has as many cells as its table's header.
func TestReportLoadTables(t *testing.T) {
	one := reliability.LoadResult{Zones: 2, RRsets: 10, Concurrency: 2, Writers: 1, Replicas: 1, Wall: time.Second, Verified: 2}
	shared := one
	shared.Writers, shared.Replicas, shared.Store, shared.Passes = 2, 2, "comments", 1
	big := reliability.LoadResult{Zones: 1, RRsets: 100, Concurrency: 1, Writers: 1, Replicas: 1, Verified: 1}
	rep := &report.Report{Load: []report.LoadRun{
		{Server: "pdns-5.1.5-gsqlite3", Result: one},
		{Server: "pdns-5.1.5-gpgsql", Frontends: 2, Result: one, Err: "load: sync: 500 | Internal"},
		{Server: "pdns-5.1.5-gpgsql", Frontends: 2, Result: shared},
		{Server: "pdns-5.1.5-gpgsql", Frontends: 2, Result: shared, Err: "load: sync: still changing"},
		{Server: "pdns-5.1.5-gpgsql", Frontends: 2, Result: big},
		{Server: "pdns-5.1.5-gpgsql", Frontends: 2, Result: big, MaxBodyMB: 1, MaxPatchBytes: 1 << 20, Err: "claim ownership: 400"},
	}}
	md := rep.Markdown()
	load := md[strings.Index(md, "## Load"):strings.Index(md, "## Fuzzing")]
	tables := 0
	for _, block := range strings.Split(load, "\n\n") {
		if !strings.HasPrefix(block, "| server") {
			continue
		}
		tables++
		lines := strings.Split(strings.TrimSpace(block), "\n")
		cells := func(line string) int { return strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") }
		assert.Greater(t, len(lines), 3, "rows: %s", block)
		for _, line := range lines[1:] {
			assert.Equal(t, cells(lines[0]), cells(line), "%s", line)
		}
		assert.Contains(t, block, "pdns-5.1.5-gpgsql (2 frontends)")
	}
	assert.Equal(t, 3, tables)
}
