package reconcile

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

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
			assert.Equal(t, map[bool]string{true: "True", false: "False"}[c.progd], got.Status(),
				"metav1.ConditionStatus's spelling")
		})
	}
	failed := ConditionFor(Result{}, errors.New("read zone: connection refused"))
	assert.Equal(t, Condition{Reason: ReasonPDNSError, Message: "read zone: connection refused"}, failed)
}

func TestSummariseCaps(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	got := summarise(items, func(i int) string { return strings.Repeat("x", i) })
	assert.Equal(t, "x; xx; xxx; and 2 more", got)
}
