package faultproxy

import (
	"net/http"
	"regexp"
)

// Paths of the PowerDNS API, for Rule.Path.
var (
	// ZonePath matches a zone: GET reads it, PATCH writes its RRsets.
	ZonePath = regexp.MustCompile(`/servers/[^/]+/zones/[^/]+$`)
	// MetadataPath matches a zone's metadata list and its kinds (the zone
	// lock and the ownership claims live there).
	MetadataPath = regexp.MustCompile(`/servers/[^/]+/zones/[^/]+/metadata(/[^/]+)?$`)
	// ServerPath matches the server's description and its configuration,
	// read once per Reconciler to pick the ownership store.
	ServerPath = regexp.MustCompile(`/servers/[^/]+(/config)?$`)
)

// Rule says which requests get a Fault.
type Rule struct {
	// Method matches the request method; "" matches any.
	Method string
	// Path matches the request path; nil matches any.
	Path *regexp.Regexp
	// Skip lets this many matching requests through before the fault
	// applies.
	Skip int
	// Times is how many matching requests, after Skip, get the fault; 0
	// means every one.
	Times int
	// Fault is what those requests get.
	Fault Fault
}

// rule is a Rule with its counter of matched requests.
type rule struct {
	Rule
	seen int
}

// take reports whether r gets the rule's fault, counting it when it matches.
func (ru *rule) take(r *http.Request) bool {
	if ru.Method != "" && ru.Method != r.Method {
		return false
	}
	if ru.Path != nil && !ru.Path.MatchString(r.URL.Path) {
		return false
	}
	ru.seen++
	n := ru.seen - ru.Skip
	return n > 0 && (ru.Times == 0 || n <= ru.Times)
}
