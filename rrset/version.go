package rrset

import (
	"strconv"
	"strings"
)

// VersionError reports an RRset that New accepts, and some supported
// PowerDNS versions store unchanged, but that the version a caller talks to
// refuses. CheckVersion returns it. Either Since or Until is set: the
// refusal is of the versions before Since, or of Until and later ones.
type VersionError struct {
	// Name and Type identify the RRset; Content is the refused content,
	// empty for a delete (an RRset without records).
	Name, Type, Content string
	// Version is the server's version, as given to CheckVersion.
	Version string
	// Since is the first version that stores the content, e.g. "5.1";
	// empty when the versions before Until store it.
	Since string
	// Until is the first version that refuses what earlier versions
	// store, e.g. "5.1"; empty when Since is set.
	Until string
	// Detail says what that version does with it.
	Detail string
}

func (e *VersionError) Error() string {
	msg, verb := "rrset: "+e.Name+" "+e.Type, "store"
	if e.Content != "" {
		msg += " " + strconv.Quote(e.Content)
	} else {
		verb = "delete" // a delete sends no content
	}
	msg += ": PowerDNS " + e.Version + " " + e.Detail
	switch {
	case e.Since != "":
		msg += "; PowerDNS " + e.Since + " and later " + verb + " it"
	case e.Until != "":
		msg += "; PowerDNS before " + e.Until + " " + verb + "s it"
	}
	return msg
}

// CheckVersion returns a *VersionError for the first content of rr that
// the PowerDNS server of the given version (as the server reports it, e.g.
// "4.9.18") refuses or would alter, and nil when that version stores rr
// unchanged, or when version is not a version at all. rr is expected from
// New. Measured on 4.7, 4.9 and 5.1:
//
//   - RFC 3597 data of length 0 ("\# 0"): 4.x refuses it, since it prints
//     it as "\# 0 " (with a trailing blank) and compares; 5.1 stores it.
//   - LOC positions that 4.x, computing in floating point, prints otherwise
//     than 5.0 and later: nearly half the positions on a whole minute
//     (1 1 0.000 N is printed 1 0 60.000 N), the equator (S) and the prime
//     meridian (W). 4.x refuses them written as New gives them.
//   - LUA records: 5.1 refuses to write or delete them through its API
//     unless the server runs with enable-lua-record-updates, which is off
//     by default (5.1.5 answers a PATCH that deletes a LUA RRset with 422
//     "Update of Lua records is not allowed"); 4.7 to 5.0 store and delete
//     them. CheckVersion cannot see the setting and refuses LUA from 5.1
//     on.
//
// An RRset without records stands for its delete, which CheckVersion
// refuses only for LUA: the other refusals are of contents, which a delete
// does not send.
//
// A reconciler that knows the server's version calls it before it writes
// or deletes, so that the refusal names the version rather than arriving
// as a 422.
func CheckVersion(rr RRset, version string) error {
	major, minor, ok := parseVersion(version)
	if !ok {
		return nil
	}
	if rr.Type == "LUA" && (major > 5 || (major == 5 && minor >= 1)) {
		if len(rr.Records) == 0 {
			return &VersionError{Name: rr.Name, Type: rr.Type, Version: version, Until: "5.1",
				Detail: "refuses to delete LUA records through its API unless enable-lua-record-updates is set"}
		}
		return &VersionError{Name: rr.Name, Type: rr.Type, Content: rr.Records[0], Version: version, Until: "5.1",
			Detail: "refuses LUA records through its API unless enable-lua-record-updates is set"}
	}
	if rr.Type == "LOC" && major < 5 {
		for _, c := range rr.Records {
			if old, differs := locBefore51(c); differs {
				return &VersionError{Name: rr.Name, Type: rr.Type, Content: c, Version: version, Since: "5.0",
					Detail: "prints this position as " + strconv.Quote(old) + ", and refuses it written otherwise"}
			}
		}
	}
	if _, generic := genericType(rr.Type); generic && (major < 5 || (major == 5 && minor < 1)) {
		for _, c := range rr.Records {
			if c == `\# 0` {
				return &VersionError{Name: rr.Name, Type: rr.Type, Content: c, Version: version, Since: "5.1",
					Detail: "refuses RFC 3597 data of length 0 (it prints it back with a trailing blank)"}
			}
		}
	}
	return nil
}

// parseVersion reads the major and minor numbers of a version such as
// "4.9.18" or "5.1.0-beta1".
func parseVersion(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, false
	}
	digits := parts[1]
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			digits = digits[:i]
			break
		}
	}
	minor, err = strconv.Atoi(digits)
	if err != nil {
		return 0, 0, false
	}
	return major, minor, true
}
