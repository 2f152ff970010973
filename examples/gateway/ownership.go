package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/rrset"
)

// How package reconcile records who owns an RRset, read back here without
// it: an RRset comment where the backend keeps comments, and zone metadata
// where it does not (LMDB before PowerDNS 5.1).
const (
	ownerCommentAccount = "pdnskit/reconcile"
	ownerCommentPrefix  = "managed-by="
	// Each writer has a kind X-PDNSKIT-OWNER-<hash>, holding "writer
	// <name>" and one "claim <name> <type> <unix seconds>" per RRset; the
	// earliest claim wins.
	ownerKindPrefix = "X-PDNSKIT-OWNER-"
)

// owners maps each RRset of a zone to its writer.
type owners struct {
	byKey map[rrset.Key]string
	// store says where ownership was found, for the table's caption.
	store string
}

func readOwners(ctx context.Context, admin *powerdns.Client, zone string, sets []powerdns.RRset) (owners, error) {
	o := owners{byKey: make(map[rrset.Key]string)}
	for _, rr := range sets {
		for _, c := range rr.Comments {
			if c.Account != nil && *c.Account == ownerCommentAccount && c.Content != nil &&
				strings.HasPrefix(*c.Content, ownerCommentPrefix) {
				o.byKey[key(rr)] = strings.TrimPrefix(*c.Content, ownerCommentPrefix)
				o.store = "RRset comments"
			}
		}
	}
	md, err := admin.Metadata.List(ctx, zone)
	if err != nil {
		return o, err
	}
	type claim struct {
		writer string
		since  int64
	}
	claims := make(map[rrset.Key]claim)
	for _, m := range md {
		if m.Kind == nil || !strings.HasPrefix(string(*m.Kind), ownerKindPrefix) {
			continue
		}
		writer := ""
		for _, v := range m.Metadata {
			if w, ok := strings.CutPrefix(v, "writer "); ok {
				writer = w
			}
		}
		for _, v := range m.Metadata {
			f := strings.Fields(strings.TrimPrefix(v, "claim "))
			if !strings.HasPrefix(v, "claim ") || len(f) != 3 || writer == "" {
				continue
			}
			since, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				continue
			}
			k := rrset.Key{Name: strings.ToLower(f[0]), Type: strings.ToUpper(f[1])}
			if cur, ok := claims[k]; !ok || since < cur.since || (since == cur.since && writer < cur.writer) {
				claims[k] = claim{writer, since}
			}
		}
	}
	for k, c := range claims {
		if _, ok := o.byKey[k]; !ok {
			o.byKey[k] = c.writer
			o.store = "zone metadata"
		}
	}
	return o, nil
}

func key(rr powerdns.RRset) rrset.Key {
	var k rrset.Key
	if rr.Name != nil {
		k.Name = strings.ToLower(*rr.Name)
	}
	if rr.Type != nil {
		k.Type = string(*rr.Type)
	}
	return k
}
