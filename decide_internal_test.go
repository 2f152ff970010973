package reconcile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// The decisions, table-tested without a server: decide is a pure function
// of the desired state, a read of the zone and the Reconciler's memory.

const testZone = "example.com."

// rr builds a canonical RRset of testZone held by writer (and owner, after
// a slash: "w/obj").
func rr(t *testing.T, holder, name, typ string, contents ...string) rrset.RRset {
	t.Helper()
	r, err := rrset.New(testZone, name, typ, 300, contents...)
	require.NoError(t, err)
	r.ManagedBy, r.Owner, _ = strings.Cut(holder, "/")
	return r
}

// noted returns r with the comment note.
func noted(r rrset.RRset, note string) rrset.RRset {
	r.Comment = note
	return r
}

func setOf(t *testing.T, rrs ...rrset.RRset) *rrset.Set {
	t.Helper()
	s, err := rrset.NewSet(testZone)
	require.NoError(t, err)
	for _, r := range rrs {
		require.NoError(t, s.Add(r))
	}
	return s
}

// obsOf is an observation of testZone holding live (and its apex SOA).
func obsOf(t *testing.T, live ...rrset.RRset) *observation {
	t.Helper()
	soa := rr(t, "", "@", "SOA", "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600")
	return &observation{set: setOf(t, append([]rrset.RRset{soa}, live...)...), claims: readClaims(nil, "me", readScope{})}
}

// memory is a recall whose gate is open for the keys in open, and which
// remembers refusals.
type memory struct {
	open    map[rrset.Key]bool
	asked   []rrset.Key
	refusal map[rrset.Key][]pdnserrors.Problem
}

func (m *memory) sustained(k rrset.Key) bool {
	m.asked = append(m.asked, k)
	return m.open[k]
}

func (m *memory) refused(c rrset.Change, _ *rrset.Set) ([]pdnserrors.Problem, bool) {
	p, ok := m.refusal[c.Key()]
	return p, ok
}

func defaultRules() rules {
	c := defaultConfig()
	c.managedBy = "me"
	return c.rules()
}

// summary renders a decision as short lines, for comparing with a table.
func summary(d decision) []string {
	var out []string
	for _, c := range d.plan.Changes {
		out = append(out, c.Op.String()+" "+strings.TrimSuffix(c.Key().Name, "."+testZone)+" "+c.Key().Type)
	}
	for _, c := range d.blocked {
		out = append(out, "blocked "+strings.TrimSuffix(c.Key.Name, "."+testZone)+" "+c.Key.Type+" "+string(c.Kind))
	}
	for _, def := range d.deferred {
		out = append(out, "deferred "+strings.TrimSuffix(def.RRset.Name, "."+testZone)+" "+def.RRset.Type+" "+string(def.Reason))
	}
	for _, r := range d.refused {
		verb := "refused "
		if r.Remembered {
			verb = "remembered "
		}
		out = append(out, verb+strings.TrimSuffix(r.Change.Key().Name, "."+testZone)+" "+r.Change.Key().Type)
	}
	for _, h := range d.handovers {
		out = append(out, "handover "+strings.TrimSuffix(h.Key.Name, "."+testZone)+" "+h.From+" -> "+h.To)
	}
	if d.locking {
		out = append(out, "lock")
	}
	return out
}

