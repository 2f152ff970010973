package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

func TestBatches(t *testing.T) {
	sized := func(sizes ...int) []unit {
		out := make([]unit, len(sizes))
		for i, s := range sizes {
			out[i] = unit{name: string(rune('a' + i)), size: s}
		}
		return out
	}
	names := func(bs [][]unit) []string {
		var out []string
		for _, b := range bs {
			var n strings.Builder
			for _, u := range b {
				n.WriteString(u.name)
			}
			out = append(out, n.String())
		}
		return out
	}
	cases := []struct {
		name  string
		units []unit
		limit int
		want  []string
	}{
		{"nothing", nil, 1000, nil},
		{"one PATCH when it fits", sized(100, 100, 100), 1000, []string{"abc"}},
		{"split in order when it does not", sized(400, 400, 400), 1000, []string{"ab", "c"}},
		{"envelope and commas count", sized(492, 492), 1000, []string{"ab"}},
		{"one byte more splits", sized(493, 492), 1000, []string{"a", "b"}},
		{"a unit larger than the limit goes alone", sized(100, 2000, 100), 1000, []string{"a", "b", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, names(batches(c.units, c.limit)))
		})
	}
}

// golden reads a PowerDNS answer recorded from a real server by
// `make testdata`.
func golden(t *testing.T, version, name string) (int, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pdns", version, name+".json"))
	require.NoError(t, err)
	var g struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	require.NoError(t, json.Unmarshal(b, &g))
	return g.Status, []byte(g.Body)
}

// TestSendBatchIsolates: PowerDNS refuses a whole PATCH for one RRset; the
// RRsets its problems name are set aside and the rest sent again, and a
// refusal that names nothing is bisected. The refusals are the answers real
// servers gave (testdata/pdns), replayed for the PATCHes that hold the
// RRset they were about.
func TestSendBatchIsolates(t *testing.T) {
	const zone = "golden.example."
	change := func(name, typ string) rrset.Change {
		rr := rrset.RRset{Name: name + "." + zone, Type: typ, TTL: 300, Records: []string{"192.0.2.1"}}
		return rrset.Change{Op: rrset.OpCreate, New: &rr}
	}
	entry := func(c rrset.Change) powerdns.RRset { return patchEntry(c, nil, true) }
	for _, version := range []string{"4.7", "4.9", "5.1"} {
		t.Run(version, func(t *testing.T) {
			status, body := golden(t, version, "cname-over-a")
			refusing := func(names ...string) (func(context.Context, []powerdns.RRset) error, *int) {
				sent := 0
				return func(_ context.Context, rrs []powerdns.RRset) error {
					sent++
					for _, rr := range rrs {
						for _, n := range names {
							if *rr.Name == n+"."+zone {
								return pdnserrors.Parse(status, body)
							}
						}
					}
					return nil
				}, &sent
			}
			us := units([]rrset.Change{change("a", "A"), change("v4", "CNAME"), change("z", "A")}, entry)

			send, sent := refusing("v4")
			var out outcome
			require.NoError(t, sendBatch(context.Background(), us, send, &out))
			assert.Len(t, out.applied, 2)
			require.Len(t, out.refused, 1)
			assert.Equal(t, "v4."+zone, out.refused[0].unit.name)
			assert.Equal(t, pdnserrors.Conflict, out.refused[0].problems[0].Reason)
			assert.Equal(t, 2, *sent, "the refused RRset is named: one PATCH again without it")

			// A refusal that names an RRset of no unit is bisected down to
			// the unit that draws it.
			send, sent = refusing("v4")
			renamed := units([]rrset.Change{change("a", "A"), change("b", "A"), change("c", "A"), change("v4", "CNAME")}, entry)
			renamed[3].name = "elsewhere." + zone
			out = outcome{}
			require.NoError(t, sendBatch(context.Background(), renamed, send, &out))
			assert.Len(t, out.applied, 3)
			require.Len(t, out.refused, 1)
			assert.Equal(t, "elsewhere."+zone, out.refused[0].unit.name)
			assert.Greater(t, *sent, 2, "bisected")
		})
	}
	t.Run("a failure that is no refusal ends the batch", func(t *testing.T) {
		boom := errors.New("connection reset")
		var out outcome
		err := sendBatch(context.Background(), units([]rrset.Change{change("a", "A")}, entry),
			func(context.Context, []powerdns.RRset) error { return boom }, &out)
		assert.ErrorIs(t, err, boom)
		assert.Empty(t, out.applied)
	})
}

