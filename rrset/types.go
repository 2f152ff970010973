package rrset

import (
	"slices"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// typeInfo is what the package knows of a type it writes.
type typeInfo struct {
	kind kind
	// apexOnly: PowerDNS refuses the type anywhere but at the zone apex.
	apexOnly bool
}

// supportedTypes are the types New accepts. Each canonical form was checked
// against what PowerDNS 4.7, 4.9 and 5.1 accept and print back.
var supportedTypes = map[string]typeInfo{
	"A":          {kind: kindA},
	"AAAA":       {kind: kindAAAA},
	"AFSDB":      {kind: kindPrefTarget},
	"ALIAS":      {kind: kindTarget},
	"APL":        {kind: kindAPL},
	"CAA":        {kind: kindCAA},
	"CDNSKEY":    {kind: kindDNSKEY},
	"CDS":        {kind: kindDS},
	"CERT":       {kind: kindCERT},
	"CNAME":      {kind: kindTarget},
	"CSYNC":      {kind: kindCSYNC},
	"DHCID":      {kind: kindBase64},
	"DNAME":      {kind: kindTarget},
	"DNSKEY":     {kind: kindDNSKEY, apexOnly: true},
	"DS":         {kind: kindDS},
	"EUI48":      {kind: kindEUI48},
	"EUI64":      {kind: kindEUI64},
	"HINFO":      {kind: kindHINFO},
	"HTTPS":      {kind: kindSVCB},
	"IPSECKEY":   {kind: kindIPSECKEY},
	"KX":         {kind: kindPrefTarget},
	"L32":        {kind: kindL32},
	"L64":        {kind: kindNodeID},
	"LOC":        {kind: kindLOC},
	"LP":         {kind: kindPrefTarget},
	"LUA":        {kind: kindLUA},
	"MINFO":      {kind: kindRP},
	"MX":         {kind: kindMX},
	"NAPTR":      {kind: kindNAPTR},
	"NID":        {kind: kindNodeID},
	"NS":         {kind: kindNS},
	"OPENPGPKEY": {kind: kindBase64},
	"PTR":        {kind: kindTarget},
	"RKEY":       {kind: kindDNSKEY},
	"RP":         {kind: kindRP},
	"SMIMEA":     {kind: kindTLSA},
	"SOA":        {kind: kindSOA, apexOnly: true},
	"SPF":        {kind: kindTXT},
	"SRV":        {kind: kindSRV},
	"SSHFP":      {kind: kindSSHFP},
	"SVCB":       {kind: kindSVCB},
	"TLSA":       {kind: kindTLSA},
	"TXT":        {kind: kindTXT},
	"URI":        {kind: kindURI},
	"ZONEMD":     {kind: kindZONEMD},
}

// kind selects a content canonicaliser. A switch over kinds, rather than a
// table of functions, lets the compiler keep a build's scratch space on the
// stack.
type kind uint8

const (
	_ kind = iota
	kindA
	kindAAAA
	kindTarget
	kindMX
	kindSRV
	kindTXT
	kindCAA
	kindTLSA
	kindSSHFP
	kindDS
	kindDNSKEY
	kindNAPTR
	kindSVCB
	kindSOA
	kindURI
	kindHINFO
	kindRP
	kindNS
	kindGeneric
	kindPrefTarget
	kindCERT
	kindBase64
	kindZONEMD
	kindIPSECKEY
	kindNodeID
	kindL32
	kindEUI48
	kindEUI64
	kindAPL
	kindCSYNC
	kindLUA
	kindLOC
)

// canon appends the canonical form of one trimmed, non-empty content of k.
func (c *canonCtx) canon(k kind, dst []byte, s string) ([]byte, *contentProblem) {
	switch k {
	case kindA:
		return canonA(c, dst, s)
	case kindAAAA:
		return canonAAAA(c, dst, s)
	case kindTarget:
		return canonTarget(c, dst, s)
	case kindMX:
		return canonMX(c, dst, s)
	case kindSRV:
		return canonSRV(c, dst, s)
	case kindTXT:
		return canonTXT(c, dst, s)
	case kindCAA:
		return canonCAA(c, dst, s)
	case kindTLSA:
		return canonTLSA(c, dst, s)
	case kindSSHFP:
		return canonSSHFP(c, dst, s)
	case kindDS:
		return canonDS(c, dst, s)
	case kindDNSKEY:
		return canonDNSKEY(c, dst, s)
	case kindNAPTR:
		return canonNAPTR(c, dst, s)
	case kindSVCB:
		return canonSVCB(c, dst, s)
	case kindSOA:
		return canonSOA(c, dst, s)
	case kindURI:
		return canonURI(c, dst, s)
	case kindHINFO:
		return canonHINFO(c, dst, s)
	case kindRP:
		return canonRP(c, dst, s)
	case kindNS:
		return canonNS(c, dst, s)
	case kindGeneric:
		return canonGeneric(c, dst, s)
	}
	return c.canonMore(k, dst, s)
}

// canonMore is canon for the kinds of the less common types.
func (c *canonCtx) canonMore(k kind, dst []byte, s string) ([]byte, *contentProblem) {
	switch k {
	case kindPrefTarget:
		return canonPrefTarget(c, dst, s)
	case kindCERT:
		return canonCERT(c, dst, s)
	case kindBase64:
		return canonBase64(c, dst, s)
	case kindZONEMD:
		return canonZONEMD(c, dst, s)
	case kindIPSECKEY:
		return canonIPSECKEY(c, dst, s)
	case kindNodeID:
		return canonNodeID(c, dst, s)
	case kindL32:
		return canonL32(c, dst, s)
	case kindEUI48:
		return canonEUI48(c, dst, s)
	case kindEUI64:
		return canonEUI64(c, dst, s)
	case kindAPL:
		return canonAPL(c, dst, s)
	case kindCSYNC:
		return canonCSYNC(c, dst, s)
	case kindLUA:
		return canonLUA(c, dst, s)
	case kindLOC:
		return canonLOC(c, dst, s)
	}
	return nil, invalid("no canonical form for this type")
}

// SupportedTypes returns the type mnemonics New accepts, sorted. New also
// accepts TYPEnnn, with RFC 3597 data, for every type PowerDNS has no name
// for (see the package documentation).
func SupportedTypes() []string {
	out := make([]string, 0, len(supportedTypes))
	for t := range supportedTypes {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// canonicalType returns the upper-case mnemonic of typ ("cname" -> "CNAME",
// "TYPE5" -> "CNAME") and whether it names a DNS type at all: a type of
// miekg/dns's table, a PowerDNS-specific one (ALIAS, LUA), or TYPEnnn.
func canonicalType(typ string) (string, bool) {
	t, _, _, known := lookupType(typ)
	return t, known
}

// lookupType is canonicalType that also returns what the package knows of
// a supported type, in the one map lookup the common case needs.
func lookupType(typ string) (t string, info typeInfo, supported, known bool) {
	// The types of most RRsets, spelled canonically, without hashing.
	switch typ {
	case "A":
		return typ, typeInfo{kind: kindA}, true, true
	case "AAAA":
		return typ, typeInfo{kind: kindAAAA}, true, true
	case "CNAME":
		return typ, typeInfo{kind: kindTarget}, true, true
	case "TXT":
		return typ, typeInfo{kind: kindTXT}, true, true
	case "MX":
		return typ, typeInfo{kind: kindMX}, true, true
	}
	if info, ok := supportedTypes[typ]; ok {
		return typ, info, true, true
	}
	up := strings.ToUpper(typ)
	if info, ok := supportedTypes[up]; ok {
		return up, info, true, true
	}
	if g, ok := genericType(up); ok {
		return g, typeInfo{kind: kindGeneric}, true, true
	}
	t, known = otherType(up)
	if !known {
		t = typ
	}
	if info, ok := supportedTypes[t]; ok {
		return t, info, true, true // TYPEnnn of a supported type
	}
	return t, typeInfo{}, false, known
}

// otherType recognises the mnemonics of types the package does not write,
// and TYPEnnn; up is upper case. TYPEnnn becomes the name PowerDNS prints
// for it, never one only miekg/dns knows: PowerDNS prints type 3 as TYPE3,
// not MD.
func otherType(up string) (string, bool) {
	if up == "LUA" {
		return up, true
	}
	if n, ok := strings.CutPrefix(up, "TYPE"); ok && n != "" && isDecimal(n) {
		v, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return up, false
		}
		if name, ok := pdnsTypeNames[uint16(v)]; ok {
			return name, true
		}
		return "TYPE" + strconv.FormatUint(v, 10), true
	}
	if _, ok := dns.StringToType[up]; ok {
		return up, true
	}
	return up, false
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
