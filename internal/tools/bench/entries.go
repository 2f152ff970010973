package bench

import (
	"slices"

	"github.com/joeig/go-powerdns/v3"
)

// Entry is the PATCH entry that writes s as Writer: every record enabled,
// and comments, the ownership comments the reconciler records (none where
// ownership is not kept in comments), so that all writers leave the same
// zone.
func Entry(s Spec, comments []powerdns.Comment) powerdns.RRset {
	rr := powerdns.RRset{
		Name:       powerdns.String(s.FQDN()),
		Type:       powerdns.RRTypePtr(powerdns.RRType(s.Type)),
		TTL:        powerdns.Uint32(s.TTL),
		ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
		Records:    make([]powerdns.Record, len(s.Records)),
		Comments:   slices.Clone(comments),
	}
	for i, content := range s.Records {
		rr.Records[i] = powerdns.Record{Content: powerdns.String(content), Disabled: powerdns.Bool(false)}
	}
	return rr
}

// DeleteEntry is the PATCH entry that deletes s.
func DeleteEntry(s Spec) powerdns.RRset {
	return powerdns.RRset{
		Name:       powerdns.String(s.FQDN()),
		Type:       powerdns.RRTypePtr(powerdns.RRType(s.Type)),
		ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeDelete),
	}
}

// ChangeEntry is Entry or DeleteEntry, as c says.
func ChangeEntry(c Change, comments []powerdns.Comment) powerdns.RRset {
	if c.Delete {
		return DeleteEntry(c.Spec)
	}
	return Entry(c.Spec, comments)
}
