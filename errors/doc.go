// Package errors classifies every answer PowerDNS Authoritative 4.7 to 5.1
// gives to an API request. Each becomes an *APIError carrying one Problem
// per message, with a Reason callers can branch on. Import it as
// pdnserrors:
//
//	import pdnserrors "github.com/pdnskit/reconcile/errors"
//
// Both body shapes are understood: {"error": "..."} and the 5.1 multi-error
// form {"error": "Multiple errors found in RRset", "errors": [...]}, as well
// as plain-text bodies. The predicates (IsConflict, IsRetryable, ...) work
// through wrapped errors and return false for nil.
//
// APIError.Keys lists the RRsets a refusal names, so that a caller can leave
// them out and apply the rest; IsRetryable separates what may succeed on a
// second try (5xx, timeouts, unreachable servers) from refusals, which never
// will.
//
// The package is pure: it parses what it is given and never talks to PowerDNS.
package errors
