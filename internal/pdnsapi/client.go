package pdnsapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	powerdns "github.com/joeig/go-powerdns/v3"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// DefaultServerID is the server id of every PowerDNS Authoritative
// installation.
const DefaultServerID = "localhost"

// Sentinel errors of NewClient and NewTransport; the errors they return
// match them with errors.Is.
var (
	ErrInvalidServerURL = errors.New("invalid powerdns server url")
	ErrInvalidAPIKey    = errors.New("invalid powerdns api key")
	ErrInvalidServerID  = errors.New("invalid powerdns server id")
)

// URLError reports a server URL that cannot be used, and why.
type URLError struct {
	// URL is the URL as given, with any password and query removed and any
	// occurrence of the API key replaced by "[redacted]".
	URL string
	// Reason says what is wrong with it.
	Reason string
}

func (e *URLError) Error() string {
	return ErrInvalidServerURL.Error() + " " + `"` + e.URL + `": ` + e.Reason
}

// Unwrap returns ErrInvalidServerURL.
func (e *URLError) Unwrap() error { return ErrInvalidServerURL }

// NewClient returns a go-powerdns client for the PowerDNS server at
// serverURL (http or https, a host, and no path other than /api/v1, which
// go-powerdns adds itself), with server id serverID (DefaultServerID when
// empty).
//
// It uses a copy of base (http.DefaultClient's settings when nil): Timeout,
// Jar and CheckRedirect are kept, and base's Transport is wrapped in a
// Transport, never replaced. The API key is set by that Transport alone;
// go-powerdns never sees it. Wrap each call's error with a Capture (or use
// Call) to get every problem of a refusal.
func NewClient(serverURL, apiKey, serverID string, base *http.Client, opts ...Option) (*powerdns.Client, error) {
	c, err := New(serverURL, apiKey, serverID, base, opts...)
	if err != nil {
		return nil, err
	}
	return c.Client, nil
}

// Client is a go-powerdns client and, over the same HTTP client and
// transport, a reader of whole zones that decodes them with package
// zonejson rather than go-powerdns's structs, whose pointer per field makes
// decoding most of what reading a large zone costs the client.
type Client struct {
	*powerdns.Client
	http *http.Client
}

// New is NewClient, returning a Client that can also read zones with
// GetZone.
func New(serverURL, apiKey, serverID string, base *http.Client, opts ...Option) (*Client, error) {
	u, err := parseServerURL(serverURL, apiKey)
	if err != nil {
		return nil, err
	}
	if err := checkAPIKey(apiKey); err != nil {
		return nil, err
	}
	if serverID == "" {
		serverID = DefaultServerID
	}
	if strings.ContainsAny(serverID, "/?#%\\") || serverID == "." || serverID == ".." || HasControl(serverID) {
		return nil, fmt.Errorf("%w %q: must be one path segment", ErrInvalidServerID, serverID)
	}

	hc := new(http.Client)
	if base != nil {
		*hc = *base
	}
	hc.Transport = newTransport(hc.Transport, u, apiKey, opts)

	// go-powerdns sets the path of every request itself. User information
	// stays with the Transport, which sends it to the server alone: in
	// go-powerdns's exported BaseURL any printing of the client would show
	// the password.
	baseURL := *u
	baseURL.Path, baseURL.RawPath, baseURL.User = "", "", nil
	return &Client{Client: powerdns.New(baseURL.String(), serverID, powerdns.WithHTTPClient(hc)), http: hc}, nil
}

// String describes the Client by its server, without credentials.
func (c *Client) String() string {
	if c == nil || c.Client == nil {
		return "pdnsapi.Client{}"
	}
	return "pdnsapi.Client{server: " + c.BaseURL + ", server id: " + c.VHost + ", api key: " + redacted + "}"
}

// GoString is String, so that %#v prints no more.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// ZoneQuery narrows a read of a zone to what the caller needs.
type ZoneQuery struct {
	// RRsetName, when set, reads only the RRsets at this name (PowerDNS's
	// rrset_name filter, 4.7 and later); RRsetType narrows it to one type.
	RRsetName, RRsetType string
	// NoRRsets reads the zone's properties alone (rrsets=false).
	NoRRsets bool
}

