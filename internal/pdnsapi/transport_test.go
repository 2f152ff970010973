package pdnsapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

const testKey = "s3cr3t-API-k3y"

// seen records the requests a test server received.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *seen) add(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r.Clone(context.Background()))
}

func (s *seen) last(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.reqs)
	return s.reqs[len(s.reqs)-1]
}

// okServer answers every request with 200 [] and records it.
func okServer(t *testing.T) (*httptest.Server, *seen) {
	t.Helper()
	var s seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "[]")
	}))
	t.Cleanup(srv.Close)
	return srv, &s
}

// failingServer answers every request with status and body, standing for
// the 5xx a real PowerDNS cannot be made to send on demand.
func failingServer(t *testing.T, status int, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// redirectingServer redirects every request to target.
func redirectingServer(t *testing.T, target string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// droppingServer closes every connection without answering.
func droppingServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// cutBodyServer promises a longer body than it sends, then closes.
func cutBodyServer(t *testing.T, status int, sent string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			status, http.StatusText(status), len(sent)+1000, sent)
		_ = buf.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T, serverURL string, base *http.Client, opts ...pdnsapi.Option) *powerdns.Client {
	t.Helper()
	c, err := pdnsapi.NewClient(serverURL, testKey, "", base, opts...)
	require.NoError(t, err)
	return c
}

func TestTransportHeaders(t *testing.T) {
	srv, seen := okServer(t)
	tr, err := pdnsapi.NewTransport(nil, srv.URL, testKey)
	require.NoError(t, err)

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/servers", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/html")
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()

	got := seen.last(t)
	assert.Equal(t, "application/json", got.Header.Get("Accept"))
	assert.Equal(t, testKey, got.Header.Get("X-API-Key"))
	assert.Equal(t, "text/html", req.Header.Get("Accept"), "the caller's request is left alone")
	assert.Empty(t, req.Header.Get("X-API-Key"))
}

func TestTransportKeyOnlyToServer(t *testing.T) {
	elsewhere, elsewhereSeen := okServer(t)
	home, homeSeen := okServer(t)
	redirect := redirectingServer(t, elsewhere.URL)

	t.Run("redirect to another host", func(t *testing.T) {
		c := newClient(t, redirect.URL, nil)
		_, err := c.Servers.List(context.Background())
		require.NoError(t, err)
		got := elsewhereSeen.last(t)
		assert.Empty(t, got.Header.Get("X-API-Key"), "the key never leaves for another host")
		assert.Equal(t, "application/json", got.Header.Get("Accept"))
	})
	t.Run("request to another host with a key set by the caller", func(t *testing.T) {
		tr, err := pdnsapi.NewTransport(nil, home.URL, testKey)
		require.NoError(t, err)
		req, _ := http.NewRequest(http.MethodGet, elsewhere.URL+"/x", nil)
		req.Header.Set("X-API-Key", testKey)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Empty(t, elsewhereSeen.last(t).Header.Get("X-API-Key"))
	})
	t.Run("same server, other spelling", func(t *testing.T) {
		spelled := strings.Replace(home.URL, "http://", "HTTP://", 1)
		c := newClient(t, spelled+"/api/v1/", nil)
		_, err := c.Servers.List(context.Background())
		require.NoError(t, err)
		assert.Equal(t, testKey, homeSeen.last(t).Header.Get("X-API-Key"))
	})
	t.Run("no key configured", func(t *testing.T) {
		c, err := pdnsapi.NewClient(home.URL, "", "", nil)
		require.NoError(t, err)
		_, err = c.Servers.List(context.Background())
		require.NoError(t, err)
		assert.Empty(t, homeSeen.last(t).Header.Values("X-API-Key"))
	})
}

func TestCaptureServerError(t *testing.T) {
	srv := failingServer(t, http.StatusServiceUnavailable, "application/json",
		`{"error": "Multiple errors found in RRset", "errors": ["RRset a.example.com. IN CNAME: conflicts with existing A RRset of the same name", "backend down"]}`)
	c := newClient(t, srv.URL, nil)

	err := pdnsapi.Call(context.Background(), func(ctx context.Context) error {
		_, err := c.Zones.Get(ctx, "example.com.")
		return err
	})
	apiErr, ok := pdnserrors.AsAPIError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	assert.Len(t, apiErr.Problems, 2, "go-powerdns kept only the summary; the capture has both")
	assert.True(t, pdnserrors.IsRetryable(err))

	var pdnsErr *powerdns.Error
	require.ErrorAs(t, err, &pdnsErr, "the client library's error stays reachable")
	assert.Equal(t, "Multiple errors found in RRset", pdnsErr.Message, "go-powerdns still read the body")
}

