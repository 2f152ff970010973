package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/joeig/go-powerdns/v3"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// ZoneSpec is what EnsureZone creates a zone with: the properties PowerDNS
// takes at creation. Zero values leave the server's defaults.
type ZoneSpec struct {
	// Kind is "Native" (the default), "Master", "Slave", "Producer" or
	// "Consumer".
	Kind string
	// Nameservers are the NS records of the apex, as names in any
	// spelling; PowerDNS needs at least one for a Native or Master zone
	// unless the apex NS come from elsewhere.
	Nameservers []string
	// SOAEditAPI is how PowerDNS changes the SOA serial on API writes
	// ("DEFAULT", "INCREASE", "EPOCH", ...).
	SOAEditAPI string
	// SOAEdit is the SOA-EDIT of the zone.
	SOAEdit string
	// DNSSEC signs the zone.
	DNSSEC bool
	// NSEC3Param sets NSEC3 parameters ("1 0 0 -"), with DNSSEC.
	NSEC3Param string
	// Masters are the primaries of a Slave zone. Joined by ", " they fit
	// in 128 characters, what every SQL backend stores for them.
	Masters []string
	// Account is PowerDNS's free-form account of the zone: at most 40
	// characters, none beyond U+FFFF (what every backend stores).
	Account string
	// Catalog is the producer zone whose catalog lists this zone
	// (PowerDNS 4.7 or later).
	Catalog string
	// Clear lists the properties to make empty, where an empty field
	// above leaves the zone's value as it is: ZoneCatalog takes the zone
	// out of its catalog, ZoneAccount empties its account. A zone created
	// has them empty; an existing zone that holds one reports it in
	// ZoneResult.Differences (an empty Want), and UpdateZone empties it.
	// A field both set and cleared is an *InputError. Masters cannot be
	// cleared: the API client omits an empty list from its PUT.
	Clear []ZoneField
}

// ZoneResult is what EnsureZone found or did.
type ZoneResult struct {
	// Zone is the zone's canonical name.
	Zone string
	// Created is true when EnsureZone created the zone.
	Created bool
	// Differences lists where an existing zone still differs from the
	// spec. Without UpdateZone they are only reported; with it, what
	// remains is what it does not change (signing, kind without
	// UpdateZoneKind, nameservers another writer or object holds).
	Differences []ZoneDifference
	// Changed lists the properties UpdateZone changed, each now its Want.
	Changed []ZoneDifference
	// Requests counts the API calls made.
	Requests int
	// MadeByWriter and MadeBy are who made the zone: the writer
	// (WithManagedBy) and the owner (WithOwner) of the EnsureZone that
	// created it, as recorded in the zone, or for a zone an earlier
	// release created, the holder of its apex SOA. Both are empty when no
	// maker is known (a zone made by hand, or by a client without the
	// library).
	MadeByWriter, MadeBy string
	// Mine is true when this writer with this owner made the zone:
	// UpdateZone changes it and DeleteZone deletes it only then.
	Mine bool
	// Adopted is true when the zone had no maker known and this EnsureZone
	// recorded itself as its maker, the writer allowing adoption
	// (WithAdoption).
	Adopted bool
}

// ZoneDifference is one property in which a zone differs from its spec.
type ZoneDifference struct {
	Field     string
	Want, Got string
}

func (d ZoneDifference) String() string {
	return fmt.Sprintf("%s is %q, not %q", d.Field, d.Got, d.Want)
}