func (q ZoneQuery) values() url.Values {
	v := url.Values{}
	if q.RRsetName != "" {
		v.Set("rrset_name", q.RRsetName)
		if q.RRsetType != "" {
			v.Set("rrset_type", q.RRsetType)
		}
	}
	if q.NoRRsets {
		v.Set("rrsets", "false")
	}
	return v
}

// ZoneID is PowerDNS's id of a zone, which every request path must use
// instead of its name (apiZoneNameToId in PowerDNS 4.7 to 5.1): the name as
// PowerDNS prints it, absolute, with each byte other than an ASCII letter, a
// digit, '.' or '-' written as "=XX" in upper-case hexadecimal, and the root
// zone as "=2E". So "0/26.2.0.192.in-addr.arpa." is
// "0=2F26.2.0.192.in-addr.arpa." and "_tcp.example." is "=5Ftcp.example.".
// PowerDNS decodes an id back to a name and parses it, escapes included, so
// the id of any spelling of a name addresses that name.
//
// An id holds only letters, digits, '.', '-' and '=': nothing a URL path
// escapes, nothing that ends a path segment or starts a query, and nothing
// path.Join cleans away, since an id is never "." or ".." (their dots are
// written "=2E": such a name is no zone, and such an id addresses none).
func ZoneID(zone string) string {
	if !endsWithRoot(zone) {
		zone += "."
	}
	var b strings.Builder
	b.Grow(len(zone) + 8)
	for i := 0; i < len(zone); i++ {
		c := zone[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-':
			b.WriteByte(c)
		default:
			writeHexEscape(&b, c)
		}
	}
	id := b.String()
	if strings.Trim(id, ".") == "" {
		// ".", "..", ...: path.Join would read them as directories.
		b.Reset()
		for range id {
			writeHexEscape(&b, '.')
		}
		id = b.String()
	}
	return id
}

