// Package reconcile writes DNS records into PowerDNS Authoritative without
// ever fighting over a name.
//
// A Reconciler reads a zone, diffs it against the desired RRsets (owner names
// and contents canonicalised by package rrset), refuses writes that would
// collide with other data or another writer's RRset (package conflict), and
// applies every allowed change of the zone in one atomic PATCH. PowerDNS's
// answers are classified by package errors; retries and deletions are paced
// by package backoff.
package reconcile
