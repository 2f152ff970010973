package errors

// Reason says why PowerDNS refused a request (or why it could not be served),
// in terms a caller can branch on. The values are stable strings, safe to use
// as metric labels.
type Reason string

// The reasons, in order of precedence: when the problems of one answer have
// different reasons, APIError.Reason and ReasonOf report the first of these
// that occurs, so a conflict is never hidden behind a lesser problem.
const (
	// Conflict: a CNAME and data of another type at one name. The other
	// data already existed, or the two were sent together; PowerDNS treats
	// DNAME and ALIAS alike where it does.
	Conflict Reason = "Conflict"
	// DuplicateRecord: the same content appears twice in one RRset.
	DuplicateRecord Reason = "DuplicateRecord"
	// SingleRecordType: more than one record in an RRset whose type allows
	// only one (CNAME, DNAME, SOA).
	SingleRecordType Reason = "SingleRecordType"
	// DuplicateRRset: the same name and type twice in one PATCH with the
	// same changetype.
	DuplicateRRset Reason = "DuplicateRRset"
	// InvalidContent: a record content PowerDNS cannot parse or will not
	// store. That is content not in the form PowerDNS stores (a target
	// without its trailing dot), a target that is not a hostname, or an
	// invalid character.
	InvalidContent Reason = "InvalidContent"
	// InvalidName: an owner name (or nameserver) that is not absolute,
	// cannot be parsed or has characters PowerDNS does not accept.
	InvalidName Reason = "InvalidName"
	// OutOfZone: the owner name is not inside the zone being changed.
	OutOfZone Reason = "OutOfZone"
	// Placement: a type at a place it may not be. That is SOA (or DNSKEY)
	// off the apex, DS at the apex, or NS next to DNAME below the apex.
	Placement Reason = "Placement"
	// UnknownType: a record type PowerDNS does not know, or one it never
	// stores in a zone.
	UnknownType Reason = "UnknownType"
	// InvalidRequest: the request itself is wrong or unsupported. That is a
	// bad or missing changetype or key, "No change for RRset", PRUNE/EXTEND
	// misuse, something the zone kind or the backend cannot do (LMDB on 4.x
	// refuses comments), any 400 Bad Request or other 4xx without a more
	// specific reason, or a redirect (3xx) that was not followed, such as
	// one answering a write.
	InvalidRequest Reason = "InvalidRequest"
	// Unauthorized: the API key is missing or wrong (401), or access is
	// forbidden (403).
	Unauthorized Reason = "Unauthorized"
	// ZoneNotFound: 404. PowerDNS answers 404 for an unknown zone, and also
	// for an unknown server id or path.
	ZoneNotFound Reason = "ZoneNotFound"
	// ZoneExists: 409. PowerDNS answers 409 when the zone (or TSIG key)
	// being created already exists.
	ZoneExists Reason = "ZoneExists"
	// ServerError: a 5xx answer, from PowerDNS or a proxy in front of it.
	ServerError Reason = "ServerError"
	// Unknown: anything else. The message is kept whole in Problem.Message.
	Unknown Reason = "Unknown"
)

// reasons lists every Reason in order of precedence.
var reasons = [...]Reason{
	Conflict, DuplicateRecord, SingleRecordType, DuplicateRRset,
	InvalidContent, InvalidName, OutOfZone, Placement, UnknownType,
	InvalidRequest, Unauthorized, ZoneNotFound, ZoneExists, ServerError,
	Unknown,
}

// precedence ranks r among reasons; a Reason outside the set ranks last.
func precedence(r Reason) int {
	for i, known := range reasons {
		if r == known {
			return i
		}
	}
	return len(reasons)
}
