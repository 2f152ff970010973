package rrset

// Zone is a zone name parsed once, for building many RRsets of one zone:
// New, NewLive and CanonicalName parse their zone argument on every call, a
// Zone's methods do not. The zero Zone is not a zone; make one with
// ParseZone.
type Zone struct{ z zoneName }

// ParseZone parses zone as CanonicalZone does, with the same errors.
func ParseZone(zone string) (Zone, error) {
	z, err := parseZone(zone)
	if err != nil {
		return Zone{}, err
	}
	return Zone{z: z}, nil
}

// String returns the zone's canonical name, e.g. "example.com.".
func (z Zone) String() string { return z.z.text }

// CanonicalName is CanonicalName of the zone.
func (z Zone) CanonicalName(name string) (string, error) {
	if z.z.text == "" {
		return "", &NameError{Name: name, Reason: ReasonInvalidZone, Detail: "a Zone made without ParseZone"}
	}
	return z.z.canonical(name)
}

// New is New in the zone.
func (z Zone) New(name, typ string, ttl uint32, contents ...string) (RRset, error) {
	if z.z.text == "" {
		return RRset{}, &NameError{Name: name, Reason: ReasonInvalidZone, Detail: "a Zone made without ParseZone"}
	}
	return z.z.build(name, typ, ttl, contents, true)
}

// NewLive is NewLive in the zone.
func (z Zone) NewLive(name, typ string, ttl uint32, contents ...string) (RRset, error) {
	if z.z.text == "" {
		return RRset{}, &NameError{Name: name, Reason: ReasonInvalidZone, Detail: "a Zone made without ParseZone"}
	}
	return z.z.build(name, typ, ttl, contents, false)
}
