package errors

// RefusesContent reports whether PowerDNS refused what the request carried
// (400 Bad Request, 413 Content Too Large, 422 Unprocessable Entity), as
// opposed to the request failing or the caller lacking the right to make
// it. A write of several RRsets refused so can be split to find the RRsets
// refused; nothing else can.
func (e *APIError) RefusesContent() bool {
	switch e.StatusCode {
	case 400, 413, 422:
		return true
	}
	return false
}

// TooLarge reports a 413 answer: the body was over the server's limit
// (webserver-max-bodysize). It names no RRset, however many it held.
func (e *APIError) TooLarge() bool { return e.StatusCode == 413 }
