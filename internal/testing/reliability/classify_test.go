package reliability_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// errClass is how a test expects a Sync to end.
type errClass int

const (
	errNone errClass = iota
	errRetryable
	errPermanent
	errDeadline
)

func (c errClass) String() string {
	return [...]string{"no error", "retryable error", "permanent error", "context deadline"}[c]
}

// classOf says how err ended a Sync whose context is ctx: a deadline is the
// context's, not one attempt's (an http.Client.Timeout).
func classOf(ctx context.Context, err error) errClass {
	switch {
	case err == nil:
		return errNone
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return errDeadline
	case pdnserrors.IsRetryable(err):
		return errRetryable
	default:
		return errPermanent
	}
}

// ranOutOfTime reports whether err ended a Sync by its context's deadline
// or by a request's client timeout.
func ranOutOfTime(ctx context.Context, err error) bool {
	var ne net.Error
	return classOf(ctx, err) == errDeadline || errors.As(err, &ne) && ne.Timeout()
}

// cause names what an error comes from, for the report.
func cause(err error) string {
	var (
		tooLarge *pdnsapi.ResponseTooLargeError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		unknown  x509.UnknownAuthorityError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, reconcile.ErrIncompleteZone):
		return "ErrIncompleteZone"
	case errors.As(err, &tooLarge):
		return "ResponseTooLargeError"
	case errors.As(err, &unknown):
		return "unknown certificate authority"
	case errors.Is(err, context.DeadlineExceeded):
		return "context deadline exceeded"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "body cut short"
	case errors.As(err, &syntax):
		return "JSON syntax error"
	case errors.As(err, &typ):
		return "JSON type error"
	}
	if e, ok := pdnserrors.AsAPIError(err); ok {
		return fmt.Sprintf("%d %s", e.StatusCode, e.Reason())
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// summary renders how a Sync ended, e.g. "retryable error (connection
// refused)".
func summary(ctx context.Context, err error) string {
	if c := cause(err); c != "" {
		return classOf(ctx, err).String() + " (" + c + ")"
	}
	return classOf(ctx, err).String()
}

// describe renders a Sync's outcome, e.g. "retryable error (503
// ServerError) after 3 attempts, 0 PATCHes, zone unchanged, 12ms".
func describe(ctx context.Context, err error, attempts, patches int, zone string, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(summary(ctx, err))
	if attempts > 0 {
		fmt.Fprintf(&b, ", %d attempt(s) at the proxy", attempts)
	}
	fmt.Fprintf(&b, ", %d PATCH(es) at the proxy, zone %s, %s", patches, zone, elapsed.Round(time.Millisecond))
	return b.String()
}
