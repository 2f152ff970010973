package reconcile

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// op is one operation on a zone — a Sync, a Plan, an Apply or a Remove — in
// progress: read → decide → write, with what it asks (intent), what it read
// (scope), its session with the server and its Result.
type op struct {
	r     *Reconciler
	verb  string // for errors: "sync", "plan", "apply", "remove"
	zone  string
	mem   *zoneMemory
	t     tally
	srv   session
	res   Result
	store OwnershipStore
	in    intent
	scope readScope
	gate  *gateObserver
	// requeueKey keys the operation's requeue streak in the zone's memory.
	requeueKey string
	// released is set when a background release of the zone lock took
	// over the turn (see freeLock).
	released atomic.Bool
	// freshClaimRecords counts the claim records the operation posted,
	// which its read of the claims does not hold (ownership_claims.go, tidying).
	freshClaimRecords int
	// lockFirst is set when a decision made beside another operation's
	// turn needs the zone lock: the turn then takes it before it reads.
	lockFirst bool
	// batches is set for an Apply: waiting for the zone's turn, it may be
	// carried out with other Applies waiting for it (group commit).
	batches bool
	// added are the names above that the last widen added to the scope,
	// which widened reads.
	added []string
	// version is the server's version, once learnServer has learnt it.
	version string
	// given is the zone's memory of the desired RRsets a Sync was given,
	// when in.desired is its Set (memory_reuse.go).
	given *desiredMemo
}

// tally counts what one operation asked of the server; a lock freed in the
// background still counts, so it is counted atomically.
type tally struct {
	requests, patches atomic.Int64
}

// effect says whether an operation acts on the zone or only looks at it: a
// dry run (Plan, Live, DeleteZone's check) records nothing in the
// Reconciler's memory of the zone and writes nothing.
type effect bool

const (
	dryRun effect = false
	writes effect = true
)

// effectOf is writes when w holds.
func effectOf(w bool) effect { return effect(w) }

func (r *Reconciler) newOp(verb, zone string, in intent, scope readScope, eff effect) *op {
	mem := r.memory(zone)
	o := &op{r: r, verb: verb, zone: zone, mem: mem, in: in, scope: scope,
		gate: mem.observer(r.cfg, eff), res: Result{Zone: zone}}
	o.srv = r.server.session(&o.t)
	if len(in.keys) == 1 {
		o.requeueKey = absenceKey(in.keys[0])
	}
	return o
}

// errorf wraps err with the operation and zone, or returns nil.
func (o *op) errorf(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", o.verb, o.zone, err)
}

// read reads what the operation covers: the zone, or the RRsets at one
// name, then, with the metadata store, the zone's metadata, where ownership
// is. In that order: a claim is written before its RRset, so every RRset of
// the read has its claim in the later read of the metadata (a release
// comes after its delete, so a claim read without its RRset is harmless).
func (o *op) read(ctx context.Context) (*observation, error) {
	obs, _, _, err := o.readRaw(ctx)
	return obs, err
}

// readRaw is read, with the answers the observation was made of.
func (o *op) readRaw(ctx context.Context) (*observation, zonejson.Zone, []powerdns.Metadata, error) {
	if err := o.learnServer(ctx); err != nil {
		return nil, zonejson.Zone{}, nil, err
	}
	z, err := o.readZone(ctx)
	if err != nil {
		return nil, z, nil, err
	}
	var md []powerdns.Metadata
	if o.store == OwnershipMetadata {
		if md, err = o.srv.metadata(ctx, o.zone); err != nil {
			return nil, z, nil, err
		}
	}
	obs, err := o.observe(z, md)
	return obs, z, md, err
}

// learnServer learns the server's version and where it records ownership
// (once per Reconciler), and checks that the server can store what the
// operation asks for: data one version stores and another refuses is an
// *InputError naming the version, before anything is written.
func (o *op) learnServer(ctx context.Context) error {
	if o.store != OwnershipAuto {
		return nil
	}
	facts, err := o.srv.facts(ctx)
	if err != nil {
		return err
	}
	o.store, o.version = facts.store, facts.version
	if o.in.desired == nil {
		return nil
	}
	for rr := range o.in.desired.Unordered() {
		if err := rrset.CheckVersion(rr, facts.version); err != nil {
			return &InputError{Zone: o.zone, Err: err}
		}
		if rr.Comment != "" && o.store == OwnershipMetadata {
			return &InputError{Zone: o.zone, Err: &NoteNotStoredError{Key: rr.Key(), Version: facts.version}}
		}
	}
	return nil
}

