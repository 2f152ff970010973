package reconcile

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pdnskit/reconcile/rrset"
)

// Group commit: Applies of one zone that wait for its turn are carried out
// together, as one operation, when the turn comes: one read, the zone lock
// once if any of them needs it, one PATCH (split only by the body limit).
// Each caller gets its own Result. Only Applies whose names are unrelated
// (none at, above or below another's name) share a batch, so that no rule
// judges one member's write against another's: each is decided as it would
// be alone, and a later Apply of a related name waits for the next turn,
// decided after the earlier one as it would be one after the other.

// maxBatch bounds how many Applies one batch carries.
const maxBatch = 64

// waiter is an Apply waiting for its zone's turn.
type waiter struct {
	o   *op
	ctx context.Context
	// queued is when it began to wait.
	queued time.Time
	// done is closed once a batch carried the Apply out; res and err are
	// then its outcome, and requests and patches what the batch sent.
	done              chan struct{}
	res               Result
	err               error
	requests, patches int64
}

// waitForTurn waits for the zone's turn as a waiter that another Apply's
// turn may carry out. The Apply that takes the turn carries out the
// waiting Applies it can batch, in the order they came, starting with the
// first: itself too unless an earlier one is at a related name, when it
// waits for the next turn. Alone in its batch, it runs body in the
// caller's goroutine, as any operation in its turn.
func (o *op) waitForTurn(ctx context.Context, body func(context.Context) error) error {
	// What the server cannot store is this Apply's own error, found
	// before it joins others (a batch checks them all together).
	if err := o.learnServer(ctx); err != nil {
		return o.errorf(err)
	}
	w := &waiter{o: o, ctx: ctx, done: make(chan struct{}), queued: time.Now()}
	o.mem.sched.enqueue(w)
	for {
		select {
		case <-w.done:
			return o.carried(w)
		case o.mem.sched.turn <- struct{}{}:
			members, waiting := o.mem.sched.takeBatch(w, o.r.cfg.maxPatchBytes)
			switch {
			case !waiting:
				// A batch carried it out and freed the turn since.
				<-o.mem.sched.turn
				<-w.done
				return o.carried(w)
			case len(members) == 1 && members[0] == w:
				err := body(ctx)
				if !o.released.Load() {
					<-o.mem.sched.turn
				}
				return err
			}
			go o.r.runBatch(o.zone, members)
		case <-ctx.Done():
			// Still waiting, it is dropped; carried by a batch in
			// progress, its write may yet be made, as one cut short by
			// its context is; carried already, it has its Result.
			if !o.mem.sched.dequeue(w) {
				select {
				case <-w.done:
					return o.carried(w)
				default:
				}
			}
			return o.errorf(fmt.Errorf("wait for the operation on the zone in progress: %w", ctx.Err()))
		}
	}
}

// carried takes a batch's outcome for the Apply into its operation.
func (o *op) carried(w *waiter) error {
	o.res = w.res
	o.t.requests.Add(w.requests)
	o.t.patches.Add(w.patches)
	return w.err
}

