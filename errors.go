package reconcile

import "github.com/pdnskit/reconcile/internal/pdnsapi"

// Sentinel errors of New, which importers match with errors.Is. They are
// the values the PowerDNS plumbing beneath the Reconciler returns, so
// errors.Is holds for every error New returns for these reasons.
var (
	// ErrInvalidServerURL: the server URL is not http(s)://host[:port]
	// with no path but /api/v1, no query and no fragment. The error that
	// wraps it says why and quotes the URL without its password.
	ErrInvalidServerURL = pdnsapi.ErrInvalidServerURL
	// ErrInvalidAPIKey: the API key holds a control character (ASCII or
	// C1), which would end up in a header. The error never quotes the key.
	ErrInvalidAPIKey = pdnsapi.ErrInvalidAPIKey
)