// NoteNotStoredError is an RRset's Comment refused because ownership is
// recorded in zone metadata, where RRset comments are not written: PowerDNS
// with the LMDB backend before 5.1 stores no RRset comments, and a note is
// never dropped silently. It comes within an *InputError.
type NoteNotStoredError struct {
	Key rrset.Key
	// Version is the server's version.
	Version string
}

func (e *NoteNotStoredError) Error() string {
	return fmt.Sprintf("%s: comment not written: ownership is kept in zone metadata on PowerDNS %s, "+
		"where RRset comments are not written (LMDB before 5.1 stores none)", e.Key, e.Version)
}

// readZone reads what the operation's scope covers: the zone, or the
// RRsets at one name, at the scope's other names and, where the scope asks
// for them, at the names above them (one filtered GET per name, all at
// once).
func (o *op) readZone(ctx context.Context) (zonejson.Zone, error) {
	if o.scope.whole() {
		z, err := o.srv.zone(ctx, o.zone, o.query())
		if err != nil {
			return z, fmt.Errorf("read zone: %w", err)
		}
		return z, nil
	}
	names := slices.Concat([]string{o.scope.name}, o.scope.names, o.scope.ancestors)
	zs, err := o.readAtOnce(ctx, names, func(i int) pdnsapi.ZoneQuery {
		if i == 0 {
			return o.query()
		}
		return pdnsapi.ZoneQuery{RRsetName: names[i]}
	})
	if err != nil {
		return zonejson.Zone{}, err
	}
	z := zs[0]
	for _, at := range zs[1:] {
		z.RRsets = append(slices.Clip(z.RRsets), at.RRsets...)
	}
	return z, nil
}

// readNames adds to z the RRsets at names, one filtered GET each, all at
// once.
func (o *op) readNames(ctx context.Context, z zonejson.Zone, names []string) (zonejson.Zone, error) {
	zs, err := o.readAtOnce(ctx, names, func(i int) pdnsapi.ZoneQuery { return pdnsapi.ZoneQuery{RRsetName: names[i]} })
	if err != nil {
		return z, err
	}
	for _, at := range zs {
		z.RRsets = append(slices.Clip(z.RRsets), at.RRsets...)
	}
	return z, nil
}

// readsAtOnce bounds the filtered GETs of one read in flight at once.
const readsAtOnce = 4

// readAtOnce reads the zone at names with the queries query gives, up to
// readsAtOnce at a time, and returns the answers in the order of names.
func (o *op) readAtOnce(ctx context.Context, names []string, query func(i int) pdnsapi.ZoneQuery) ([]zonejson.Zone, error) {
	zs := make([]zonejson.Zone, len(names))
	errs := make([]error, len(names))
	if len(names) == 1 {
		zs[0], errs[0] = o.srv.zone(ctx, o.zone, query(0))
	} else {
		var wg sync.WaitGroup
		slots := make(chan struct{}, readsAtOnce)
		for i := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				zs[i], errs[i] = o.srv.zone(ctx, o.zone, query(i))
			}()
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("read zone at %s: %w", names[i], err)
		}
	}
	return zs, nil
}

// widened reads what a scope widen changed adds to the read z, md of the
// operation's names: the names above them (z is as good as before), or the
// whole zone.
func (o *op) widened(ctx context.Context, z zonejson.Zone, md []powerdns.Metadata) (*observation, error) {
	if o.scope.whole() {
		return o.read(ctx)
	}
	z, err := o.readNames(ctx, z, o.added)
	if err != nil {
		return nil, err
	}
	return o.observe(z, md)
}

// widen makes the scope of an operation on one name cover what the
// Occluded check needs once decision d shows it will write there: the
// names above it, or the whole zone for an NS or DNAME below the apex,
// which could hide data below it. Creates widen, and so does an update of
// an NS below the apex that drops a target: an address below it that was
// glue for that target would be hidden from then on. Other updates keep
// data that was checked when it was created (what a DNAME hides does not
// depend on its target). It reports whether the scope changed, and so the
// operation must read again: the names above added to it (widened reads
// those), or the whole zone. A read that writes nothing stays one name
// wide: a steady-state Apply pays for no check it does not need.
func (o *op) widen(d decision) bool {
	o.added = nil
	if o.scope.whole() || o.scope.typ != "" {
		return false
	}
	var ancestors []string
	for _, c := range d.plan.Changes {
		if c.Op == rrset.OpUpdate && c.New.Name != o.zone && dropsTarget(c) {
			o.scope = readScope{}
			return true
		}
		// An update keeps data that was checked when it was created.
		if c.Op != rrset.OpCreate || c.New.Name == o.zone {
			continue
		}
		if c.New.Type == "NS" || c.New.Type == "DNAME" {
			o.scope = readScope{}
			return true
		}
		for _, name := range conflict.Ancestors(o.zone, c.New.Name) {
			if !slices.Contains(ancestors, name) && !o.scope.covers(rrset.Key{Name: name}) {
				ancestors = append(ancestors, name)
			}
		}
	}
	// Names above already read stay covered; a decision that creates at
	// a name more (a batch's) adds its own.
	o.scope.ancestors = append(o.scope.ancestors, ancestors...)
	o.added = ancestors
	return len(ancestors) > 0
}

