// Package claimrec is the text of the zone-metadata records in which the
// library keeps ownership where a backend refuses RRset comments (LMDB
// before 5.1): how a claim record and a release record are written as
// metadata values, and how they are read back, whichever version of the
// library wrote them. What the records mean, and when they are written, is
// the root package's (claims.go); this package only spells them.
//
// A record is one metadata kind, its values:
//
//   - a claim record, X-PDNSKIT-O-<instance>-<n>: "writer <name>", then the
//     claims packed many to a value, "claims <name> <type> <stamp> =[<owner>]
//     <name> <type> <stamp> =[<owner>] ...", one group of four fields per
//     RRset claimed;
//   - a release record, X-PDNSKIT-R-<instance>-<n>: "writer <name>", then
//     "releases <name> <type> <claim record> ...", one group of three fields
//     per claim it cancels.
//
// Many to a value because every value is a row of the backend: LMDB before
// 5.1 reads each row of a zone's metadata for every kind it looks up,
// several times in each read of the zone, so that a zone whose 1,000 claims
// were a row each answered a GET filtered to one name in 19 ms instead of
// 1.3 ms (4.9.18).
//
// Read as well: values of one claim or release each ("claim <name> <type>
// <stamp> [<owner>]", "release <name> <type> <claim record>"), and the one
// kind per writer of the first versions, X-PDNSKIT-OWNER-<hash of the
// writer>, holding such claims.
package claimrec

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/pdnskit/reconcile/internal/jsonlen"
)

// The kinds' prefixes.
const (
	ClaimPrefix   = "X-PDNSKIT-O-"
	ReleasePrefix = "X-PDNSKIT-R-"
	LegacyPrefix  = "X-PDNSKIT-OWNER-"
)

// ValueBytes bounds a value of packed claims or releases, as JSON: large
// enough that a zone's claims take few rows, far below what any backend
// stores in one (gmysql's TEXT: 65,535 bytes) and below any body limit a
// server is given.
const ValueBytes = 16 << 10

const (
	writerLine   = "writer "
	claimsLine   = "claims "
	releasesLine = "releases "
	claimLine    = "claim "   // one claim a value, as first written
	releaseLine  = "release " // one release a value, as first written
	ownerMark    = "="
)

// Claim is one claim of an RRset: the writer's record that it wrote the
// RRset at Stamp (Unix nanoseconds), for Owner ("" when it names none).
type Claim struct {
	Name, Type string
	Stamp      int64
	Owner      string
}

// Release cancels the claim on Name and Type held in the claim record
// Record.
type Release struct {
	Name, Type string
	Record     string
}

// Record is the content of one record: a claim record holds claims, a
// release record releases.
type Record struct {
	Writer   string
	Claims   []Claim
	Releases []Release
}

// IsRelease reports whether kind is the kind of a release record.
func IsRelease(kind string) bool { return strings.HasPrefix(kind, ReleasePrefix) }

// IsRecord reports whether kind may hold a record.
func IsRecord(kind string) bool {
	return strings.HasPrefix(kind, ClaimPrefix) || IsRelease(kind) || strings.HasPrefix(kind, LegacyPrefix)
}

// LegacyKind is the one kind per writer that the first versions wrote.
func LegacyKind(writer string) string {
	sum := sha256.Sum256([]byte(writer))
	return LegacyPrefix + strings.ToUpper(hex.EncodeToString(sum[:8]))
}

// Parse reads the values of kind as a record. ok is false when kind is not
// a record's, or the record is not whole: a reader may see the values of a
// kind being created one by one, and the writer line may not be among them
// yet. Claims in a release record, releases in a claim record, and values
// this package does not write are left out: they say nothing.
func Parse(kind string, values []string) (rec Record, ok bool) {
	if !IsRecord(kind) {
		return Record{}, false
	}
	release := IsRelease(kind)
	for _, v := range values {
		switch {
		case strings.HasPrefix(v, writerLine):
			rec.Writer = strings.TrimPrefix(v, writerLine)
		case release:
			rec.Releases = appendReleases(rec.Releases, v)
		default:
			rec.Claims = appendClaims(rec.Claims, v)
		}
	}
	if rec.Writer == "" || (strings.HasPrefix(kind, LegacyPrefix) && LegacyKind(rec.Writer) != kind) {
		return Record{}, false
	}
	return rec, true
}

