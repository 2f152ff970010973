package bench

import (
	"strconv"
	"testing"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// pipelineSizes are the sizes of the pure benchmarks; pipelineScenarios the
// syncs they model: every RRset created (Diff orders n changes), and 1% of
// them changed (the common sync).
var (
	pipelineSizes     = []int{1_000, 10_000, 100_000}
	pipelineScenarios = []Scenario{Initial, Changed}
)

func pipelineCase(b *testing.B, s Scenario, n int) Case {
	b.Helper()
	c, err := NewCase(s, n)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// perRRset reports the cost per RRset of the zone, whose growth with n
// shows the complexity: flat is linear, growing as log n is n·log n.
func perRRset(b *testing.B, n int) {
	b.Helper()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rrset")
}

// BenchmarkPipeline is the whole pure work of a Sync: canonicalise the
// desired RRsets (rrset.New) and the live ones (rrset.NewLive) into Sets,
// then conflict.Check, which runs rrset.Diff.
func BenchmarkPipeline(b *testing.B) {
	for _, s := range pipelineScenarios {
		for _, n := range pipelineSizes {
			c := pipelineCase(b, s, n)
			b.Run(s.String()+"/n="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				changes := 0
				for b.Loop() {
					var err error
					if changes, err = Pipeline(c); err != nil {
						b.Fatal(err)
					}
				}
				if changes != len(c.Changes) {
					b.Fatalf("%d changes, want %d", changes, len(c.Changes))
				}
				perRRset(b, n)
			})
		}
	}
}

// BenchmarkCanonicalise is the Sets alone: the part of the pipeline that
// must stay linear.
func BenchmarkCanonicalise(b *testing.B) {
	for _, s := range pipelineScenarios {
		for _, n := range pipelineSizes {
			c := pipelineCase(b, s, n)
			b.Run(s.String()+"/n="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := DesiredSet(c.Desired); err != nil {
						b.Fatal(err)
					}
					if _, err := LiveSet(c.Start); err != nil {
						b.Fatal(err)
					}
				}
				perRRset(b, n)
			})
		}
	}
}

// BenchmarkCheck is conflict.Check (with its rrset.Diff) alone, on Sets
// built once. A Set builds its index by name on first use and keeps it, so
// after the first iteration the live Set's index is warm: the pipeline
// benchmark, which builds fresh Sets, is the one that counts.
func BenchmarkCheck(b *testing.B) {
	for _, s := range pipelineScenarios {
		for _, n := range pipelineSizes {
			c := pipelineCase(b, s, n)
			desired, err := DesiredSet(c.Desired)
			if err != nil {
				b.Fatal(err)
			}
			live, err := LiveSet(c.Start)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(s.String()+"/n="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				var res conflict.Result
				for b.Loop() {
					res = conflict.Check(desired, live, ManagedBy)
				}
				if len(res.Plan.Changes) != len(c.Changes) {
					b.Fatalf("%d changes, want %d", len(res.Plan.Changes), len(c.Changes))
				}
				perRRset(b, n)
			})
		}
	}
}

// TestPipeline checks that the pipeline plans exactly a case's changes and
// that the workload is already canonical, so that what a writer leaves in
// the zone can be compared with it.
func TestPipeline(t *testing.T) {
	for _, s := range Scenarios() {
		t.Run(s.String(), func(t *testing.T) {
			c, err := NewCase(s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := Pipeline(c)
			if err != nil {
				t.Fatal(err)
			}
			if changes != len(c.Changes) {
				t.Errorf("%d changes, want %d", changes, len(c.Changes))
			}
			for _, sp := range c.Desired {
				rr, err := rrset.New(Zone, sp.Name, sp.Type, sp.TTL, sp.Records...)
				if err != nil {
					t.Fatal(err)
				}
				if rr.Name != sp.FQDN() || describe(rr.TTL, rr.Records, nil) != describe(sp.TTL, sp.Records, nil) {
					t.Fatalf("%s %s %v is not canonical: rrset.New makes %v", sp.FQDN(), sp.Type, sp.Records, rr)
				}
			}
		})
	}
}
