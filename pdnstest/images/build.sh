#!/usr/bin/env bash
# Builds PowerDNS Authoritative test images from Debian's own packages, for
# machines that cannot pull the official powerdns/pdns-auth-* images.
#
#   build.sh [--no-docker] [NAME ...]     NAME is 4.7, 4.9, 5.1, postgres or mariadb (default: all)
#
# For each PowerDNS version it makes a Debian root with debootstrap (bookworm
# ships 4.7, trixie 4.9, sid 5.1), configures it like the official images
# (sqlite database at /var/lib/powerdns/pdns.sqlite3 with the schema loaded, API
# on 8081, DNS on 53, arguments appended to pdns_server; the LMDB, PostgreSQL
# and MySQL backends installed too) and imports it as pdnskit/pdns-auth:VERSION.
# "postgres" makes a Debian bookworm root with PostgreSQL 15 and PgBouncer, the
# database the gpgsql servers of the matrix share, and imports it as
# pdnskit/postgres:15.
# "mariadb" makes a Debian bookworm root with MariaDB 10.11, the database the
# gmysql servers of the matrix share, and imports it as pdnskit/mariadb:10.11.
# The roots are kept in $PDNS_ROOTS_DIR (default ~/.cache/pdnskit/roots) and are
# what the harness's process provider runs with chroot where Docker is absent.
#
# A second run reuses a root whose recipe has not changed and an image built
# from that root, so it takes seconds. Needs root (debootstrap, chroot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
roots_dir=${PDNS_ROOTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pdnskit/roots}
repo=${PDNS_IMAGE_REPO:-pdnskit/pdns-auth}
postgres_repo=${PDNS_POSTGRES_IMAGE_REPO:-pdnskit/postgres}
mariadb_repo=${PDNS_MARIADB_IMAGE_REPO:-pdnskit/mariadb}
# Mirror: debootstrap's own default unless the caller names one.
mirror=${DEBIAN_MIRROR:-}
use_docker=1

log() { printf '[images] %s\n' "$*" >&2; }
die() { printf '[images] error: %s\n' "$*" >&2; exit 1; }

suite_of() {
	case "$1" in
	4.7 | postgres | mariadb) echo bookworm ;;
	4.9) echo trixie ;;
	5.1) echo sid ;;
	*) die "unknown root '$1' (want 4.7, 4.9, 5.1, postgres or mariadb)" ;;
	esac
}

pdns_packages=pdns-server,pdns-backend-sqlite3,pdns-backend-lmdb,pdns-backend-pgsql,pdns-backend-mysql,sqlite3,tini
# PgBouncer: PowerDNS's API connects to the database for every request,
# and a PostgreSQL connection costs a fork; the harness pools them.
postgres_packages=postgresql-15,pgbouncer,tini
# MariaDB as Debian ships it; its client loads the schema of each database.
mariadb_packages=mariadb-server,mariadb-client,tini

packages_of() {
	case "$1" in
	postgres) echo "$postgres_packages" ;;
	mariadb) echo "$mariadb_packages" ;;
	*) echo "$pdns_packages" ;;
	esac
}

# The recipe: everything that decides what a root contains (its packages and
# how it is configured). A root or an image built from another recipe is
# rebuilt; an edit elsewhere in this script rebuilds nothing.
recipe_hash() {
	local name=$1
	{
		packages_of "$name"
		if [ "$name" = postgres ]; then
			declare -f configure_postgres
			cat "$here/postgres-start"
		elif [ "$name" = mariadb ]; then
			declare -f configure_mariadb
			cat "$here/mariadb-start"
		else
			declare -f configure_root
			cat "$here/pdns.conf" "$here/pdns-start"
		fi
	} | sha256sum | cut -c1-16
}