// EnsureZone makes sure zone exists, creating it from spec when it does not,
// and records the writer and owner (WithOwner) as the zone's maker.
// It is idempotent: an existing zone is left as it is, and its differences
// from spec are reported in ZoneResult.Differences, unless UpdateZone asks
// for them to be changed. A zone another process creates at the same moment
// is taken as existing. A Catalog in spec on a PowerDNS before 4.7 is an
// *InputError, and nothing is created or changed; so is a field that some
// backend cannot store (an Account over 40 characters, an SOAEdit outside
// Latin-1), with a *StorageError naming it, before any request.
//
// The apex SOA and NS of a zone EnsureZone creates are the writer's, with
// the owner of WithOwner: another writer's Apply of them is blocked
// (conflict.NotOwner) and its DeleteZone refused (*ZoneInUseError) while
// they remain, as is a DeleteZone of this writer for another owner while
// the SOA is recorded for this one, and an object of this writer that
// manages them (an "soa" or "ns" record set) takes them over as a handover,
// which leaves the zone its maker's. A zone that already existed is not
// taken: its apex stays whose it was, and ZoneResult says who made it. A
// zone with no maker recorded is taken (ZoneResult.Adopted) only when the
// writer allows adoption (WithAdoption), or when its apex SOA is the
// writer's for the same owner (a zone an earlier release created).
// UpdateZone changes only a zone of this maker: for another's it changes
// nothing and returns a *ZoneInUseError whose NotOwner is true.
func (r *Reconciler) EnsureZone(ctx context.Context, zone string, spec ZoneSpec, opts ...EnsureZoneOption) (zr ZoneResult, err error) {
	defer func(start time.Time) {
		r.observed(OperationEnsureZone, zone, start, &Result{Zone: zr.Zone, Requests: zr.Requests}, &err)
	}(time.Now())
	var t tally
	// Set on the result returned, after every request: a count taken
	// into a local result before its return would miss the last ones.
	defer func() { zr.Requests = int(t.requests.Load()) }()
	canonical, err := canonicalZone(zone)
	if err != nil {
		return ZoneResult{Zone: zone}, err
	}
	want, err := spec.canonical(canonical)
	if err != nil {
		return ZoneResult{Zone: canonical}, err
	}
	zc := newEnsureZoneConfig(opts)
	if _, err := newStamp(canonical, r.cfg.managedBy, zc.owner); err != nil {
		return ZoneResult{Zone: canonical}, err
	}
	res := ZoneResult{Zone: canonical}
	srv := r.server.session(&t)

	if want.Catalog != "" {
		facts, err := srv.facts(ctx)
		if err != nil {
			return res, err
		}
		if err := catalogSupported(facts.version); err != nil {
			return res, &InputError{Zone: canonical, Err: err}
		}
	}
	existing, err := srv.zoneInfo(ctx, canonical)
	switch {
	case err == nil:
	case pdnserrors.IsZoneNotFound(err):
		facts, err := srv.facts(ctx)
		if err != nil {
			return res, err
		}
		create := want.api(canonical)
		held := facts.store == OwnershipComments
		if held {
			create.RRsets = apexHeld(canonical, r.cfg.managedBy, zc.owner)
		}
		err = srv.call(ctx, func(ctx context.Context) error { return r.server.client.CreateZone(ctx, create) })
		if err == nil {
			res.Created = true
			// The maker first: a zone whose apex could not be held is
			// still its maker's.
			if err := srv.recordNewMaker(ctx, canonical, r.cfg.managedBy, zc.owner); err != nil {
				return res, err
			}
			res.setMaker(zoneMaker{ownership: ownership{writer: r.cfg.managedBy, owner: zc.owner}, known: true, recorded: true}, r.cfg.managedBy, zc.owner)
			if held {
				return res, nil
			}
			if err := r.claimNewApex(ctx, srv, canonical, zc.owner); err != nil {
				return res, fmt.Errorf("zone %s created; record its apex as %s's: %w", canonical, r.cfg.managedBy, err)
			}
			return res, nil
		}
		if !pdnserrors.IsZoneExists(err) {
			return res, fmt.Errorf("create zone %s: %w", canonical, err)
		}
		if existing, err = srv.zoneInfo(ctx, canonical); err != nil {
			return res, fmt.Errorf("read zone %s: %w", canonical, err)
		}
	default:
		return res, fmt.Errorf("read zone %s: %w", canonical, err)
	}
	if err := r.ensureMaker(ctx, srv, &res, existing, zc.owner); err != nil {
		return res, err
	}
	res.Differences = want.differences(canonical, existing)
	if !zc.updateZone || len(res.Differences) == 0 {
		return res, nil
	}
	if !res.Mine {
		// Every property UpdateZone converges answers to the maker: a
		// second object of the zone's name changes nothing.
		e := notMine(canonical, readResultMaker(res), r.cfg.managedBy, zc.owner)
		e.changing = true
		return res, e
	}
	return r.updateZone(ctx, srv, &t, res, want, zc)
}

