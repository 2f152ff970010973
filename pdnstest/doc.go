// Package pdnstest starts real PowerDNS Authoritative servers for tests: in
// containers through testcontainers-go where a Docker engine answers, or as
// local pdns_server processes (from PATH or inside a Debian root, run with
// chroot) where it does not. There is no mock server.
//
// Every integration test runs against every configured server (ForEachServer);
// servers are shared per test binary and tests are isolated by zone (NewZone).
// A server runs one of three backends: gsqlite3, LMDB, or gpgsql, which is run
// as PowerDNS is deployed at scale: two pdns_server frontends on one
// PostgreSQL database behind a round-robin that sends consecutive API
// requests to alternate frontends (Server.URL), each frontend with its own
// API, DNS port and caches (Server.Frontends).
package pdnstest
