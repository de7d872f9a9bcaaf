# Sourced by .ci/run (and usable by hand: `source .ci/pgtest.sh`): starts a
# throwaway Postgres cluster of its own (trust authentication, listening on
# 127.0.0.1 only, in a temporary folder), exports DATABASE_URL for the
# Postgres tests, and stops and removes the cluster when the shell exits.
# Debian's postgresql is installed first when its binaries are missing.
# When no cluster can be started it says why and leaves DATABASE_URL
# unset, and the tests skip. It sets the EXIT trap (the caller should not
# rely on one of its own). Safe under `set -euo pipefail`.

pgtest_port=${PGTEST_PORT:-55432}

# pgtest_free_port moves pgtest_port past ports something already
# listens on (another cluster, another run).
pgtest_free_port() {
	local i
	for i in $(seq 0 50); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$pgtest_port") 2>/dev/null; then
			return 0
		fi
		pgtest_port=$((pgtest_port + 1))
	done
}

pgtest_bin() {
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true
}

# pgtest_as runs a command as the cluster's owner: root may not run
# Postgres, so as root that is the postgres user Debian's package makes.
pgtest_as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pgtest_setup() {
	local bin
	bin=$(pgtest_bin)
	if [ -z "$bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "== pgtest: installing Debian's postgresql"
		if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null); then
			echo "!! pgtest: could not install postgresql: the Postgres tests will skip"
			return 0
		fi
		bin=$(pgtest_bin)
	fi
	if [ -z "$bin" ]; then
		echo "!! pgtest: no Postgres binaries (apt-get install postgresql): the Postgres tests will skip"
		return 0
	fi
	pgtest_free_port
	PGTEST_DIR=$(mktemp -d /tmp/textbook-rag-pg.XXXXXX)
	trap pgtest_stop EXIT
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$PGTEST_DIR"
	fi
	if ! pgtest_as "$bin/initdb" -D "$PGTEST_DIR/data" -A trust -U postgres --no-sync >"$PGTEST_DIR/initdb.log" 2>&1; then
		echo "!! pgtest: initdb failed (see below): the Postgres tests will skip"
		tail -n 5 "$PGTEST_DIR/initdb.log"
		return 0
	fi
	if ! pgtest_as "$bin/pg_ctl" -D "$PGTEST_DIR/data" -l "$PGTEST_DIR/server.log" -w -t 60 \
		-o "-p $pgtest_port -k $PGTEST_DIR -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null; then
		echo "!! pgtest: the cluster did not start (see below): the Postgres tests will skip"
		tail -n 5 "$PGTEST_DIR/server.log"
		return 0
	fi
	PGTEST_BIN=$bin
	if ! "$bin/psql" "postgres://postgres@127.0.0.1:${pgtest_port}/postgres?sslmode=disable" -v ON_ERROR_STOP=1 -Atqc 'CREATE DATABASE textbook_rag_test' >/dev/null; then
		echo "!! pgtest: could not create the test database: the Postgres tests will skip"
		return 0
	fi
	export DATABASE_URL="postgres://postgres@127.0.0.1:${pgtest_port}/textbook_rag_test?sslmode=disable"
	echo "== pgtest: a throwaway cluster in $PGTEST_DIR; DATABASE_URL=$DATABASE_URL"
}

pgtest_stop() {
	if [ -n "${PGTEST_DIR:-}" ]; then
		if [ -n "${PGTEST_BIN:-}" ]; then
			pgtest_as "$PGTEST_BIN/pg_ctl" -D "$PGTEST_DIR/data" -m immediate stop >/dev/null 2>&1 || true
		fi
		rm -rf "$PGTEST_DIR"
		PGTEST_DIR=
	fi
}

pgtest_setup