func TestDecideSync(t *testing.T) {
	www := func(holder string) rrset.RRset { return rr(t, holder, "www", "A", "192.0.2.1") }
	wwwNew := rr(t, "me", "www", "A", "192.0.2.2")
	many := func(holder string, n int) []rrset.RRset {
		var out []rrset.RRset
		for i := range n {
			out = append(out, rr(t, holder, "h"+string(rune('a'+i)), "TXT", `"x"`))
		}
		return out
	}
	cases := []struct {
		name    string
		desired []rrset.RRset
		live    []rrset.RRset
		rules   func(*rules)
		in      func(*intent)
		open    []string // names whose absence is sustained
		refused []string // names whose change PowerDNS refused before
		want    []string
	}{
		{name: "in sync", desired: []rrset.RRset{www("me")}, live: []rrset.RRset{www("me")}, want: nil},
		{name: "create takes the lock", desired: []rrset.RRset{www("me")}, want: []string{"create www A", "lock"}},
		{name: "own update needs no lock", desired: []rrset.RRset{wwwNew}, live: []rrset.RRset{www("me")}, want: []string{"update www A"}},
		{name: "a changed comment is an update, with no lock", desired: []rrset.RRset{noted(www("me"), "ticket 43")},
			live: []rrset.RRset{noted(www("me"), "ticket 42")}, want: []string{"update www A"}},
		{name: "the same comment is in sync", desired: []rrset.RRset{noted(www("me"), "ticket 42")},
			live: []rrset.RRset{noted(www("me"), "ticket 42")}, want: nil},
		{name: "a comment on another writer's RRset does not make it ours", desired: []rrset.RRset{noted(wwwNew, "mine")},
			live: []rrset.RRset{www("them")}, want: []string{"blocked www A NotOwner"}},
		{name: "another writer's", desired: []rrset.RRset{wwwNew}, live: []rrset.RRset{www("them")},
			want: []string{"blocked www A NotOwner"}},
		{name: "unowned without adoption", desired: []rrset.RRset{www("me")}, live: []rrset.RRset{www("")},
			want: []string{"blocked www A Unowned"}},
		{name: "unowned adopted under the lock", desired: []rrset.RRset{www("me")}, live: []rrset.RRset{www("")},
			rules: func(r *rules) { r.adopt = true; r.conflicts = append(r.conflicts, conflict.WithAdoption(true)) },
			want:  []string{"update www A", "lock"}},
		{name: "absent: gate holds", live: []rrset.RRset{www("me")},
			want: []string{"deferred www A AbsenceNotSustained"}},
		{name: "absent: gate open", live: []rrset.RRset{www("me")}, open: []string{"www"},
			want: []string{"delete www A"}},
		{name: "absent: upsert-only", live: []rrset.RRset{www("me")}, open: []string{"www"},
			rules: func(r *rules) { r.upsertOnly = true }, want: []string{"deferred www A UpsertOnly"}},
		{name: "absent: teardown deletes at once", live: []rrset.RRset{www("me")},
			in: func(in *intent) { in.deletes = deleteNow }, want: []string{"delete www A"}},
		{name: "another writer's absent RRset is not ours to delete", live: []rrset.RRset{www("them")}, open: []string{"www"}, want: nil},
		{name: "guard holds a large delete", live: many("me", 10), open: []string{"ha", "hb", "hc", "hd"},
			want: []string{"deferred ha TXT DeleteGuard", "deferred hb TXT DeleteGuard", "deferred hc TXT DeleteGuard", "deferred hd TXT DeleteGuard",
				"deferred he TXT AbsenceNotSustained", "deferred hf TXT AbsenceNotSustained", "deferred hg TXT AbsenceNotSustained",
				"deferred hh TXT AbsenceNotSustained", "deferred hi TXT AbsenceNotSustained", "deferred hj TXT AbsenceNotSustained"}},
		{name: "guard lets a small delete pass", desired: many("me", 10)[1:], live: many("me", 10), open: []string{"ha"},
			want: []string{"delete ha TXT"}},
		{name: "forced past the guard", desired: many("me", 10)[4:], live: many("me", 10), open: []string{"ha", "hb", "hc", "hd"},
			in:   func(in *intent) { in.force = true },
			want: []string{"delete ha TXT", "delete hb TXT", "delete hc TXT", "delete hd TXT"}},
		{name: "CNAME next to another writer's A", desired: []rrset.RRset{rr(t, "me", "www", "CNAME", "@")}, live: []rrset.RRset{www("them")},
			want: []string{"blocked www CNAME CNAMEAndOtherData"}},
		{name: "CNAME next to a held-back A of the writer", desired: []rrset.RRset{rr(t, "me", "www", "CNAME", "@")}, live: []rrset.RRset{www("me")},
			want: []string{"blocked www CNAME CNAMEAndOtherData", "deferred www A AbsenceNotSustained"}},
		{name: "takeover replaces the held-back A", desired: []rrset.RRset{rr(t, "me", "www", "CNAME", "@")}, live: []rrset.RRset{www("me")},
			rules: func(r *rules) { r.conflicts = append(r.conflicts, conflict.WithPolicy(conflict.Takeover)) },
			want:  []string{"delete www A", "create www CNAME", "lock"}},
		{name: "ALIAS next to A", desired: []rrset.RRset{rr(t, "me", "@", "ALIAS", "lb.example.net.")}, live: []rrset.RRset{rr(t, "me", "@", "A", "192.0.2.1")},
			want: []string{"blocked example.com. ALIAS ALIASAndAddress", "deferred example.com. A AbsenceNotSustained"}},
		{name: "ALIAS next to A, allowed", desired: []rrset.RRset{rr(t, "me", "@", "ALIAS", "lb.example.net."), rr(t, "me", "@", "A", "192.0.2.1")},
			live:  []rrset.RRset{rr(t, "me", "@", "A", "192.0.2.1")},
			rules: func(r *rules) { r.conflicts = append(r.conflicts, conflict.WithAllowed(conflict.ALIASAndAddress)) },
			want:  []string{"create example.com. ALIAS", "lock"}},
		{name: "a refusal is not sent again", desired: []rrset.RRset{wwwNew}, live: []rrset.RRset{www("me")}, refused: []string{"www"},
			want: []string{"remembered www A"}},
		{name: "handover between objects of the writer", desired: []rrset.RRset{www("me/b")}, live: []rrset.RRset{www("me/a")},
			want: []string{"update www A", "handover www a -> b"}},
		{name: "no owner named keeps the recorded one", desired: []rrset.RRset{www("me")}, live: []rrset.RRset{www("me/a")}, want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ru := defaultRules()
			if c.rules != nil {
				c.rules(&ru)
			}
			in := intent{desired: setOf(t, c.desired...)}
			if c.in != nil {
				c.in(&in)
			}
			mem := &memory{open: map[rrset.Key]bool{}, refusal: map[rrset.Key][]pdnserrors.Problem{}}
			for _, n := range c.open {
				for _, l := range c.live {
					if strings.HasPrefix(l.Name, n+".") {
						mem.open[l.Key()] = true
					}
				}
			}
			for _, n := range c.refused {
				mem.refusal[rrset.Key{Name: n + "." + testZone, Type: "A"}] = []pdnserrors.Problem{{Message: "no"}}
			}
			got := summary(decide(in, obsOf(t, c.live...), ru, mem))
			assert.Equal(t, c.want, got)
		})
	}
}

