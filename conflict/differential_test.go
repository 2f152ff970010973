package conflict_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

// The differential test's size per server: batches of plans that share a
// zone (each plan in its own subtree, which is all PowerDNS looks at when
// it checks a write), and plans over the apex, each in zones of its own;
// twice as many with depth.Full.
const (
	diffBatches  = 3
	diffPerBatch = 50
	diffApex     = 12
	diffWriter   = "w1"
)

// diffSeedEnv overrides the random seed, to explore other plans than the
// default ones.
const diffSeedEnv = "CONFLICT_DIFF_SEED"

// TestDifferential holds Check to what real PowerDNS servers answer. For
// many random scenarios (live data of several writers, some of it disabled,
// over a small pool of names and types), the live data is written twice;
// the unchecked Diff plan is sent, as one PATCH, to the first copy and
// PowerDNS's verdict recorded; the plan Check allows is sent to the second.
// Every refusal PowerDNS gives for a rule it enforces must be predicted by a
// Conflict at the key it names, an acceptance must come with no such
// Conflict, the checked plan must always be accepted and leave the zone as
// planned, and the in-process model of PowerDNS that the property tests use
// must give the server's verdict.
func TestDifferential(t *testing.T) {
	seed := uint64(1)
	if v := os.Getenv(diffSeedEnv); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", diffSeedEnv, v, err)
		}
	}
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		d := &differential{t: t, ctx: ctx, srv: srv, rnd: rand.New(rand.NewPCG(seed, 0)), stats: newDiffStats()}
		batches, apexPlans := depth.Of(diffBatches, 2*diffBatches), depth.Of(diffApex, 2*diffApex)
		if testing.Short() {
			batches, apexPlans = 1, 4
		}
		start := time.Now()
		for b := range batches {
			d.flatBatch(b)
		}
		for i := range apexPlans {
			d.apexPlan(i)
		}
		t.Logf("PowerDNS %s (%s), seed %d, %s:\n%s", srv.Version, srv.Backend, seed,
			time.Since(start).Round(time.Millisecond), d.stats)
	})
}

type differential struct {
	t     *testing.T
	ctx   context.Context
	srv   *pdnstest.Server
	rnd   *rand.Rand
	stats *diffStats
	// want holds, per case run since the last verify, the checked copy as
	// its plan should leave it.
	want []diffWant
}

// diffCase is one scenario, written twice: the unchecked copy u and the
// checked copy c, in one zone or two.
type diffCase struct {
	id     string
	u, c   diffCopy
	policy conflict.Policy
	adopt  bool
}

type diffCopy struct {
	zone string
	sc   scenario
}

// toC maps a name of the unchecked copy to the checked one.
func (dc diffCase) toC(name string) string {
	if dc.u.zone != dc.c.zone {
		return strings.TrimSuffix(name, dc.u.zone) + dc.c.zone
	}
	return strings.Replace(name, ".u"+dc.id+".", ".c"+dc.id+".", 1)
}

// newCase draws a scenario and keeps of its live data what PowerDNS
// accepts, so that both copies can be written.
func (d *differential) newCase(id, zoneU, zoneC string, names func(copyLabel string) []string, atApex bool) diffCase {
	data := make([]byte, 512)
	for i := range data {
		data[i] = byte(d.rnd.UintN(256))
	}
	dc := diffCase{id: id}
	for _, cp := range []struct {
		label, zone string
		into        *diffCopy
	}{{"u", zoneU, &dc.u}, {"c", zoneC, &dc.c}} {
		sc := genScenario(d.t, cp.zone, names(cp.label), false, data)
		keepAcceptable(cp.zone, atApex, &sc)
		*cp.into = diffCopy{zone: cp.zone, sc: sc}
	}
	dc.policy, dc.adopt = dc.c.sc.policy, dc.c.sc.adopt
	return dc
}

