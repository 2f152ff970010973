package conflict

// Kind says which rule a blocked write breaks. The values are stable
// strings, safe to use as metric labels and condition reasons.
type Kind string

// The kinds, in the order a key's conflicts are listed. The first five are
// rules PowerDNS enforces itself (EnforcedByPowerDNS reports true); the
// others are rules it does not.
const (
	// CNAMEAndOtherData: a CNAME and data of any other type at one name,
	// in either direction. PowerDNS refuses it ("Conflicts with
	// pre-existing RRset").
	CNAMEAndOtherData Kind = "CNAMEAndOtherData"
	// SingleRecordType: more than one record in an RRset of a type that
	// allows one: CNAME, DNAME or SOA. PowerDNS refuses it ("has more than
	// one record", "only one such record allowed").
	SingleRecordType Kind = "SingleRecordType"
	// ApexCNAME: a CNAME at the zone apex, where the SOA and NS always
	// are. PowerDNS refuses it as CNAMEAndOtherData; it gets its own kind
	// because no change elsewhere can make it valid.
	ApexCNAME Kind = "ApexCNAME"
	// NSAndDNAME: NS and DNAME at one name below the apex. PowerDNS refuses
	// any write at such a name ("Cannot have both NS and DNAME except in
	// zone apex").
	NSAndDNAME Kind = "NSAndDNAME"
	// Placement: a type where PowerDNS refuses it. That is SOA or DNSKEY
	// below the apex ("is only allowed at apex"), or DS at the apex ("is not
	// allowed at apex").
	Placement Kind = "Placement"
	// ALIASAndAddress: an ALIAS next to A or AAAA at one name. PowerDNS
	// accepts it and then answers with either; it is refused here.
	ALIASAndAddress Kind = "ALIASAndAddress"
	// Occluded: data that resolvers would never see. A write below a
	// delegation (an NS RRset at a name other than the zone apex) or below
	// a DNAME is occluded, except glue: an A or AAAA at a name that the
	// delegation's own NS records point to. A write of NS (below the apex)
	// or of DNAME occludes the data below its name, and is reported when
	// any of that data is another writer's (or no writer's, without
	// adoption). PowerDNS stores such data and then never serves it.
	Occluded Kind = "Occluded"
	// NotOwner: the key is held by another writer, live (or with all its
	// records disabled).
	NotOwner Kind = "NotOwner"
	// Unowned: the key is held by an RRset with no writer recorded, and the
	// caller did not opt in to adopting such RRsets (WithAdoption).
	Unowned Kind = "Unowned"
	// ApexRequired: an explicit delete (Remove) of the zone apex's SOA or
	// NS RRset. PowerDNS accepts it and is left with a zone it refuses to
	// serve, and that no writer can fix with a write elsewhere; a zone
	// goes whole (DeleteZone) or keeps its apex. The apex RRsets' contents
	// may still be changed.
	ApexRequired Kind = "ApexRequired"
)

// kinds lists every Kind in order.
var kinds = [...]Kind{
	CNAMEAndOtherData, SingleRecordType, ApexCNAME, NSAndDNAME, Placement,
	ALIASAndAddress, Occluded, NotOwner, Unowned, ApexRequired,
}

// String returns the kind's name, e.g. "CNAMEAndOtherData".
func (k Kind) String() string { return string(k) }

// EnforcedByPowerDNS reports whether PowerDNS itself refuses such a write
// (with a 422), as opposed to a rule only this package enforces.
func (k Kind) EnforcedByPowerDNS() bool {
	switch k {
	case CNAMEAndOtherData, SingleRecordType, ApexCNAME, NSAndDNAME, Placement:
		return true
	}
	return false
}

// Intrinsic reports whether the RRset breaks the rule on its own, whatever
// else the zone holds. Such are two CNAME records, a CNAME at the apex, an
// SOA below it, a delete of the apex SOA: only a change of what is asked
// can lift the conflict.
func (k Kind) Intrinsic() bool {
	switch k {
	case SingleRecordType, ApexCNAME, Placement, ApexRequired:
		return true
	}
	return false
}

// rank orders kinds as they are declared; an unknown kind comes last.
func (k Kind) rank() int {
	for i, known := range kinds {
		if k == known {
			return i
		}
	}
	return len(kinds)
}

// Known reports whether k is one of the kinds this package declares.
func (k Kind) Known() bool { return k.rank() < len(kinds) }
