package reconcile

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/rrset"
)

func TestRelated(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"www.example.com.", "www.example.com.", true},
		{"x.www.example.com.", "www.example.com.", true},
		{"www.example.com.", "a.b.www.example.com.", true},
		{"awww.example.com.", "www.example.com.", false},
		{"www.example.com.", "mail.example.com.", false},
	} {
		assert.Equal(t, tc.want, related(tc.a, tc.b), "%s %s", tc.a, tc.b)
	}
}

// waiterAt is a waiting Apply of an A RRset at name in example.com.
func waiterAt(t *testing.T, ctx context.Context, name string) *waiter {
	t.Helper()
	set, err := rrset.NewSet("example.com.")
	require.NoError(t, err)
	rr, err := rrset.New("example.com.", name, "A", 300, "192.0.2.1")
	require.NoError(t, err)
	require.NoError(t, set.Add(rr))
	o := &op{in: intent{desired: set, keys: []rrset.Key{rr.Key()}}, scope: readScope{name: rr.Name}}
	return &waiter{o: o, ctx: ctx, done: make(chan struct{})}
}

func names(ws []*waiter) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.o.scope.name)
	}
	return out
}

func TestTakeBatch(t *testing.T) {
	ctx := context.Background()
	gone, cancel := context.WithCancel(ctx)
	cancel()

	m := newSchedule(backoff.SystemClock, holdPolicy{})
	a, b, xa, c, late, d := waiterAt(t, ctx, "a"), waiterAt(t, ctx, "b"), waiterAt(t, ctx, "x.a"),
		waiterAt(t, gone, "c"), waiterAt(t, ctx, "late"), waiterAt(t, ctx, "d")
	for _, w := range []*waiter{a, b, xa, c, late, d} {
		m.enqueue(w)
	}

	// xa holds the turn: a came first and is related, so xa waits.
	members, waiting := m.takeBatch(xa, 1<<20)
	require.True(t, waiting)
	assert.Equal(t, []string{"a.example.com.", "b.example.com.", "late.example.com.", "d.example.com."}, names(members),
		"in the order they came, related and given-up ones left")
	assert.Equal(t, []string{"x.a.example.com.", "c.example.com."}, names(m.waiting))

	members, waiting = m.takeBatch(xa, 1<<20)
	require.True(t, waiting)
	assert.Equal(t, []string{"x.a.example.com."}, names(members), "alone, and the given-up one left to drop itself")
	assert.True(t, m.dequeue(c))
	assert.Empty(t, m.waiting)

	_, waiting = m.takeBatch(xa, 1<<20)
	assert.False(t, waiting, "carried by a batch already")
}

func TestTakeBatchBounds(t *testing.T) {
	ctx := context.Background()
	m := newSchedule(backoff.SystemClock, holdPolicy{})
	var all []*waiter
	for i := range maxBatch + 3 {
		w := waiterAt(t, ctx, fmt.Sprintf("n%d", i))
		all = append(all, w)
		m.enqueue(w)
	}
	members, _ := m.takeBatch(all[0], 1<<30)
	assert.Len(t, members, maxBatch, "at most maxBatch")
	assert.Len(t, m.waiting, 3)

	one := all[maxBatch].o.size()
	members, _ = m.takeBatch(all[maxBatch], 2*one)
	assert.Len(t, members, 2, "within the body bound")
	members, _ = m.takeBatch(all[maxBatch+2], 1)
	assert.Len(t, members, 1, "one member whatever its size")
}

func TestBatchScope(t *testing.T) {
	m := newZoneMemory(defaultConfig())
	names := []string{"a.example.com.", "b.example.com."}
	assert.True(t, batchScope(m, names).whole(), "a zone never read whole is read whole")

	live, err := rrset.NewSet("example.com.")
	require.NoError(t, err)
	for i := range perNameRRsets*len(names) - 1 {
		rr, err := rrset.New("example.com.", fmt.Sprintf("h%d", i), "A", 300, "192.0.2.1")
		require.NoError(t, err)
		require.NoError(t, live.Add(rr))
	}
	m.saw(&observation{set: live}, readScope{})
	assert.True(t, batchScope(m, names).whole(), "a small zone is read whole")

	rr, err := rrset.New("example.com.", "last", "A", 300, "192.0.2.1")
	require.NoError(t, err)
	m.learn([]rrset.Change{{Op: rrset.OpCreate, New: &rr}})
	s := batchScope(m, names)
	assert.False(t, s.whole(), "a large zone is read by name")
	assert.True(t, s.covers(rrset.Key{Name: "a.example.com.", Type: "A"}))
	assert.True(t, s.covers(rrset.Key{Name: "b.example.com.", Type: "TXT"}))
	assert.False(t, s.covers(rrset.Key{Name: "c.example.com.", Type: "A"}))
}

// TestTakeBatchKeepsOrder: an Apply left out of a batch (here for size)
// is not overtaken by a later one at a related name.
func TestTakeBatchKeepsOrder(t *testing.T) {
	ctx := context.Background()
	m := newSchedule(backoff.SystemClock, holdPolicy{})
	a, big, xbig, c := waiterAt(t, ctx, "a"), waiterAt(t, ctx, "big"), waiterAt(t, ctx, "x.big"), waiterAt(t, ctx, "c")
	big.o.in.desired = bigSet(t)
	for _, w := range []*waiter{a, big, xbig, c} {
		m.enqueue(w)
	}
	members, _ := m.takeBatch(a, a.o.size()+xbig.o.size()+c.o.size())
	assert.Equal(t, []string{"a.example.com.", "c.example.com."}, names(members))
	assert.Equal(t, []string{"big.example.com.", "x.big.example.com."}, names(m.waiting))
}

// bigSet is a desired set of one RRset at big.example.com. with many
// records.
func bigSet(t *testing.T) *rrset.Set {
	t.Helper()
	var contents []string
	for i := range 100 {
		contents = append(contents, fmt.Sprintf("192.0.2.%d", i+1))
	}
	rr, err := rrset.New("example.com.", "big", "A", 300, contents...)
	require.NoError(t, err)
	set, err := rrset.NewSet("example.com.")
	require.NoError(t, err)
	require.NoError(t, set.Add(rr))
	return set
}

// TestShare: a member's part of a batch's Result is what happened at its
// name, the deletes a takeover made room with included.
func TestShare(t *testing.T) {
	at := func(name, typ string) *rrset.RRset {
		rr, err := rrset.New("example.com.", name, typ, 300, map[string]string{"A": "192.0.2.1", "CNAME": "lb.example.net.", "TXT": `"x"`}[typ])
		require.NoError(t, err)
		return &rr
	}
	b := &op{res: Result{Zone: "example.com.", Applied: []rrset.Change{
		{Op: rrset.OpDelete, Old: at("x", "A")},
		{Op: rrset.OpCreate, New: at("x", "CNAME")},
		{Op: rrset.OpCreate, New: at("y", "TXT")},
	}}}
	x := &op{scope: readScope{name: "x.example.com."}, in: intent{keys: []rrset.Key{at("x", "CNAME").Key()}}}
	res := b.share(x)
	require.Len(t, res.Applied, 2, "the takeover's delete and the create")
	assert.Equal(t, "example.com.", res.Zone)
	y := &op{scope: readScope{name: "y.example.com."}, in: intent{keys: []rrset.Key{at("y", "TXT").Key()}}}
	assert.Len(t, b.share(y).Applied, 1)
}
