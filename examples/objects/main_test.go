package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from this run")

// allChecks are the promises the story checks, in order.
var allChecks = []string{
	"cname-blocked-naming-the-other-objects",
	"never-a-cname-beside-other-data",
	"a-flap-collects-nothing",
	"the-streak-is-kept-in-the-objects",
	"a-sustained-loss-collects-across-a-restart",
	"recreate-brings-no-cname-beside-addresses",
	"respelling-writes-nothing",
}

// TestStory replays the story with the controller built on the library:
// every promise holds.
func TestStory(t *testing.T) {
	out := replay(false)
	var names []string
	for _, c := range out.Checks {
		names = append(names, c.Name)
		assert.True(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
	assert.Equal(t, allChecks, names)
	require.Len(t, out.Steps, 8)

	// The reasons read well and name every object in the way.
	first := out.Steps[0]
	assert.Equal(t, []Status{
		{"v4.gw.example.com.", Conflict, "v4.gw.example.com. CNAME blocked: CNAME next to A held by infra/gw-v4, A held by infra/gw-v4-legacy"},
		{"v6.gw.example.com.", Conflict, "v6.gw.example.com. CNAME blocked: CNAME next to AAAA held by infra/gw-v6"},
		{"www.example.com.", Programmed, "CNAME www -> gw.example.com."},
		{"api.example.com.", Programmed, "CNAME api -> gw.example.com."},
	}, first.Statuses)
	www, api := "default/web-cname-aeeb83a606", "default/web-cname-2a9082467a"
	assert.Equal(t, []string{api, www}, refs(first.Events, "create"))

	// The flap: the streak is written into the objects, then cleared.
	assert.Equal(t, []string{api, www}, refs(out.Steps[1].Events, "update"))
	for _, o := range ours(out.Steps[2].Objects) {
		assert.Empty(t, o.Annotations, "authority back: %s keeps no streak", o.Ref())
	}

	// While objects await collection the gateway is requeued when the next
	// check counts, a minute after the last (3 checks over 2 minutes);
	// otherwise not at all.
	var requeues []time.Duration
	for _, st := range out.Steps {
		requeues = append(requeues, st.RequeueAfter)
	}
	assert.Equal(t, []time.Duration{0, time.Minute, 0, time.Minute, time.Minute, 0, 0, 0}, requeues)

	// Collected on the third check after the restart, recreated with the
	// same names, untouched by respelling.
	assert.Equal(t, []string{api, www}, refs(out.Steps[5].Events, "delete"))
	assert.Equal(t, []string{api, www}, refs(out.Steps[6].Events, "create"))
	assert.Empty(t, out.Steps[7].Events)
	assert.Equal(t, Conflict, out.Steps[7].Statuses[0].Reason, "v4.gw respelled is still blocked")
}

// TestStoryNaive replays the story with the controller as it was: every
// check fails, so that none of them passes for want of looking.
func TestStoryNaive(t *testing.T) {
	out := replay(true)
	assert.Equal(t, allChecks, out.Failed())
}

// TestRestartWithoutStoredStreak shows that the stored streak is what
// carries a restart: with the annotations lost, the new Gate starts again
// and collects three checks later instead of at once.
func TestRestartWithoutStoredStreak(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(map[bool]string{true: "kept", false: "lost"}[keep], func(t *testing.T) {
			clock := backofftest.NewClock(storyStart)
			cluster := NewCluster()
			gw := Gateway{Namespace: "default", Name: "web", Zone: zone, Target: "gw.example.com.", Hostnames: []string{"www.example.com"}}
			start := func() *Controller {
				return &Controller{Writer: writer, Cluster: cluster, Gate: backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))}
			}
			ctl := start()
			ctl.Reconcile(gw, true)
			for range 2 {
				clock.Advance(time.Minute)
				ctl.Reconcile(gw, false)
			}
			cluster.Events()
			if !keep {
				for _, o := range cluster.List() {
					o.Annotations = nil
					cluster.Apply(o)
				}
			}
			ctl = start()
			checks := 0
			for len(ours(cluster.List())) > 0 && checks < 10 {
				clock.Advance(time.Minute)
				ctl.Reconcile(gw, false)
				checks++
			}
			want := map[bool]int{true: 1, false: 3}[keep]
			assert.Equal(t, want, checks, "checks after the restart until the object is collected")
		})
	}
}

