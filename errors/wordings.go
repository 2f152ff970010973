package errors

import (
	"regexp"
	"strings"
)

// A wording is one message template of PowerDNS Authoritative's API
// (pdns/ws-auth.cc, pdns/ws-api.cc, pdns/json.cc, and from 5.1
// pdns/check-zone.cc). Its pattern captures, where the template prints them,
// the owner name ("name"), the record type ("type") and the record content
// ("content").
//
// Owner names are printed by DNSName::toString, which escapes blanks and
// non-printable bytes, so a name never contains whitespace; names may
// contain '/' (RFC 2317 delegations). Types are QType::toString ("CNAME",
// "TYPE65534"), never holding ':' or blanks, except in "unknown type given",
// which echoes what was sent.
type wording struct {
	reason Reason
	re     *regexp.Regexp
}

// rrsetPrefix is how most RRset messages start: "RRset <name> IN <type>".
const rrsetPrefix = `RRset (?P<name>\S+) IN (?P<type>[^\s:]+)`

func w(reason Reason, pattern string) wording {
	// (?s): contents may hold newlines; the whole message must match.
	return wording{reason: reason, re: regexp.MustCompile(`(?s)\A` + pattern + `\s*\z`)}
}

// wordings are tried in order; the first match wins. The comment above each
// group names the versions (4.7 to 5.1) that print it.
var wordings = []wording{
	// CNAME (or other exclusive type) next to other data.
	// 4.2 – 5.1, PATCH against data already in the zone:
	w(Conflict, rrsetPrefix+`: Conflicts with pre-existing RRset`),
	// 4.2 – 5.0, two such RRsets in one zone creation or PUT:
	w(Conflict, rrsetPrefix+`: Conflicts with another RRset`),
	// 5.1 (check-zone.cc), same situation, names the other type:
	w(Conflict, rrsetPrefix+`: conflicts with existing \S+ RRset of the same name`),
	// 4.1 and older, still met on old servers:
	w(Conflict, rrsetPrefix+`: Conflicts with pre-existing (?:non-)?CNAME RRset`),

	// The same content twice in one RRset.
	// 4.1 – 5.0:
	w(DuplicateRecord, `Duplicate record in RRset (?P<name>\S+) IN (?P<type>\S+) with content "(?P<content>.*)"`),
	// 5.1:
	w(DuplicateRecord, rrsetPrefix+`: duplicate record with content "(?P<content>.*)"`),

	// Two records in a CNAME, DNAME or SOA RRset.
	// 4.1 – 5.0:
	w(SingleRecordType, rrsetPrefix+` has more than one record`),
	// 5.1:
	w(SingleRecordType, rrsetPrefix+`: only one such record allowed`),

	// One name and type twice in a PATCH. 4.7 – 5.1:
	w(DuplicateRRset, `Duplicate RRset (?P<name>\S+) IN (?P<type>\S+) with changetype: .*`),

	// Out of zone. 4.7 – 5.1:
	w(OutOfZone, rrsetPrefix+`: Name is out of zone`),

	// Placement.
	// 4.7 – 5.0:
	w(Placement, `Record (?P<name>\S+) IN (?P<type>\S+) is (?:not|only) allowed at apex`),
	// 5.1:
	w(Placement, rrsetPrefix+`: is (?:not|only) allowed at apex`),
	// 4.7 – 5.1:
	w(Placement, rrsetPrefix+`: Cannot have both NS and DNAME except in zone apex`),

	// Types. 4.7 – 5.1; "invalid type given" is for OPT and TSIG.
	w(UnknownType, `RRset (?P<name>\S+) IN (?P<type>.*): unknown type given`),
	w(UnknownType, rrsetPrefix+`: invalid type given`),

	// Contents.
	// 4.7 – 5.1: makeApiRecordContent refused the content, or printed it
	// differently ("Not in expected format (parsed as '…')", "Invalid IPv6
	// address", any zone-parser message). Parsed by recordContent.
	// 4.7, 4.8 (no colon) and 4.9 – 5.1: checkHostnameCorrectness.
	w(InvalidContent, rrsetPrefix+`:? non-hostname content .*`),
	w(InvalidContent, rrsetPrefix+`:? unable to extract hostname from content`),
	// 5.1: normalizeJsonString.
	w(InvalidContent, `Invalid character (?:'.'|\\x[0-9a-fA-F]+) in record content '(?P<content>.*)'`),
	// 5.0 – 5.1: contents already stored that PowerDNS cannot print.
	w(InvalidContent, `Ill-formed record contents found for (?P<name>\S+): .*`),
	// 4.7 – 5.1: zone text given on creation.
	w(InvalidContent, `An error occurred while parsing the zonedata: .*`),

	// Names.
	// 4.7 – 5.1 (apiNameToDNSName, apiCheckNameAllowedCharacters):
	w(InvalidName, `DNS Name '(?P<name>.*)' is not canonical`),
	w(InvalidName, `Unable to parse DNS Name '(?P<name>.*)'`),
	w(InvalidName, `Name '(?P<name>.*)' contains unsupported characters`),
	// 5.0 – 5.1 (apiNameToZoneName, zones with a variant):
	w(InvalidName, `Zone Name '(?P<name>.*)' is not canonical`),
	w(InvalidName, `Unable to parse Zone Name '(?P<name>.*)'`),
	// 4.7 – 5.1, zone creation; the nameserver is a content, not an owner:
	w(InvalidName, `Nameserver is not canonical: '(?P<content>.*)'`),
	w(InvalidName, `Unable to parse DNS Name for NS '(?P<content>.*)'`),

	// Requests the server will not carry out.
	// Backend limits, 4.7 – 5.1 (LMDB refuses comments before 5.1):
	w(InvalidRequest, `Hosting backend does not support editing (?:comments|records)\.?`),
	// Changetypes: 4.7 – 5.0.0 and 4.9.0, then 4.9.x/5.0.x/5.1:
	w(InvalidRequest, `Changetype not understood`),
	w(InvalidRequest, `Changetype '.*' is not a valid value`),
	// 4.7 – 5.1:
	w(InvalidRequest, `No change for RRset (?P<name>\S+) IN (?P<type>\S+)`),
	w(InvalidRequest, `No rrsets given in update request`),
	// PRUNE/EXTEND, 4.9.x, 5.0.x, 5.1:
	w(InvalidRequest, `No record provided for PRUNE or EXTEND operation`),
	w(InvalidRequest, `Exactly one record should be provided for PRUNE or EXTEND operation`),
	w(InvalidRequest, `Submitted record is invalid: .*`),
	// 5.1, PRUNE/EXTEND leaving records with different TTLs:
	w(InvalidRequest, rrsetPrefix+`: uses a different TTL value than the remainder of the RRset`),
	// Lua records when enable-lua-record-updates is off: 5.0 – 5.1, then 5.1:
	w(InvalidRequest, `Update of Lua records is not allowed`),
	w(InvalidRequest, rrsetPrefix+`: update of Lua records is not allowed`),
	// JSON keys (json.cc), bare in 4.7 – 4.8 and wrapped in "New RRsets are
	// invalid: " from 4.9:
	w(InvalidRequest, `New RRsets are invalid: .*`),
	w(InvalidRequest, `Key '.*' (?:not present or not a (?:String|Bool)|not an Integer or not present|is not a valid number|is not a positive Integer)`),
	w(InvalidRequest, `Value for key '.*' (?:is out of range|is not a valid number)`),
	w(InvalidRequest, "`priority` element is not allowed in record"),
	// Consumer zones, 4.9 – 5.1:
	w(InvalidRequest, `(?:Modifying RRsets in Consumer zones is unsupported|Zone data MUST NOT be given for Consumer zones|Nameservers MUST NOT be given for Consumer zones)`),
	// Zone creation and replacement, 4.7 – 5.1:
	w(InvalidRequest, `Must give SOA record for zone when replacing all RR sets`),
	w(InvalidRequest, `You cannot give rrsets AND zone data as text`),
	w(InvalidRequest, `Nameservers (?:is not a list|must be non-empty strings|list MUST NOT be mixed with zone-level NS in rrsets)`),
	w(InvalidRequest, `'.*' request parameter value '.*' is not supported`),
}

