package faultproxy_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
)

// upstream stands for the server behind the proxy: it echoes the method and
// path, and counts what reached it.
func upstream(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		_, _ = io.WriteString(w, `{"method":"`+r.Method+`","path":"`+r.URL.Path+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func start(t *testing.T, target string, opts ...faultproxy.Option) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(target, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// answer is what a GET through the proxy got, its body read and closed.
type answer struct {
	StatusCode    int
	Header        http.Header
	ContentLength int64
}

func get(t *testing.T, c *http.Client, url string) (answer, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, resp.ContentLength}, string(b), err
}

const zonePath = "/api/v1/servers/localhost/zones/example.org."

func TestPassThrough(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	resp, body, err := get(t, http.DefaultClient, p.URL+zonePath+"?rrsets=false")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "yes", resp.Header.Get("X-Upstream"))
	assert.JSONEq(t, `{"method":"GET","path":"`+zonePath+`"}`, body)
	assert.Equal(t, int32(1), hits.Load())
	reqs := p.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, zonePath, reqs[0].Path)
	assert.Empty(t, reqs[0].Fault)
	assert.Equal(t, http.StatusOK, reqs[0].Status)
	assert.Equal(t, 1, p.Count(http.MethodGet, faultproxy.ZonePath))
	assert.Zero(t, p.Count(http.MethodPatch, nil))
}

func TestStatusSkipTimes(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{
		Method: http.MethodGet, Path: faultproxy.ZonePath, Skip: 1, Times: 2,
		Fault: faultproxy.Status(http.StatusServiceUnavailable, "text/html", []byte("<h1>busy</h1>")),
	})
	var codes []int
	for range 5 {
		resp, _, err := get(t, http.DefaultClient, p.URL+zonePath)
		require.NoError(t, err)
		codes = append(codes, resp.StatusCode)
	}
	assert.Equal(t, []int{200, 503, 503, 200, 200}, codes)
	assert.Equal(t, int32(3), hits.Load(), "a Status fault does not ask the server")
	assert.Equal(t, 2, p.Faulted())

	// Another path is left alone.
	resp, _, err := get(t, http.DefaultClient, p.URL+zonePath+"/metadata")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestAfterForwarding(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Status(http.StatusBadGateway, "", nil).AfterForwarding()})
	resp, _, err := get(t, http.DefaultClient, p.URL+zonePath)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Equal(t, int32(1), hits.Load(), "the server got the request")
	assert.Equal(t, "status 502 after forwarding", p.Requests()[0].Fault)
	assert.Equal(t, http.StatusOK, p.Requests()[0].Status, "the server's own answer is kept")
	assert.False(t, p.Requests()[0].ServerError(), "the 502 is the fault's, not the server's")
}

func TestReset(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Reset()})
	_, _, err := get(t, &http.Client{Transport: &http.Transport{}}, p.URL+zonePath)
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF), "%v", err)
	assert.Zero(t, hits.Load())
}

func TestHang(t *testing.T) {
	up, _ := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Hang()})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+zonePath, nil)
	require.NoError(t, err)
	began := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(began), 5*time.Second)
}

func TestHangReleasedByClose(t *testing.T) {
	up, _ := upstream(t)
	p, err := faultproxy.Start(up.URL)
	require.NoError(t, err)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Hang()})
	errc := make(chan error, 1)
	go func() {
		_, _, err := get(t, &http.Client{Transport: &http.Transport{}}, p.URL+zonePath)
		errc <- err
	}()
	require.Eventually(t, func() bool { return p.Count("", nil) == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, p.Close())
	require.Error(t, <-errc)
}

func TestTruncate(t *testing.T) {
	up, _ := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Truncate(5)})
	resp, body, err := get(t, http.DefaultClient, p.URL+zonePath)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `{"met`, body)
}

