package rrset

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// maxGrow bounds what Grow reserves at once; larger Sets still grow as
// RRsets are added.
const maxGrow = 1 << 18

// ErrNoZone is returned by Add on a Set that was not made by NewSet.
var ErrNoZone = errors.New("rrset: Set has no zone: create it with NewSet")

// Set holds one zone's RRsets, at most one per Key. Keys are canonical, so
// two spellings of one RRset can never both be in a Set. Lookups take any
// spelling of a name or type.
//
// Get, Add and Delete cost O(1) on average. All, Sorted, Names and ByName use indexes
// built on their first call after a change, in O(n log n). A Set is safe
// for concurrent reads; writes (Add, Delete) need exclusive access, as with
// a map. The RRsets it returns share their Records with the Set: treat them
// as read-only.
type Set struct {
	zone zoneName
	// rrsets holds the RRsets in no particular order, so that Diff walks
	// them in memory order; idx finds them by Key.
	rrsets []RRset
	idx    index

	// views is built on first use after a change, so that filling a Set
	// costs one map insert per RRset; nil when stale.
	views atomic.Pointer[views]
	mu    sync.Mutex // serialises building views
}

// views are the Set's derived, read-only indexes.
type views struct {
	sorted []Key            // all keys in canonical order
	byName map[string][]Key // keys per name, each sorted by type
}

// NewSet returns an empty Set for zone, any spelling CanonicalZone accepts.
func NewSet(zone string) (*Set, error) {
	z, err := parseZone(zone)
	if err != nil {
		return nil, err
	}
	return &Set{zone: z}, nil
}

// Zone returns the Set's zone, canonical.
func (s *Set) Zone() string {
	if s == nil {
		return ""
	}
	return s.zone.text
}

// Len returns the number of RRsets; a nil Set is empty.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rrsets)
}

// position returns where the RRset at a canonical key is in s.rrsets.
func (s *Set) position(k Key) (int, bool) {
	return s.positionHashed(k, hashKey(k))
}

// positionHashed is position with the key's hash already known.
func (s *Set) positionHashed(k Key, h uint64) (int, bool) {
	if s == nil {
		return 0, false
	}
	p, _, ok := s.idx.find(s.rrsets, k, h)
	return p, ok
}

// lookup is Get for a canonical key, without the fallback to other
// spellings.
func (s *Set) lookup(k Key) (RRset, bool) {
	if p, ok := s.position(k); ok {
		return s.rrsets[p], true
	}
	return RRset{}, false
}

// Grow makes room for n more RRsets, so that adding them does not grow the
// Set step by step: call it with the size of a zone before filling a Set
// with it.
func (s *Set) Grow(n int) {
	if s == nil || s.zone.text == "" || n <= 0 {
		return
	}
	// A hint, not a promise: a wrong size must not exhaust memory up front.
	n = min(n, maxGrow)
	s.rrsets = slices.Grow(s.rrsets, n)
	s.idx.hashes = slices.Grow(s.idx.hashes, n)
	s.idx.grow(len(s.rrsets) + n)
}

// Add adds rr. Its name may be any spelling CanonicalName accepts in the
// Set's zone and its type any case: Add stores the canonical Key, so that a
// second spelling of a key already present fails with a *DuplicateError.
// It fails with a *NameError for a name out of the zone and a *RecordError
// for an invalid type or an RRset without records. Records are sorted and
// stripped of duplicates (in a copy, when they are not already); their
// contents are taken as they are (build rr with New or NewLive to have them
// canonical). The Set keeps rr.Records: do not modify it afterwards.
func (s *Set) Add(rr RRset) error {
	if s == nil || s.zone.text == "" {
		return ErrNoZone
	}
	key, err := s.key(rr.Name, rr.Type)
	if err != nil {
		return err
	}
	h := hashKey(key)
	p, slot, ok := s.idx.find(s.rrsets, key, h)
	if ok {
		return &DuplicateError{Key: key, Existing: s.rrsets[p]}
	}
	if len(rr.Records) == 0 {
		return &RecordError{Name: key.Name, Type: key.Type, Reason: ReasonNoRecords}
	}
	rr.Name, rr.Type = key.Name, key.Type
	if !sortedUnique(rr.Records) {
		rr.Records = sortRecords(slices.Clone(rr.Records))
	}
	s.rrsets = append(s.rrsets, rr)
	s.idx.insert(slot, len(s.rrsets)-1, h)
	s.invalidate()
	return nil
}