func TestCaptureBoundsBody(t *testing.T) {
	huge := `{"error": "` + strings.Repeat("x", 2*pdnserrors.MaxBodySize) + `"}`
	srv := failingServer(t, http.StatusInternalServerError, "text/plain", huge)
	tr, err := pdnsapi.NewTransport(nil, srv.URL, testKey)
	require.NoError(t, err)

	ctx, capture := pdnsapi.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/servers", nil)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	all, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, huge[:pdnserrors.MaxBodySize], string(all), "the caller reads what was kept, no more")
	assert.Equal(t, int64(pdnserrors.MaxBodySize), resp.ContentLength)

	status, body, ok := capture.Response()
	assert.True(t, ok)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Len(t, body, pdnserrors.MaxBodySize)
	assert.True(t, capture.APIError().Truncated)
}

// TestErrorBodyDropsConnection: a refusal longer than what is kept costs
// its connection (the rest is never read); a short one leaves it for the
// next request.
func TestErrorBodyDropsConnection(t *testing.T) {
	for _, tc := range []struct {
		name     string
		size     int
		newConns int
	}{
		{"short", 100, 1},
		{"longer than kept", 8 << 20, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Set("Content-Length", strconv.Itoa(tc.size))
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write(bytes.Repeat([]byte("x"), tc.size))
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			c := newClient(t, srv.URL, &http.Client{Transport: &http.Transport{}})
			for range 2 {
				err := pdnsapi.Call(context.Background(), func(ctx context.Context) error {
					_, err := c.Zones.Get(ctx, "example.com.")
					return err
				})
				require.True(t, pdnserrors.IsServerError(err), "%v", err)
				apiErr, _ := pdnserrors.AsAPIError(err)
				assert.Equal(t, tc.size > pdnserrors.MaxBodySize, apiErr.Truncated)
			}
			assert.Equal(t, int32(tc.newConns), conns.Load(), "connections opened for two requests")
		})
	}
}

func TestCaptureCutBody(t *testing.T) {
	srv := cutBodyServer(t, http.StatusUnprocessableEntity, `{"error": "Multiple errors found in RRset", "errors": ["RRset a.example.com. IN A: Name is out of zone", "RRset b.`)
	tr, err := pdnsapi.NewTransport(nil, srv.URL, testKey)
	require.NoError(t, err)
	ctx, capture := pdnsapi.WithCapture(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/servers", nil)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_, readErr := io.ReadAll(resp.Body)
	assert.Error(t, readErr, "the caller sees the body break off")
	_ = resp.Body.Close()

	apiErr := capture.APIError()
	require.NotNil(t, apiErr)
	assert.True(t, apiErr.Truncated)
	assert.Equal(t, []pdnserrors.Key{{Name: "a.example.com.", Type: "A"}}, apiErr.Keys())
}

func TestCaptureTransportError(t *testing.T) {
	srv := droppingServer(t)
	c := newClient(t, srv.URL, nil)
	err := pdnsapi.Call(context.Background(), func(ctx context.Context) error {
		_, err := c.Zones.Get(ctx, "example.com.")
		return err
	})
	require.Error(t, err)
	_, isAPI := pdnserrors.AsAPIError(err)
	assert.False(t, isAPI)
	assert.True(t, pdnserrors.IsRetryable(err))
	assert.NotContains(t, err.Error(), testKey)
}

func TestCaptureErr(t *testing.T) {
	plain := errors.New("boom")
	t.Run("nil", func(t *testing.T) {
		_, c := pdnsapi.WithCapture(context.Background())
		assert.NoError(t, c.Err(nil))
	})
	t.Run("nothing captured", func(t *testing.T) {
		_, c := pdnsapi.WithCapture(context.Background())
		assert.Same(t, plain, c.Err(plain))
		assert.Nil(t, c.APIError())
	})
	t.Run("nil capture", func(t *testing.T) {
		var c *pdnsapi.Capture
		assert.Same(t, plain, c.Err(plain))
	})
	t.Run("canceled", func(t *testing.T) {
		srv := failingServer(t, http.StatusBadGateway, "text/plain", "Bad Gateway")
		c := newClient(t, srv.URL, nil)
		ctx, cancel := context.WithCancel(context.Background())
		// The first call is answered, the second never leaves: its
		// cancellation must not be mistaken for the first answer.
		ctx, capture := pdnsapi.WithCapture(ctx)
		_, err := c.Zones.Get(ctx, "example.com.")
		assert.True(t, pdnserrors.IsServerError(capture.Err(err)))
		cancel()
		_, err = c.Zones.Get(ctx, "example.com.")
		err = capture.Err(err)
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, pdnserrors.IsRetryable(err))
	})
	t.Run("success clears", func(t *testing.T) {
		bad := failingServer(t, http.StatusInternalServerError, "text/plain", "x")
		good, _ := okServer(t)
		tr, err := pdnsapi.NewTransport(nil, bad.URL, testKey)
		require.NoError(t, err)
		ctx, capture := pdnsapi.WithCapture(context.Background())
		for _, u := range []string{bad.URL, good.URL} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
		}
		_, _, ok := capture.Response()
		assert.False(t, ok)
	})
}