// keepAcceptable drops the live RRsets PowerDNS would refuse to write, in
// the order they are written: disabled ones first, since a write is judged
// against enabled data only, then enabled ones.
func keepAcceptable(z string, atApex bool, sc *scenario) {
	m := &pdnsZone{apex: z, rrsets: make(map[rrset.Key]pdnsRRset)}
	if atApex {
		for _, typ := range []string{"SOA", "NS"} {
			m.rrsets[rrset.Key{Name: z, Type: typ}] = pdnsRRset{rr: rrset.RRset{Name: z, Type: typ, Records: []string{"x"}}}
		}
	}
	var disabled, live []rrset.RRset
	for _, rr := range sc.disabled {
		// PowerDNS judges a write by its type, not by whether its records
		// are enabled: a disabled CNAME cannot go next to the apex SOA.
		if m.clone().replace(rr) == nil {
			disabled = append(disabled, rr)
			m.rrsets[rr.Key()] = pdnsRRset{rr: rr, disabled: true}
		}
	}
	for _, rr := range sc.live {
		if m.replace(rr) == nil {
			live = append(live, rr)
		}
	}
	sc.live, sc.disabled = live, disabled
}

// flatBatch runs diffPerBatch cases in one zone, case i under the names
// {a,b,c}.u<i> and {a,b,c}.c<i>.
func (d *differential) flatBatch(batch int) {
	d.t.Helper()
	zone := d.srv.NewZone(d.t)
	var cases []diffCase
	for i := range diffPerBatch {
		id := strconv.Itoa(batch*diffPerBatch + i)
		names := func(label string) []string {
			return []string{"a." + label + id, "b." + label + id, "c." + label + id}
		}
		cases = append(cases, d.newCase(id, zone, zone, names, false))
	}
	var seed []pdnsWrite
	for _, dc := range cases {
		seed = append(seed, liveWrites(dc.u.sc)...)
		seed = append(seed, liveWrites(dc.c.sc)...)
	}
	d.writeLive(zone, seed)
	read := d.readZone(zone)
	for _, dc := range cases {
		d.run(dc, read, read)
	}
	d.verify(d.readZone(zone))
}

// apexPlan runs one case whose names include the apex, in two fresh zones.
func (d *differential) apexPlan(i int) {
	d.t.Helper()
	zoneU, zoneC := d.srv.NewZone(d.t), d.srv.NewZone(d.t)
	names := func(string) []string { return []string{"@", "a", "b"} }
	dc := d.newCase("apex"+strconv.Itoa(i), zoneU, zoneC, names, true)
	d.writeLive(zoneU, liveWrites(dc.u.sc))
	d.writeLive(zoneC, liveWrites(dc.c.sc))
	readC := d.readZone(zoneC)
	d.run(dc, d.readZone(zoneU), readC)
	d.verify(d.readZone(zoneC))
}

// run sends the unchecked plan to copy u and the checked one to copy c,
// and compares.
func (d *differential) run(dc diffCase, readU, readC []powerdns.RRset) {
	t := d.t
	t.Helper()
	st := d.stats
	liveU, disabledU := d.liveFromServer(dc.u, readU)
	liveC, disabledC := d.liveFromServer(dc.c, readC)
	desiredU, desiredC := newSet(t, dc.u.zone, dc.u.sc.desired), newSet(t, dc.c.zone, dc.c.sc.desired)

	diff := rrset.Diff(desiredU, liveU, diffWriter)
	res := conflict.Check(desiredC, liveC, diffWriter, conflict.WithPolicy(dc.policy),
		conflict.WithAdoption(dc.adopt), conflict.WithDisabledLive(disabledC...))
	st.plans++
	st.policies[dc.policy.String()]++
	for _, c := range res.Conflicts {
		st.kinds[c.Kind]++
	}
	report := func(format string, args ...any) {
		t.Helper()
		t.Errorf("case %s: "+format+"\n\nscenario (checked copy):\n%s\nunchecked plan:\n%s\nCheck:\n%s",
			append(append([]any{dc.id}, args...), dc.c.sc, diff, render(res))...)
	}
	var enforced []conflict.Conflict
	for _, c := range res.Conflicts {
		if c.Kind.EnforcedByPowerDNS() {
			enforced = append(enforced, c)
		}
	}

	// The unchecked plan, against PowerDNS and against the model.
	model := newPDNSZone(dc.u.zone, liveU, disabledU).patch(diff.Changes)
	if diff.Empty() {
		st.emptyDiff++
	} else {
		status, body := d.patch(dc.u.zone, diff.Changes)
		switch status {
		case http.StatusNoContent:
			st.accepted++
			if model != nil {
				report("PowerDNS accepts the unchecked plan; the model refuses it at %s (%s)", model.key, model.rule)
			} else {
				st.modelAgrees++
			}
			if len(enforced) > 0 {
				report("PowerDNS accepts the unchecked plan; Check blocks %s", enforced[0])
			} else if len(res.Conflicts) > 0 {
				st.stricter++
			}
		case http.StatusUnprocessableEntity:
			st.refused++
			apiErr := pdnserrors.Parse(status, body)
			if d.predicted(dc, res, enforced, apiErr, report) {
				st.predicted++
			}
			switch {
			case model == nil:
				report("PowerDNS refuses the unchecked plan (%s); the model accepts it", body)
			case !slices.ContainsFunc(apiErr.Problems, func(p pdnserrors.Problem) bool {
				k, ok := p.Key()
				return ok && k.Name == model.key.Name && k.Type == model.key.Type
			}):
				report("PowerDNS refuses the unchecked plan (%s); the model refuses it at %s", body, model.key)
			default:
				st.modelAgrees++
			}
		default:
			report("unchecked plan: status %d: %s", status, body)
		}
	}

	// The checked plan: always accepted.
	if !res.Plan.Empty() {
		st.checkedSent++
		status, body := d.patch(dc.c.zone, res.Plan.Changes)
		if status != http.StatusNoContent {
			report("PowerDNS refuses the checked plan: %d %s", status, body)
		} else {
			st.checkedAccepted++
		}
	}
	d.expected(dc, liveC, disabledC, res.Plan)
}