// updateZone changes what UpdateZone changes of the differences in res: the
// zone's properties in one PUT, then the apex NS when they are the
// writer's, for the owner of this EnsureZone.
func (r *Reconciler) updateZone(ctx context.Context, srv session, t *tally, res ZoneResult, want ZoneSpec, zc objectConfig) (ZoneResult, error) {
	change, changed, rest := want.change(res.Differences, zc.updateKind)
	if len(changed) > 0 {
		err := srv.call(ctx, func(ctx context.Context) error { return r.server.client.ChangeZone(ctx, res.Zone, change) })
		if err != nil {
			return res, fmt.Errorf("change zone %s: %w", res.Zone, err)
		}
		res.Changed = changed
		res.Differences = rest
	}
	i := slices.IndexFunc(res.Differences, func(d ZoneDifference) bool { return d.Field == "nameservers" })
	if i < 0 {
		return res, nil
	}
	done, n, err := r.updateNameservers(ctx, res.Zone, want.Nameservers, zc.owner)
	t.requests.Add(int64(n))
	if err != nil {
		return res, fmt.Errorf("change nameservers of zone %s: %w", res.Zone, err)
	}
	if done {
		res.Changed = append(res.Changed, res.Differences[i])
		res.Differences = slices.Delete(res.Differences, i, i+1)
	}
	return res, nil
}

// ErrCatalogUnsupported is the error of a zone catalog asked of a PowerDNS
// that has no catalog zones (before 4.7), within an *InputError.
var ErrCatalogUnsupported = errors.New("zone catalog needs PowerDNS 4.7 or later")

// catalogSupported says whether a PowerDNS of version takes a zone's
// catalog: catalog zones came with 4.7, and 4.7.3, 4.9.18 and 5.1.5 take
// and return one through the API with every backend.
func catalogSupported(version string) error {
	if !versionAtLeast(version, 4, 7) {
		return fmt.Errorf("%w: PowerDNS %s", ErrCatalogUnsupported, version)
	}
	return nil
}

// UpdateZone makes EnsureZone change an existing zone where it differs from
// the spec.
//
// It changes what PowerDNS lets its API change: account, catalog,
// SOA-EDIT-API, SOA-EDIT and masters, in one PUT of only those that differ,
// and the apex NS (Nameservers) when they are the writer's and recorded for
// the same owner (WithOwner), in one PATCH of that RRset. Kind is changed
// only with UpdateZoneKind, DNSSEC and NSEC3 never. ZoneResult.Changed
// lists what was changed; a zone that already matches costs no write.
func UpdateZone() EnsureZoneOption { return zoneUpdate{} }

// UpdateZoneKind is UpdateZone that changes the zone's kind as well.
func UpdateZoneKind() EnsureZoneOption { return zoneUpdate{kind: true} }

// zoneUpdate is the EnsureZoneOption of UpdateZone and UpdateZoneKind.
type zoneUpdate struct{ kind bool }

func (u zoneUpdate) applyToEnsureZone(c *objectConfig) {
	c.updateZone = true
	c.updateKind = c.updateKind || u.kind
}