// Get returns the RRset at k, whatever the spelling of k.
func (s *Set) Get(k Key) (RRset, bool) {
	if s == nil {
		return RRset{}, false
	}
	if rr, ok := s.lookup(k); ok {
		return rr, true
	}
	if s.zone.text == "" {
		return RRset{}, false
	}
	k, err := s.key(k.Name, k.Type)
	if err != nil {
		return RRset{}, false
	}
	return s.lookup(k)
}

// Delete removes the RRset at k, whatever the spelling of k, and reports
// whether there was one.
func (s *Set) Delete(k Key) bool {
	if s == nil || s.zone.text == "" {
		return false
	}
	p, slot, ok := s.idx.find(s.rrsets, k, hashKey(k))
	if !ok {
		var err error
		if k, err = s.key(k.Name, k.Type); err != nil {
			return false
		}
		if p, slot, ok = s.idx.find(s.rrsets, k, hashKey(k)); !ok {
			return false
		}
	}
	s.idx.remove(slot, p)
	last := len(s.rrsets) - 1
	s.rrsets[p] = s.rrsets[last]
	s.rrsets[last] = RRset{}
	s.rrsets = s.rrsets[:last]
	s.invalidate()
	return true
}

// ByName returns the RRsets at name (any spelling), sorted by type; nil
// when there are none or the name is not in the zone.
func (s *Set) ByName(name string) []RRset {
	if s == nil || s.zone.text == "" {
		return nil
	}
	c, err := s.zone.canonical(name)
	if err != nil {
		return nil
	}
	keys := s.names()[c]
	if len(keys) == 0 {
		return nil
	}
	return s.rrsetsAt(keys)
}

// Names returns the distinct owner names, in canonical order.
func (s *Set) Names() []string {
	var out []string
	for _, k := range s.keys() {
		if len(out) == 0 || out[len(out)-1] != k.Name {
			out = append(out, k.Name)
		}
	}
	return out
}

// All yields the RRsets in canonical order: by name as DNSSEC orders names
// (RFC 4034 §6.1: the apex first, every name followed by the names below
// it), then by type.
func (s *Set) All() iter.Seq[RRset] {
	return func(yield func(RRset) bool) {
		for _, k := range s.keys() {
			rr, ok := s.lookup(k)
			if ok && !yield(rr) {
				return
			}
		}
	}
}

// Unordered yields the RRsets in no particular order, without sorting: for
// a walk over a large Set whose order does not matter, it costs nothing
// beyond the walk.
func (s *Set) Unordered() iter.Seq[RRset] {
	return func(yield func(RRset) bool) {
		if s == nil {
			return
		}
		for _, rr := range s.rrsets {
			if !yield(rr) {
				return
			}
		}
	}
}

// Sorted returns the RRsets in the order of All.
func (s *Set) Sorted() []RRset { return s.rrsetsAt(s.keys()) }

// rrsetsAt returns the RRsets at keys, which the Set holds, in their order.
func (s *Set) rrsetsAt(keys []Key) []RRset {
	out := make([]RRset, 0, len(keys))
	for _, k := range keys {
		rr, _ := s.lookup(k)
		out = append(out, rr)
	}
	return out
}

// keys returns the keys in canonical order.
func (s *Set) keys() []Key {
	if s == nil {
		return nil
	}
	return s.view().sorted
}

// names returns the keys per name.
func (s *Set) names() map[string][]Key {
	return s.view().byName
}

// view returns the derived indexes, building them once per change.
func (s *Set) view() *views {
	if v := s.views.Load(); v != nil {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.views.Load(); v != nil {
		return v
	}
	v := &views{sorted: make([]Key, 0, len(s.rrsets)), byName: make(map[string][]Key, len(s.rrsets))}
	for _, rr := range s.rrsets {
		v.sorted = append(v.sorted, rr.Key())
	}
	slices.SortFunc(v.sorted, compareKeys)
	for _, k := range v.sorted {
		v.byName[k.Name] = append(v.byName[k.Name], k)
	}
	s.views.Store(v)
	return v
}

func (s *Set) invalidate() {
	if s.views.Load() != nil {
		s.views.Store(nil)
	}
}

// key canonicalises a key in the Set's zone.
func (s *Set) key(name, typ string) (Key, error) {
	n, err := s.zone.canonical(name)
	if err != nil {
		return Key{}, err
	}
	t, ok := canonicalType(typ)
	if !ok {
		if !isMnemonic(typ) {
			return Key{}, &RecordError{Name: n, Type: typ, Reason: ReasonUnknownType}
		}
		t = strings.ToUpper(typ)
	}
	return Key{Name: n, Type: t}, nil
}
