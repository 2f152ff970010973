package rrset

import (
	"hash/maphash"
	"math/bits"
)

// index maps the Keys of a Set's RRsets to their positions, as an
// open-addressing hash table with linear probing. A Go map would do the
// same, but this one hashes a key once for lookup and insertion together,
// and keeps every key's hash so that Diff probes one Set with the hashes the
// other already holds. Reading a 10,000-RRset zone is budgeted at a tenth
// of the time PowerDNS takes to serve it, and map operations were most of
// that.
type index struct {
	slots  []int32  // position+1 of an RRset, 0 for an empty slot; power-of-two length
	hashes []uint64 // hashes[i] is the hash of the key of the RRset at position i
}

// hashSeed is shared by every Set, so that hashes compare across Sets.
var hashSeed = maphash.MakeSeed()

func hashKey(k Key) uint64 {
	h := maphash.String(hashSeed, k.Name)
	for i := 0; i < len(k.Type); i++ {
		h = (h ^ uint64(k.Type[i])) * 0x100000001b3
	}
	return h
}

// find returns the position of the RRset at k (hash h) in rrsets, or the
// slot where k would go.
func (x *index) find(rrsets []RRset, k Key, h uint64) (pos int, slot int, ok bool) {
	if len(x.slots) == 0 {
		return 0, -1, false
	}
	mask := len(x.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		v := x.slots[i]
		if v == 0 {
			return 0, i, false
		}
		p := int(v - 1)
		if x.hashes[p] == h && rrsets[p].Name == k.Name && rrsets[p].Type == k.Type {
			return p, i, true
		}
	}
}

// insert records that the RRset with hash h is at position pos, the next
// one; slot is what find returned for its key.
func (x *index) insert(slot int, pos int, h uint64) {
	x.hashes = append(x.hashes, h)
	if slot < 0 || 2*len(x.hashes) > len(x.slots) {
		x.grow(len(x.hashes))
		return // grow placed it
	}
	x.slots[slot] = int32(pos + 1)
}

// grow resizes the table for n RRsets at a load of at most one half and
// places them all again, from their kept hashes.
func (x *index) grow(n int) {
	size := 1 << bits.Len(uint(2*n))
	if size < 8 {
		size = 8
	}
	if size <= len(x.slots) {
		return
	}
	x.slots = make([]int32, size)
	mask := size - 1
	for p, h := range x.hashes {
		i := int(h) & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = int32(p + 1)
	}
}

// remove deletes the RRset at position pos, found in slot, the way Set
// deletes it: the last RRset moves into pos.
func (x *index) remove(slot, pos int) {
	mask := len(x.slots) - 1
	// Backward-shift deletion keeps every probe sequence unbroken.
	i := slot
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		home := int(x.hashes[x.slots[j]-1]) & mask
		if !cyclicallyIn(home, i, j) {
			x.slots[i] = x.slots[j]
			i = j
		}
	}
	x.slots[i] = 0
	last := len(x.hashes) - 1
	if pos != last {
		// The last RRset moves to pos: its slot must follow.
		mask := len(x.slots) - 1
		for k := int(x.hashes[last]) & mask; ; k = (k + 1) & mask {
			if x.slots[k] == int32(last+1) {
				x.slots[k] = int32(pos + 1)
				break
			}
		}
		x.hashes[pos] = x.hashes[last]
	}
	x.hashes = x.hashes[:last]
}

// cyclicallyIn reports whether slot k lies in (i, j] on the ring of slots:
// an entry whose probe starts there can still be found past the hole at i.
func cyclicallyIn(k, i, j int) bool {
	if i <= j {
		return i < k && k <= j
	}
	return i < k || k <= j
}