// updateNameservers makes the apex NS hold nameservers when the RRset is
// the writer's and recorded for owner, in one PATCH of that RRset; done is
// false, with nothing written, when it is not. It returns the requests it
// made.
func (r *Reconciler) updateNameservers(ctx context.Context, zone string, nameservers []string, owner string) (done bool, requests int, err error) {
	key := rrset.Key{Name: zone, Type: "NS"}
	o := r.newOp("ensure zone", zone, intent{keys: []rrset.Key{key}}, readScope{name: zone, typ: "NS"}, true)
	res, err := o.do(ctx, func(ctx context.Context) error {
		obs, err := o.read(ctx)
		if err != nil {
			return o.errorf(err)
		}
		live, ok := obs.set.Get(key)
		if !ok || live.ManagedBy != r.cfg.managedBy || live.Owner != owner {
			return nil
		}
		nu := live
		nu.Records = slices.Clone(nameservers)
		desired, _ := rrset.NewSet(zone)
		_ = desired.Add(nu)
		o.in.desired = desired
		d := o.decide(obs)
		if d.locking {
			err = o.lockedRun(ctx)
		} else {
			err = o.write(ctx, obs, d)
		}
		if err != nil {
			return o.errorf(err)
		}
		if len(o.res.Blocked)+len(o.res.Refused)+len(o.res.Postponed) > 0 {
			return fmt.Errorf("%w: %s", errRefusedOrBlocked, ConditionFor(o.res, nil).Message)
		}
		done = len(o.res.Applied) > 0
		return nil
	})
	return done, res.Requests, err
}

// zoneInfo reads a zone's properties and its apex RRsets.
func (c session) zoneInfo(ctx context.Context, zone string) (*powerdns.Zone, error) {
	var z *powerdns.Zone
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		// Every type at the apex: the NS for the spec, the SOA for the
		// maker of a zone that has none recorded.
		z, err = c.s.client.ZoneInfo(ctx, zone, pdnsapi.ZoneQuery{RRsetName: zone})
		return err
	})
	return z, err
}

// canonical checks the spec and spells its names canonically.
func (s ZoneSpec) canonical(zone string) (ZoneSpec, error) {
	out := s
	switch strings.ToLower(s.Kind) {
	case "":
		out.Kind = "Native"
	case "native", "master", "slave", "producer", "consumer":
		out.Kind = strings.ToUpper(s.Kind[:1]) + strings.ToLower(s.Kind[1:])
	default:
		return s, &InputError{Zone: zone, Err: fmt.Errorf("zone kind %q: want Native, Master, Slave, Producer or Consumer", s.Kind)}
	}
	out.Nameservers = make([]string, 0, len(s.Nameservers))
	for _, ns := range s.Nameservers {
		rr, err := rrset.New(zone, "@", "NS", 3600, ns)
		if err != nil {
			return s, &InputError{Zone: zone, Err: fmt.Errorf("nameserver %q: %w", ns, err)}
		}
		out.Nameservers = append(out.Nameservers, rr.Records[0])
	}
	sort.Strings(out.Nameservers)
	out.Nameservers = slices.Compact(out.Nameservers)
	out.SOAEditAPI = strings.ToUpper(s.SOAEditAPI)
	out.SOAEdit = strings.ToUpper(s.SOAEdit)
	if s.Catalog != "" {
		catalog, err := rrset.CanonicalZone(s.Catalog)
		if err != nil {
			return s, &InputError{Zone: zone, Err: fmt.Errorf("catalog %q: %w", s.Catalog, err)}
		}
		out.Catalog = catalog
	}
	if err := s.storable(); err != nil {
		return s, &InputError{Zone: zone, Err: err}
	}
	if s.Masters != nil {
		out.Masters = slices.Clone(s.Masters)
		sort.Strings(out.Masters)
		out.Masters = slices.Compact(out.Masters)
	}
	cleared, err := s.canonicalClear(zone)
	if err != nil {
		return s, err
	}
	out.Clear = cleared
	return out, nil
}

