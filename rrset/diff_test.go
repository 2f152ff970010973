package rrset_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// owned returns rr as written by managedBy.
func owned(rr rrset.RRset, managedBy string) rrset.RRset {
	rr.ManagedBy = managedBy
	return rr
}

func noted(rr rrset.RRset, comment string) rrset.RRset {
	rr.Comment = comment
	return rr
}

func ttl(rr rrset.RRset, ttl uint32) rrset.RRset {
	rr.TTL = ttl
	return rr
}

// summary is one change in a form a table can state: "op name type", then
// the old and new owners for updates.
func summary(c rrset.Change) string {
	s := c.Op.String() + " " + c.Key().String()
	if c.Op == rrset.OpUpdate {
		s += " " + owner(c.Old.ManagedBy) + "->" + owner(c.New.ManagedBy)
	}
	return s
}

func owner(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func TestDiff(t *testing.T) {
	const me = "dns-operator"
	a := mustRR(t, "www", "A", "192.0.2.1")
	a2 := mustRR(t, "www", "A", "192.0.2.2")
	txt := mustRR(t, "www", "TXT", "hello")
	cname := mustRR(t, "v4", "CNAME", "@")
	v4a := mustRR(t, "v4", "A", "192.0.2.4")
	old := mustRR(t, "old", "A", "192.0.2.9")

	tests := []struct {
		name          string
		desired, live []rrset.RRset
		managedBy     string
		want          []string
	}{
		{name: "nothing", want: nil},
		{name: "create", desired: []rrset.RRset{a}, managedBy: me,
			want: []string{"create www.example.com. A"}},
		{name: "equal and owned: no change", desired: []rrset.RRset{a}, live: []rrset.RRset{owned(a, me)}, managedBy: me},
		{name: "records differ", desired: []rrset.RRset{a2}, live: []rrset.RRset{owned(a, me)}, managedBy: me,
			want: []string{"update www.example.com. A dns-operator->dns-operator"}},
		{name: "TTL differs", desired: []rrset.RRset{ttl(a, 60)}, live: []rrset.RRset{owned(a, me)}, managedBy: me,
			want: []string{"update www.example.com. A dns-operator->dns-operator"}},
		{name: "comment added", desired: []rrset.RRset{noted(a, "ticket 42")}, live: []rrset.RRset{owned(a, me)}, managedBy: me,
			want: []string{"update www.example.com. A dns-operator->dns-operator"}},
		{name: "comment changed", desired: []rrset.RRset{noted(a, "ticket 43")}, live: []rrset.RRset{noted(owned(a, me), "ticket 42")}, managedBy: me,
			want: []string{"update www.example.com. A dns-operator->dns-operator"}},
		{name: "comment removed", desired: []rrset.RRset{a}, live: []rrset.RRset{noted(owned(a, me), "ticket 42")}, managedBy: me,
			want: []string{"update www.example.com. A dns-operator->dns-operator"}},
		{name: "same comment: no change", desired: []rrset.RRset{noted(a, "ticket 42")}, live: []rrset.RRset{noted(owned(a, me), "ticket 42")}, managedBy: me},
		{name: "owned and no longer desired: delete", live: []rrset.RRset{owned(old, me)}, managedBy: me,
			want: []string{"delete old.example.com. A"}},
		{name: "another writer's is never deleted", live: []rrset.RRset{owned(old, "external-dns")}, managedBy: me},
		{name: "an unowned one is never deleted", live: []rrset.RRset{old}, managedBy: me},
		{name: "without a writer nothing is deleted", live: []rrset.RRset{old}, managedBy: ""},
		{name: "another writer's key: update with Old, for the conflict package",
			desired: []rrset.RRset{a2}, live: []rrset.RRset{owned(a, "external-dns")}, managedBy: me,
			want: []string{"update www.example.com. A external-dns->dns-operator"}},
		{name: "another writer's key with equal data: still an update",
			desired: []rrset.RRset{a}, live: []rrset.RRset{owned(a, "external-dns")}, managedBy: me,
			want: []string{"update www.example.com. A external-dns->dns-operator"}},
		{name: "unowned with equal data: update to adopt",
			desired: []rrset.RRset{a}, live: []rrset.RRset{a}, managedBy: me,
			want: []string{"update www.example.com. A none->dns-operator"}},
		{name: "no writer and unowned equal data: no change",
			desired: []rrset.RRset{a}, live: []rrset.RRset{a}, managedBy: ""},
		{name: "cross-type at one name is left to the conflict package",
			desired: []rrset.RRset{cname}, live: []rrset.RRset{owned(v4a, "other")}, managedBy: me,
			want: []string{"create v4.example.com. CNAME"}},
		{name: "replacing a type: delete first",
			desired: []rrset.RRset{cname}, live: []rrset.RRset{owned(v4a, me)}, managedBy: me,
			want: []string{"delete v4.example.com. A", "create v4.example.com. CNAME"}},
		{name: "deletes first, then creates and updates by name and type",
			desired: []rrset.RRset{txt, a2, cname}, live: []rrset.RRset{owned(a, me), owned(old, me), owned(v4a, me)}, managedBy: me,
			want: []string{"delete old.example.com. A", "delete v4.example.com. A", "create v4.example.com. CNAME",
				"update www.example.com. A dns-operator->dns-operator", "create www.example.com. TXT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := rrset.Diff(newSet(t, tt.desired...), newSet(t, tt.live...), tt.managedBy)
			var got []string
			for _, c := range plan.Changes {
				got = append(got, summary(c))
				if c.New != nil {
					assert.Equal(t, tt.managedBy, c.New.ManagedBy, "Diff stamps the writer on what it writes")
					d, _ := newSet(t, tt.desired...).Get(c.Key())
					assert.Equal(t, d.Comment, c.New.Comment, "the comment written is the desired one")
				}
				assert.Equal(t, c.Old != nil && c.New != nil && c.Old.ManagedBy != c.New.ManagedBy, c.ChangesOwner())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, zone, plan.Zone)
			assert.Equal(t, tt.managedBy, plan.ManagedBy)
			assert.Equal(t, len(tt.want) == 0, plan.Empty())
		})
	}
}

// TestDiffIgnoresSpelling: the same data written in other spellings (name
// case, relative names, TXT quoting, trailing dots, IPv6 forms, number
// padding) makes no change.
func TestDiffIgnoresSpelling(t *testing.T) {
	desired := newSet(t,
		mustRR(t, "api", "A", "192.0.2.1"),
		mustRR(t, "api", "AAAA", "2001:db8::1"),
		mustRR(t, "txt", "TXT", "v=spf1 -all"),
		mustRR(t, "@", "MX", "10 mail.example.com"),
		mustRR(t, "alias", "CNAME", "Target.Example.NET"),
	)
	live := newSet(t)
	for _, rr := range []struct{ name, typ, content string }{
		{"API.example.com.", "a", "192.0.2.1"},
		{"api.example.com", "AAAA", "2001:0DB8:0:0:0:0:0:1"},
		{"txt.example.com.", "TXT", `"v=spf1 -all"`},
		{"example.com.", "MX", "010 mail.example.com."},
		{"alias", "cname", "target.example.net."},
	} {
		l, err := rrset.NewLive(zone, rr.name, rr.typ, 300, rr.content)
		require.NoError(t, err)
		l.ManagedBy = "me"
		require.NoError(t, live.Add(l))
	}
	plan := rrset.Diff(desired, live, "me")
	assert.True(t, plan.Empty(), "%s", plan)
}

func TestDiffNilAndForeignSets(t *testing.T) {
	a := mustRR(t, "www", "A", "192.0.2.1")
	plan := rrset.Diff(nil, nil, "me")
	assert.True(t, plan.Empty())
	assert.Empty(t, plan.Zone)

	plan = rrset.Diff(newSet(t, a), nil, "me")
	assert.Equal(t, []string{"create www.example.com. A"}, summaries(plan))

	plan = rrset.Diff(nil, newSet(t, owned(a, "me")), "me")
	assert.Equal(t, zone, plan.Zone)
	assert.Equal(t, []string{"delete www.example.com. A"}, summaries(plan), "an empty desired Set deletes what the writer owns")

	// Live RRsets outside the desired zone are never deleted.
	parent, err := rrset.NewSet("com.")
	require.NoError(t, err)
	outside, err := rrset.New("com.", "other", "A", 300, "192.0.2.1")
	require.NoError(t, err)
	inside, err := rrset.New("com.", "gone.example", "A", 300, "192.0.2.1")
	require.NoError(t, err)
	require.NoError(t, parent.Add(owned(outside, "me")))
	require.NoError(t, parent.Add(owned(inside, "me")))
	plan = rrset.Diff(newSet(t), parent, "me")
	assert.Equal(t, []string{"delete gone.example.com. A"}, summaries(plan))
}

func summaries(p rrset.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, summary(c))
	}
	return out
}