// dropsTarget reports whether c updates an NS RRset to one without a
// target the old one had.
func dropsTarget(c rrset.Change) bool {
	if c.Old == nil || c.New == nil || c.New.Type != "NS" {
		return false
	}
	for _, target := range c.Old.Records {
		if !slices.Contains(c.New.Records, target) {
			return true
		}
	}
	return false
}

func (o *op) query() pdnsapi.ZoneQuery {
	return pdnsapi.ZoneQuery{RRsetName: o.scope.name, RRsetType: o.scope.typ}
}

// observe turns a read into an observation, and remembers which keys were
// live.
// An operation that writes reads a whole zone with the last whole read
// at hand, and keeps its own for the next (memory_reuse.go).
func (o *op) observe(z zonejson.Zone, md []powerdns.Metadata) (*observation, error) {
	var prev *liveMemo
	if o.gate.writes && o.scope.whole() {
		prev = o.mem.lastLive()
	}
	obs, err := observe(o.zone, z, md, o.r.cfg.managedBy, o.scope, prev, o.r.cfg.logger.Warn)
	if err != nil {
		return nil, err
	}
	if o.gate.writes {
		o.mem.saw(obs, o.scope)
		if o.scope.whole() {
			o.mem.keepLive(obs)
		}
	}
	return obs, nil
}

// decide decides on obs with the writer's rules, adoption added where the
// operation asks for it, and the zone's memory.
func (o *op) decide(obs *observation) decision {
	ru := o.r.cfg.rules()
	ru.version = o.version
	if o.in.adopt {
		ru = ru.adopting()
	}
	return decide(o.in, obs, ru, recallOf{o.gate, o.mem})
}

// recallOf answers decide's questions from the zone's memory.
type recallOf struct {
	gate *gateObserver
	mem  *zoneMemory
}

func (r recallOf) sustained(k rrset.Key) bool { return r.gate.sustained(k) }

func (r recallOf) refused(c rrset.Change, live *rrset.Set) ([]pdnserrors.Problem, bool) {
	return r.mem.refused(c, live)
}

// report puts a decision into the Result.
func (o *op) report(d decision) {
	o.res.Blocked, o.res.Deferred, o.res.Refused, o.res.Handovers = d.blocked, d.deferred, d.refused, d.handovers
	if o.gate.writes {
		o.mem.sawBlocked(o.in.desired, d.blocked)
	}
}

// run is the operation after its turn: read, decide, write — under the zone
// lock when a change needs it. When the operation expects to create (an
// RRset it asks for was not there when the Reconciler last looked), it takes
// the lock first and reads under it; otherwise it reads first, and takes the
// lock and reads again only if the decision needs it.
func (o *op) run(ctx context.Context) error {
	memo := o.mem.memo
	o.mem.memo = nil // kept only by a Sync that finds nothing to do
	if o.unchangedSince(ctx, memo) {
		o.mem.memo = memo
		return nil
	}
	if o.lockFirst || o.expectsCreate() {
		return o.errorf(o.lockedRun(ctx))
	}
	obs, z, md, err := o.readRaw(ctx)
	if err != nil {
		return o.errorf(err)
	}
	d := o.decide(obs)
	if o.widenBeforeLock(d) && o.widen(d) {
		if obs, err = o.widened(ctx, z, md); err != nil {
			return o.errorf(err)
		}
		d = o.decide(obs)
	}
	if d.locking {
		return o.errorf(o.lockedRun(ctx))
	}
	if err := o.write(ctx, obs, d); err != nil {
		return o.errorf(err)
	}
	o.keepMemo(z, d)
	return nil
}

// widenBeforeLock reports whether a decision's wider read (widen) is made
// before the zone lock. A decision that takes the lock reads again under
// it, widened there, so the names above are read once, under the lock;
// only a key blocked last time is widened first, so that a retry of a
// write blocked as Occluded is decided from its reads, without the lock.
func (o *op) widenBeforeLock(d decision) bool {
	return !d.locking || o.mem.blockedBefore(o.in.desired)
}

