package reconcile

import (
	"strings"
	"time"

	"github.com/pdnskit/reconcile/rrset"
)

// syncMemo is what the last Sync of a zone found when it read the whole zone
// and had nothing to do. While the zone's serial stays where it was and the
// Sync asks for the same RRsets, the next Sync has nothing to do either: it
// asks PowerDNS for the zone without its RRsets (one small request) instead
// of reading them all.
//
// It is kept only where the serial moves with every change: the zone's
// SOA-EDIT-API makes PowerDNS raise it on every API write (DEFAULT or
// INCREASE: EPOCH may give two writes in one second one serial), and
// ownership lives in RRset comments, which such a write carries (claims in
// zone metadata are written without one). Edits that keep the serial — made
// in the database straight, not through the API — are found by the next
// full read, at most WithFullRead after the last.
type syncMemo struct {
	desired uint64    // desiredHash of the Sync's RRsets
	serial  uint32    // the zone's serial in that read
	read    time.Time // when the zone was read whole
}

// serialMovesOnWrite reports whether PowerDNS raises a zone's serial on
// every API write to it, by the zone's soa_edit_api.
func serialMovesOnWrite(soaEditAPI string) bool {
	switch strings.ToUpper(strings.TrimSpace(soaEditAPI)) {
	case "DEFAULT", "INCREASE":
		return true
	}
	return false
}

// desiredHash sums an FNV-1a hash of every RRset of s, with its writer,
// owner, note, TTL and records: equal sets hash equal whatever their order, and a
// change to any RRset changes the sum but by a collision of 64-bit hashes.
func desiredHash(s *rrset.Set) uint64 {
	if s == nil {
		return 0
	}
	var sum uint64
	for rr := range s.Unordered() {
		h := fnv1a(fnvOffset, rr.Name)
		h = fnv1a(h*fnvPrime, rr.Type)
		h = fnv1a(h*fnvPrime, rr.ManagedBy)
		h = fnv1a(h*fnvPrime, rr.Owner)
		h = fnv1a(h*fnvPrime, rr.Comment)
		h = (h ^ uint64(rr.TTL)) * fnvPrime
		for _, rec := range rr.Records {
			h = fnv1a(h*fnvPrime, rec)
		}
		sum += h
	}
	return sum + uint64(s.Len())
}