// TestDecideAsksTheGateOncePerKey: a decision made again (a re-read under
// the lock) asks the gate about the same keys, and every absent RRset of
// the writer is asked about — also one that appeared since the first read.
func TestDecideAsksTheGateOncePerKey(t *testing.T) {
	mem := &memory{open: map[rrset.Key]bool{}}
	first := obsOf(t, rr(t, "me", "a", "A", "192.0.2.1"))
	in := intent{desired: setOf(t)}
	decide(in, first, defaultRules(), mem)
	assert.Equal(t, []rrset.Key{{Name: "a." + testZone, Type: "A"}}, mem.asked)

	mem.asked = nil
	// Another replica of the writer created b since: still gated.
	again := obsOf(t, rr(t, "me", "a", "A", "192.0.2.1"), rr(t, "me", "b", "A", "192.0.2.2"))
	d := decide(in, again, defaultRules(), mem)
	assert.ElementsMatch(t, []rrset.Key{{Name: "a." + testZone, Type: "A"}, {Name: "b." + testZone, Type: "A"}}, mem.asked)
	assert.Empty(t, d.plan.Changes, "nothing deleted on first sight")
	assert.Len(t, d.deferred, 2)
}

func TestDecideApplyAndRemove(t *testing.T) {
	a := rr(t, "me", "www", "A", "192.0.2.1")
	txt := rr(t, "me", "www", "TXT", `"v=1"`)
	cases := []struct {
		name  string
		in    intent
		live  []rrset.RRset
		dis   []rrset.RRset
		rules func(*rules)
		want  []string
	}{
		{name: "apply leaves the writer's other RRsets at the name",
			in: intent{desired: setOf(t, a), keys: []rrset.Key{a.Key()}}, live: []rrset.RRset{txt}, want: []string{"create www A", "lock"}},
		{name: "apply judges against all data at the name",
			in:   intent{desired: setOf(t, rr(t, "me", "www", "CNAME", "@")), keys: []rrset.Key{{Name: "www." + testZone, Type: "CNAME"}}},
			live: []rrset.RRset{txt}, want: []string{"blocked www CNAME CNAMEAndOtherData"}},
		{name: "remove the writer's",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, live: []rrset.RRset{a, txt}, want: []string{"delete www A"}},
		{name: "remove what is gone",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, want: nil},
		{name: "remove another writer's",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, live: []rrset.RRset{rr(t, "them", "www", "A", "192.0.2.1")},
			want: []string{"blocked www A NotOwner"}},
		{name: "remove one of no writer",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, live: []rrset.RRset{rr(t, "", "www", "A", "192.0.2.1")},
			want: []string{"blocked www A Unowned"}},
		{name: "remove one of no writer, adopting",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, live: []rrset.RRset{rr(t, "", "www", "A", "192.0.2.1")},
			rules: func(r *rules) { r.adopt = true }, want: []string{"delete www A", "lock"}},
		{name: "remove keeps another object's RRset of the writer",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow, owner: "b"}, live: []rrset.RRset{rr(t, "me/a", "www", "A", "192.0.2.1")},
			want: nil},
		{name: "remove by the owning object",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow, owner: "a"}, live: []rrset.RRset{rr(t, "me/a", "www", "A", "192.0.2.1")},
			want: []string{"delete www A"}},
		{name: "remove keeps another object's disabled RRset",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow, owner: "b"}, dis: []rrset.RRset{rr(t, "me/a", "www", "A", "192.0.2.1")},
			want: nil},
		{name: "remove the writer's disabled RRset",
			in: intent{desired: setOf(t), keys: []rrset.Key{a.Key()}, deletes: deleteNow}, dis: []rrset.RRset{a}, want: []string{"delete www A"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ru := defaultRules()
			if c.rules != nil {
				c.rules(&ru)
			}
			obs := obsOf(t, c.live...)
			obs.disabled = c.dis
			got := summary(decide(c.in, obs, ru, &memory{}))
			assert.Equal(t, c.want, got)
		})
	}
}