// mayDecideBeside reports whether the operation may read and decide while
// another operation of the zone holds its turn: an Apply or a Remove (it
// writes, at one name), unless the Reconciler expects it to create, when it
// will write anyway.
func (o *op) mayDecideBeside() bool {
	return o.gate.writes && !o.scope.whole() && len(o.in.keys) == 1 && !o.expectsCreate()
}

// decideBeside reads what the operation covers and decides on it, outside
// the zone's turn. It is done when the decision sends nothing — the RRset
// is as asked, or the write is blocked or refused before PowerDNS would see
// it — and reports that decision as the turn would have: nothing it does
// writes to PowerDNS, so it need not wait for writes to other keys. A
// decision that sends something is left to the turn, which reads again,
// since what was read beside another operation's write may predate it
// (one more GET, paid only by a write that had to wait anyway); when the
// decision needs the zone lock, the turn takes it before its read, as for
// an expected create, so that path costs what it costs without a wait.
func (o *op) decideBeside(ctx context.Context) (done bool, err error) {
	obs, err := o.read(ctx)
	if err != nil {
		return true, o.errorf(err)
	}
	d := o.decide(obs)
	if len(d.plan.Changes) > 0 || o.claimsToSettle(obs, nil) {
		o.lockFirst = d.locking
		return false, nil
	}
	return true, o.errorf(o.write(ctx, obs, d))
}

// memoable reports whether the operation is a Sync whose outcome a memo
// may stand for: it writes, reads the whole zone, and deletes only through
// the deletion policy, without ForceDeletes.
func (o *op) memoable() bool {
	return o.gate.writes && o.scope.whole() && o.in.keys == nil && o.in.deletes == deleteGated && !o.in.force
}

// unchangedSince reports whether memo, what the last Sync found, still holds
// for this one: the same RRsets asked for, the zone's serial where it was,
// and the whole read recent enough (WithFullRead). It costs one request,
// the zone without its RRsets; a failed request only means a full read.
func (o *op) unchangedSince(ctx context.Context, memo *syncMemo) bool {
	if memo == nil || !o.memoable() || o.r.cfg.clock.Now().Sub(memo.read) >= o.r.cfg.fullRead ||
		o.desiredSum() != memo.desired {
		return false
	}
	z, err := o.srv.zone(ctx, o.zone, pdnsapi.ZoneQuery{NoRRsets: true})
	return err == nil && z.Serial == memo.serial && serialMovesOnWrite(z.SOAEditAPI)
}

// desiredSum is desiredHash of the operation's desired RRsets, summed once
// for all the Syncs given them.
func (o *op) desiredSum() uint64 {
	if o.given == nil || o.given.set != o.in.desired {
		return desiredHash(o.in.desired)
	}
	if sum := o.given.sum.Load(); sum != 0 {
		return sum
	}
	sum := desiredHash(o.in.desired)
	o.given.sum.Store(sum)
	return sum
}

// keepMemo keeps what a Sync that read the whole zone z found, when it
// found nothing to do and the zone's serial moves with every write.
func (o *op) keepMemo(z zonejson.Zone, d decision) {
	nothing := len(d.plan.Changes)+len(d.blocked)+len(d.deferred)+len(d.refused)+len(d.handovers) == 0
	if !nothing || !o.memoable() || o.store != OwnershipComments || o.r.cfg.fullRead <= 0 ||
		!serialMovesOnWrite(z.SOAEditAPI) || z.Serial == 0 {
		return
	}
	o.mem.memo = &syncMemo{desired: o.desiredSum(), serial: z.Serial, read: o.r.cfg.clock.Now()}
}

// lockedRun takes the zone lock, reads under it and decides on that read:
// no other writer that creates can write until it is freed, so what the
// read shows free stays free.
func (o *op) lockedRun(ctx context.Context) (err error) {
	o.lockScope()
	lk, z, md, err := o.takeLock(ctx)
	defer o.freeLock(ctx, lk, md, &err)
	if err != nil || lk.needless {
		// Needless: found held, the zone read without the lock asked for
		// nothing to be sent, and the decision is reported already.
		return err
	}
	if lk.contended {
		// Another writer holds the zone: report what would have been sent,
		// from a read without the lock.
		obs, err := o.read(ctx)
		if err != nil {
			return err
		}
		d := o.decide(obs)
		o.report(d)
		o.res.Postponed, o.res.PostponedFor = d.plan.Changes, lk.holders
		return nil
	}
	obs, err := o.observe(z, md)
	if err != nil {
		return err
	}
	d := o.decide(obs)
	if o.widen(d) {
		// Under the lock still: the wider read is as good as the first.
		if obs, err = o.widened(ctx, z, md); err != nil {
			return err
		}
		d = o.decide(obs)
	}
	return o.write(ctx, obs, d)
}

