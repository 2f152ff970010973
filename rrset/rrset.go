package rrset

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Key identifies an RRset in a zone: PowerDNS holds at most one RRset per
// key, so two RRsets with one Key are two spellings of one RRset.
type Key struct {
	Name string // canonical absolute name
	Type string // upper-case type mnemonic
}

// String returns "name TYPE".
func (k Key) String() string { return k.Name + " " + k.Type }

// RRset is all the records of one name and type, with one TTL, as PowerDNS
// stores them. Build it with New (desired data) or NewLive (data read from
// a server) so that its fields are canonical; a Set re-derives the Key of
// an RRset built by hand, but takes its contents as they are.
//
// There is no disabled flag: this package writes only enabled records, and
// a reader of live data drops disabled ones before it builds an RRset.
type RRset struct {
	Name      string   `json:"name"`                // canonical absolute name
	Type      string   `json:"type"`                // "A", "AAAA", "CNAME", "ALIAS", "TXT", "MX", ...
	TTL       uint32   `json:"ttl"`                 // seconds
	Records   []string `json:"records"`             // canonical PowerDNS contents, sorted, no duplicates
	ManagedBy string   `json:"managedBy,omitempty"` // the writer that owns this RRset; "" when nobody claimed it
	// Owner is the object behind the write within its writer (e.g. a
	// Kubernetes "namespace/name"), recorded next to ManagedBy; "" when
	// none was given. Writers arbitrate between their own objects, so it
	// never blocks a write: an RRset changing owner within one writer is a
	// handover, not a conflict.
	Owner string `json:"owner,omitempty"`
	// Comment is a person's free-text note on the RRset ("" for none),
	// written and read back next to the ownership record. It is part of
	// the RRset: a changed note is an update (Diff), and Equal compares it.
	// CheckComment says whether it can be written.
	Comment string `json:"comment,omitempty"`
}

// Key returns the RRset's key.
func (r RRset) Key() Key { return Key{Name: r.Name, Type: r.Type} }

// Equal reports whether r and o are the same RRset with the same data, the
// same writer, the same owner and the same comment.
func (r RRset) Equal(o RRset) bool {
	return r.ManagedBy == o.ManagedBy && r.Owner == o.Owner && r.Comment == o.Comment && r.EqualData(o)
}

// MaxCommentSize is the largest Comment, in bytes, that CheckComment
// accepts.
const MaxCommentSize = 4096

// CheckComment reports, with a *RecordError of ReasonInvalidComment, a
// Comment that cannot be written and read back byte for byte on every
// backend. Such a Comment is longer than MaxCommentSize bytes, not valid
// UTF-8 (JSON would replace the invalid bytes), holds a NUL (which SQL
// backends cut at), or holds a character beyond U+FFFF, an emoji for one
// (gmysql keeps comments in MySQL's three-byte "utf8" and refuses it). Any
// other text, newlines included, is fine.
func (r RRset) CheckComment() error {
	var detail string
	switch {
	case len(r.Comment) > MaxCommentSize:
		detail = "longer than " + strconv.Itoa(MaxCommentSize) + " bytes"
	case !utf8.ValidString(r.Comment):
		detail = "not valid UTF-8"
	case strings.IndexByte(r.Comment, 0) >= 0:
		detail = "holds a NUL"
	case strings.ContainsFunc(r.Comment, func(c rune) bool { return c > 0xffff }):
		detail = "holds a character beyond U+FFFF, which gmysql cannot store"
	default:
		return nil
	}
	return &RecordError{Name: r.Name, Type: r.Type, Reason: ReasonInvalidComment, Detail: detail}
}

// EqualData reports whether r and o are the same RRset with the same TTL and
// records, whoever owns them. With canonical RRsets this is exactly "writing
// one over the other changes nothing in PowerDNS".
func (r RRset) EqualData(o RRset) bool {
	return r.Name == o.Name && r.Type == o.Type && r.TTL == o.TTL && slices.Equal(r.Records, o.Records)
}

// String returns the RRset in zone-file form, one line per record.
func (r RRset) String() string {
	var b strings.Builder
	for i, c := range r.Records {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(r.line(c))
	}
	return b.String()
}

func (r RRset) line(content string) string {
	return r.Name + " " + strconv.FormatUint(uint64(r.TTL), 10) + " IN " + r.Type + " " + content
}

// emptyString is the canonical content of a TXT record of one empty
// character-string.
const emptyString = `""`

