package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// FrontendHeader is set by the round-robin of a server with Frontends on
// every answer: the index in Server.Frontends of the instance that
// answered.
const FrontendHeader = "X-Pdnstest-Frontend"

// roundRobin is an HTTP proxy that sends each request to the next of its
// frontends in turn, whatever connection it came on: consecutive requests
// of one client, kept-alive or not, land on different instances, as they
// may behind a Kubernetes Service (whose connections a client's pool
// spreads over the pods) or an HTTP load balancer.
type roundRobin struct {
	url  string
	next atomic.Uint64
	srv  *http.Server
	ln   net.Listener
}

func startRoundRobin(frontends []string) (*roundRobin, error) {
	if len(frontends) == 0 {
		return nil, errors.New("round-robin without frontends")
	}
	targets := make([]*url.URL, len(frontends))
	index := make(map[string]int, len(frontends))
	for i, f := range frontends {
		u, err := url.Parse(f)
		if err != nil {
			return nil, fmt.Errorf("frontend %q: %w", f, err)
		}
		targets[i] = u
		index[u.Host] = i
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	rr := &roundRobin{url: "http://" + ln.Addr().String(), ln: ln}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 64
	quiet := log.New(io.Discard, "", 0)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			n := rr.next.Add(1) - 1
			pr.SetURL(targets[n%uint64(len(targets))])
		},
		Transport: transport,
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Set(FrontendHeader, strconv.Itoa(index[resp.Request.URL.Host]))
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set(FrontendHeader, strconv.Itoa(index[req.URL.Host]))
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "Bad Gateway: frontend %d did not answer: %v\n", index[req.URL.Host], err)
		},
		ErrorLog: quiet,
	}
	rr.srv = &http.Server{Handler: proxy, ReadHeaderTimeout: 30 * time.Second, ErrorLog: quiet}
	go func() { _ = rr.srv.Serve(ln) }()
	return rr, nil
}

// close stops the round-robin and drops its connections.
func (rr *roundRobin) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := rr.srv.Shutdown(ctx); err != nil {
		return rr.srv.Close()
	}
	return nil
}