// recordingTransport stands for a caller's own RoundTripper.
type recordingTransport struct {
	base  http.RoundTripper
	calls int
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls++
	return r.base.RoundTrip(req)
}

func TestNewClientKeepsCallersClient(t *testing.T) {
	srv, _ := okServer(t)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	redirects := 0
	own := &recordingTransport{base: http.DefaultTransport}
	base := &http.Client{
		Transport:     own,
		Timeout:       7 * time.Second,
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { redirects++; return nil },
	}
	c := newClient(t, redirectingServer(t, srv.URL).URL, base)
	_, err = c.Servers.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, own.calls, "the caller's transport carries every request")
	assert.Equal(t, 1, redirects, "the caller's redirect policy applies")
	assert.Same(t, own, base.Transport, "the caller's client is not modified")
}

func TestObserver(t *testing.T) {
	ok, _ := okServer(t)
	var counts pdnsapi.Counts
	c := newClient(t, ok.URL, nil, pdnsapi.WithObserver(counts.Observe))
	for range 3 {
		_, err := c.Servers.List(context.Background())
		require.NoError(t, err)
	}
	bad := failingServer(t, http.StatusServiceUnavailable, "text/plain", "down")
	c = newClient(t, bad.URL, nil, pdnsapi.WithObserver(counts.Observe))
	_, _ = c.Zones.Get(context.Background(), "example.com.")
	c = newClient(t, droppingServer(t).URL, nil, pdnsapi.WithObserver(counts.Observe))
	_, _ = c.Zones.Get(context.Background(), "example.com.")

	assert.Equal(t, 3, counts.Get(http.MethodGet, http.StatusOK))
	assert.Equal(t, 1, counts.Get(http.MethodGet, http.StatusServiceUnavailable))
	assert.GreaterOrEqual(t, counts.Get(http.MethodGet, 0), 1)
	assert.Equal(t, counts.Total(), counts.Method(http.MethodGet))
	assert.Contains(t, counts.String(), "GET 200: 3, GET 503: 1")
	counts.Reset()
	assert.Equal(t, 0, counts.Total())
}