// storable refuses, with a *StorageError, a field of the spec that some
// backend cannot store: what it would answer with a 500.
func (s ZoneSpec) storable() error {
	if err := checkAccount("ZoneSpec.Account", s.Account); err != nil {
		return err
	}
	if err := checkMasters("ZoneSpec.Masters", s.Masters); err != nil {
		return err
	}
	// SOA-EDIT, SOA-EDIT-API and NSEC3PARAM are zone metadata.
	for _, f := range []struct{ field, value string }{
		{"ZoneSpec.SOAEdit", s.SOAEdit},
		{"ZoneSpec.SOAEditAPI", s.SOAEditAPI},
		{"ZoneSpec.NSEC3Param", s.NSEC3Param},
	} {
		if err := checkLatin1(f.field, f.value); err != nil {
			return err
		}
	}
	return nil
}

// api is the zone as POST /zones takes it.
func (s ZoneSpec) api(zone string) powerdns.Zone {
	z := powerdns.Zone{
		Name:        powerdns.String(zone),
		Kind:        powerdns.ZoneKindPtr(powerdns.ZoneKind(s.Kind)),
		Nameservers: s.Nameservers,
		Masters:     s.Masters,
	}
	if s.Nameservers == nil {
		z.Nameservers = []string{}
	}
	if s.SOAEditAPI != "" {
		z.SOAEditAPI = powerdns.String(s.SOAEditAPI)
	}
	if s.SOAEdit != "" {
		z.SOAEdit = powerdns.String(s.SOAEdit)
	}
	if s.DNSSEC {
		z.DNSsec = powerdns.Bool(true)
	}
	if s.NSEC3Param != "" {
		z.Nsec3Param = powerdns.String(s.NSEC3Param)
	}
	if s.Account != "" {
		z.Account = powerdns.String(s.Account)
	}
	if s.Catalog != "" {
		z.Catalog = powerdns.String(s.Catalog)
	}
	s.clearAtCreate(&z)
	return z
}

// change is the PUT that turns a zone differing from the spec by diffs into
// what the spec says, for the properties the API lets change (kind only
// when asked), with the differences it changes and those it leaves.
func (s ZoneSpec) change(diffs []ZoneDifference, kind bool) (z powerdns.Zone, changed, rest []ZoneDifference) {
	for _, d := range diffs {
		switch d.Field {
		case "kind":
			if !kind {
				rest = append(rest, d)
				continue
			}
			z.Kind = powerdns.ZoneKindPtr(powerdns.ZoneKind(s.Kind))
		case "account":
			z.Account = powerdns.String(s.Account)
		case "catalog":
			z.Catalog = powerdns.String(s.Catalog)
		case "soa_edit_api":
			z.SOAEditAPI = powerdns.String(s.SOAEditAPI)
		case "soa_edit":
			z.SOAEdit = powerdns.String(s.SOAEdit)
		case "masters":
			z.Masters = s.Masters
		default:
			rest = append(rest, d)
			continue
		}
		changed = append(changed, d)
	}
	return z, changed, rest
}