func TestOp(t *testing.T) {
	for _, tt := range []struct {
		op   rrset.Op
		want string
	}{{rrset.OpCreate, "create"}, {rrset.OpUpdate, "update"}, {rrset.OpDelete, "delete"}} {
		assert.True(t, tt.op.Valid())
		assert.Equal(t, tt.want, tt.op.String())
		text, err := tt.op.MarshalText()
		require.NoError(t, err)
		var back rrset.Op
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, tt.op, back)
	}
	var zero rrset.Op
	assert.False(t, zero.Valid(), "the zero Op is invalid")
	assert.Equal(t, "Op(0)", zero.String())
	assert.Equal(t, "Op(9)", rrset.Op(9).String())
	_, err := zero.MarshalText()
	assert.Error(t, err)
	_, err = json.Marshal(rrset.Change{})
	assert.Error(t, err, "a change without an op does not encode")
	assert.Error(t, zero.UnmarshalText([]byte("upsert")))
	assert.Error(t, zero.UnmarshalText([]byte("")))
}

// goldenPlan is a plan with every kind of change, ownership changes and a
// TTL change included.
func goldenPlan(t *testing.T) rrset.Plan {
	t.Helper()
	const me = "dns-operator"
	desired := newSet(t,
		mustRR(t, "@", "MX", "10 mail.example.com", "20 backup.example.net"),
		mustRR(t, "api", "A", "192.0.2.1", "192.0.2.2"),
		ttl(mustRR(t, "www", "A", "192.0.2.2", "192.0.2.3"), 600),
		mustRR(t, "v4", "CNAME", "@"),
		mustRR(t, "_acme-challenge", "TXT", "token-1"),
		mustRR(t, "shared", "TXT", "v=spf1 -all"),
		mustRR(t, "adopted", "AAAA", "2001:db8::1"),
		mustRR(t, "_443._tcp.api", "TLSA", "3 1 1 "+sha256),
		mustRR(t, "long", "TXT", long300),
	)
	live := newSet(t,
		owned(mustRR(t, "@", "MX", "10 mail.example.com"), me),
		owned(mustRR(t, "www", "A", "192.0.2.1", "192.0.2.2"), me),
		owned(mustRR(t, "v4", "A", "192.0.2.4"), me),
		owned(mustRR(t, "old", "A", "192.0.2.9"), me),
		owned(mustRR(t, "shared", "TXT", "v=spf1 include:other -all"), "external-dns"),
		mustRR(t, "adopted", "AAAA", "2001:db8::1"),
		owned(mustRR(t, "_acme-challenge", "TXT", "token-1"), me),
		owned(mustRR(t, "kept-by-other", "A", "192.0.2.8"), "external-dns"),
	)
	return rrset.Diff(desired, live, me)
}