// lockScope gives an Apply, alone or a batch, the read under the zone lock
// its decision needs (lockedScope): its names, with the names above them
// when it expects to create, or the whole zone where that is expected to
// take less time. Read whole, the zone's memory also knows every name, so
// that the next Apply of a new name expects to create and goes straight
// to the lock, without a read before it.
func (o *op) lockScope() {
	if o.verb != "apply" || o.in.desired.Len() == 0 {
		return
	}
	var names []string
	for _, k := range o.in.keys {
		if !slices.Contains(names, k.Name) {
			names = append(names, k.Name)
		}
	}
	n, whole := o.mem.size()
	o.scope = lockedScope(o.zone, names, o.in.desired, o.expectsCreate(), n, whole)
}

// write carries out a decision, then keeps the memory of the zone.
func (o *op) write(ctx context.Context, obs *observation, d decision) error {
	o.report(d)
	if len(d.plan.Changes) == 0 && !o.claimsToSettle(obs, nil) {
		o.remember(d, nil)
		return nil
	}
	o.mem.keepRefusals(o.in.inScope, d.refused)
	applied, err := o.apply(ctx, obs, d)
	o.endStreaks(applied)
	o.mem.learn(applied)
	return err
}

// expectsCreate reports whether a key the operation asks for was absent
// when the Reconciler last read where it would be: then the operation takes
// the lock before it reads, rather than read, find the key free, lock and
// read again. A key the Reconciler knows nothing of (it never read the zone,
// or that name) is guessed present, as it mostly is when a controller
// restarts and reconciles its objects again. A wrong guess costs a lock
// that was not needed, or a second read; never a wrong write.
func (o *op) expectsCreate() bool {
	if !o.gate.writes || o.in.desired == nil || o.in.desired.Len() == 0 {
		return false // a dry run, a read or a delete never creates
	}
	return o.mem.knownAbsent(o.in.desired)
}

// freeLock releases the lock at the end of a write, or keeps it for the
// Reconciler's next operation in the zone (keepLock) when the operation
// ended well; md is the metadata read with it. When the caller gave up
// (ctx ended), it must not wait for a server that may not answer: the lock
// is freed in the background, within releaseBound, and the zone's turn in
// this Reconciler is kept until then, so that no operation of the zone
// takes the lock meanwhile. A failure to free it is reported only when the
// operation has no error of its own: a lock left held is ignored by other
// writers after DefaultLockTTL.
func (o *op) freeLock(ctx context.Context, lk *lock, md []powerdns.Metadata, errp *error) {
	if lk == nil || lk.held == "" {
		return
	}
	if ctx.Err() != nil {
		o.released.Store(true)
		kind := lk.held
		lk.held = ""
		go func() {
			defer o.endTurn()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
			defer cancel()
			_ = o.r.freeLockKind(ctx, o.zone, kind)
		}()
		return
	}
	if *errp == nil && o.keepLock(lk, md) {
		return
	}
	if err := o.releaseLock(ctx, lk); err != nil && *errp == nil {
		*errp = err
	}
}

// releaseBound bounds freeing the zone lock after the caller gave up.
const releaseBound = 5 * time.Second

// endTurn ends the operation's turn at the zone.
func (o *op) endTurn() { <-o.mem.sched.turn }

// remember updates the zone's memory after a decision that found nothing
// to write: refusals that no longer stand are forgotten, and deletion-gate
// streaks of RRsets wanted again end.
func (o *op) remember(d decision, applied []rrset.Change) {
	o.mem.keepRefusals(o.in.inScope, d.refused)
	o.endStreaks(applied)
}

// endStreaks ends the deletion-gate streaks of RRsets wanted again or
// deleted: a later absence starts counting anew.
func (o *op) endStreaks(applied []rrset.Change) {
	if !o.gate.writes || o.gate.gate.Len() == 0 {
		return
	}
	var ended []rrset.Key
	for rr := range o.in.desired.Unordered() {
		ended = append(ended, rr.Key())
	}
	for _, c := range applied {
		if c.Op == rrset.OpDelete {
			ended = append(ended, c.Key())
		}
	}
	o.gate.settle(ended)
}
