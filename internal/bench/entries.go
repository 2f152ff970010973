package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/joeig/go-powerdns/v3"
)

// Entry is the PATCH entry that writes s as Writer: every record enabled,
// and owner, the ownership comment the reconciler records (read back from
// the server, see Ownership), so that all writers leave the same zone.
func Entry(s Spec, owner []powerdns.Comment) powerdns.RRset {
	rr := powerdns.RRset{
		Name:       powerdns.String(s.FQDN()),
		Type:       powerdns.RRTypePtr(powerdns.RRType(s.Type)),
		TTL:        powerdns.Uint32(s.TTL),
		ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
		Records:    make([]powerdns.Record, len(s.Records)),
		Comments:   slices.Clone(owner),
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
func ChangeEntry(c Change, owner []powerdns.Comment) powerdns.RRset {
	if c.Delete {
		return DeleteEntry(c.Spec)
	}
	return Entry(c.Spec, owner)
}

// Body encodes changes as one PATCH body, deletes first, exactly as
// go-powerdns encodes a body (json.Encoder, newline included). Nil when
// there is nothing to change.
func Body(changes []Change, owner []powerdns.Comment) ([]byte, error) {
	if len(changes) == 0 {
		return nil, nil
	}
	sets := make([]powerdns.RRset, 0, len(changes))
	for _, del := range []bool{true, false} {
		for _, c := range changes {
			if c.Delete == del {
				sets = append(sets, ChangeEntry(c, owner))
			}
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(powerdns.RRsets{Sets: sets}); err != nil {
		return nil, fmt.Errorf("encode PATCH body: %w", err)
	}
	return buf.Bytes(), nil
}
