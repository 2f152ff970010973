package rrset

import (
	"errors"
	"fmt"
	"strconv"
)

// Reason says why a name or a record was refused. Callers branch on it
// through errors.As on *NameError or *RecordError; the values are stable.
type Reason string

// Reasons for refusing a name (in a *NameError).
const (
	// ReasonEmptyName: the zone or a name inside a content is empty.
	ReasonEmptyName Reason = "EmptyName"
	// ReasonEmptyLabel: two dots in a row, or a leading dot ("a..b", ".a").
	ReasonEmptyLabel Reason = "EmptyLabel"
	// ReasonLabelTooLong: a label of more than 63 octets.
	ReasonLabelTooLong Reason = "LabelTooLong"
	// ReasonNameTooLong: a name of more than 255 octets in wire form.
	ReasonNameTooLong Reason = "NameTooLong"
	// ReasonInvalidEscape: a backslash not followed by a character or by
	// three digits naming an octet (0 to 255).
	ReasonInvalidEscape Reason = "InvalidEscape"
	// ReasonInvalidCharacter: a space or control character written
	// literally (it must be escaped as \DDD).
	ReasonInvalidCharacter Reason = "InvalidCharacter"
	// ReasonInvalidIDN: a label with non-ASCII characters that is not a
	// valid internationalised label (UTS #46, non-transitional).
	ReasonInvalidIDN Reason = "InvalidIDN"
	// ReasonOutOfZone: an absolute name that is neither the zone's apex nor
	// below it.
	ReasonOutOfZone Reason = "OutOfZone"
	// ReasonInvalidZone: the zone itself is not a valid name; Err holds the
	// zone's own *NameError.
	ReasonInvalidZone Reason = "InvalidZone"
)

// Reasons for refusing a record (in a *RecordError). ReasonUnsupported is
// also used for owner names that PowerDNS refuses.
const (
	// ReasonUnknownType: not a DNS type mnemonic.
	ReasonUnknownType Reason = "UnknownType"
	// ReasonUnsupportedType: a DNS type this package does not write
	// (RRSIG, NSEC, NSEC3, ...). NewLive still keeps such RRsets verbatim.
	ReasonUnsupportedType Reason = "UnsupportedType"
	// ReasonNoRecords: an RRset without any content.
	ReasonNoRecords Reason = "NoRecords"
	// ReasonEmptyContent: a content that is empty or only whitespace.
	ReasonEmptyContent Reason = "EmptyContent"
	// ReasonInvalidContent: a content that does not parse for its type.
	ReasonInvalidContent Reason = "InvalidContent"
	// ReasonInvalidTarget: a name inside a content (a CNAME, MX, SRV, ...
	// target) is invalid; Err holds its *NameError.
	ReasonInvalidTarget Reason = "InvalidTarget"
	// ReasonApexOnly: a type PowerDNS accepts only at the zone apex (SOA,
	// DNSKEY) below it.
	ReasonApexOnly Reason = "ApexOnly"
	// ReasonTooLarge: an RRset of text (TXT, SPF) or RFC 3597 data that no
	// DNS response can carry whole: its owner name, record headers and
	// data take more than the 65,535 octets of a DNS message over TCP, less
	// header, question and EDNS record (65,496 octets for a single record
	// and its owner name).
	ReasonTooLarge Reason = "TooLarge"
	// ReasonUnsupported: valid DNS data that PowerDNS refuses, or that one
	// of the supported PowerDNS versions (4.7, 4.9, 5.1) would store
	// altered, so that it could never be read back equal. See the package
	// documentation for the exact rules.
	ReasonUnsupported Reason = "Unsupported"
	// ReasonInvalidComment: an RRset's Comment that cannot be written and
	// read back unchanged (see RRset.CheckComment).
	ReasonInvalidComment Reason = "InvalidComment"
)