build_root() {
	local version=$1 suite root stamp hash
	suite=$(suite_of "$version")
	root="$roots_dir/$version"
	stamp="$root/.pdnskit-recipe"
	hash=$(recipe_hash "$version")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
		log "$version: reusing Debian $suite root at $root"
		return
	fi
	log "$version: building a Debian $suite root at $root (a few minutes the first time)"
	rm -rf "$root" "$root.tmp"
	mkdir -p "$root.tmp"
	# shellcheck disable=SC2086 # $mirror is empty or one word
	debootstrap --variant=minbase --include="$(packages_of "$version")" "$suite" "$root.tmp" $mirror \
		>"$roots_dir/$version.debootstrap.log" 2>&1 ||
		die "$version: debootstrap failed; see $roots_dir/$version.debootstrap.log"
	if [ "$version" = postgres ]; then
		configure_postgres "$root.tmp"
	elif [ "$version" = mariadb ]; then
		configure_mariadb "$root.tmp"
	else
		configure_root "$root.tmp"
	fi
	slim_root "$root.tmp"
	echo "$hash" >"$root.tmp/.pdnskit-recipe"
	mv "$root.tmp" "$root"
	local pkg=pdns-server
	[ "$version" = postgres ] && pkg=postgresql-15
	[ "$version" = mariadb ] && pkg=mariadb-server
	log "$version: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}' $pkg)"
}

configure_root() {
	local root=$1
	# Configuration as in the official images: sqlite by default, anything
	# else (API, webserver, launch=lmdb) given as arguments.
	rm -rf "$root/etc/powerdns/pdns.d"
	mkdir -p "$root/etc/powerdns/pdns.d"
	install -m 0644 "$here/pdns.conf" "$root/etc/powerdns/pdns.conf"
	install -m 0755 "$here/pdns-start" "$root/usr/local/sbin/pdns-start"
	mkdir -p "$root/usr/share/pdnskit"
	local schema=/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql
	chroot "$root" sqlite3 /usr/share/pdnskit/empty.sqlite3 <"$root$schema"
	rm -f "$root/var/lib/powerdns/pdns.sqlite3"
	cp "$root/usr/share/pdnskit/empty.sqlite3" "$root/var/lib/powerdns/pdns.sqlite3"
	# pdns_server runs as pdns and keeps its control socket here.
	mkdir -p "$root/run/pdns"
	chroot "$root" chown -R pdns:pdns /var/lib/powerdns /run/pdns
	# The schema a gpgsql server's database needs, kept where the harness
	# reads it (the path moved between Debian releases).
	local pgschema
	pgschema=$(cd "$root" && ls usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql usr/share/doc/pdns-backend-pgsql/schema.pgsql.sql 2>/dev/null | head -1)
	[ -n "$pgschema" ] && install -m 0644 "$root/$pgschema" "$root/usr/share/pdnskit/schema.pgsql.sql"
	# And a gmysql server's.
	local myschema
	myschema=$(cd "$root" && ls usr/share/pdns-backend-mysql/schema/schema.mysql.sql usr/share/doc/pdns-backend-mysql/schema.mysql.sql 2>/dev/null | head -1)
	[ -n "$myschema" ] && install -m 0644 "$root/$myschema" "$root/usr/share/pdnskit/schema.mysql.sql"
	return 0
}

# configure_postgres makes a PostgreSQL root holding a cluster (trust
# authentication on the listening address: a test database on a private
# network), made now by postgres-start so that a container starts in about a
# second rather than seven, and whose postgres-start runs the server in the
# foreground.
configure_postgres() {
	local root=$1 uid gid
	install -m 0755 "$here/postgres-start" "$root/usr/local/sbin/postgres-start"
	mkdir -p "$root/var/lib/pdnskit-postgres" "$root/run/postgresql"
	chroot "$root" chown postgres:postgres /var/lib/pdnskit-postgres /run/postgresql
	# The cluster Debian made at install time is not used.
	rm -rf "$root/var/lib/postgresql/15/main" "$root/etc/postgresql/15/main"
	uid=$(chroot "$root" id -u postgres)
	gid=$(chroot "$root" id -g postgres)
	chroot --userspec="$uid:$gid" "$root" /usr/local/sbin/postgres-start --init-only
}

# configure_mariadb makes a MariaDB root holding a data directory made now by
# mariadb-start, so that a container starts in about a second, and whose
# mariadb-start runs the server in the foreground.
configure_mariadb() {
	local root=$1 uid gid
	install -m 0755 "$here/mariadb-start" "$root/usr/local/sbin/mariadb-start"
	mkdir -p "$root/var/lib/pdnskit-mariadb" "$root/run/mysqld"
	chroot "$root" chown mysql:mysql /var/lib/pdnskit-mariadb /run/mysqld
	# The data directory Debian made at install time is not used.
	rm -rf "$root/var/lib/mysql"
	mkdir -p "$root/var/lib/mysql"
	chroot "$root" chown mysql:mysql /var/lib/mysql
	uid=$(chroot "$root" id -u mysql)
	gid=$(chroot "$root" id -g mysql)
	chroot --userspec="$uid:$gid" "$root" /usr/local/sbin/mariadb-start --init-only
}

