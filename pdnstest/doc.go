// Package pdnstest starts real PowerDNS Authoritative servers for tests: in
// containers through testcontainers-go where a Docker engine answers, or as
// local pdns_server processes (from PATH or inside a Debian root, run with
// chroot) where it does not. There is no mock server.
//
// Every integration test runs against every configured server (ForEachServer);
// servers are shared per test binary and tests are isolated by zone (NewZone).
package pdnstest