// TestDecideVersionRefusals: a delete the server's version refuses (LUA
// from PowerDNS 5.1) is refused with the version and not sent, the rest of
// the plan going; other versions, an unknown version and other types
// delete as before, and a Remove of a LUA that is not there refuses
// nothing.
func TestDecideVersionRefusals(t *testing.T) {
	lua := rr(t, "me", "l", "LUA", `A "ifportup(443, {'192.0.2.1'})"`)
	loc := rr(t, "me", "loc", "LOC", "1 1 0 N 1 0 0 E 0")
	www := rr(t, "me", "www", "A", "192.0.2.1")
	remove := func(k rrset.Key) intent {
		return intent{desired: setOf(t), keys: []rrset.Key{k}, deletes: deleteNow}
	}
	teardown := intent{desired: setOf(t, www), deletes: deleteNow}
	cases := []struct {
		name    string
		in      intent
		live    []rrset.RRset
		version string
		want    []string
	}{
		{name: "remove on 5.1", in: remove(lua.Key()), live: []rrset.RRset{lua}, version: "5.1.5", want: []string{"refused l LUA"}},
		{name: "remove on 6.0", in: remove(lua.Key()), live: []rrset.RRset{lua}, version: "6.0.0", want: []string{"refused l LUA"}},
		{name: "remove on 5.0", in: remove(lua.Key()), live: []rrset.RRset{lua}, version: "5.0.2", want: []string{"delete l LUA"}},
		{name: "remove on 4.7", in: remove(lua.Key()), live: []rrset.RRset{lua}, version: "4.7.3", want: []string{"delete l LUA"}},
		{name: "remove, version unknown", in: remove(lua.Key()), live: []rrset.RRset{lua}, want: []string{"delete l LUA"}},
		{name: "remove what is gone on 5.1", in: remove(lua.Key()), version: "5.1.5", want: nil},
		{name: "teardown on 5.1: the rest goes", in: teardown, live: []rrset.RRset{lua, loc}, version: "5.1.5",
			want: []string{"delete loc LOC", "create www A", "refused l LUA", "lock"}},
		{name: "a LOC 4.x prints otherwise is deleted on 4.9", in: remove(loc.Key()), live: []rrset.RRset{loc}, version: "4.9.18",
			want: []string{"delete loc LOC"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ru := defaultRules()
			ru.version = c.version
			d := decide(c.in, obsOf(t, c.live...), ru, &memory{})
			assert.Equal(t, c.want, summary(d))
			for _, r := range d.refused {
				require.Len(t, r.Problems, 1)
				p := r.Problems[0]
				assert.Equal(t, pdnserrors.InvalidRequest, p.Reason)
				assert.Equal(t, lua.Name, p.Name)
				assert.Equal(t, "LUA", p.Type)
				assert.Equal(t, "rrset: "+lua.Name+" LUA: PowerDNS "+c.version+" refuses to delete LUA records through its API "+
					"unless enable-lua-record-updates is set; PowerDNS before 5.1 deletes it", p.Message)
				assert.False(t, r.Remembered, "never sent")
			}
		})
	}
}

