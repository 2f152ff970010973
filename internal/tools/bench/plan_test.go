package bench

import (
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	const spec = "a+c:100+1000:all:all:15 d+b+bw:1000:gsqlite3/newest+lmdb/4.9:noop+changed:15"
	rules, err := ParseRules(spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a+c:100+1000:all:initial+changed+noop+deleted:15", "d+b+bw:1000:gsqlite3/newest+lmdb/4.9:noop+changed:15"}
	if len(rules) != len(want) {
		t.Fatalf("%d rules, want %d", len(rules), len(want))
	}
	for i, r := range rules {
		if got := r.String(); got != want[i] {
			t.Errorf("rule %d renders %q, want %q", i, got, want[i])
		}
		again, err := ParseRules(r.String())
		if err != nil || len(again) != 1 || again[0].String() != r.String() {
			t.Errorf("rule %d does not survive a round trip: %v %v", i, again, err)
		}
	}
	for _, good := range []string{
		"a+c:100+1000:gpgsql+gmysql:all:15",            // both SQL backends
		"a+c:10000:gpgsql/newest+gmysql/newest:noop:5", // the newest of each
	} {
		if _, err := ParseRules(good); err != nil {
			t.Errorf("ParseRules(%q): %v", good, err)
		}
	}
	for _, bad := range []string{
		"a:1000:all:initial",           // no runs
		"x:1000:all:initial:15",        // no such writer
		"a:0:all:initial:15",           // size not positive
		"a:1000:mysql:initial:15",      // no such backend
		"a:1000:lmdb/:initial:15",      // no version
		"a:1000:all:sometimes:15",      // no such scenario
		"a:1000:all:initial:0",         // no runs
		"a:1000:all:initial:fifteen",   // runs not a number
		"a+c:1000+x:all:initial:15",    // one size bad
		"a:1000:all+lmdb:initial+x:15", // one scenario bad
	} {
		if _, err := ParseRules(bad); err == nil {
			t.Errorf("ParseRules(%q) succeeded", bad)
		}
	}
}

func TestSelector(t *testing.T) {
	lmdb49 := ServerKey{Backend: "lmdb", Version: "4.9.18"}
	sqlite51 := ServerKey{Backend: "gsqlite3", Version: "5.1.5"}
	for _, tc := range []struct {
		sel    Selector
		k      ServerKey
		newest bool
		want   bool
	}{
		{"all", lmdb49, false, true},
		{"lmdb", lmdb49, false, true},
		{"gsqlite3", lmdb49, false, false},
		{"lmdb/4.9", lmdb49, false, true},
		{"lmdb/5.1", lmdb49, false, false},
		{"gsqlite3/4.9", lmdb49, false, false},
		{"lmdb/newest", lmdb49, false, false},
		{"gsqlite3/newest", sqlite51, true, true},
		{"lmdb/newest", sqlite51, true, false},
	} {
		if got := tc.sel.Matches(tc.k, tc.newest); got != tc.want {
			t.Errorf("%q matches %s (newest %v) = %v, want %v", tc.sel, tc.k, tc.newest, got, tc.want)
		}
	}
}

// letters renders planned writers as "a×15+1 c×15+1".
func letters(ps []Planned) string {
	var out []string
	for _, p := range ps {
		s := p.Writer.Letter() + "×" + itoa(p.Runs)
		if p.Warmups > 0 {
			s += "+" + itoa(p.Warmups)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func itoa(n int) string { return groupDigits(n) }

func TestPlanCells(t *testing.T) {
	rules, err := ParseRules("a+c:100+1000:all:all:15 a+c:100000:gsqlite3/newest:initial+noop:5 " +
		"c0:1000:all:changed+noop:9 d+b:1000:lmdb/4.9:noop:15 d+b:1000:lmdb/4.9:all:5")
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Rules: rules, Warmup: 1}
	sqlite47 := ServerKey{Backend: "gsqlite3", Version: "4.7.3"}
	sqlite51 := ServerKey{Backend: "gsqlite3", Version: "5.1.5"}
	lmdb49 := ServerKey{Backend: "lmdb", Version: "4.9.18"}
	for _, tc := range []struct {
		name   string
		k      ServerKey
		newest bool
		n      int
		s      Scenario
		want   string
	}{
		{"first scenario warms up", sqlite47, false, 1000, Initial, "a×15+1 c×15+1"},
		{"later scenarios do not", sqlite47, false, 1000, Deleted, "a×15 c×15"},
		{"a writer's own first scenario warms it up", sqlite47, false, 1000, Changed, "a×15 c×15 c₀×9+1"},
		{"not the newest", sqlite47, false, 100000, Initial, ""},
		{"the newest", sqlite51, true, 100000, Initial, "a×5+1 c×5+1"},
		{"not in the rule's scenarios", sqlite51, true, 100000, Changed, ""},
		{"the first rule decides the runs", lmdb49, false, 1000, NoOp, "a×15 d×15 b×15 c×15 c₀×9"},
		{"the second rule covers the rest", lmdb49, false, 1000, Initial, "a×15+1 d×5 b×5 c×15+1"},
		{"per-object writers never warm up", lmdb49, false, 1000, Deleted, "a×15 d×5 b×5 c×15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := letters(p.Cells(tc.k, tc.newest, tc.n, tc.s)); got != tc.want {
				t.Errorf("cells = %q, want %q", got, tc.want)
			}
		})
	}
	if got := p.SizesOn(sqlite47, false); len(got) != 2 || got[0] != 100 || got[1] != 1000 {
		t.Errorf("sizes on 4.7 = %v, want [100 1000]", got)
	}
	if got := p.Sizes(); len(got) != 3 || got[2] != 100000 {
		t.Errorf("sizes = %v, want [100 1000 100000]", got)
	}
	// 4 scenarios × (15 + 15) at 100, plus the two warm-ups.
	if got := p.RunsAt(sqlite47, false, 100); got != 4*30+2 {
		t.Errorf("runs at 100 on 4.7 = %d, want %d", got, 4*30+2)
	}
}

func TestPlanFilters(t *testing.T) {
	rules, err := ParseRules("a+c:100+1000:all:all:15 a+c:100000:gsqlite3/newest:initial:5")
	if err != nil {
		t.Fatal(err)
	}
	p := Plan{Rules: rules}
	quick := p.Restrict([]int{100, 1000}, 3)
	if len(quick.Rules) != 1 || quick.Rules[0].String() != "a+c:100+1000:all:initial+changed+noop+deleted:3" {
		t.Errorf("restricted plan: %v", quick.Rules)
	}
	if got := p.Restrict(nil, 20).Rules[1].Runs; got != 5 {
		t.Errorf("a cap above a rule's runs changed them to %d", got)
	}
	if got := p.Restrict(nil, 0).Rules[0].Runs; got != 15 {
		t.Errorf("no cap changed the runs to %d", got)
	}
	sqlite51 := ServerKey{Backend: "gsqlite3", Version: "5.1.5"}
	p.Versions = []string{"4.9"}
	if p.Selects(sqlite51, true) {
		t.Error("-versions 4.9 selects 5.1")
	}
	p.Versions, p.Backends = nil, []string{"lmdb"}
	if p.Selects(sqlite51, true) {
		t.Error("-backends lmdb selects gsqlite3")
	}
	p.Backends = nil
	if !p.Selects(sqlite51, true) {
		t.Error("no filter does not select 5.1")
	}
	if (Plan{Rules: []Rule{{Writers: []WriterID{Sync}, Sizes: []int{10}, On: []Selector{"lmdb"}, Scenarios: Scenarios(), Runs: 1}}}).Selects(sqlite51, true) {
		t.Error("a plan of LMDB alone selects gsqlite3")
	}
}
