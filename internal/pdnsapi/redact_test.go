package pdnsapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// echoingServer answers every request with status and a body that quotes
// the request's API key and basic-auth password, as a misconfigured proxy
// might, in the given shape.
func echoingServer(t *testing.T, status int, shape func(key, password string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, password, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, shape(r.Header.Get("X-API-Key"), password))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEchoedSecretsRedacted: whatever a refusal quotes of the API key or
// the password reaches no error, no problem and no capture.
func TestEchoedSecretsRedacted(t *testing.T) {
	for _, secrets := range []struct{ key, password string }{
		{testKey + "/+Ab=", "pa55/w0rd+x"}, // base64 keys hold '/', '+' and '='
		{testKey + `"<&>\é`, `pa"ss\`},     // anything a JSON string must escape
	} {
		t.Run(secrets.key, func(t *testing.T) { testEchoedSecrets(t, secrets.key, secrets.password) })
	}
}

func testEchoedSecrets(t *testing.T, key, password string) {
	shapes := map[string]func(key, password string) string{
		"json": func(k, p string) string {
			return fmt.Sprintf(`{"error": "RRset a.example.com. IN A: bad key %s and password %s"}`, k, p)
		},
		"json escaped by Go": func(k, p string) string {
			b, _ := json.Marshal("denied: " + k + " " + p)
			return `{"error": ` + string(b) + `}`
		},
		"json escaped by PHP": func(k, p string) string {
			return `{"error": "denied: ` + phpJSON(k+" "+p) + `"}`
		},
		"json escaped in full": func(k, p string) string {
			return `{"error": "denied: ` + allEscaped(k+" "+p) + `"}`
		},
		"5.1 list": func(k, p string) string {
			return fmt.Sprintf(`{"error": "Multiple errors found in RRset", "errors": ["key %s", "password %s"]}`, k, p)
		},
		"text": func(k, p string) string { return "X-API-Key: " + k + "\nAuthorization: " + p },
		"query-escaped": func(k, p string) string {
			return "GET /?api-key=" + url.QueryEscape(k) + "&pw=" + url.QueryEscape(p) + " refused"
		},
		"percent-escaped in full": func(k, _ string) string {
			var b strings.Builder
			for i := 0; i < len(k); i++ {
				fmt.Fprintf(&b, "%%%02x", k[i])
			}
			return "GET /?api-key=" + b.String() + " refused"
		},
		"cut off in the key": func(k, _ string) string {
			pad := strings.Repeat("x", pdnserrors.MaxBodySize-len(`{"error": "`)-10)
			return `{"error": "` + pad + k + `"}`
		},
	}
	for name, shape := range shapes {
		for _, status := range []int{401, 422, 500} {
			t.Run(fmt.Sprintf("%s %d", name, status), func(t *testing.T) {
				srv := echoingServer(t, status, shape)
				u := strings.Replace(srv.URL, "http://", "http://"+url.UserPassword("user", password).String()+"@", 1)
				c, err := pdnsapi.New(u, key, "", nil)
				require.NoError(t, err)
				ctx, capture := pdnsapi.WithCapture(context.Background())
				err = capture.Err(c.Records.Patch(ctx, "example.com.", &powerdns.RRsets{}))
				require.Error(t, err)
				_, body, _ := capture.Response()
				printed := []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), string(body)}
				if apiErr, ok := pdnserrors.AsAPIError(err); ok {
					for _, p := range apiErr.Problems {
						printed = append(printed, p.Message, p.Content, p.Name)
					}
				}
				var pdnsErr *powerdns.Error
				if errors.As(err, &pdnsErr) {
					printed = append(printed, pdnsErr.Message)
				}
				got := strings.Join(printed, "\n")
				for _, secret := range []string{testKey, key, password, base64.StdEncoding.EncodeToString([]byte("user:" + password))} {
					assert.NotContains(t, got, secret)
				}
				assert.Contains(t, got, "[redacted]")
			})
		}
	}
}

// phpJSON escapes as PHP's json_encode does: '/' too, and non-ASCII as
// \uXXXX.
func phpJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '/':
			b.WriteString(`\` + string(r))
		case r > 0x7e:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// allEscaped writes every character as \uXXXX.
func allEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	return b.String()
}

// TestUserInfo: the user and password of the server URL go to the server
// as basic authentication, and nowhere printable.
func TestUserInfo(t *testing.T) {
	var gotUser, gotPassword string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPassword, _ = r.BasicAuth()
		_, _ = io.WriteString(w, "[]")
	}))
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "http://", "http://admin:s3cr3t-pw@", 1)
	c, err := pdnsapi.New(u, testKey, "", nil)
	require.NoError(t, err)
	_, err = c.ListMetadata(context.Background(), "example.com.")
	require.NoError(t, err)
	assert.Equal(t, "admin", gotUser)
	assert.Equal(t, "s3cr3t-pw", gotPassword)

	tr, err := pdnsapi.NewTransport(nil, u, testKey)
	require.NoError(t, err)
	for name, v := range map[string]any{"client": c, "go-powerdns client": c.Client, "go-powerdns client value": *c.Client, "transport": tr} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "s3cr3t-pw", "%s printed with %s", name, verb)
			assert.NotContains(t, out, testKey, "%s printed with %s", name, verb)
		}
	}
	_, err = pdnsapi.New("http://admin:s3cr3t-pw@pdns:80x1", testKey, "", nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t-pw")

	// A request that fails quotes its URL, which holds no password.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	c, err = pdnsapi.New(strings.Replace(gone.URL, "http://", "http://admin:s3cr3t-pw@", 1), testKey, "", nil)
	require.NoError(t, err)
	_, err = c.GetZone(context.Background(), "example.com.", pdnsapi.ZoneQuery{})
	require.Error(t, err)
	err2 := c.PatchZone(context.Background(), "example.com.", nil)
	require.Error(t, err2)
	for _, e := range []error{err, err2} {
		assert.NotContains(t, fmt.Sprintf("%v %+v %#v", e, e, e), "s3cr3t-pw")
	}
}
