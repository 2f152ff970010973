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
//
// The API key never appears in an error, a log line or the printed form of
// any value of the package.
package pdnsapi
