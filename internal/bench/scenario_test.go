package bench

import (
	"strings"
	"testing"
)

func TestNewCase(t *testing.T) {
	for _, tc := range []struct {
		s                         Scenario
		start, desired, changes   int
		objects, deletes, changed int
	}{
		{Initial, 0, 1000, 1000, 1000, 0, 1000},
		{Changed, 1000, 1000, 10, 10, 0, 10},
		{NoOp, 1000, 1000, 0, 1000, 0, 0},
		{Deleted, 1000, 900, 100, 100, 100, 0},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			c, err := NewCase(tc.s, 1000)
			if err != nil {
				t.Fatal(err)
			}
			deletes, writes := 0, 0
			types := map[string]bool{}
			for _, ch := range c.Changes {
				if ch.Delete {
					deletes++
				} else {
					writes++
				}
				types[ch.Spec.Type] = true
			}
			if len(c.Start) != tc.start || len(c.Desired) != tc.desired || len(c.Changes) != tc.changes ||
				len(c.Objects) != tc.objects || deletes != tc.deletes || writes != tc.changed {
				t.Errorf("start %d, desired %d, changes %d (%d deletes, %d writes), objects %d",
					len(c.Start), len(c.Desired), len(c.Changes), deletes, writes, len(c.Objects))
			}
			if len(c.Changes) > 0 && len(types) != 5 {
				t.Errorf("changes touch types %v, want all five", types)
			}
		})
	}
	if _, err := NewCase(0, 10); err == nil {
		t.Error("NewCase(0) succeeded")
	}
}

func TestParseSlowRuns(t *testing.T) {
	const spec = "b:1000:all:initial+noop bw:10000:newest:initial b:10000:5.1:changed"
	runs, err := ParseSlowRuns(spec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.String())
	}
	if want := []string{"b:1000:all:initial+noop", "bw:10000:newest:initial", "b:10000:5.1:changed"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("round trip: %q", got)
	}
	p := Plan{Fast: []WriterID{Sync, Floor}, Slow: runs}
	for _, tc := range []struct {
		name    string
		n       int
		s       Scenario
		version string
		last    bool
		want    string
	}{
		{"all servers", 1000, NoOp, "4.7.3", false, "a b c"},
		{"not this scenario", 1000, Changed, "4.7.3", false, "a c"},
		{"newest only", 10000, Initial, "4.9.18", false, "a c"},
		{"the newest", 10000, Initial, "5.1.5", true, "a b′ c"},
		{"by version", 10000, Changed, "5.1.5", false, "a b c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var letters []string
			for _, w := range p.writers(tc.n, tc.s, tc.version, tc.last) {
				letters = append(letters, w.Letter())
			}
			if got := strings.Join(letters, " "); got != tc.want {
				t.Errorf("writers = %q, want %q", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"b:1000:all", "a:1000:all:initial", "b:x:all:initial", "b:1000:all:sometimes"} {
		if _, err := ParseSlowRuns(bad); err == nil {
			t.Errorf("ParseSlowRuns(%q) succeeded", bad)
		}
	}
}
