package rrset

import (
	"encoding/base64"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// SvcParamKeys (RFC 9460 §14.3.2) that every supported PowerDNS version
// prints the same way. Later keys (dohpath, ohttp, tls-supported-groups and
// keyNNNNN) are printed as "keyN=..." by 4.x and by name by 5.1, so no one
// canonical form could read back equal from both.
const (
	svcMandatory     = 0
	svcALPN          = 1
	svcNoDefaultALPN = 2
	svcPort          = 3
	svcIPv4Hint      = 4
	svcECH           = 5
	svcIPv6Hint      = 6
	svcKeys          = 7
)

var svcKeyNames = [svcKeys]string{"mandatory", "alpn", "no-default-alpn", "port", "ipv4hint", "ech", "ipv6hint"}

func svcKey(name string) (int, *contentProblem) {
	name = strings.ToLower(name)
	for k, n := range svcKeyNames {
		if n == name {
			return k, nil
		}
	}
	if n, ok := strings.CutPrefix(name, "key"); ok {
		if v, err := strconv.ParseUint(n, 10, 16); err == nil && v < svcKeys && n == strconv.FormatUint(v, 10) {
			return int(v), nil
		}
	}
	return 0, unsupported("SvcParamKey " + strconv.Quote(name) + " is printed differently by PowerDNS 4.x and 5.1")
}

// canonSVCB is HTTPS and SVCB: "priority target key=value ...", with the
// parameters in key order as PowerDNS prints them. The alias form (priority
// 0) takes no parameters: PowerDNS would drop them.
func canonSVCB(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	prio, rest := cutField(s)
	dst, priority, p := appendUint(dst, prio, 16, "priority")
	if p != nil {
		return nil, p
	}
	dst = append(dst, ' ')
	target, rest := cutField(rest)
	if target == "" {
		return nil, invalid("missing target")
	}
	if target == "." {
		dst = append(dst, '.')
	} else if dst, p = c.appendTarget(dst, target); p != nil {
		return nil, p
	}
	if rest == "" {
		return dst, nil
	}
	if priority == 0 {
		return nil, invalid("parameters in alias form (priority 0)")
	}
	var values [svcKeys]string
	var seen [svcKeys]bool
	for rest != "" {
		var name, value string
		if name, value, rest, p = nextSvcParam(rest); p != nil {
			return nil, p
		}
		key, p := svcKey(name)
		if p != nil {
			return nil, p
		}
		if seen[key] {
			return nil, invalid("SvcParamKey " + svcKeyNames[key] + " given twice")
		}
		seen[key] = true
		switch {
		case key == svcNoDefaultALPN && value != "":
			// An empty value is what miekg/dns prints: no-default-alpn="".
			return nil, invalid("no-default-alpn takes no value")
		case key != svcNoDefaultALPN && value == "":
			return nil, invalid("SvcParamKey " + svcKeyNames[key] + " needs a value")
		}
		values[key] = value
	}
	for key, value := range values {
		if !seen[key] {
			continue
		}
		dst = append(dst, ' ')
		dst = append(dst, svcKeyNames[key]...)
		if key == svcNoDefaultALPN {
			continue
		}
		dst = append(dst, '=')
		if dst, p = appendSvcValue(dst, key, value, seen); p != nil {
			return nil, p
		}
	}
	return dst, nil
}

// nextSvcParam reads "key", "key=value" or `key="value"` from s.
func nextSvcParam(s string) (name, value, rest string, p *contentProblem) {
	i := 0
	for i < len(s) && s[i] != '=' && !isBlank(s[i]) {
		i++
	}
	name = s[:i]
	if i == len(s) || isBlank(s[i]) {
		return name, "", s[skipBlanks(s, i):], nil
	}
	i++ // '='
	if i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return "", "", "", invalid("unterminated quoted value of " + name)
		}
		value = s[i+1 : i+1+end]
		i += end + 2
		if i < len(s) && !isBlank(s[i]) {
			return "", "", "", invalid("text after the quoted value of " + name)
		}
	} else {
		start := i
		for i < len(s) && !isBlank(s[i]) {
			i++
		}
		value = s[start:i]
	}
	if strings.IndexByte(value, '\\') >= 0 {
		return "", "", "", unsupported("escape in the value of " + name + ": PowerDNS 5.1 unescapes contents before parsing them")
	}
	return name, value, s[skipBlanks(s, i):], nil
}

func appendSvcValue(dst []byte, key int, value string, seen [svcKeys]bool) ([]byte, *contentProblem) {
	switch key {
	case svcMandatory:
		var keys []int
		for name := range strings.SplitSeq(value, ",") {
			k, p := svcKey(name)
			if p != nil {
				return nil, p
			}
			if k == svcMandatory || slices.Contains(keys, k) {
				return nil, invalid("mandatory lists " + svcKeyNames[k] + " twice or itself")
			}
			if !seen[k] {
				return nil, invalid("mandatory lists " + svcKeyNames[k] + ", which is absent")
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, svcKeyNames[k]...)
		}
	case svcALPN:
		for id := range strings.SplitSeq(value, ",") {
			if id == "" {
				return nil, invalid("empty ALPN identifier")
			}
			for i := 0; i < len(id); i++ {
				switch c := id[i]; {
				case c <= ' ' || c >= 0x7f || c == '"':
					return nil, unsupported("ALPN identifier " + strconv.Quote(id) + " needs escaping, which PowerDNS versions print differently")
				case c == '(' || c == ')' || c == ';':
					// Zone-file syntax, which every PowerDNS version refuses
					// in the unquoted form it prints alpn in.
					return nil, unsupported("ALPN identifier " + strconv.Quote(id) + " holds a character PowerDNS refuses there")
				}
			}
		}
		dst = append(dst, value...)
	case svcPort:
		var p *contentProblem
		if dst, _, p = appendUint(dst, value, 16, "port"); p != nil {
			return nil, p
		}
	case svcIPv4Hint, svcIPv6Hint:
		for i, a := range strings.Split(value, ",") {
			ip, err := netip.ParseAddr(a)
			if err != nil || ip.Zone() != "" || ip.Is4() != (key == svcIPv4Hint) {
				return nil, invalid(svcKeyNames[key] + " " + strconv.Quote(a) + " is not an address of its family")
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if ip.Is4() {
				dst = ip.AppendTo(dst)
			} else {
				dst = appendIPv6Dotted(dst, ip)
			}
		}
	case svcECH:
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil || len(raw) == 0 {
			return nil, invalid("ech is not base64")
		}
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, raw)
		dst = append(dst, '"')
	}
	return dst, nil
}
