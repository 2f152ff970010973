package bench

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/claimrec"
)

// Store is where a writer records that an RRset is ManagedBy's.
type Store string

// The stores: the two of the library, and none at all.
const (
	// StoreNone records no ownership: the records alone.
	StoreNone Store = "none"
	// StoreComments records it in the RRset's comment, in the PATCH that
	// writes the RRset.
	StoreComments Store = "comments"
	// StoreMetadata records it in zone metadata: a claim record per write
	// that creates RRsets, a release record per write that deletes them.
	StoreMetadata Store = "metadata"
)

// Ownership is what a writer writes besides the records: the store, and
// for StoreComments the comments the library writes (read back from the
// server, see SyncWriter.Ownership).
type Ownership struct {
	Store    Store
	Comments []powerdns.Comment
}

// comments are the comments a PATCH entry carries under o.
func (o Ownership) comments() []powerdns.Comment {
	if o.Store != StoreComments {
		return nil
	}
	return o.Comments
}

// The metadata kinds the benchmark writes, as the library writes them (see
// claims.go at the module root, internal/claimrec): claim records X-PDNSKIT-O-…, release
// records X-PDNSKIT-R-…, each written once, whole, by one POST. The
// library reads any such kind as a record of the writer its first value
// names, so a zone seeded with SeedClaimKind is the library's own.
const (
	SeedClaimKind    = "X-PDNSKIT-O-BENCHSEED-1"
	FloorClaimKind   = "X-PDNSKIT-O-BENCHFLOOR-1"
	FloorReleaseKind = "X-PDNSKIT-R-BENCHFLOOR-1"
)

// ClaimValues are the values of a claim record in which ManagedBy claims
// specs, stamped stamp (Unix nanoseconds, as the library stamps), spelt as
// the library spells them (internal/claimrec).
func ClaimValues(specs []Spec, stamp int64) []string {
	rec := claimrec.Record{Writer: ManagedBy, Claims: make([]claimrec.Claim, len(specs))}
	for i, s := range specs {
		rec.Claims[i] = claimrec.Claim{Name: s.FQDN(), Type: s.Type, Stamp: stamp}
	}
	return rec.Values(claimrec.ValueBytes)
}

// ReleaseValues are the values of a release record that cancels the claims
// on specs made in the claim record claimKind.
func ReleaseValues(specs []Spec, claimKind string) []string {
	rec := claimrec.Record{Writer: ManagedBy, Releases: make([]claimrec.Release, len(specs))}
	for i, s := range specs {
		rec.Releases[i] = claimrec.Release{Name: s.FQDN(), Type: s.Type, Record: claimKind}
	}
	return rec.Values(claimrec.ValueBytes)
}

// MetadataBody is the body of a POST of a metadata kind.
func MetadataBody(kind string, values []string) ([]byte, error) {
	b, err := json.Marshal(powerdns.Metadata{Kind: powerdns.MetadataKindPtr(powerdns.MetadataKind(kind)), Metadata: values})
	if err != nil {
		return nil, fmt.Errorf("encode metadata %s: %w", kind, err)
	}
	return b, nil
}

// patchEnvelope is what a PATCH body holds besides its entries:
// {"rrsets":[…]} and the newline json.Encoder ends with.
const patchEnvelope = len(`{"rrsets":[]}`) + 1

// Bodies encodes changes as PATCH bodies, deletes first, exactly as
// go-powerdns encodes one (json.Encoder, newline included), split as the
// library splits: entries packed in order, a new body begun when the next
// entry would take the body past limit bytes (0: no limit). Nil when there
// is nothing to change.
func Bodies(changes []Change, o Ownership, limit int) ([][]byte, error) {
	var out [][]byte
	var cur bytes.Buffer
	flush := func() {
		if cur.Len() > 0 {
			cur.WriteString("]}\n")
			out = append(out, bytes.Clone(cur.Bytes()))
			cur.Reset()
		}
	}
	for _, del := range []bool{true, false} {
		for _, c := range changes {
			if c.Delete != del {
				continue
			}
			entry, err := json.Marshal(ChangeEntry(c, o.comments()))
			if err != nil {
				return nil, fmt.Errorf("encode PATCH entry: %w", err)
			}
			if cur.Len() > 0 && limit > 0 && cur.Len()+1+len(entry)+patchEnvelope-len(`{"rrsets":[`) > limit {
				flush()
			}
			if cur.Len() == 0 {
				cur.WriteString(`{"rrsets":[`)
			} else {
				cur.WriteByte(',')
			}
			cur.Write(entry)
		}
	}
	flush()
	return out, nil
}
