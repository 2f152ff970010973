package errors_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// wrap2 wraps err twice, the way a caller two layers up would.
func wrap2(err error) error {
	return fmt.Errorf("sync zone example.com.: %w", fmt.Errorf("patch zone: %w", err))
}

func TestPredicates(t *testing.T) {
	type predicate struct {
		name string
		fn   func(error) bool
	}
	predicates := map[pdnserrors.Reason]predicate{
		pdnserrors.Conflict:         {"IsConflict", pdnserrors.IsConflict},
		pdnserrors.DuplicateRecord:  {"IsDuplicateRecord", pdnserrors.IsDuplicateRecord},
		pdnserrors.SingleRecordType: {"IsSingleRecordType", pdnserrors.IsSingleRecordType},
		pdnserrors.DuplicateRRset:   {"IsDuplicateRRset", pdnserrors.IsDuplicateRRset},
		pdnserrors.InvalidContent:   {"IsInvalidContent", pdnserrors.IsInvalidContent},
		pdnserrors.InvalidName:      {"IsInvalidName", pdnserrors.IsInvalidName},
		pdnserrors.OutOfZone:        {"IsOutOfZone", pdnserrors.IsOutOfZone},
		pdnserrors.Placement:        {"IsPlacement", pdnserrors.IsPlacement},
		pdnserrors.UnknownType:      {"IsUnknownType", pdnserrors.IsUnknownType},
		pdnserrors.InvalidRequest:   {"IsInvalidRequest", pdnserrors.IsInvalidRequest},
		pdnserrors.Unauthorized:     {"IsUnauthorized", pdnserrors.IsUnauthorized},
		pdnserrors.ZoneNotFound:     {"IsZoneNotFound", pdnserrors.IsZoneNotFound},
		pdnserrors.ZoneExists:       {"IsZoneExists", pdnserrors.IsZoneExists},
		pdnserrors.ServerError:      {"IsServerError", pdnserrors.IsServerError},
	}
	answers := map[pdnserrors.Reason]*pdnserrors.APIError{
		pdnserrors.Conflict:         pdnserrors.Parse(422, []byte(`{"error": "RRset v4.x. IN CNAME: Conflicts with pre-existing RRset"}`)),
		pdnserrors.DuplicateRecord:  pdnserrors.Parse(422, []byte(`{"error": "Duplicate record in RRset d.x. IN A with content \"192.0.2.1\""}`)),
		pdnserrors.SingleRecordType: pdnserrors.Parse(422, []byte(`{"error": "RRset e.x. IN CNAME: only one such record allowed"}`)),
		pdnserrors.DuplicateRRset:   pdnserrors.Parse(422, []byte(`{"error": "Duplicate RRset a.x. IN A with changetype: REPLACE"}`)),
		pdnserrors.InvalidContent:   pdnserrors.Parse(422, []byte(`{"error": "Record m.x./MX '10 mail.x': Not in expected format (parsed as '10 mail.x.')"}`)),
		pdnserrors.InvalidName:      pdnserrors.Parse(422, []byte(`{"error": "DNS Name 'api' is not canonical"}`)),
		pdnserrors.OutOfZone:        pdnserrors.Parse(422, []byte(`{"error": "RRset a.y. IN A: Name is out of zone"}`)),
		pdnserrors.Placement:        pdnserrors.Parse(422, []byte(`{"error": "Record x. IN DS is not allowed at apex"}`)),
		pdnserrors.UnknownType:      pdnserrors.Parse(422, []byte(`{"error": "RRset u.x. IN FOO: unknown type given"}`)),
		pdnserrors.InvalidRequest:   pdnserrors.Parse(422, []byte(`{"error": "Hosting backend does not support editing comments."}`)),
		pdnserrors.Unauthorized:     pdnserrors.Parse(401, []byte("Unauthorized")),
		pdnserrors.ZoneNotFound:     pdnserrors.Parse(404, []byte("Not Found")),
		pdnserrors.ZoneExists:       pdnserrors.Parse(409, []byte(`{"error": "Conflict"}`)),
		pdnserrors.ServerError:      pdnserrors.Parse(500, []byte("Internal Server Error")),
	}
	plain := errors.New("connection refused")

	for reason, answer := range answers {
		for _, form := range []struct {
			name string
			err  error
		}{
			{"bare", answer},
			{"wrapped", fmt.Errorf("apply: %w", answer)},
			{"doubly wrapped", wrap2(answer)},
			{"joined", errors.Join(plain, answer)},
		} {
			t.Run(string(reason)+"/"+form.name, func(t *testing.T) {
				assert.Equal(t, reason, pdnserrors.ReasonOf(form.err))
				for r, pred := range predicates {
					assert.Equal(t, r == reason, pred.fn(form.err), pred.name)
				}
				got, ok := pdnserrors.AsAPIError(form.err)
				assert.True(t, ok)
				assert.Same(t, answer, got)
			})
		}
	}

	for _, neg := range []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"plain", plain},
		{"wrapped plain", wrap2(plain)},
		{"typed nil", (*pdnserrors.APIError)(nil)},
		{"wrapped typed nil", fmt.Errorf("x: %w", (*pdnserrors.APIError)(nil))},
	} {
		t.Run("negative/"+neg.name, func(t *testing.T) {
			for _, pred := range predicates {
				assert.False(t, pred.fn(neg.err), pred.name)
			}
			_, ok := pdnserrors.AsAPIError(neg.err)
			assert.False(t, ok)
		})
	}
	assert.Equal(t, pdnserrors.Reason(""), pdnserrors.ReasonOf(nil))
	assert.Equal(t, pdnserrors.Unknown, pdnserrors.ReasonOf(wrap2(plain)))
}

