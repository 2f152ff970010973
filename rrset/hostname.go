package rrset

import "errors"

// ErrOutOfZone matches, with errors.Is, a *NameError whose Reason is
// ReasonOutOfZone: a name that is neither the zone's apex nor below it.
var ErrOutOfZone = errors.New("rrset: name not in zone")

// Is reports whether target is ErrOutOfZone and e is an out-of-zone name,
// so that errors.Is(err, ErrOutOfZone) works on wrapped errors.
func (e *NameError) Is(target error) bool {
	return target == ErrOutOfZone && e.Reason == ReasonOutOfZone
}

// Hostname returns the canonical spelling of a hostname as Kubernetes
// objects spell it, absolute whether or not it ends in a dot.
//
// Gateway listeners, HTTPRoute hostnames and DNSEndpoint names spell them
// so. In zone example.com, "api.example.com" is api.example.com., and "api"
// and "other.example.org" are names outside the zone, not names relative to
// it. A hostname at the zone's apex or below it gets exactly the spelling
// CanonicalName gives it (lower case, internationalised labels as A-labels,
// "*" wildcards kept). It is idempotent.
//
// Use Hostname for names that come from such objects, and CanonicalName for
// names in zone-file form, where "api" means api.example.com. The package
// documentation compares the two side by side. In the root zone "." every
// name is in the zone: Hostname(".", host) is CanonicalHostname(host).
//
// It refuses, with a *NameError: a hostname outside the zone
// (ReasonOutOfZone; errors.Is(err, ErrOutOfZone) holds), "." included; an
// empty hostname (ReasonEmptyName); "@", which stands for the apex only in
// zone-file spellings (ReasonInvalidCharacter: a hostname names the apex in
// full); and every name CanonicalName refuses as malformed (an empty label,
// a label over 63 octets, a name over 255, a space or control character,
// an invalid escape or internationalised label, an invalid zone).
func Hostname(zone, host string) (string, error) {
	z, err := parseZone(zone)
	if err != nil {
		return "", &NameError{Zone: zone, Name: host, Reason: ReasonInvalidZone, Err: err}
	}
	return z.hostname(host)
}

// CanonicalHostname returns the one spelling of a hostname given without a
// zone: absolute whether or not it ends in a dot, in lower case,
// internationalised labels as A-labels, with a final dot. It is
// Hostname(".", host): every name is in the root zone, so no name is out
// of zone and none is read as relative to anything ("api" is the
// single-label name api.). It is idempotent.
//
// Use it where a hostname must be compared, hashed or stored before its
// zone is known, such as to name the object of a hostname so that every
// spelling of it (API.Example.com, api.example.com.) names one object.
// It refuses, with a *NameError, what Hostname refuses but a name outside
// the zone: an empty hostname, "@", and malformed names.
func CanonicalHostname(host string) (string, error) {
	return Hostname(".", host)
}

// hostname implements Hostname for an already parsed zone.
func (z zoneName) hostname(host string) (string, error) {
	switch host {
	case "":
		return "", &NameError{Zone: z.given, Name: host, Reason: ReasonEmptyName}
	case "@":
		return "", &NameError{Zone: z.given, Name: host, Reason: ReasonInvalidCharacter,
			Detail: `"@" stands for the apex only in zone-file spellings; a hostname names it in full`}
	}
	if isPlainCanonical(host) {
		if !inZone(host, z.text) {
			return "", &NameError{Zone: z.given, Name: host, Reason: ReasonOutOfZone}
		}
		return host, nil
	}
	var buf [2*maxNameLen + 2]byte
	b, abs, _, p := appendName(buf[:0], host)
	if p != nil {
		return "", p.nameError(z.given, host)
	}
	if !abs || len(b) > 0 {
		b = append(b, '.')
	}
	if !inZone(b, z.text) {
		return "", &NameError{Zone: z.given, Name: host, Reason: ReasonOutOfZone}
	}
	// Written absolute, the name reads the same to CanonicalName, which
	// gives it its one spelling (and checks its length).
	c, err := z.canonical(string(b))
	if err != nil {
		var ne *NameError
		if errors.As(err, &ne) {
			ne.Name = host
		}
		return "", err
	}
	return c, nil
}
