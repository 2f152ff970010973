package reconcile

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// TestPatchEntrySize holds the computed size of a PATCH entry equal to what
// encoding/json (and so go-powerdns) writes, for awkward contents too.
func TestPatchEntrySize(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", ".", `"`, `\`, "<", ">", "&", "\n", "\t", "\x01", "\x7f", "é", "ü", "\u2028", "\xff", " ", "\b", "\f"}
	randomString := func() string {
		var b strings.Builder
		for range rnd.IntN(40) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 2000 {
		rr := powerdns.RRset{
			Name:       powerdns.String(randomString()),
			Type:       powerdns.RRTypePtr(powerdns.RRType(randomString())),
			ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
		}
		if i%3 != 0 {
			rr.TTL = powerdns.Uint32(rnd.Uint32())
			for range rnd.IntN(4) {
				rr.Records = append(rr.Records, powerdns.Record{Content: powerdns.String(randomString()), Disabled: powerdns.Bool(rnd.IntN(2) == 0)})
			}
			for range rnd.IntN(3) {
				rr.Comments = append(rr.Comments, powerdns.Comment{Content: powerdns.String(randomString()), Account: powerdns.String(randomString())})
			}
		}
		if i%7 == 0 {
			rr.Records = []powerdns.Record{}
		}
		b, err := json.Marshal(rr)
		require.NoError(t, err)
		require.Equal(t, len(b), patchEntrySize(rr), "%s", b)
	}
}

func TestStoreFor(t *testing.T) {
	cases := []struct {
		version, launch string
		want            OwnershipStore
	}{
		{"4.7.3", "gsqlite3", OwnershipComments},
		{"4.9.18", "lmdb", OwnershipMetadata},
		{"4.9.18", "gsqlite3,lmdb:second", OwnershipMetadata},
		{"5.0.1", "lmdb", OwnershipMetadata},
		{"5.1.5", "lmdb", OwnershipComments},
		{"5.2.0-alpha1", "lmdb", OwnershipComments},
		{"6.0.0", "lmdb", OwnershipComments},
		{"", "lmdb", OwnershipMetadata},
		{"garbage", "gpgsql", OwnershipComments},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, storeFor(c.version, c.launch), "%s %s", c.version, c.launch)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	cases := map[string][]Option{
		"no writer":                  nil,
		"control in name":            {WithManagedBy("a\nb")},
		"name not UTF-8":             {WithManagedBy("caf\xe9")},
		"writer line over the limit": {WithManagedBy(strings.Repeat("<", 200)), WithMaxPatchBytes(1024)},
		"tiny patch":                 {WithManagedBy("w"), WithMaxPatchBytes(10)},
		"zero checks":                {WithManagedBy("w"), WithDeletionGate(0, time.Minute)},
		"negative span":              {WithManagedBy("w"), WithDeletionGate(1, -time.Second)},
		"guard over 1":               {WithManagedBy("w"), WithDeleteGuard(1.5, 10)},
		"bad store":                  {WithManagedBy("w"), WithOwnershipStore(OwnershipStore(9))},
		"nil logger":                 {WithManagedBy("w"), WithLogger(nil)},
		"bad url":                    {WithManagedBy("w")},
		"key with newline":           {WithManagedBy("w"), WithAPIKey("se\ncret")},
		"allow enforced":             {WithManagedBy("w"), WithAllowed(conflict.CNAMEAndOtherData)},
		"allow ownership":            {WithManagedBy("w"), WithAllowed(conflict.NotOwner)},
		"allow unknown":              {WithManagedBy("w"), WithAllowed(conflict.Kind("Whatever"))},
		"negative resync":            {WithManagedBy("w"), WithResync(-time.Second)},
		"negative wait":              {WithManagedBy("w"), WithLockWait(-time.Second)},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			url := "http://127.0.0.1:8081"
			if name == "bad url" {
				url = "ftp://example"
			}
			r, err := New(url, opts...)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.NotContains(t, err.Error(), "se\ncret")
		})
	}
	_, err := New("http://127.0.0.1:8081")
	assert.ErrorIs(t, err, ErrNoWriter)
	_, err = New("http://127.0.0.1:8081", WithManagedBy(strings.Repeat("<", 200)), WithMaxPatchBytes(4096))
	assert.NoError(t, err, "a limit that holds the writer line")
	_, err = New("http://127.0.0.1:8081", WithManagedBy(strings.Repeat("w", 200)), WithMaxPatchBytes(1024))
	assert.NoError(t, err, "the smallest limit holds a plain writer of 200 characters")
	r, err := New("http://127.0.0.1:8081", WithManagedBy("external-dns"), nil)
	require.NoError(t, err)
	assert.Equal(t, "external-dns", r.ManagedBy())
	assert.Equal(t, "127.0.0.1:53", r.cfg.dnsAddr)
}

func TestCondition(t *testing.T) {
	rr := rrset.RRset{Name: "a.example.", Type: "A", TTL: 1, Records: []string{"192.0.2.1"}}
	change := rrset.Change{Op: rrset.OpCreate, New: &rr}
	cases := []struct {
		name   string
		res    Result
		want   ConditionReason
		progd  bool
		expect string
	}{
		{"in sync", Result{}, ReasonProgrammed, true, "in sync"},
		{"applied", Result{Applied: []rrset.Change{change}}, ReasonProgrammed, true, "1 change(s) applied"},
		{"not owner", Result{Blocked: []conflict.Conflict{{Key: rr.Key(), Kind: conflict.NotOwner, RRset: rr}}}, ReasonNotOwner, false, "a.example."},
		{"conflict wins", Result{Blocked: []conflict.Conflict{
			{Key: rr.Key(), Kind: conflict.NotOwner, RRset: rr},
			{Key: rr.Key(), Kind: conflict.CNAMEAndOtherData, RRset: rr},
		}}, ReasonConflict, false, "a.example."},
		{"the RRset alone is invalid", Result{Blocked: []conflict.Conflict{
			{Key: rr.Key(), Kind: conflict.CNAMEAndOtherData, RRset: rr},
			{Key: rr.Key(), Kind: conflict.SingleRecordType, RRset: rr},
		}}, ReasonInvalidInput, false, "a.example."},
		{"refused", Result{Refused: []Refusal{{Change: change, Problems: []pdnserrors.Problem{{Message: "boom"}}}}}, ReasonPDNSError, false, "boom"},
		{"pending", Result{Deferred: []Deferral{{RRset: rr, Reason: DeferGate}}}, ReasonPending, false, "AbsenceNotSustained"},
		{"upsert only waits for nothing", Result{Deferred: []Deferral{{RRset: rr, Reason: DeferUpsertOnly}}}, ReasonProgrammed, true, "in sync"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.res.Condition()
			assert.Equal(t, c.want, got.Reason)
			assert.Equal(t, c.progd, got.Programmed)
			assert.Contains(t, got.Message, c.expect)
		})
	}
	failed := ConditionFor(Result{}, errors.New("read zone: connection refused"))
	assert.Equal(t, Condition{Reason: ReasonPDNSError, Message: "read zone: connection refused"}, failed)
}

func TestValidOwner(t *testing.T) {
	for _, ok := range []string{"ns/name", "team=a/obj", "ünïcode/名前", strings.Repeat("x", 253)} {
		assert.Empty(t, validOwner(ok), "%q", ok)
	}
	for _, bad := range []string{
		"has space", "tab\there", "no\u00a0break", "em\u2003space", "ideographic\u3000space",
		"next\u0085line", "caf\xe9", strings.Repeat("x", 254),
	} {
		assert.NotEmpty(t, validOwner(bad), "%q", bad)
	}
}

func TestSummariseCaps(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	got := summarise(items, func(i int) string { return strings.Repeat("x", i) })
	assert.Equal(t, "x; xx; xxx; and 2 more", got)
}