func appendClaims(out []Claim, v string) []Claim {
	if rest, ok := strings.CutPrefix(v, claimsLine); ok {
		f := strings.Fields(rest)
		if len(f)%4 != 0 {
			return out // cut or not written by this package: says nothing
		}
		for i := 0; i < len(f); i += 4 {
			if owner, ok := strings.CutPrefix(f[i+3], ownerMark); ok {
				out = appendClaim(out, f[i], f[i+1], f[i+2], owner)
			}
		}
		return out
	}
	if rest, ok := strings.CutPrefix(v, claimLine); ok {
		switch f := strings.Fields(rest); len(f) {
		case 3:
			return appendClaim(out, f[0], f[1], f[2], "")
		case 4:
			return appendClaim(out, f[0], f[1], f[2], f[3])
		}
	}
	return out
}

// appendClaim appends one claim; one whose stamp is not a number says
// nothing.
func appendClaim(out []Claim, name, typ, stamp, owner string) []Claim {
	at, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return out
	}
	return append(out, Claim{Name: name, Type: typ, Stamp: at, Owner: owner})
}

func appendReleases(out []Release, v string) []Release {
	if rest, ok := strings.CutPrefix(v, releasesLine); ok {
		f := strings.Fields(rest)
		if len(f)%3 != 0 {
			return out
		}
		for i := 0; i < len(f); i += 3 {
			out = append(out, Release{Name: f[i], Type: f[i+1], Record: f[i+2]})
		}
		return out
	}
	if rest, ok := strings.CutPrefix(v, releaseLine); ok {
		if f := strings.Fields(rest); len(f) == 3 {
			out = append(out, Release{Name: f[0], Type: f[1], Record: f[2]})
		}
	}
	return out
}

// WriterValue is the first value of every record of writer.
func WriterValue(writer string) string { return writerLine + writer }

// Values writes rec as the values of one kind: its writer line, then its
// claims (or, when it has none, its releases) in order, packed many to a
// value, each value at most budget bytes as a JSON string unless one group
// alone is larger. The fields are the caller's: a name, type, owner or
// record holding a space would not read back.
func (rec Record) Values(budget int) []string {
	p := packer{budget: budget, out: []string{WriterValue(rec.Writer)}}
	if len(rec.Claims) > 0 {
		p.prefix = claimsLine
		for _, c := range rec.Claims {
			p.add(c.Name + " " + c.Type + " " + strconv.FormatInt(c.Stamp, 10) + " " + ownerMark + c.Owner)
		}
	} else {
		p.prefix = releasesLine
		for _, r := range rec.Releases {
			p.add(r.Name + " " + r.Type + " " + r.Record)
		}
	}
	return p.done()
}

// packer packs groups of fields into values that start with prefix.
type packer struct {
	budget int
	prefix string
	cur    strings.Builder
	size   int // of cur, as a JSON string without its quotes
	out    []string
}

func (p *packer) add(group string) {
	n := jsonlen.String(group) - len(`""`)
	if p.cur.Len() > 0 && len(`""`)+p.size+len(" ")+n > p.budget {
		p.flush()
	}
	if p.cur.Len() == 0 {
		p.cur.WriteString(p.prefix)
		p.size = jsonlen.String(p.prefix) - len(`""`)
	} else {
		p.cur.WriteByte(' ')
		p.size++
	}
	p.cur.WriteString(group)
	p.size += n
}

func (p *packer) flush() {
	if p.cur.Len() > 0 {
		p.out = append(p.out, p.cur.String())
		p.cur.Reset()
		p.size = 0
	}
}

func (p *packer) done() []string {
	p.flush()
	return p.out
}
