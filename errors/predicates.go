package errors

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
)

// AsAPIError finds the first *APIError in err's chain. It supports wrapped
// errors and returns false for nil.
func AsAPIError(err error) (*APIError, bool) {
	if err == nil {
		return nil, false
	}
	var e *APIError
	if errors.As(err, &e) && e != nil {
		return e, true
	}
	return nil, false
}

// ReasonOf returns the reason of the *APIError in err's chain (see
// APIError.Reason), Unknown for any other error, and "" for nil. It supports
// wrapped errors.
func ReasonOf(err error) Reason {
	if err == nil {
		return ""
	}
	if e, ok := AsAPIError(err); ok {
		return e.Reason()
	}
	return Unknown
}

// HasReason reports whether any problem of the *APIError in err's chain has
// reason r. It supports wrapped errors and returns false for nil. Every Is…
// predicate of the package is HasReason with its reason.
func HasReason(err error, r Reason) bool {
	e, ok := AsAPIError(err)
	return ok && e.Has(r)
}

// IsConflict reports whether PowerDNS refused a write because of data of
// another type at the same name. That is a CNAME next to anything, in any
// problem of either body shape. It supports wrapped errors and returns
// false for nil.
func IsConflict(err error) bool { return HasReason(err, Conflict) }

// IsDuplicateRecord reports whether an RRset held the same content twice. It
// supports wrapped errors and returns false for nil.
func IsDuplicateRecord(err error) bool { return HasReason(err, DuplicateRecord) }

// IsSingleRecordType reports whether a CNAME, DNAME or SOA RRset held more
// than one record. It supports wrapped errors and returns false for nil.
func IsSingleRecordType(err error) bool { return HasReason(err, SingleRecordType) }

// IsDuplicateRRset reports whether one name and type appeared twice in a
// PATCH. It supports wrapped errors and returns false for nil.
func IsDuplicateRRset(err error) bool { return HasReason(err, DuplicateRRset) }

// IsInvalidContent reports whether a record content was refused. It supports
// wrapped errors and returns false for nil.
func IsInvalidContent(err error) bool { return HasReason(err, InvalidContent) }

// IsInvalidName reports whether an owner name or nameserver was refused. It
// supports wrapped errors and returns false for nil.
func IsInvalidName(err error) bool { return HasReason(err, InvalidName) }

// IsOutOfZone reports whether a name lay outside the zone. It supports
// wrapped errors and returns false for nil.
func IsOutOfZone(err error) bool { return HasReason(err, OutOfZone) }

// IsPlacement reports whether a type was placed where it may not be (SOA off
// the apex, DS at the apex, NS with DNAME below it). It supports wrapped
// errors and returns false for nil.
func IsPlacement(err error) bool { return HasReason(err, Placement) }

// IsUnknownType reports whether a record type was unknown or not storable.
// It supports wrapped errors and returns false for nil.
func IsUnknownType(err error) bool { return HasReason(err, UnknownType) }

// IsInvalidRequest reports whether the request itself was wrong or
// unsupported (a 400, a bad changetype or key, a backend that cannot store
// comments). It supports wrapped errors and returns false for nil.
func IsInvalidRequest(err error) bool { return HasReason(err, InvalidRequest) }

// IsUnauthorized reports a 401 or 403: a missing or wrong API key. It
// supports wrapped errors and returns false for nil.
func IsUnauthorized(err error) bool { return HasReason(err, Unauthorized) }

// IsZoneNotFound reports a 404: the zone (or server id) does not exist. It
// supports wrapped errors and returns false for nil.
func IsZoneNotFound(err error) bool { return HasReason(err, ZoneNotFound) }

// IsZoneExists reports a 409: the zone being created exists already. It
// supports wrapped errors and returns false for nil.
func IsZoneExists(err error) bool { return HasReason(err, ZoneExists) }

// IsServerError reports a 5xx answer. It supports wrapped errors and returns
// false for nil.
func IsServerError(err error) bool { return HasReason(err, ServerError) }

// IsRetryable reports whether trying the same request again may succeed.
// It does for a 5xx answer, a timeout, or a failure to reach the server or
// to read its answer (refused or reset connections, DNS failures, a body
// cut short).
// It is false for every 4xx answer, whatever its reason: a refusal stays a
// refusal. It supports wrapped errors and returns false for nil.
//
// context.Canceled is not retryable, even next to a 5xx answer in one chain:
// someone gave up on the request.
// context.DeadlineExceeded is: it is a timeout of this attempt (an
// http.Client.Timeout or a per-attempt deadline), and a retry loop stops on
// its own context's expiry anyway. Failed TLS certificate checks are not
// retryable: they are configuration, not weather.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if e, ok := AsAPIError(err); ok {
		return e.StatusCode >= 500 && e.StatusCode <= 599
	}
	if isCertificateError(err) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	// net/http wraps every failure of a round trip in a *url.Error; those
	// that are not one of the above are still failures to talk to the
	// server (a malformed answer, a closed connection, an HTTP/2 reset).
	var urlErr *url.Error
	return errors.As(err, &urlErr)
}

func isCertificateError(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		invalid          x509.CertificateInvalidError
		hostname         x509.HostnameError
		verification     *tls.CertificateVerificationError
	)
	return errors.As(err, &unknownAuthority) ||
		errors.As(err, &invalid) ||
		errors.As(err, &hostname) ||
		errors.As(err, &verification)
}