// NameError reports a name that cannot be canonicalised. It names the input
// exactly as given.
type NameError struct {
	// Zone is the zone as given; empty when the name was a zone itself or
	// a name inside a record content (those are always absolute).
	Zone string
	// Name is the name as given.
	Name string
	// Reason says why it was refused.
	Reason Reason
	// Detail adds what the reason alone does not say (the label, the
	// length, the offending character); it may be empty.
	Detail string
	// Err is the underlying error, if any: the zone's own *NameError for
	// ReasonInvalidZone, the IDNA error for ReasonInvalidIDN.
	Err error
}

func (e *NameError) Error() string {
	if e.Reason == ReasonInvalidZone {
		msg := "rrset: zone " + strconv.Quote(e.Zone) + " is not a valid name"
		var inner *NameError
		if errors.As(e.Err, &inner) {
			return msg + ": " + inner.describe()
		}
		return msg
	}
	msg := "rrset: name " + strconv.Quote(e.Name)
	if e.Zone != "" {
		msg += " in zone " + strconv.Quote(e.Zone)
	}
	return msg + ": " + e.describe()
}

func (e *NameError) describe() string {
	s := describe(e.Reason)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	if e.Err != nil && e.Reason != ReasonInvalidZone {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *NameError) Unwrap() error { return e.Err }

// RecordError reports an RRset or one of its contents that New refused.
type RecordError struct {
	// Name is the owner name: canonical when it could be canonicalised,
	// else as given.
	Name string
	// Type is the type: upper case when it is a known mnemonic, else as
	// given.
	Type string
	// Content is the refused content as given; empty when the RRset as a
	// whole was refused (unknown type, no records).
	Content string
	// Reason says why it was refused.
	Reason Reason
	// Detail adds what the reason alone does not say; it may be empty.
	Detail string
	// Err is the underlying error, if any: a *NameError for
	// ReasonInvalidTarget.
	Err error
}

func (e *RecordError) Error() string {
	msg := "rrset: " + e.Name + " " + e.Type
	if e.Content != "" {
		msg += " " + strconv.Quote(e.Content)
	}
	msg += ": " + describe(e.Reason)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	var ne *NameError
	switch {
	case errors.As(e.Err, &ne):
		msg += ": name " + strconv.Quote(ne.Name) + ": " + ne.describe()
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// DuplicateError reports an Add of a key the Set already holds. Both RRsets
// are canonical, so the two spellings that produced them may have differed.
type DuplicateError struct {
	Key Key
	// Existing is the RRset already in the Set.
	Existing RRset
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("rrset: duplicate RRset %s %s", e.Key.Name, e.Key.Type)
}

func describe(r Reason) string {
	switch r {
	case ReasonEmptyName:
		return "empty name"
	case ReasonEmptyLabel:
		return "empty label"
	case ReasonLabelTooLong:
		return "label longer than 63 octets"
	case ReasonNameTooLong:
		return "name longer than 255 octets"
	case ReasonInvalidEscape:
		return "invalid escape"
	case ReasonInvalidCharacter:
		return "character not allowed in a name"
	case ReasonInvalidIDN:
		return "invalid internationalised label"
	case ReasonOutOfZone:
		return "not in zone"
	case ReasonInvalidZone:
		return "invalid zone"
	case ReasonUnknownType:
		return "unknown type"
	case ReasonUnsupportedType:
		return "type not supported"
	case ReasonNoRecords:
		return "no records"
	case ReasonInvalidComment:
		return "invalid comment"
	case ReasonEmptyContent:
		return "empty content"
	case ReasonInvalidContent:
		return "invalid content"
	case ReasonInvalidTarget:
		return "invalid name in content"
	case ReasonApexOnly:
		return "only allowed at the zone apex"
	case ReasonTooLarge:
		return "larger than a DNS response can carry"
	case ReasonUnsupported:
		return "not storable unchanged by PowerDNS"
	default:
		return string(r)
	}
}
