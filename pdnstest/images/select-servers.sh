#!/usr/bin/env bash
# Decides which real PowerDNS servers the tests and the demo run against, and
# makes them available. Prints `export NAME=value` lines for the harness's
# environment (pdnstest) on stdout; progress goes to stderr.
#
#   eval "$(pdnstest/images/select-servers.sh)"
#
# In order of preference:
#   1. what the caller already chose (PDNS_TEST_PROVIDER / PDNS_TEST_IMAGES /
#      PDNS_TEST_ROOTS set): nothing to do;
#   2. a Docker engine and the official powerdns/pdns-auth-* images (present,
#      or pulled from a registry): the harness's defaults;
#   3. a Docker engine and no registry: pdnskit/pdns-auth:{4.7,4.9,5.1} built
#      from Debian's packages (build.sh);
#   4. no Docker, as root: the same Debian roots, run with chroot;
#   5. no Docker: the pdns_server on PATH (apt-get install pdns-server
#      pdns-backend-sqlite3 pdns-backend-lmdb pdns-backend-pgsql
#      pdns-backend-mysql sqlite3 postgresql mariadb-server).
# Every way runs gsqlite3 on 4.7, 4.9 and 5.1, and LMDB, gpgsql (two
# frontends on one PostgreSQL database, behind a round-robin) and gmysql
# (the same on one MariaDB database) on 4.9 and 5.1; PDNS_TEST_WITH_GMYSQL=0
# leaves gmysql out. The PostgreSQL is pdnskit/postgres:15 or its Debian
# root, the MariaDB pdnskit/mariadb:10.11 or its Debian root, built by
# build.sh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
log() { printf '[servers] %s\n' "$*" >&2; }

# Pinned like the harness's defaults (pdnstest/target.go).
official=(powerdns/pdns-auth-49:4.9.17 powerdns/pdns-auth-51:5.1.4)
local_repo=${PDNS_IMAGE_REPO:-pdnskit/pdns-auth}
postgres_image=${PDNS_POSTGRES_IMAGE_REPO:-pdnskit/postgres}:15
mariadb_image=${PDNS_MARIADB_IMAGE_REPO:-pdnskit/mariadb}:10.11
# gmysql is in the matrix unless PDNS_TEST_WITH_GMYSQL=0 (a machine
# without MariaDB's packages, or a quicker run).
with_gmysql=${PDNS_TEST_WITH_GMYSQL:-1}
# gmysql_list prints its argument, or none where gmysql is left out;
# gmysql_root is the MariaDB root to build, none where it is left out.
gmysql_list() { if [ "$with_gmysql" = 1 ]; then echo "$1"; else echo none; fi; }
gmysql_root=
[ "$with_gmysql" = 1 ] && gmysql_root=mariadb

if [ -n "${PDNS_TEST_PROVIDER:-}${PDNS_TEST_IMAGES:-}${PDNS_TEST_ROOTS:-}" ]; then
	log "using the servers configured in the environment"
	exit 0
fi

ensure_debootstrap() {
	command -v debootstrap >/dev/null && return
	log "installing debootstrap"
	# Quietly: apt's progress is of no interest here and stdout is for exports.
	apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
}

if docker info >/dev/null 2>&1; then
	have_official=1
	for img in "${official[@]}"; do
		if docker image inspect "$img" >/dev/null 2>&1; then continue; fi
		log "pulling $img"
		if ! docker pull -q "$img" >/dev/null 2>&1; then
			have_official=0
			break
		fi
	done
	if [ $have_official = 1 ]; then
		log "Docker: official images ${official[*]}"
		echo "export PDNS_TEST_PROVIDER=container"
		echo "export PDNS_TEST_POSTGRES_IMAGE=$postgres_image"
		echo "export PDNS_TEST_MARIADB_IMAGE=$mariadb_image"
		if docker image inspect "$postgres_image" >/dev/null 2>&1 ||
			{ [ "$(id -u)" = 0 ] && ensure_debootstrap && "$here/build.sh" postgres; }; then
			echo "export PDNS_TEST_GPGSQL_IMAGES=${official[0]},${official[1]}"
		else
			log "no $postgres_image and no way to build it (build.sh needs root): no gpgsql servers"
			echo "export PDNS_TEST_GPGSQL_IMAGES=none"
		fi
		if [ "$with_gmysql" != 1 ]; then
			echo "export PDNS_TEST_GMYSQL_IMAGES=none"
		elif docker image inspect "$mariadb_image" >/dev/null 2>&1 ||
			{ [ "$(id -u)" = 0 ] && ensure_debootstrap && "$here/build.sh" mariadb; }; then
			echo "export PDNS_TEST_GMYSQL_IMAGES=$(gmysql_list "${official[0]},${official[1]}")"
		else
			log "no $mariadb_image and no way to build it (build.sh needs root): no gmysql servers"
			echo "export PDNS_TEST_GMYSQL_IMAGES=none"
		fi
		exit 0
	fi
	log "Docker, but the official images cannot be pulled: building $local_repo:{4.7,4.9,5.1} and $postgres_image${gmysql_root:+ and $mariadb_image} from Debian's packages"
	ensure_debootstrap
	# shellcheck disable=SC2086 # $gmysql_root is empty or one word
	"$here/build.sh" 4.7 4.9 5.1 postgres $gmysql_root
	echo "export PDNS_TEST_PROVIDER=container"
	echo "export PDNS_TEST_IMAGES=$local_repo:4.7,$local_repo:4.9,$local_repo:5.1"
	echo "export PDNS_TEST_LMDB_IMAGES=$local_repo:4.9,$local_repo:5.1"
	echo "export PDNS_TEST_GPGSQL_IMAGES=$local_repo:4.9,$local_repo:5.1"
	echo "export PDNS_TEST_POSTGRES_IMAGE=$postgres_image"
	echo "export PDNS_TEST_GMYSQL_IMAGES=$(gmysql_list "$local_repo:4.9,$local_repo:5.1")"
	echo "export PDNS_TEST_MARIADB_IMAGE=$mariadb_image"
	exit 0
fi

if [ "$(id -u)" = 0 ] && { command -v debootstrap >/dev/null || command -v apt-get >/dev/null; }; then
	log "no Docker engine: running pdns_server 4.7, 4.9 and 5.1 and PostgreSQL${gmysql_root:+ and MariaDB} from Debian roots with chroot"
	ensure_debootstrap
	# shellcheck disable=SC2086 # $gmysql_root is empty or one word
	"$here/build.sh" --no-docker 4.7 4.9 5.1 postgres $gmysql_root
	roots=${PDNS_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pdnskit/roots}
	echo "export PDNS_TEST_PROVIDER=process"
	echo "export PDNS_TEST_GPGSQL_ROOTS=$roots/4.9,$roots/5.1"
	echo "export PDNS_TEST_POSTGRES_ROOT=$roots/postgres"
	echo "export PDNS_TEST_GMYSQL_ROOTS=$(gmysql_list "$roots/4.9,$roots/5.1")"
	echo "export PDNS_TEST_MARIADB_ROOT=$roots/mariadb"
	exit 0
fi

if command -v pdns_server >/dev/null || [ -x /usr/sbin/pdns_server ]; then
	log "no Docker engine: running the local pdns_server"
	echo "export PDNS_TEST_PROVIDER=process"
	exit 0
fi

log "no Docker engine and no pdns_server: install one with"
log "  sudo apt-get install pdns-server pdns-backend-sqlite3 pdns-backend-lmdb sqlite3"
log "or run as root so that Debian roots can be built; integration tests will skip"
echo "export PDNS_TEST_PROVIDER=process"