// differences compares an existing zone with the spec, field by field where
// the spec says something.
func (s ZoneSpec) differences(zone string, z *powerdns.Zone) []ZoneDifference {
	var out []ZoneDifference
	diff := func(field, want, got string) {
		if !strings.EqualFold(want, got) {
			out = append(out, ZoneDifference{Field: field, Want: want, Got: got})
		}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	kind := ""
	if z.Kind != nil {
		kind = string(*z.Kind)
	}
	diff("kind", s.Kind, kind)
	if len(s.Nameservers) > 0 {
		var have []string
		for _, rr := range z.RRsets {
			if rr.Name != nil && rr.Type != nil && strings.EqualFold(*rr.Name, zone) && *rr.Type == "NS" {
				for _, rec := range rr.Records {
					if live, err := rrset.NewLive(zone, "@", "NS", 0, str(rec.Content)); err == nil {
						have = append(have, live.Records...)
					}
				}
			}
		}
		sort.Strings(have)
		diff("nameservers", strings.Join(s.Nameservers, ","), strings.Join(have, ","))
	}
	if s.SOAEditAPI != "" {
		diff("soa_edit_api", s.SOAEditAPI, str(z.SOAEditAPI))
	}
	if s.SOAEdit != "" {
		diff("soa_edit", s.SOAEdit, str(z.SOAEdit))
	}
	if s.DNSSEC {
		diff("dnssec", "true", fmt.Sprint(z.DNSsec != nil && *z.DNSsec))
	}
	if s.NSEC3Param != "" {
		diff("nsec3param", s.NSEC3Param, str(z.Nsec3Param))
	}
	if s.Account != "" {
		diff("account", s.Account, str(z.Account))
	}
	if s.Catalog != "" {
		got := str(z.Catalog)
		if got != "" {
			got = strings.TrimSuffix(got, ".") + "."
		}
		diff("catalog", s.Catalog, got)
	}
	if len(s.Masters) > 0 {
		have := slices.Clone(z.Masters)
		sort.Strings(have)
		diff("masters", strings.Join(s.Masters, ","), strings.Join(have, ","))
	}
	return append(out, s.clearedDifferences(z)...)
}

// DeleteZoneOption changes one DeleteZone. ForceDeleteZone and WithOwner
// are DeleteZoneOptions.
type DeleteZoneOption interface{ applyToDeleteZone(*deleteZoneConfig) }

type deleteZoneConfig struct {
	force bool
	owner string
}

// forceDeleteZone is the DeleteZoneOption of ForceDeleteZone.
type forceDeleteZone struct{}

func (forceDeleteZone) applyToDeleteZone(c *deleteZoneConfig) { c.force = true }

// ForceDeleteZone lets DeleteZone delete a zone that still holds other
// writers' RRsets, or that another object holds (WithOwner).
func ForceDeleteZone() DeleteZoneOption { return forceDeleteZone{} }

// ZoneInUseError is DeleteZone refusing to delete a zone that still holds
// RRsets of other writers, or, with WithOwner, that another object made;
// and UpdateZone refusing to change a zone another object made.
type ZoneInUseError struct {
	Zone string
	// Writers are the other writers holding RRsets in the zone, sorted;
	// RRsets counts their RRsets.
	Writers []string
	RRsets  int
	// MadeByWriter and MadeBy are who made the zone, when that is not the
	// caller (ZoneResult.MadeByWriter and MadeBy).
	MadeByWriter, MadeBy string
	// NoMaker is true when no maker of the zone is known: a zone made by
	// hand, which no object of the writer changes or deletes.
	NoMaker bool
	// Owner is MadeBy when the zone's maker is another object of this
	// writer, empty otherwise.
	Owner string

	// changing is true for UpdateZone's refusal.
	changing bool
}

// NotOwner reports whether the zone is refused because the caller did not
// make it (another object or writer did, or no maker is known), rather
// than only for other writers' RRsets in it.
func (e *ZoneInUseError) NotOwner() bool {
	return e.NoMaker || e.MadeByWriter != ""
}

func (e *ZoneInUseError) Error() string {
	var why []string
	switch {
	case e.NoMaker:
		why = append(why, "has no maker recorded")
	case e.MadeByWriter != "" && e.MadeBy != "":
		why = append(why, "was made by "+e.MadeBy+" of "+e.MadeByWriter)
	case e.MadeByWriter != "":
		why = append(why, "was made by "+e.MadeByWriter)
	}
	if e.RRsets > 0 {
		why = append(why, fmt.Sprintf("still holds %d RRset(s) of %s", e.RRsets, strings.Join(e.Writers, ", ")))
	}
	if e.changing {
		return fmt.Sprintf("reconcile: zone %s %s: not changed", e.Zone, strings.Join(why, " and "))
	}
	return fmt.Sprintf("reconcile: zone %s %s: not deleted (ForceDeleteZone deletes it anyway)", e.Zone, strings.Join(why, " and "))
}

// DeleteZone deletes zone and forgets it (Forget). It refuses, with a
// *ZoneInUseError, while RRsets of other writers remain, unless forced
// (ForceDeleteZone); RRsets of this writer and of none (records written by
// hand, the apex of a zone EnsureZone did not create) do not hold it back.
// A zone that does not exist is not an error: the deletion is idempotent.
//
// With WithOwner, it deletes only a zone that EnsureZone made with the same
// writer and owner (ZoneInUseError.NotOwner otherwise): a zone object that
// finds its zone made by another object (a namespaced object sharing a
// cluster-wide zone's name) does not delete it, and neither does any object
// a zone no maker is known of. Who holds the apex RRsets does not count: an
// "soa" or "ns" record-set object of the writer that took them over
// (Result.Handovers) does not hold the zone. Without an owner, it refuses
// a zone another writer made.
func (r *Reconciler) DeleteZone(ctx context.Context, zone string, opts ...DeleteZoneOption) (err error) {
	defer r.observed(OperationDeleteZone, zone, time.Now(), &Result{}, &err)
	cfg := configure(opts, DeleteZoneOption.applyToDeleteZone)
	canonical, err := canonicalZone(zone)
	if err != nil {
		return err
	}
	if err := checkOwner(cfg.owner); err != nil {
		return &InputError{Zone: canonical, Err: err}
	}
	o := r.newOp("delete zone", canonical, intent{}, readScope{}, dryRun)
	_, err = o.do(ctx, func(ctx context.Context) error {
		if !cfg.force {
			obs, _, md, err := o.readRaw(ctx)
			if err == nil && o.store != OwnershipMetadata {
				// The maker is in the metadata, which the read made
				// only where ownership lives there.
				md, err = o.srv.metadata(ctx, canonical)
			}
			if pdnserrors.IsZoneNotFound(err) {
				return nil
			}
			if err != nil {
				return o.errorf(err)
			}
			if inUse := othersIn(canonical, obs, r.cfg.managedBy, cfg.owner, readMaker(canonical, md, obs, r.cfg.managedBy)); inUse != nil {
				return inUse
			}
		}
		err := o.srv.call(ctx, func(ctx context.Context) error { return r.server.client.DeleteZone(ctx, canonical) })
		if err != nil && !pdnserrors.IsZoneNotFound(err) {
			return o.errorf(err)
		}
		// A lock kept for the zone went with it.
		o.mem.sched.takeHeld()
		o.mem.reset(r.cfg)
		r.writes.forget(canonical)
		return nil
	})
	return err
}

// othersIn returns the *ZoneInUseError for the other writers' RRsets in obs
// and for a zone whose maker m is not the caller's: another writer, or,
// when owner is set, another owner or none known. Nil when neither.
func othersIn(zone string, obs *observation, writer, owner string, m zoneMaker) error {
	e := &ZoneInUseError{Zone: zone}
	switch {
	case owner != "":
		if refused := notMine(zone, m, writer, owner); refused != nil {
			e = refused
		}
	case m.known && m.writer != writer:
		e.MadeByWriter, e.MadeBy = m.writer, m.owner
	}
	count := func(rr rrset.RRset) {
		if rr.ManagedBy == "" || rr.ManagedBy == writer {
			return
		}
		e.RRsets++
		if !slices.Contains(e.Writers, rr.ManagedBy) {
			e.Writers = append(e.Writers, rr.ManagedBy)
		}
	}
	for rr := range obs.set.Unordered() {
		count(rr)
	}
	for _, rr := range obs.disabled {
		count(rr)
	}
	if e.RRsets == 0 && !e.NotOwner() {
		return nil
	}
	sort.Strings(e.Writers)
	return e
}