// predicted reports whether every problem of a refusal is predicted: a
// Conflict of a matching kind at the key the problem names, or, under
// Takeover, an RRset displaced at its name.
func (d *differential) predicted(dc diffCase, res conflict.Result, enforced []conflict.Conflict, apiErr *pdnserrors.APIError, report func(string, ...any)) bool {
	d.t.Helper()
	ok := true
	for _, p := range apiErr.Problems {
		d.stats.reasons[p.Reason]++
		kinds, known := kindsForReason[p.Reason]
		pk, named := p.Key()
		if !known || !named {
			report("unexpected refusal of the unchecked plan: %s (%s)", p.Message, p.Reason)
			ok = false
			continue
		}
		k := rrset.Key{Name: dc.toC(pk.Name), Type: pk.Type}
		hit := slices.ContainsFunc(enforced, func(c conflict.Conflict) bool {
			return c.Key == k && slices.Contains(kinds, c.Kind)
		})
		if !hit && dc.policy == conflict.Takeover {
			hit = slices.ContainsFunc(res.Displaced, func(rr rrset.RRset) bool { return rr.Name == k.Name })
		}
		if !hit {
			report("PowerDNS refuses %s (%s), and Check did not predict it", k, p.Message)
			ok = false
		}
	}
	return ok
}

// kindsForReason are the kinds of Conflict that predict a problem of each
// reason PowerDNS gives for its type rules.
var kindsForReason = map[pdnserrors.Reason][]conflict.Kind{
	pdnserrors.Conflict:         {conflict.CNAMEAndOtherData, conflict.ApexCNAME},
	pdnserrors.SingleRecordType: {conflict.SingleRecordType},
	pdnserrors.Placement:        {conflict.Placement, conflict.NSAndDNAME},
}

// expected records what copy c should hold once its plan is applied.
func (d *differential) expected(dc diffCase, live *rrset.Set, disabled []rrset.RRset, plan rrset.Plan) {
	m := newPDNSZone(dc.c.zone, live, disabled)
	if ref := m.patch(plan.Changes); ref != nil {
		d.t.Errorf("case %s: the model refuses the checked plan at %s (%s)", dc.id, ref.key, ref.rule)
	}
	d.want = append(d.want, diffWant{dc: dc, zone: m})
}

// verify compares the checked copies with what their plans should have
// left. The apex SOA is left out: PowerDNS raises its serial on each PATCH.
func (d *differential) verify(read []powerdns.RRset) {
	d.t.Helper()
	for _, w := range d.want {
		zone := w.dc.c.zone
		counted := func(k rrset.Key) bool {
			if k.Type == "SOA" && k.Name == zone {
				return false
			}
			if w.dc.u.zone != zone {
				return strings.HasSuffix(k.Name, zone)
			}
			return strings.Contains(k.Name, ".c"+w.dc.id+".")
		}
		got := make(map[rrset.Key]string)
		for _, p := range read {
			rr, allDisabled, ok := d.fromAPI(zone, p)
			if ok && counted(rr.Key()) {
				got[rr.Key()] = fmt.Sprint(rr.Records, allDisabled)
			}
		}
		want := make(map[rrset.Key]string)
		for k, v := range w.zone.rrsets {
			if counted(k) {
				want[k] = fmt.Sprint(v.rr.Records, v.disabled)
			}
		}
		if !maps.Equal(got, want) {
			d.t.Errorf("case %s: the checked copy holds\n%v\nwant\n%v", w.dc.id, got, want)
		}
	}
	d.want = d.want[:0]
}

