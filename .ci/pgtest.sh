# Sourced by .ci/run (and usable by hand: `source .ci/pgtest.sh`): creates a
# throwaway Postgres database on the local server, exports DATABASE_URL for
# the Postgres tests and drops the database when the shell exits. When no
# server answers it tries once to start the local cluster; if it is still
# down it says so and leaves DATABASE_URL unset, and the tests skip.
# It sets the EXIT trap (the caller should not rely on one of its own).
# Safe under `set -euo pipefail`.

pgtest_host=${PGTEST_HOST:-127.0.0.1}
pgtest_port=${PGTEST_PORT:-5432}
pgtest_user=${PGTEST_USER:-postgres}
pgtest_admin="postgres://${pgtest_user}@${pgtest_host}:${pgtest_port}/postgres?sslmode=disable"

pgtest_up() {
	if command -v pg_isready >/dev/null 2>&1; then
		pg_isready -q -h "$pgtest_host" -p "$pgtest_port" -t 5
	else
		psql "$pgtest_admin" -Atqc 'SELECT 1' >/dev/null 2>&1
	fi
}

pgtest_setup() {
	if ! command -v psql >/dev/null 2>&1; then
		echo "!! pgtest: psql is not installed: the Postgres tests will skip"
		return 0
	fi
	if ! pgtest_up; then
		echo "== pgtest: no Postgres at ${pgtest_host}:${pgtest_port}; trying to start the local cluster"
		local version
		version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1 || true)
		if [ -n "$version" ] && command -v pg_ctlcluster >/dev/null 2>&1; then
			pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
			local i
			for i in 1 2 3 4 5 6 7 8 9 10; do
				pgtest_up && break
				sleep 1
			done
		fi
		if ! pgtest_up; then
			echo "!! pgtest: Postgres is not reachable at ${pgtest_host}:${pgtest_port}: DATABASE_URL is not set and the Postgres tests will skip"
			return 0
		fi
	fi
	local name="textbook_rag_test_$(date +%Y%m%d%H%M%S)_$$"
	if ! psql "$pgtest_admin" -v ON_ERROR_STOP=1 -Atqc "CREATE DATABASE \"$name\"" >/dev/null; then
		echo "!! pgtest: could not create database $name: DATABASE_URL is not set and the Postgres tests will skip"
		return 0
	fi
	PGTEST_DATABASE=$name
	trap pgtest_drop EXIT
	export DATABASE_URL="postgres://${pgtest_user}@${pgtest_host}:${pgtest_port}/${name}?sslmode=disable"
	echo "== pgtest: created database $name; DATABASE_URL=$DATABASE_URL"
}

pgtest_drop() {
	if [ -n "${PGTEST_DATABASE:-}" ]; then
		psql "$pgtest_admin" -Atqc "DROP DATABASE IF EXISTS \"$PGTEST_DATABASE\" WITH (FORCE)" >/dev/null 2>&1 ||
			echo "!! pgtest: could not drop database $PGTEST_DATABASE"
		PGTEST_DATABASE=
	fi
}

pgtest_setup