func TestPad(t *testing.T) {
	up, _ := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Pad(1 << 20)})
	resp, body, err := get(t, http.DefaultClient, p.URL+zonePath)
	require.NoError(t, err)
	assert.Equal(t, int64(len(body)), resp.ContentLength)
	assert.Greater(t, len(body), 1<<20)
	assert.JSONEq(t, `{"method":"GET","path":"`+zonePath+`"}`, body)
}

func TestRedirect(t *testing.T) {
	up, _ := upstream(t)
	elsewhere := start(t, up.URL)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Times: 1, Fault: faultproxy.Redirect(http.StatusTemporaryRedirect, elsewhere.URL)})
	req, err := http.NewRequest(http.MethodGet, p.URL+zonePath+"?rrsets=true", nil)
	require.NoError(t, err)
	req.Header.Set("X-Probe", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	reqs := elsewhere.Requests()
	require.Len(t, reqs, 1, "followed to the other proxy")
	assert.Equal(t, zonePath, reqs[0].Path)
	assert.Equal(t, "1", reqs[0].Header.Get("X-Probe"), "headers are recorded")
}

func TestTLS(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL, faultproxy.WithTLS())
	require.True(t, strings.HasPrefix(p.URL, "https://"))
	require.NotNil(t, p.CertPool())

	_, _, err := get(t, &http.Client{Transport: &http.Transport{}}, p.URL+zonePath)
	require.Error(t, err, "a client without the proxy's authority refuses it")
	var unknown x509.UnknownAuthorityError
	require.ErrorAs(t, err, &unknown)

	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.CertPool(), MinVersion: tls.VersionTLS12}}}
	resp, _, err := get(t, trusting, p.URL+zonePath)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int32(1), hits.Load())

	p.Inject(faultproxy.Rule{Fault: faultproxy.Reset()})
	_, _, err = get(t, trusting, p.URL+zonePath)
	require.Error(t, err, "a reset works over TLS too")
}

func TestBadTarget(t *testing.T) {
	_, err := faultproxy.Start("ftp://x")
	require.Error(t, err)
}

func TestTrail(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Trail(1 << 20)})
	resp, body, err := get(t, http.DefaultClient, p.URL+zonePath)
	require.NoError(t, err)
	assert.Equal(t, int32(1), hits.Load(), "the server got the request")
	assert.Equal(t, int64(len(body)), resp.ContentLength)
	assert.Greater(t, len(body), 1<<20)
	assert.True(t, strings.HasPrefix(body, `{"method":"GET"`), "the server's answer comes first")
	assert.JSONEq(t, `{"method":"GET","path":"`+zonePath+`"}`, body)
	assert.Equal(t, "trail with 1048576 bytes", p.Requests()[0].Fault)
}

func TestFlood(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Flood(http.StatusInternalServerError, "text/html", []byte("<html>"), 3<<20)})
	resp, body, err := get(t, http.DefaultClient, p.URL+zonePath)
	require.NoError(t, err)
	assert.Zero(t, hits.Load(), "a Flood does not ask the server")
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Equal(t, int64(6+3<<20), resp.ContentLength)
	assert.Len(t, body, 6+3<<20)
	assert.Equal(t, "<html>xxx", body[:9])

	// A client that stops reading does not keep the proxy writing.
	resp2, err := http.Get(p.URL + zonePath)
	require.NoError(t, err)
	_, _ = io.CopyN(io.Discard, resp2.Body, 1024)
	require.NoError(t, resp2.Body.Close())
}

func TestEcho(t *testing.T) {
	up, hits := upstream(t)
	p := start(t, up.URL)
	p.Inject(faultproxy.Rule{Fault: faultproxy.Echo(http.StatusUnauthorized)})
	req, err := http.NewRequest(http.MethodPatch, p.URL+zonePath+"?x=1", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", "k3y")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Zero(t, hits.Load())
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, string(body), `PATCH `+zonePath+`?x=1 refused;`)
	assert.Contains(t, string(body), `X-Api-Key: k3y;`)
}
