// Package pdnsapi is the HTTP plumbing beneath the go-powerdns client: a
// RoundTripper that asks PowerDNS for JSON, sends the API key only to the
// configured server, and keeps the raw body of every non-2xx answer, which
// go-powerdns reduces to its "error" field (and, for a 401, to nothing).
//
// A call captures its answer through its context:
//
//	ctx, capture := pdnsapi.WithCapture(ctx)
//	err := client.Records.Patch(ctx, zone, rrsets)
//	err = capture.Err(err) // a *pdnserrors.APIError with every problem
//
// or, equivalently, pdnsapi.Call(ctx, func(ctx context.Context) error {…}).
// Client wraps the calls a reconciler makes (GetZone, PatchZone, the
// metadata calls, ...), each addressed by the zone's id (ZoneID), which
// differs from its name for RFC 2317 zones ("0/26.2.0.192.in-addr.arpa."
// is "0=2F26.2.0.192.in-addr.arpa."), and each refusing, before any
// request, a zone no request can address (*ZoneError).
//
// No answer can hurt the caller: a refusal's body is read up to
// pdnserrors.MaxBodySize (64 KiB) and its connection dropped beyond it, a
// successful answer up to WithMaxResponseBytes, a write answered with a
// redirect fails (*RedirectError) rather than being sent on as a GET, and
// the API key and the server URL's password are replaced by "[redacted]"
// wherever a body quotes them. The API key never appears in an error, a log
// line or the printed form of any value of the package, and neither does
// the password.
package pdnsapi