func TestWithLiveSerial(t *testing.T) {
	live := rr(t, "me", "@", "SOA", "ns1.example.net. hostmaster.example.com. 2024010107 10800 3600 604800 3600")
	sameButSerial := rr(t, "me", "@", "SOA", "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600")
	newRefresh := rr(t, "me", "@", "SOA", "ns1.example.net. hostmaster.example.com. 1 7200 3600 604800 3600")
	obs := &observation{set: setOf(t, live), serialRewritten: true}

	d := decide(intent{desired: setOf(t, sameButSerial)}, obs, defaultRules(), &memory{})
	assert.Empty(t, d.plan.Changes, "PowerDNS rewrites the serial: a serial alone is no change")

	d = decide(intent{desired: setOf(t, newRefresh)}, obs, defaultRules(), &memory{})
	require.Len(t, d.plan.Changes, 1)
	assert.Equal(t, []string{"ns1.example.net. hostmaster.example.com. 2024010107 7200 3600 604800 3600"}, d.plan.Changes[0].New.Records)

	obs.serialRewritten = false
	d = decide(intent{desired: setOf(t, sameButSerial)}, obs, defaultRules(), &memory{})
	require.Len(t, d.plan.Changes, 1, "without SOA-EDIT-API the serial is written as asked")
	assert.Equal(t, sameButSerial.Records, d.plan.Changes[0].New.Records)
}

// TestDecideKeepsTheApex: no operation deletes the apex SOA or NS, even the
// writer's own: a Sync whose desired state lacks them (the gate open) and a
// Teardown leave them without a word, a Remove that names one is blocked
// as ApexRequired, adopting or not, and the rest of the plan still goes.
func TestDecideKeepsTheApex(t *testing.T) {
	soa := rr(t, "me/zone", "@", "SOA", "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600")
	ns := rr(t, "me/zone", "@", "NS", "ns1.example.net.", "ns2.example.net.")
	www := rr(t, "me", "www", "A", "192.0.2.1")
	cases := []struct {
		name  string
		in    intent
		live  []rrset.RRset
		adopt bool
		want  []string
	}{
		{name: "sync", in: intent{desired: setOf(t)}, live: []rrset.RRset{soa, ns, www}, want: []string{"delete www A"}},
		{name: "teardown", in: intent{desired: setOf(t), deletes: deleteNow}, live: []rrset.RRset{soa, ns, www}, want: []string{"delete www A"}},
		{name: "remove the SOA", in: intent{desired: setOf(t), keys: []rrset.Key{soa.Key()}, deletes: deleteNow}, live: []rrset.RRset{soa, ns},
			want: []string{"blocked example.com. SOA ApexRequired"}},
		{name: "remove the SOA as its owner", in: intent{desired: setOf(t), keys: []rrset.Key{soa.Key()}, deletes: deleteNow, owner: "zone"}, live: []rrset.RRset{soa, ns},
			want: []string{"blocked example.com. SOA ApexRequired"}},
		{name: "remove the NS", in: intent{desired: setOf(t), keys: []rrset.Key{ns.Key()}, deletes: deleteNow}, live: []rrset.RRset{soa, ns},
			want: []string{"blocked example.com. NS ApexRequired"}},
		{name: "remove an NS no writer holds, adopting", in: intent{desired: setOf(t), keys: []rrset.Key{ns.Key()}, deletes: deleteNow},
			live: []rrset.RRset{soa, rr(t, "", "@", "NS", "ns1.example.net.")}, adopt: true,
			want: []string{"blocked example.com. NS ApexRequired"}},
		{name: "remove an NS that is gone", in: intent{desired: setOf(t), keys: []rrset.Key{ns.Key()}, deletes: deleteNow}, live: []rrset.RRset{soa},
			want: nil},
		{name: "apply changes the NS", in: intent{desired: setOf(t, rr(t, "me/ns", "@", "NS", "ns3.example.net.")), keys: []rrset.Key{ns.Key()}},
			live: []rrset.RRset{soa, ns}, want: []string{"update example.com. NS", "handover example.com. zone -> ns"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ru := defaultRules()
			if c.adopt {
				ru = ru.adopting()
			}
			obs := &observation{set: setOf(t, c.live...), claims: readClaims(nil, "me", readScope{})}
			open := &memory{open: map[rrset.Key]bool{soa.Key(): true, ns.Key(): true, www.Key(): true}}
			d := decide(c.in, obs, ru, open)
			assert.Equal(t, c.want, summary(d))
			for _, b := range d.blocked {
				assert.True(t, b.Kind.Intrinsic(), "only the caller can lift it")
				assert.Equal(t, ReasonInvalidInput, Result{Blocked: d.blocked}.Condition().Reason)
			}
		})
	}
}