type diffWant struct {
	dc   diffCase
	zone *pdnsZone
}

// liveFromServer builds a copy's live Set and disabled RRsets from the zone
// as the server returned it, each with the writer the scenario gave it, and
// checks that it holds what was written.
func (d *differential) liveFromServer(cp diffCopy, read []powerdns.RRset) (*rrset.Set, []rrset.RRset) {
	t := d.t
	t.Helper()
	owners := make(map[rrset.Key]string)
	wantLive := make(map[rrset.Key][]string)
	wantDisabled := make(map[rrset.Key][]string)
	for _, rr := range cp.sc.live {
		owners[rr.Key()] = rr.ManagedBy
		wantLive[rr.Key()] = rr.Records
	}
	for _, rr := range cp.sc.disabled {
		owners[rr.Key()] = rr.ManagedBy
		wantDisabled[rr.Key()] = rr.Records
	}
	set, err := rrset.NewSet(cp.zone)
	if err != nil {
		t.Fatal(err)
	}
	var disabled []rrset.RRset
	for _, p := range read {
		rr, allDisabled, ok := d.fromAPI(cp.zone, p)
		if !ok {
			continue
		}
		k := rr.Key()
		_, isLive := wantLive[k]
		_, isDisabled := wantDisabled[k]
		apexData := rr.Name == cp.zone && (rr.Type == "SOA" || rr.Type == "NS")
		if !isLive && !isDisabled && !apexData {
			continue
		}
		rr.ManagedBy = owners[k]
		switch {
		case allDisabled:
			if !slices.Equal(rr.Records, wantDisabled[k]) {
				t.Fatalf("%s read back disabled as %q, written %q", k, rr.Records, wantDisabled[k])
			}
			disabled = append(disabled, rr)
		default:
			if !apexData && !slices.Equal(rr.Records, wantLive[k]) {
				t.Fatalf("%s read back as %q, written %q", k, rr.Records, wantLive[k])
			}
			if err := set.Add(rr); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := set.Len() + len(disabled); got < len(wantLive)+len(wantDisabled) {
		t.Fatalf("read back %d RRsets of %d written", got, len(wantLive)+len(wantDisabled))
	}
	return set, disabled
}

// fromAPI converts an RRset of the API: its enabled records, or all its
// records when every one is disabled.
func (d *differential) fromAPI(zone string, p powerdns.RRset) (rr rrset.RRset, allDisabled, ok bool) {
	if p.Name == nil || p.Type == nil || !strings.HasSuffix(*p.Name, zone) {
		return rrset.RRset{}, false, false
	}
	var enabled, disabled []string
	for _, r := range p.Records {
		switch {
		case r.Content == nil:
		case r.Disabled != nil && *r.Disabled:
			disabled = append(disabled, *r.Content)
		default:
			enabled = append(enabled, *r.Content)
		}
	}
	contents, allDisabled := enabled, false
	if len(enabled) == 0 {
		contents, allDisabled = disabled, true
	}
	if len(contents) == 0 {
		return rrset.RRset{}, false, false
	}
	var ttl uint32
	if p.TTL != nil {
		ttl = *p.TTL
	}
	rr, err := rrset.NewLive(zone, *p.Name, string(*p.Type), ttl, contents...)
	if err != nil {
		d.t.Fatalf("read %s %s: %v", *p.Name, *p.Type, err)
	}
	return rr, allDisabled, true
}

func (d *differential) readZone(zone string) []powerdns.RRset {
	d.t.Helper()
	z, err := d.srv.Client.Zones.Get(d.ctx, zone)
	if err != nil {
		d.t.Fatalf("read %s: %v", zone, err)
	}
	return z.RRsets
}

// pdnsWrite is one RRset of a PATCH body.
type pdnsWrite struct {
	rr       rrset.RRset
	delete   bool
	disabled bool
}

// liveWrites are the writes that set up a scenario's live data: disabled
// RRsets first, since PowerDNS judges a write against enabled data only.
func liveWrites(sc scenario) []pdnsWrite {
	var out []pdnsWrite
	for _, rr := range sc.disabled {
		out = append(out, pdnsWrite{rr: rr, disabled: true})
	}
	for _, rr := range sc.live {
		out = append(out, pdnsWrite{rr: rr})
	}
	return out
}

func (d *differential) writeLive(zone string, writes []pdnsWrite) {
	d.t.Helper()
	if status, body := d.send(zone, writes); status != http.StatusNoContent {
		d.t.Fatalf("write the live data of %s: %d %s", zone, status, body)
	}
}

// patch sends changes as one PATCH, exactly as given, and returns the
// answer.
func (d *differential) patch(zone string, changes []rrset.Change) (int, []byte) {
	writes := make([]pdnsWrite, 0, len(changes))
	for _, c := range changes {
		if c.Op == rrset.OpDelete {
			writes = append(writes, pdnsWrite{rr: *c.Old, delete: true})
		} else {
			writes = append(writes, pdnsWrite{rr: *c.New})
		}
	}
	return d.send(zone, writes)
}

// send PATCHes the zone over plain HTTP, so that the body PowerDNS judges
// is exactly the one built here and its answer comes back whole.
func (d *differential) send(zone string, writes []pdnsWrite) (int, []byte) {
	d.t.Helper()
	type record struct {
		Content  string `json:"content"`
		Disabled bool   `json:"disabled"`
	}
	type rrsetJSON struct {
		Name       string   `json:"name"`
		Type       string   `json:"type"`
		TTL        uint32   `json:"ttl,omitempty"`
		ChangeType string   `json:"changetype"`
		Records    []record `json:"records,omitempty"`
	}
	body := struct {
		RRsets []rrsetJSON `json:"rrsets"`
	}{RRsets: make([]rrsetJSON, 0, len(writes))}
	for _, w := range writes {
		j := rrsetJSON{Name: w.rr.Name, Type: w.rr.Type, ChangeType: "DELETE"}
		if !w.delete {
			j.ChangeType, j.TTL = "REPLACE", w.rr.TTL
			for _, c := range w.rr.Records {
				j.Records = append(j.Records, record{Content: c, Disabled: w.disabled})
			}
		}
		body.RRsets = append(body.RRsets, j)
	}
	data, err := json.Marshal(body)
	if err != nil {
		d.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(d.ctx, http.MethodPatch,
		d.srv.URL+"/api/v1/servers/localhost/zones/"+zone, bytes.NewReader(data))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", d.srv.APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatalf("PATCH %s: %v", zone, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, pdnserrors.MaxBodySize))
	if err != nil {
		d.t.Fatalf("PATCH %s: read answer: %v", zone, err)
	}
	return resp.StatusCode, answer
}

// diffStats counts what a server answered, for the test log.
type diffStats struct {
	plans, emptyDiff, accepted, refused, predicted, modelAgrees int
	checkedSent, checkedAccepted, stricter                      int
	policies                                                    map[string]int
	reasons                                                     map[pdnserrors.Reason]int
	kinds                                                       map[conflict.Kind]int
}

func newDiffStats() *diffStats {
	return &diffStats{policies: map[string]int{}, reasons: map[pdnserrors.Reason]int{}, kinds: map[conflict.Kind]int{}}
}

func (s *diffStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  plans: %d (%s); Diff empty: %d\n", s.plans, counts(s.policies), s.emptyDiff)
	fmt.Fprintf(&b, "  unchecked plans: %d accepted, %d refused (%d predicted by a Conflict, %d missed); problems: %s\n",
		s.accepted, s.refused, s.predicted, s.refused-s.predicted, counts(s.reasons))
	fmt.Fprintf(&b, "  model of PowerDNS agrees with the server on %d of %d verdicts\n", s.modelAgrees, s.accepted+s.refused)
	fmt.Fprintf(&b, "  checked plans: %d sent, %d accepted\n", s.checkedSent, s.checkedAccepted)
	fmt.Fprintf(&b, "  accepted unchecked, blocked by rules PowerDNS does not enforce: %d\n", s.stricter)
	fmt.Fprintf(&b, "  conflicts: %s", counts(s.kinds))
	return b.String()
}

func counts[K ~string](m map[K]int) string {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