// certError stands for a failed certificate check as crypto/tls reports it.
var certError = x509.UnknownAuthorityError{}

// timeoutError is what a deadline on a connection reports.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestIsRetryable(t *testing.T) {
	urlErr := func(err error) error {
		return &url.Error{Op: "Patch", URL: "http://127.0.0.1:8081/api/v1/servers/localhost/zones/x.", Err: err}
	}
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"500", pdnserrors.Parse(500, nil), true},
		{"502 html", pdnserrors.Parse(502, []byte("<html><title>502 Bad Gateway</title></html>")), true},
		{"503 wrapped", wrap2(pdnserrors.Parse(503, nil)), true},
		{"422 conflict", pdnserrors.Parse(422, []byte(`{"error": "RRset a.x. IN CNAME: Conflicts with pre-existing RRset"}`)), false},
		{"422 multi conflict wrapped", wrap2(pdnserrors.Parse(422, []byte(`{"error": "Multiple errors found in RRset", "errors": ["RRset a.x. IN CNAME: conflicts with existing A RRset of the same name", "RRset b.x. IN CNAME: only one such record allowed"]}`))), false},
		{"400", pdnserrors.Parse(400, []byte("Bad Request")), false},
		{"401", pdnserrors.Parse(401, nil), false},
		{"404", pdnserrors.Parse(404, nil), false},
		{"409", pdnserrors.Parse(409, nil), false},
		{"429", pdnserrors.Parse(429, nil), false},
		{"4xx answer cut short", pdnserrors.FromResponse(422, nil, io.ErrUnexpectedEOF), false},
		{"write redirected", pdnserrors.FromResponse(301, []byte("redirect"), urlErr(errors.New("redirect"))), false},
		{"connection refused", urlErr(opErr), true},
		{"connection refused bare", opErr, true},
		{"dns failure", urlErr(&net.DNSError{Err: "no such host", Name: "pdns", IsNotFound: true}), true},
		{"reset", urlErr(syscall.ECONNRESET), true},
		{"reset in op", urlErr(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true},
		{"eof", urlErr(io.EOF), true},
		{"unexpected eof", fmt.Errorf("decode zone: %w", io.ErrUnexpectedEOF), true},
		{"timeout", urlErr(timeoutError{}), true},
		{"client timeout", urlErr(fmt.Errorf("%w (Client.Timeout exceeded while awaiting headers)", context.DeadlineExceeded)), true},
		{"deadline", context.DeadlineExceeded, true},
		{"wrapped deadline", wrap2(context.DeadlineExceeded), true},
		{"canceled", context.Canceled, false},
		{"canceled in url error", urlErr(context.Canceled), false},
		{"canceled wrapped", wrap2(urlErr(context.Canceled)), false},
		{"certificate", urlErr(certError), false},
		{"plain", errors.New("validate rrset: bad"), false},
		{"wrapped plain", wrap2(errors.New("bad")), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, pdnserrors.IsRetryable(tc.err))
		})
	}
}

func TestFromResponseKeepsCause(t *testing.T) {
	cause := errors.New("RRset a.x. IN CNAME: Conflicts with pre-existing RRset")
	err := pdnserrors.FromResponse(422, []byte(`{"error": "RRset a.x. IN CNAME: Conflicts with pre-existing RRset"}`), cause)
	wrapped := wrap2(err)
	assert.ErrorIs(t, wrapped, cause)
	assert.True(t, pdnserrors.IsConflict(wrapped))
	assert.False(t, pdnserrors.IsRetryable(wrapped))
	assert.Equal(t, cause, errors.Unwrap(err))
	assert.Nil(t, pdnserrors.Parse(422, nil).Unwrap())
}