# slim_root drops what no server needs; it only makes images larger.
slim_root() {
	local root=$1
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
		"$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
}

build_image() {
	local version=$1 root image hash have
	root="$roots_dir/$version"
	image="$repo:$version"
	if [ "$version" = postgres ]; then
		build_postgres_image "$root"
		return
	fi
	if [ "$version" = mariadb ]; then
		build_mariadb_image "$root"
		return
	fi
	hash=$(cat "$root/.pdnskit-recipe")
	have=$(docker image inspect -f '{{ index .Config.Labels "org.pdnskit.recipe" }}' "$image" 2>/dev/null || true)
	if [ "$have" = "$hash" ]; then
		log "$version: image $image is up to date"
		return
	fi
	log "$version: importing $image"
	tar -C "$root" --exclude=./.pdnskit-recipe --numeric-owner -c . |
		docker import \
			-c 'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/sbin/pdns-start"]' \
			-c 'USER pdns' \
			-c 'EXPOSE 53/tcp 53/udp 8081/tcp' \
			-c "LABEL org.pdnskit.recipe=$hash" \
			-c "LABEL org.pdnskit.powerdns=$version" \
			-m "PowerDNS Authoritative $version from Debian $(suite_of "$version")" \
			- "$image" >/dev/null
}

build_postgres_image() {
	local root=$1 image=$postgres_repo:15 hash have
	hash=$(cat "$root/.pdnskit-recipe")
	have=$(docker image inspect -f '{{ index .Config.Labels "org.pdnskit.recipe" }}' "$image" 2>/dev/null || true)
	if [ "$have" = "$hash" ]; then
		log "postgres: image $image is up to date"
		return
	fi
	log "postgres: importing $image"
	tar -C "$root" --exclude=./.pdnskit-recipe --numeric-owner -c . |
		docker import \
			-c 'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/sbin/postgres-start"]' \
			-c 'USER postgres' \
			-c 'EXPOSE 5432/tcp' \
			-c "LABEL org.pdnskit.recipe=$hash" \
			-m "PostgreSQL 15 from Debian bookworm" \
			- "$image" >/dev/null
}

build_mariadb_image() {
	local root=$1 image=$mariadb_repo:10.11 hash have
	hash=$(cat "$root/.pdnskit-recipe")
	have=$(docker image inspect -f '{{ index .Config.Labels "org.pdnskit.recipe" }}' "$image" 2>/dev/null || true)
	if [ "$have" = "$hash" ]; then
		log "mariadb: image $image is up to date"
		return
	fi
	log "mariadb: importing $image"
	tar -C "$root" --exclude=./.pdnskit-recipe --numeric-owner -c . |
		docker import \
			-c 'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/sbin/mariadb-start"]' \
			-c 'USER mysql' \
			-c 'EXPOSE 3306/tcp' \
			-c "LABEL org.pdnskit.recipe=$hash" \
			-m "MariaDB 10.11 from Debian bookworm" \
			- "$image" >/dev/null
}

main() {
	local versions=()
	for arg in "$@"; do
		case "$arg" in
		--no-docker) use_docker=0 ;;
		-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
		*) versions+=("$arg") ;;
		esac
	done
	[ ${#versions[@]} -gt 0 ] || versions=(4.7 4.9 5.1 postgres mariadb)
	[ "$(id -u)" = 0 ] || die "debootstrap and chroot need root; run as root (or with sudo)"
	command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install -y debootstrap"
	mkdir -p "$roots_dir"

	# The roots are independent downloads: build them side by side.
	local pids=() v
	for v in "${versions[@]}"; do
		suite_of "$v" >/dev/null
		build_root "$v" &
		pids+=($!)
	done
	local failed=0 pid
	for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
	[ $failed = 0 ] || die "some roots failed to build"

	if [ $use_docker = 1 ]; then
		for v in "${versions[@]}"; do build_image "$v"; done
	fi
}

main "$@"
