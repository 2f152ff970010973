// Package metrics counts what a Reconciler does to PowerDNS, for
// Prometheus.
//
// New returns a Metrics, which is both a prometheus.Collector and a
// reconcile.Observer: register it with a prometheus.Registry and give it to
// one or more Reconcilers with reconcile.WithObserver. Every family counts
// what the Reconcilers that have it did. No label is a zone, name or owner:
// each takes its values from a small fixed set (taken, of the lock waits,
// is "true" or "false"), so the number of series stays bounded whatever the
// number of zones.
//
// The families:
//
//   - pdnskit_requests_total{method, code}: HTTP requests to the PowerDNS
//     API, retries included; code is the answer's status ("200", "422"), or
//     "error" when there was no answer (a transport error or a timeout).
//   - pdnskit_request_duration_seconds{method}: a histogram of the time from
//     sending a request to its answer's headers, or to its failure.
//   - pdnskit_operations_total{operation, reason}: operations that returned;
//     operation is sync, plan, apply, remove, verify, ensure_zone,
//     delete_zone, zone_status or free_lock (a zone lock kept between
//     operations, freed
//     when its hold ran out or by Close: requests in no other operation's
//     Result), and reason is the reconcile.ConditionReason their Result
//     and error give (Programmed, Conflict, NotOwner, PDNSError, Pending,
//     InvalidInput, ZoneNotFound, ZoneInUse).
//   - pdnskit_operation_duration_seconds{operation}: a histogram of the time
//     from an operation's call to its return, waits for locks included.
//   - pdnskit_changes_total{op}: changes PowerDNS accepted (Result.Applied),
//     by op: create, update or delete.
//   - pdnskit_blocked_total{kind}: writes blocked before PowerDNS saw them
//     (Result.Blocked), by conflict.Kind.
//   - pdnskit_refused_total{reason}: changes PowerDNS refused
//     (Result.Refused), once per change, by the errors.Reason of its first
//     problem (errors.Unknown when it has none).
//   - pdnskit_deferred_total{reason}: deletes held back on purpose
//     (Result.Deferred), by reconcile.DeferReason.
//   - pdnskit_postponed_total: changes not sent because another writer held
//     the zone lock (Result.Postponed).
//   - pdnskit_lock_wait_seconds{taken}: a histogram of the waits for a zone
//     lock, from the first attempt to holding the lock or giving up. The
//     label taken is "true" when the operation took the lock and "false"
//     when it did not: another writer held it past reconcile.WithLockWait
//     (the operation postponed its writes), the attempt failed, the
//     context ended, or the operation found it had nothing to send (a
//     create blocked by what the zone holds, decided without the lock). The count of the taken="false" series is the number of
//     waits that ended without the lock.
//
// The outcome families (changes, blocked, refused, deferred, postponed)
// count what each Sync, Apply and Remove reports, every time it reports
// it: an RRset that stays blocked, refused or deferred is counted by every
// operation that finds it so (a refused change that is not sent again,
// reconcile.Refusal's Remembered, too), so a rate above zero means something
// is still stuck. Plan writes nothing and reports what a Sync would do, so it counts
// only in the request and operation families; counting its Result would
// count every planned change twice once the Sync runs. Verify, EnsureZone
// and DeleteZone report no changes.
//
// The histograms' buckets, in seconds:
//
//   - requests: 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
//     (an API request takes milliseconds; the top buckets catch the
//     timeouts of a server that does not answer);
//   - operations: 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
//     120 (an operation is a few requests, and a Sync of a zone of many
//     thousands of RRsets, or one that waits out retries, takes tens of
//     seconds);
//   - lock waits: 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3,
//     5, 10 (an uncontended lock is taken in one request; an operation gives
//     up after reconcile.DefaultLockWait, 3 s, unless
//     reconcile.WithLockWait says otherwise).
//
// Package metrics does not serve the metrics: the program exposes the
// registry it registers them with, as it does its other metrics.
package metrics