// related reports whether a and b are one name or one is below the other.
func related(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// size estimates how much of a PATCH body the operation's RRsets take.
func (o *op) size() int {
	n := 0
	for rr := range o.in.desired.Unordered() {
		n += 64 + len(rr.Name)
		for _, r := range rr.Records {
			n += 32 + len(r)
		}
	}
	return n
}

// runBatch carries out members, Applies of zone that waited for its turn,
// as one operation in the turn an Apply took for them, frees the turn, and
// hands each member its own Result. It runs for as long as one member's
// context is live.
func (r *Reconciler) runBatch(zone string, members []*waiter) {
	ctx, cancel := batchContext(members)
	defer cancel()
	b := r.batchOp(zone, members)
	err := b.run(ctx)
	if !b.released.Load() {
		<-b.mem.sched.turn
	}
	for _, w := range members {
		w.res, w.err = b.share(w.o), err
		w.res.detach()
		w.requests, w.patches = b.t.requests.Load(), b.t.patches.Load()
		close(w.done)
	}
}

// batchContext is live while one member's context is, and carries none of
// their deadlines or values but the first member's values.
func batchContext(members []*waiter) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(members[0].ctx))
	var live atomic.Int32
	live.Store(int32(len(members)))
	stops := make([]func() bool, 0, len(members))
	for _, w := range members {
		stops = append(stops, context.AfterFunc(w.ctx, func() {
			if live.Add(-1) == 0 {
				cancel()
			}
		}))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// batchOp is the one operation that carries out members: their RRsets and
// keys together, with the scope batchScope gives.
func (r *Reconciler) batchOp(zone string, members []*waiter) *op {
	desired, _ := rrset.NewSet(zone)
	var keys []rrset.Key
	var names []string
	lockFirst := false
	for _, w := range members {
		for rr := range w.o.in.desired.Unordered() {
			_ = desired.Add(rr)
		}
		keys = append(keys, w.o.in.keys...)
		names = append(names, w.o.scope.name)
		lockFirst = lockFirst || w.o.lockFirst
	}
	mem := r.memory(zone)
	b := r.newOp("apply", zone, intent{desired: desired, keys: keys}, batchScope(mem, names), writes)
	b.lockFirst = lockFirst
	return b
}

// perNameRRsets is how many RRsets the Reconciler must have seen in a zone
// per name of a batch for the batch to read its names one at a time rather
// than the whole zone in one request. With 50, batches of seven in zones
// of 800 to 4,400 RRsets took 1.2 to 2.9 times as long as with whole
// reads (BenchmarkAppliesAtOnce, PowerDNS 4.7, 4.9 LMDB, 5.1 gsqlite3 and
// gpgsql): the filtered reads went one after the other then, and one read
// of a zone that size cost less. 1,000 keeps every zone measured read
// whole. Under the zone lock a batch reads what lockedScope gives.
const perNameRRsets = 1000

// batchScope is what a batch of Applies at names reads: the whole zone,
// until the Reconciler has read it whole and found it large against the
// batch (perNameRRsets), then each name, one filtered GET each. The whole
// read also tells the memory every name, so that the next Applies of new
// names expect to create and go straight to the lock.
func batchScope(mem *zoneMemory, names []string) readScope {
	if n, whole := mem.size(); !whole || n < perNameRRsets*len(names) {
		return readScope{}
	}
	return readScope{name: names[0], names: names[1:]}
}

// share is the part of the batch's Result that concerns member m: the
// changes, blocks, refusals, deferrals and handovers at its name — its
// key's, and the deletes a takeover of it makes room with; no other
// member's name is related to it.
func (o *op) share(m *op) Result {
	mine := func(k rrset.Key) bool { return k.Name == m.scope.name }
	res := Result{Zone: o.res.Zone}
	for _, c := range o.res.Applied {
		if mine(c.Key()) {
			res.Applied = append(res.Applied, c)
		}
	}
	for _, c := range o.res.Blocked {
		if mine(c.Key) {
			res.Blocked = append(res.Blocked, c)
		}
	}
	for _, rf := range o.res.Refused {
		if mine(rf.Change.Key()) {
			res.Refused = append(res.Refused, rf)
		}
	}
	for _, d := range o.res.Deferred {
		if mine(d.RRset.Key()) {
			res.Deferred = append(res.Deferred, d)
		}
	}
	for _, h := range o.res.Handovers {
		if mine(h.Key) {
			res.Handovers = append(res.Handovers, h)
		}
	}
	for _, c := range o.res.Postponed {
		if mine(c.Key()) {
			res.Postponed = append(res.Postponed, c)
		}
	}
	if len(res.Postponed) > 0 {
		res.PostponedFor = o.res.PostponedFor
	}
	return res
}