func writeHexEscape(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('=')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// endsWithRoot reports whether a name in presentation format ends with the
// root's dot rather than with an escaped dot ("a\\." does, "a\." does not).
func endsWithRoot(name string) bool {
	if name == "" || name[len(name)-1] != '.' {
		return false
	}
	n := 0
	for i := len(name) - 2; i >= 0 && name[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// ErrRootZone is the error of a request for the root zone: go-powerdns
// appends a dot to every zone id ("=2E" becomes "=2E.", which PowerDNS
// reads as ".."), so no request through it can address the root zone.
var ErrRootZone = errors.New("the root zone cannot be addressed through go-powerdns")

// ZoneError reports a zone for which no request was made, because no
// request can address it as the caller named it.
type ZoneError struct {
	// Zone is the zone as given.
	Zone string
	// Err says why: the *rrset.NameError of a name PowerDNS's API cannot
	// hold as a zone (rrset.CanonicalZone), or ErrRootZone.
	Err error
}

func (e *ZoneError) Error() string {
	return "pdnsapi: zone " + strconv.Quote(e.Zone) + " cannot be addressed: " + e.Err.Error()
}

// Unwrap returns Err.
func (e *ZoneError) Unwrap() error { return e.Err }

// zoneID returns the id of zone for a request path, or a *ZoneError before
// any request when the zone cannot be addressed.
func zoneID(zone string) (string, error) {
	canonical, err := rrset.CanonicalZone(zone)
	if err != nil {
		return "", &ZoneError{Zone: zone, Err: err}
	}
	if canonical == "." {
		return "", &ZoneError{Zone: zone, Err: ErrRootZone}
	}
	return ZoneID(canonical), nil
}

// GetZone reads a zone (GET /servers/{id}/zones/{zone id}) and decodes its
// RRsets, narrowed by q. A non-2xx answer is a *pdnserrors.APIError with
// every problem PowerDNS reported; a transport failure is returned as the
// HTTP client gave it; a zone no request can address is a *ZoneError, and
// no request is made.
func (c *Client) GetZone(ctx context.Context, zone string, q ZoneQuery) (zonejson.Zone, error) {
	body, err := c.get(ctx, zone, q)
	if err != nil {
		return zonejson.Zone{}, err
	}
	z, err := zonejson.Decode(body)
	if err != nil {
		return zonejson.Zone{}, fmt.Errorf("decode zone %s: %w", zone, err)
	}
	return z, nil
}

// get reads the answer to GET /servers/{id}/zones/{zone id}, narrowed by q.
func (c *Client) get(ctx context.Context, zone string, q ZoneQuery) ([]byte, error) {
	id, err := zoneID(zone)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return nil, err
	}
	u = u.JoinPath("api", "v1", "servers", c.VHost, "zones", id)
	u.RawQuery = q.values().Encode()
	// The Transport keeps a refusal, bounded and redacted, in the capture.
	ctx, capture := WithCapture(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, capture.Err(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if apiErr := capture.APIError(); apiErr != nil {
			return nil, apiErr
		}
		// Not through a Transport of this package: read what is worth
		// classifying, no more.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, pdnserrors.MaxBodySize))
		return nil, pdnserrors.Parse(resp.StatusCode, body)
	}
	body, err := readBody(resp)
	if err != nil {
		return nil, fmt.Errorf("read zone %s: %w", zone, err)
	}
	return body, nil
}

// readBody reads an answer to its end, into one buffer of its announced
// length when it announces one: a zone of 10,000 RRsets is megabytes, which
// io.ReadAll would copy a dozen times as it grows. The length is trusted
// only up to a cap and only as a size: a body shorter than announced is an
// error (io.ErrUnexpectedEOF), a longer one is read on, and the body stays
// bounded by the transport.
func readBody(resp *http.Response) ([]byte, error) {
	const maxHint = 64 << 20
	n := resp.ContentLength
	if n <= 0 || n > maxHint {
		return io.ReadAll(resp.Body)
	}
	// One byte more than announced, so that the read meets the end of
	// the body (and frees the connection) before the caller decodes.
	buf := make([]byte, n+1)
	got, err := io.ReadFull(resp.Body, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && int64(got) == n:
		return buf[:n], nil
	case err != nil:
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // an empty body where n bytes were announced
		}
		return nil, err
	}
	rest, err := io.ReadAll(resp.Body)
	return append(buf, rest...), err
}

// parseServerURL checks a server URL. Its errors never hold apiKey, in case
// someone put the key into the URL.
func parseServerURL(raw, apiKey string) (*url.URL, error) {
	invalid := func(reason string) error {
		return &URLError{URL: scrub(raw, apiKey), Reason: reason}
	}
	if strings.TrimSpace(raw) == "" {
		return nil, invalid("empty")
	}
	if !strings.Contains(raw, "://") {
		return nil, invalid("must start with http:// or https://")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			// The inner error alone: url.Error repeats the whole URL.
			return nil, invalid(scrub(ue.Err.Error(), apiKey))
		}
		return nil, invalid("cannot parse")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, invalid("scheme must be http or https")
	case u.Opaque != "" || u.Hostname() == "":
		return nil, invalid("no host")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, invalid("must have no query")
	case u.Fragment != "":
		return nil, invalid("must have no fragment")
	}
	switch strings.TrimSuffix(u.Path, "/") {
	case "", "/api", "/api/v1":
	default:
		return nil, invalid("must have no path: go-powerdns always calls /api/v1")
	}
	return u, nil
}

// scrub makes s safe to print: no password, no query, no API key.
func scrub(s, apiKey string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
		s = u.Redacted()
	} else {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		// Unparsable: drop any user information by hand.
		if i := strings.Index(s, "://"); i >= 0 {
			authority := s[i+3:]
			if j := strings.IndexByte(authority, '/'); j >= 0 {
				authority = authority[:j]
			}
			if at := strings.LastIndexByte(authority, '@'); at >= 0 {
				s = s[:i+3] + redacted + s[i+3+at:]
			}
		}
	}
	if apiKey != "" {
		s = strings.ReplaceAll(s, apiKey, redacted)
	}
	return s
}

func checkAPIKey(key string) error {
	if HasControl(key) {
		// Say what is wrong, never what the key is.
		return fmt.Errorf("%w: holds control characters", ErrInvalidAPIKey)
	}
	return nil
}

// HasControl reports whether s holds a control character, ASCII (below
// U+0020, U+007F) or C1 (U+0080 to U+009F), which no API key, server id or
// writer name may hold: it would end up in a header, a URL or a log line,
// where a C1 character such as U+0085 (next line) breaks lines as '\n'
// does.
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return true
		}
	}
	return false
}
