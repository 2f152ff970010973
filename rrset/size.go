package rrset

import "strconv"

// A DNS response over TCP is at most 65,535 octets (RFC 1035 §4.2.2). One
// that answers a query for an RRset holds the header (12), the question
// (the owner name, type and class), the RRset, each record with its owner
// compressed to a pointer (2), type, class, TTL and data length (10) and
// its data, and the OPT record of EDNS (11), which resolvers send and
// PowerDNS answers with. Measured on PowerDNS 4.7, 4.9 and 5.1: a TXT record
// whose data and owner name take 65,496 octets is served over TCP to an
// EDNS query, one octet more and PowerDNS closes the connection without an
// answer. PowerDNS stores larger records all the same (70,000 characters on
// gsqlite3), except with LMDB, where 5.1 refuses data and owner over 65,508
// octets and 4.9 crashes on them.
const (
	dnsHeaderLen   = 12
	questionTail   = 4  // type and class after the question's name
	answerOverhead = 12 // compressed owner, type, class, TTL, data length
	ednsOPTLen     = 11
	maxMessage     = 1<<16 - 1
	// maxRRsetWire bounds the owner name's wire length plus, per record,
	// answerOverhead and its data.
	maxRRsetWire = maxMessage - dnsHeaderLen - questionTail - ednsOPTLen
	// maxContentText bounds one record's content as text: the gpgsql
	// schema's records.content is VARCHAR(65535), and PostgreSQL refuses a
	// longer value ("value too long for type character varying(65535)"),
	// on 4.9 and 5.1 alike. Text data in its canonical form takes more
	// characters than octets on the wire (quotes and blanks around every
	// 255-octet string), so this bound can be the stricter one.
	maxContentText = 65535
)

// checkSize refuses an RRset of kind k that no DNS response can carry
// whole. Only the kinds whose data can reach that size are measured: text
// (TXT, SPF) and RFC 3597 data.
func checkSize(k kind, owner string, records []string) *contentProblem {
	for _, r := range records {
		if len(r) > maxContentText {
			return &contentProblem{reason: ReasonTooLarge, detail: strconv.Itoa(len(r)) + " characters in one record, over the " +
				strconv.Itoa(maxContentText) + " PowerDNS's PostgreSQL backend stores"}
		}
	}
	var measure func(string) int
	switch k {
	case kindTXT:
		measure = textWireLen
	case kindGeneric:
		measure = genericLen
	default:
		return nil
	}
	total := wireLen(owner)
	for _, r := range records {
		total += answerOverhead + measure(r)
	}
	if total <= maxRRsetWire {
		return nil
	}
	return &contentProblem{reason: ReasonTooLarge, detail: strconv.Itoa(total) + " octets of owner name, record headers and data, over the " +
		strconv.Itoa(maxRRsetWire) + " a DNS response with EDNS can carry"}
}

// wireLen returns the length in wire form of a canonical absolute name:
// one octet per octet of its labels, one length octet per label (counted at
// the dot that ends it) and one for the root.
func wireLen(c string) int {
	if c == "." {
		return 1
	}
	n := 1
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' {
			i += escapeWidth(c, i) - 1
		}
		n++
	}
	return n
}

// escapeWidth returns the width of the escape at c[i] in canonical text:
// \DDD or \X.
func escapeWidth(c string, i int) int {
	if i+1 < len(c) && isDigit(c[i+1]) {
		return 4
	}
	return 2
}

// textWireLen returns the data length of canonical text ("a" "b c"): each
// string's octets and its length octet.
func textWireLen(c string) int {
	n := 0
	in := false
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch == '"':
			if !in {
				n++ // the string's length octet
			}
			in = !in
		case !in:
			// A blank between strings.
		case ch == '\\':
			i += escapeWidth(c, i) - 1
			n++
		default:
			n++
		}
	}
	return n
}