// TestStoredStreakInput checks that odd annotations never panic and never
// collect early.
func TestStoredStreakInput(t *testing.T) {
	now := storyStart.Add(time.Hour)
	streak := func(checks int, since, last time.Time) string {
		text, err := backoff.Streak{Checks: checks, Since: since, Last: last}.MarshalText()
		require.NoError(t, err)
		return string(text)
	}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		collect     bool // on this one check, with 3 checks over 2 minutes
	}{
		{"none", nil, false},
		{"sustained", map[string]string{annotationMissing: streak(2, now.Add(-time.Hour), now.Add(-time.Hour+time.Minute))}, true},
		{"complete, from a year-old backup", map[string]string{annotationMissing: streak(3, now.Add(-365*24*time.Hour), now.Add(-365*24*time.Hour+2*time.Minute))}, false},
		{"last check too recent", map[string]string{annotationMissing: streak(2, now.Add(-time.Hour), now.Add(-time.Second))}, false},
		{"unparsable", map[string]string{annotationMissing: "yesterday"}, false},
		{"the old two-annotation form", map[string]string{"dns.example.com/missing-since": now.Add(-time.Hour).Format(time.RFC3339Nano), "dns.example.com/missing-checks": "2"}, false},
		{"zero checks", map[string]string{annotationMissing: "0 checks from 2025-06-01T09:00:00Z to 2025-06-01T09:01:00Z"}, false},
		{"many checks", map[string]string{annotationMissing: "many checks from 2025-06-01T09:00:00Z to 2025-06-01T09:01:00Z"}, false},
		{"future since", map[string]string{annotationMissing: streak(9, now.Add(time.Hour), now.Add(time.Hour))}, false},
		{"empty", map[string]string{annotationMissing: ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(backofftest.NewClock(now)))
			o := RecordSet{Namespace: "default", Name: "x", Annotations: tc.annotations}
			var got bool
			require.NotPanics(t, func() { got, _ = observeMissing(gate, &o, true) })
			assert.Equal(t, tc.collect, got)
			s, ok := storedStreak(&o)
			assert.True(t, ok, "the streak is stored back")
			assert.Positive(t, s.Checks)
		})
	}
}

// TestReenqueuesCountOnce replays what a controller watching its own
// objects sees: each write of the annotation re-enqueues the object at
// once. The re-passes neither count nor write again.
func TestReenqueuesCountOnce(t *testing.T) {
	clock := backofftest.NewClock(storyStart)
	gate := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	o := RecordSet{Namespace: "default", Name: "x"}
	writes := 0
	for i := range 10 {
		before := o.Annotations[annotationMissing]
		collect, _ := observeMissing(gate, &o, true)
		assert.False(t, collect, "pass %d", i)
		if o.Annotations[annotationMissing] != before {
			writes++
		}
	}
	assert.Equal(t, 1, writes, "10 immediate passes write the annotation once")
	s, _ := storedStreak(&o)
	assert.Equal(t, 1, s.Checks)
}

// TestTwoGatewaysOneHostname shows why each object is its own writer: two
// gateways of the same controller claim one hostname, and the second is
// refused, naming the first's object, instead of both writing one name.
func TestTwoGatewaysOneHostname(t *testing.T) {
	cluster := NewCluster()
	ctl := &Controller{Writer: writer, Cluster: cluster, Gate: backoff.NewGate(3, 2*time.Minute)}
	web := Gateway{Namespace: "default", Name: "web", Zone: zone, Target: "gw.example.com.", Hostnames: []string{"www.example.com"}}
	shop := Gateway{Namespace: "shop", Name: "edge", Zone: zone, Target: "edge.example.net.", Hostnames: []string{"WWW.example.com."}}

	assert.Equal(t, Programmed, ctl.Reconcile(web, true).Statuses[0].Reason)
	got := ctl.Reconcile(shop, true).Statuses[0]
	assert.Equal(t, Conflict, got.Reason)
	assert.Equal(t, "www.example.com. CNAME blocked: held by default/web-cname-aeeb83a606", got.Message)
	assert.Len(t, cluster.List(), 1)
	assert.Equal(t, Programmed, ctl.Reconcile(web, true).Statuses[0].Reason, "the first claimant keeps its object")
}

func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, run(nil, &stdout, &stderr), "stderr: %s", &stderr)
	assertGolden(t, "story.golden", stdout.String())

	stdout.Reset()
	assert.Equal(t, exitFailed, run([]string{"-naive"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "7 of 7 checks failed")

	assert.Equal(t, exitUsage, run([]string{"-bogus"}, &stdout, &stderr))
	assert.Equal(t, exitUsage, run([]string{"extra"}, &stdout, &stderr))
}

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
}

// TestHostnamesAsGatewaysSpellThem: a listener's hostname is absolute, dot
// or not; one outside the zone is invalid input, never a name inside it.
func TestHostnamesAsGatewaysSpellThem(t *testing.T) {
	cluster := NewCluster()
	ctl := &Controller{Writer: writer, Cluster: cluster, Gate: backoff.NewGate(3, 2*time.Minute)}
	gw := Gateway{Namespace: "default", Name: "web", Zone: zone, Target: "gw.example.com.",
		Hostnames: []string{"api.example.com", "API.example.com.", "shop.example.org", "www"}}
	got := ctl.Reconcile(gw, true).Statuses
	require.Len(t, got, 4)
	assert.Equal(t, Programmed, got[0].Reason)
	assert.Equal(t, Programmed, got[1].Reason, "one name, two spellings")
	assert.Equal(t, InvalidInput, got[2].Reason, "outside the zone, not shop.example.org.example.com.")
	assert.Equal(t, InvalidInput, got[3].Reason, "a hostname is absolute")
}
