package errors_test

import (
	"errors"
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

// A controller classifies what PowerDNS 5.1 answered to a PATCH, several
// RRsets refused at once, and decides per RRset what to do: a conflict is
// another writer's data, to report on the object and not to retry; a
// malformed RRset is the object's own fault.
func Example_classify() {
	body := []byte(`{"error": "Multiple errors found in RRset", "errors": [
		"RRset v4.example.com. IN CNAME: conflicts with existing A RRset of the same name",
		"RRset e.example.com. IN CNAME: only one such record allowed",
		"RRset d.example.com. IN A: duplicate record with content \"192.0.2.1\""]}`)
	err := fmt.Errorf("apply zone example.com.: %w", pdnserrors.Parse(422, body))

	var apiErr *pdnserrors.APIError
	if !errors.As(err, &apiErr) {
		return
	}
	for _, p := range apiErr.Problems {
		switch p.Reason {
		case pdnserrors.Conflict:
			fmt.Printf("%s %s: blocked by other data at the name, not retried\n", p.Name, p.Type)
		case pdnserrors.SingleRecordType, pdnserrors.DuplicateRecord, pdnserrors.InvalidContent:
			fmt.Printf("%s %s: invalid (%s), fix the object\n", p.Name, p.Type, p.Reason)
		default:
			fmt.Printf("%s %s: %s\n", p.Name, p.Type, p.Message)
		}
	}
	fmt.Println("reason of the answer:", pdnserrors.ReasonOf(err), "retry:", pdnserrors.IsRetryable(err))
	// Output:
	// v4.example.com. CNAME: blocked by other data at the name, not retried
	// e.example.com. CNAME: invalid (SingleRecordType), fix the object
	// d.example.com. A: invalid (DuplicateRecord), fix the object
	// reason of the answer: Conflict retry: false
}