func TestPlanGolden(t *testing.T) {
	plan := goldenPlan(t)
	empty := rrset.Diff(newSet(t), newSet(t), "dns-operator")

	js, err := json.MarshalIndent(plan, "", "  ")
	require.NoError(t, err)
	again, err := json.MarshalIndent(goldenPlan(t), "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(js), string(again), "the JSON encoding is stable")

	var decoded rrset.Plan
	require.NoError(t, json.Unmarshal(js, &decoded))
	assert.Equal(t, plan, decoded, "the JSON encoding round-trips")

	emptyJS, err := json.Marshal(empty)
	require.NoError(t, err)

	for _, g := range []struct{ file, got string }{
		{"plan.golden", plan.String()},
		{"plan.json.golden", string(js) + "\n"},
		{"plan-empty.golden", empty.String()},
		{"plan-empty.json.golden", string(emptyJS) + "\n"},
		{"change-update.golden", plan.Changes[len(plan.Changes)-1].String() + "\n"},
	} {
		t.Run(g.file, func(t *testing.T) {
			assertGolden(t, g.file, g.got)
		})
	}
}

// assertGolden compares got with testdata/file; go test -update rewrites
// the file instead.
func assertGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./rrset -update to create it")
	assert.Equal(t, string(want), got, "run go test ./rrset -update to accept the new output")
}

func TestChangeAccessors(t *testing.T) {
	a := mustRR(t, "www", "A", "192.0.2.1")
	b := owned(a, "me")
	tests := []struct {
		name         string
		change       rrset.Change
		key          rrset.Key
		changesOwner bool
		rendered     string
	}{
		{"create", rrset.Change{Op: rrset.OpCreate, New: &b}, a.Key(), false, "+ www.example.com. 300 IN A 192.0.2.1"},
		{"delete", rrset.Change{Op: rrset.OpDelete, Old: &b}, a.Key(), false, "- www.example.com. 300 IN A 192.0.2.1"},
		{"adopt", rrset.Change{Op: rrset.OpUpdate, Old: &a, New: &b}, a.Key(), true,
			"~ www.example.com. 300 IN A (owner none -> \"me\")\n      192.0.2.1"},
		{"invalid", rrset.Change{}, rrset.Key{}, false, "? Op(0)  "},
		{"update without old", rrset.Change{Op: rrset.OpUpdate, New: &b}, a.Key(), false, "? update www.example.com. A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.key, tt.change.Key())
			assert.Equal(t, tt.changesOwner, tt.change.ChangesOwner())
			assert.Equal(t, tt.rendered, tt.change.String())
		})
	}
	plan := rrset.Plan{Zone: zone, Changes: []rrset.Change{tests[0].change, tests[1].change, tests[2].change}}
	assert.Equal(t, 1, plan.Count(rrset.OpCreate))
	assert.Equal(t, 1, plan.Count(rrset.OpUpdate))
	assert.Equal(t, 1, plan.Count(rrset.OpDelete))
	assert.Equal(t, "Plan for : no changes.\n", rrset.Plan{}.String())
}

// TestPlanStringComment: an update that changes the comment says so.
func TestPlanStringComment(t *testing.T) {
	a := mustRR(t, "www", "A", "192.0.2.1")
	plan := rrset.Diff(newSet(t, noted(a, "ticket 43")), newSet(t, noted(owned(a, "me"), "ticket 42")), "me")
	assert.Contains(t, plan.String(), "\n~ www.example.com. 300 IN A (comment \"ticket 43\")\n      192.0.2.1\n")
}