func TestNewClientValidation(t *testing.T) {
	tests := []struct {
		name, url, reason string
	}{
		{"empty", "", "empty"},
		{"no scheme", "127.0.0.1:8081", "must start with http:// or https://"},
		{"ftp", "ftp://pdns:8081", "scheme must be http or https"},
		{"no host", "http://", "no host"},
		{"port only", "http://:8081", "no host"},
		{"opaque", "http:pdns", "must start with http:// or https://"},
		{"path", "http://pdns:8081/pdns", "must have no path"},
		{"query", "http://pdns:8081/?x=1", "must have no query"},
		{"key in query", "http://pdns:8081/?api-key=" + testKey, "must have no query"},
		{"fragment", "http://pdns:8081/#x", "must have no fragment"},
		{"unparsable", "http://pdns:80x1", "invalid port"},
		{"unparsable with key", "http://" + testKey + ":pw@pdns:80x1/", "invalid port"},
		{"control character", "http://pdns\n:8081", "invalid control character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pdnsapi.NewClient(tc.url, testKey, "", nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, pdnsapi.ErrInvalidServerURL)
			var ue *pdnsapi.URLError
			require.ErrorAs(t, err, &ue)
			assert.Contains(t, ue.Reason, tc.reason)
			assert.NotContains(t, err.Error(), testKey)
			assert.NotContains(t, err.Error(), "pw@")

			_, err = pdnsapi.NewTransport(nil, tc.url, testKey)
			assert.ErrorIs(t, err, pdnsapi.ErrInvalidServerURL)
		})
	}
	for _, good := range []string{"http://127.0.0.1:8081", "https://pdns.example", "http://[::1]:8081/", "http://pdns/api/v1", "http://u:p@pdns:8081/api/"} {
		_, err := pdnsapi.NewClient(good, testKey, "", nil)
		assert.NoError(t, err, good)
	}

	_, err := pdnsapi.NewClient("http://pdns", "k\r\nX-Evil: 1", "", nil)
	assert.ErrorIs(t, err, pdnsapi.ErrInvalidAPIKey)
	assert.NotContains(t, err.Error(), "X-Evil")
	for _, id := range []string{"a/b", "..", "x?y"} {
		_, err = pdnsapi.NewClient("http://pdns", testKey, id, nil)
		assert.ErrorIs(t, err, pdnsapi.ErrInvalidServerID, id)
	}
	c, err := pdnsapi.NewClient("http://pdns/api/v1/", testKey, "", nil)
	require.NoError(t, err)
	assert.Equal(t, pdnsapi.DefaultServerID, c.VHost)
	assert.Equal(t, "http://pdns", c.BaseURL)

	c, err = pdnsapi.NewClient("http://user:s3cr3t-pw@pdns:8081/api/", testKey, "", nil)
	require.NoError(t, err)
	assert.Equal(t, "http://pdns:8081", c.BaseURL, "user information stays with the Transport")

	for _, key := range []string{"k\u0085ey", "k\u009b[31mey", "key\u0080"} {
		_, err = pdnsapi.NewClient("http://pdns", key, "", nil)
		assert.ErrorIs(t, err, pdnsapi.ErrInvalidAPIKey, "C1 control in %q", key)
	}
}

func TestHasControl(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"plain", false}, {"bücher ☃", false}, {"\u00a0nbsp", false}, {"\u00ff", false},
		{"tab\t", true}, {"nl\n", true}, {"del\x7f", true}, {"\x00", true},
		{"next line\u0085", true}, {"csi\u009b", true}, {"\u0080", true}, {"\u009f", true},
	} {
		assert.Equal(t, tc.want, pdnsapi.HasControl(tc.s), "%q", tc.s)
	}
}

// TestAPIKeyNeverPrinted prints everything that holds or saw the key, every
// way fmt can.
func TestAPIKeyNeverPrinted(t *testing.T) {
	unauthorized := failingServer(t, http.StatusUnauthorized, "text/plain", "Unauthorized")
	tr, err := pdnsapi.NewTransport(nil, unauthorized.URL, testKey)
	require.NoError(t, err)
	c := newClient(t, unauthorized.URL, nil)
	callErr := pdnsapi.Call(context.Background(), func(ctx context.Context) error {
		_, err := c.Zones.List(ctx)
		return err
	})
	require.True(t, pdnserrors.IsUnauthorized(callErr))

	values := map[string]any{
		"transport": tr, "transport value": *tr, "client": c, "client value": *c,
		"http client": c.Zones, "error": callErr,
	}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%p"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, testKey, "%s printed with %s", name, verb)
			assert.NotContains(t, out, fmt.Sprintf("%x", testKey), "%s printed with %s", name, verb)
		}
	}
	var buf bytes.Buffer
	_, _ = fmt.Fprintln(&buf, tr, c, callErr)
	assert.NotContains(t, buf.String(), testKey)
	assert.Equal(t, "pdnsapi.Transport{server: "+unauthorized.URL+", api key: [redacted]}", tr.String())
}

func TestCountsStatuses(t *testing.T) {
	var counts pdnsapi.Counts
	for _, o := range []struct {
		method string
		status int
	}{{"GET", 200}, {"PATCH", 422}, {"GET", 404}, {"PATCH", 500}, {"PUT", 503}, {"GET", 0}} {
		counts.Observe(o.method, o.status)
	}
	assert.Equal(t, 2, counts.Statuses(400, 500))
	assert.Equal(t, 2, counts.Statuses(500, 600))
	assert.Equal(t, 1, counts.Statuses(0, 1), "transport errors are status 0")
	assert.Equal(t, counts.Total(), counts.Statuses(0, 600))
}