// TestUnitsPutDeletesFirst: within a name, deletes come first, as PowerDNS
// needs to replace an A with a CNAME.
func TestUnitsPutDeletesFirst(t *testing.T) {
	a := rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}
	cname := rrset.RRset{Name: "www." + testZone, Type: "CNAME", TTL: 300, Records: []string{testZone}, ManagedBy: "me", Owner: "ns/www"}
	us := units([]rrset.Change{{Op: rrset.OpCreate, New: &cname}, {Op: rrset.OpDelete, Old: &a}},
		func(c rrset.Change) powerdns.RRset { return patchEntry(c, nil, true) })
	require.Len(t, us, 1)
	b := body(us)
	require.Len(t, b, 2)
	assert.Equal(t, powerdns.ChangeTypeDelete, *b[0].ChangeType)
	assert.Equal(t, powerdns.ChangeTypeReplace, *b[1].ChangeType)
	require.Len(t, b[1].Comments, 1)
	assert.Equal(t, "managed-by=me\nowner=ns/www", *b[1].Comments[0].Content)
	enc, err := json.Marshal(b[1])
	require.NoError(t, err)
	assert.Equal(t, len(enc), us[0].size-patchEntrySize(b[0]))
}

// TestPatchEntryComments: a write sends the other clients' comments as they
// were, the ownership record and the RRset's note, each under its account;
// without comments (the metadata store) none of them.
func TestPatchEntryComments(t *testing.T) {
	foreign := []powerdns.Comment{{Content: powerdns.String("keep me"), Account: powerdns.String("ops"), ModifiedAt: powerdns.Uint64(7)}}
	tests := []struct {
		name, note string
		comments   bool
		want       []string // account: content
	}{
		{"no note", "", true, []string{"ops: keep me", commentAccount + ": managed-by=me\nowner=ns/www"}},
		{"a note", "moved, ticket 42", true,
			[]string{"ops: keep me", commentAccount + ": managed-by=me\nowner=ns/www", noteAccount + ": moved, ticket 42"}},
		{"metadata store", "moved", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
				ManagedBy: "me", Owner: "ns/www", Comment: tc.note}
			e := patchEntry(rrset.Change{Op: rrset.OpUpdate, Old: &a, New: &a}, foreign, tc.comments)
			var got []string
			for _, c := range e.Comments {
				got = append(got, *c.Account+": "+*c.Content)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDropAccounts: a write that replaces a tool drops the comments of the
// accounts named, every one of them, and keeps every other comment as it
// was, in order; naming none keeps them all.
func TestDropAccounts(t *testing.T) {
	comment := func(account, content string) powerdns.Comment {
		return powerdns.Comment{Account: powerdns.String(account), Content: powerdns.String(content)}
	}
	foreign := []powerdns.Comment{
		comment("powerdns-operator", "managed by powerdns-operator"),
		comment("ops", "keep me"),
		comment("powerdns-operator", "a second one"),
		comment("", "no account"),
		comment("PowerDNS-Operator", "another spelling is another account"),
		{Content: powerdns.String("nil account")},
		comment("old-tool", "x"),
	}
	tests := []struct {
		name     string
		accounts []string
		want     []string
	}{
		{"none named", nil, []string{"powerdns-operator", "ops", "powerdns-operator", "", "PowerDNS-Operator", "<nil>", "old-tool"}},
		{"one tool", []string{"powerdns-operator"}, []string{"ops", "", "PowerDNS-Operator", "<nil>", "old-tool"}},
		{"two tools", []string{"old-tool", "powerdns-operator"}, []string{"ops", "", "PowerDNS-Operator", "<nil>"}},
		{"an account with no comment", []string{"nobody"}, []string{"powerdns-operator", "ops", "powerdns-operator", "", "PowerDNS-Operator", "<nil>", "old-tool"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range dropAccounts(slices.Clone(foreign), tc.accounts) {
				if c.Account == nil {
					got = append(got, "<nil>")
					continue
				}
				got = append(got, *c.Account)
			}
			assert.Equal(t, tc.want, got)
		})
	}
	a := rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, ManagedBy: "me"}
	e := patchEntry(rrset.Change{Op: rrset.OpUpdate, Old: &rrset.RRset{Name: a.Name, Type: "A", TTL: 300, Records: a.Records}, New: &a},
		dropAccounts(foreign[:2], []string{"powerdns-operator"}), true)
	var got []string
	for _, c := range e.Comments {
		got = append(got, *c.Account+": "+*c.Content)
	}
	assert.Equal(t, []string{"ops: keep me", commentAccount + ": managed-by=me"}, got, "an adoption: the old tool's note replaced by ours")
}