// recordContentRe matches "Record <name>/<type> '<content>': <why>" (4.7 –
// 5.1, gatherRecords). The type never holds '/', the name may, so the last
// '/' of the first word splits them. The content may hold "': " itself;
// recordContent picks the split.
var recordContentRe = regexp.MustCompile(`(?s)\ARecord (\S+)/([A-Za-z0-9-]+) '(.*)\z`)

// notInExpectedFormat introduces the reason PowerDNS gives for a content that
// parses but prints differently, above all a target without its trailing dot.
const notInExpectedFormat = "': Not in expected format (parsed as '"

func recordContent(msg string) (Problem, bool) {
	m := recordContentRe.FindStringSubmatch(msg)
	if m == nil {
		return Problem{}, false
	}
	rest := m[3]
	end := strings.Index(rest, notInExpectedFormat)
	if end < 0 {
		end = strings.Index(rest, "': ")
	}
	if end < 0 {
		return Problem{}, false
	}
	return Problem{Reason: InvalidContent, Name: m[1], Type: m[2], Content: rest[:end], Message: msg}, true
}

// An RRset message PowerDNS words differently in a later release is still
// classified by what it says, and keeps its owner and type. Only messages
// about an RRset are read this way: elsewhere the same words mean other
// things ("Only one TSIG secondary key is currently allowed").
var (
	genericRRsetRe  = regexp.MustCompile(`(?s)\A(?:RRset|Record) (\S+) IN ([^\s:]+):? (.*)\z`)
	genericKeywords = []struct {
		word   string
		reason Reason
	}{
		{"conflict", Conflict},
		{"duplicate record", DuplicateRecord},
		{"only one", SingleRecordType},
		{"more than one record", SingleRecordType},
		{"duplicate rrset", DuplicateRRset},
		{"out of zone", OutOfZone},
		{"apex", Placement},
		{"unknown type", UnknownType},
		{"not canonical", InvalidName},
		{"unsupported characters", InvalidName},
		{"hostname", InvalidContent},
		{"not in expected format", InvalidContent},
	}
)

// classify turns one message of a 422 (or other non-status-specific) answer
// into a Problem.
func classify(msg string) Problem {
	if p, ok := recordContent(msg); ok {
		return p
	}
	for _, wd := range wordings {
		m := wd.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		p := Problem{Reason: wd.reason, Message: msg}
		for i, name := range wd.re.SubexpNames() {
			switch name {
			case "name":
				p.Name = m[i]
			case "type":
				p.Type = m[i]
			case "content":
				p.Content = m[i]
			}
		}
		return p
	}
	p := Problem{Reason: Unknown, Message: msg}
	m := genericRRsetRe.FindStringSubmatch(msg)
	if m == nil {
		return p
	}
	p.Name, p.Type = m[1], m[2]
	what := strings.ToLower(m[3])
	for _, k := range genericKeywords {
		if strings.Contains(what, k.word) {
			p.Reason = k.reason
			break
		}
	}
	return p
}