// New builds an RRset from desired data, in canonical form. The owner name
// goes through CanonicalName, the type mnemonic is in upper case
// (case-insensitive on input, TYPEnnn accepted), every content is in the
// one form PowerDNS stores and prints back, records are sorted and
// duplicates (after canonicalisation) collapsed. ManagedBy is left empty;
// Diff sets it.
//
// New refuses, with a *NameError for the owner name or a *RecordError
// naming the record and the reason: an unknown or unsupported type, no
// contents, an empty content (but a TXT or SPF one, which is one empty
// character-string, `""`), a content that does not parse for its type,
// data PowerDNS cannot store unchanged on every supported version
// (ReasonUnsupported; see the package documentation), and text or RFC 3597
// data no DNS response can carry (ReasonTooLarge). Invalid data never
// reaches the server.
func New(zone, name, typ string, ttl uint32, contents ...string) (RRset, error) {
	return build(zone, name, typ, ttl, contents, true)
}

// NewLive builds an RRset from data read from PowerDNS, in the same
// canonical form as New, so that what was written with New compares equal
// when read back. It is lenient where New is strict, since live data is
// what it is: contents that PowerDNS could not have stored unchanged are
// still canonicalised, and contents of types this package does not model
// (RRSIG, NSEC, ...) or that do not parse are kept as given, trimmed. The name
// and the type must still be valid, and there must be at least one content.
// Set ManagedBy afterwards from wherever ownership is recorded.
func NewLive(zone, name, typ string, ttl uint32, contents ...string) (RRset, error) {
	return build(zone, name, typ, ttl, contents, false)
}

func build(zone, name, typ string, ttl uint32, contents []string, strict bool) (RRset, error) {
	z, err := parseZone(zone)
	if err != nil {
		return RRset{}, &NameError{Zone: zone, Name: name, Reason: ReasonInvalidZone, Err: err}
	}
	return z.build(name, typ, ttl, contents, strict)
}

func (z zoneName) build(name, typ string, ttl uint32, contents []string, strict bool) (RRset, error) {
	zone := z.given
	owner, err := z.canonical(name)
	if err != nil {
		return RRset{}, err
	}
	t, info, supported, known := lookupType(typ)
	switch {
	case !known && (strict || !isMnemonic(typ)):
		return RRset{}, &RecordError{Name: owner, Type: typ, Reason: ReasonUnknownType}
	case !known:
		t = strings.ToUpper(typ)
	case !supported && strict:
		return RRset{}, &RecordError{Name: owner, Type: t, Reason: ReasonUnsupportedType,
			Detail: "supported: " + strings.Join(SupportedTypes(), ", ")}
	}
	if strict {
		if !portableName(owner) {
			return RRset{}, &NameError{Zone: zone, Name: name, Reason: ReasonUnsupported,
				Detail: "PowerDNS accepts only letters, digits, '-', '_' and '/' in owner names, and \"*\" as a whole first label"}
		}
		if info.apexOnly && owner != z.text {
			return RRset{}, &RecordError{Name: owner, Type: t, Reason: ReasonApexOnly}
		}
	}
	if len(contents) == 0 {
		return RRset{}, &RecordError{Name: owner, Type: t, Reason: ReasonNoRecords}
	}
	records := make([]string, len(contents))
	var scratch [256]byte
	var text [256]byte
	ctx := canonCtx{zone: z, strict: strict, buf: text[:0]}
	for i, content := range contents {
		s := strings.TrimSpace(content)
		switch {
		case s != "":
		case info.kind == kindTXT:
			// Empty text is one empty character-string: 4.x stores ""
			// and serves it so, 5.1 refuses it unquoted.
			s = emptyString
		default:
			return RRset{}, &RecordError{Name: owner, Type: t, Content: content, Reason: ReasonEmptyContent}
		}
		if !supported {
			records[i] = s
			continue
		}
		b, p := ctx.canon(info.kind, scratch[:0], s)
		switch {
		case p != nil && strict:
			return RRset{}, &RecordError{Name: owner, Type: t, Content: content, Reason: p.reason, Detail: p.detail, Err: p.err}
		case p != nil:
			records[i] = s
		case string(b) == content:
			records[i] = content
		default:
			records[i] = string(b)
		}
	}
	records = sortRecords(records)
	if strict && supported {
		if p := checkSize(info.kind, owner, records); p != nil {
			return RRset{}, &RecordError{Name: owner, Type: t, Reason: p.reason, Detail: p.detail}
		}
	}
	return RRset{Name: owner, Type: t, TTL: ttl, Records: records}, nil
}

// sortRecords sorts records and drops duplicates, in place.
func sortRecords(records []string) []string {
	if sortedUnique(records) {
		return records
	}
	slices.Sort(records)
	return slices.Compact(records)
}

func sortedUnique(records []string) bool {
	for i := 1; i < len(records); i++ {
		if records[i-1] >= records[i] {
			return false
		}
	}
	return true
}

// isMnemonic reports whether a type read from a server looks like a type
// mnemonic, for types neither this package nor miekg/dns knows.
func isMnemonic(typ string) bool {
	if typ == "" || len(typ) > 20 {
		return false
	}
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if c != '-' && !isDigit(c) && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}
