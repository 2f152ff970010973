#!/bin/sh
# Fails when any of the files given holds an API key of the PowerDNS test
# harness (pdnstest.APIKeyPrefix): no error, log line, panic, plan
# or example output that a test or command printed may carry one. Run by
# make test over everything go test printed, and by make reliability.
# It names the files and lines, never the keys.
set -eu
prefix=pdnstest-key-
status=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "no-api-key: $f: no such file" >&2
		status=1
		continue
	fi
	lines=$(grep -n -- "$prefix" "$f" | cut -d: -f1 | head -n 10 | tr '\n' ' ' || true)
	if [ -n "$lines" ]; then
		echo "no-api-key: $f holds an API key of the test harness on line(s) $lines" >&2
		status=1
	fi
done
if [ "$status" = 0 ]; then
	echo "no-api-key: no API key in $*"
fi
exit "$status"
