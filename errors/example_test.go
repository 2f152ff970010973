package errors_test

import (
	"fmt"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

func ExampleParse() {
	// What PowerDNS 4.x answers when a CNAME would sit next to an A RRset.
	body := []byte(`{"error": "RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset"}`)
	err := pdnserrors.Parse(422, body)

	p := err.Problems[0]
	fmt.Println(p.Reason, p.Name, p.Type)
	fmt.Println(err)
	// Output:
	// Conflict v4.example.com. CNAME
	// powerdns: 422 Unprocessable Entity: RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset
}

func ExampleParse_multipleErrors() {
	// PowerDNS 5.1 reports every refused RRset of a PATCH at once.
	body := []byte(`{"error": "Multiple errors found in RRset", "errors": [
		"RRset d.example.com. IN A: duplicate record with content \"192.0.2.1\"",
		"RRset v4.example.com. IN CNAME: conflicts with existing A RRset of the same name"]}`)
	err := pdnserrors.Parse(422, body)

	for _, p := range err.Problems {
		fmt.Printf("%-15s %s %s %q\n", p.Reason, p.Name, p.Type, p.Content)
	}
	fmt.Println("refused:", err.Keys())
	// Output:
	// DuplicateRecord d.example.com. A "192.0.2.1"
	// Conflict        v4.example.com. CNAME ""
	// refused: [{d.example.com. A} {v4.example.com. CNAME}]
}

func ExampleIsConflict() {
	var err error = pdnserrors.Parse(422, []byte(`{"error": "Multiple errors found in RRset", "errors": [
		"RRset e.example.com. IN CNAME: only one such record allowed",
		"RRset v4.example.com. IN CNAME: conflicts with existing A RRset of the same name"]}`))
	err = fmt.Errorf("sync zone example.com.: %w", err)

	fmt.Println(pdnserrors.IsConflict(err))
	fmt.Println(pdnserrors.ReasonOf(err))
	fmt.Println(pdnserrors.IsRetryable(err))
	fmt.Println(pdnserrors.IsConflict(nil))
	// Output:
	// true
	// Conflict
	// false
	// false
}

func ExampleIsRetryable() {
	fmt.Println(pdnserrors.IsRetryable(pdnserrors.Parse(503, []byte("Service Unavailable"))))
	fmt.Println(pdnserrors.IsRetryable(pdnserrors.Parse(404, []byte("Not Found"))))
	// Output:
	// true
	// false
}
