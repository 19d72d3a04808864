#!/usr/bin/env bash
# Builds the demo EAR and a provisioned WildFly, then runs them. Needs only JDK 17 and Maven.
# Database: PostgreSQL when PROJECTION_DB_URL (and _USER, _PASSWORD) is set, else an embedded H2 file
# database under target/demo/, kept across restarts of this command.
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q -DskipTests -pl projection-ear,wildfly-config -am install

# The console's users: their passwords come from the environment when the server starts. Without them the
# demo falls back to documented demo passwords, and says so loudly: never use these outside the demo.
demo_passwords=""
if [ -z "${PROJECTION_ADMIN_PASSWORD:-}" ]; then export PROJECTION_ADMIN_PASSWORD=demo-admin; demo_passwords=yes; fi
if [ -z "${PROJECTION_VIEWER_PASSWORD:-}" ]; then export PROJECTION_VIEWER_PASSWORD=demo-viewer; demo_passwords=yes; fi
# a mark that fails 8 times (about 15 minutes of backoff) is parked for an operator; an environment variable
# overrides any packaged setting (docs/guide/configuration.md)
export PROJECTION_MAX_ATTEMPTS="${PROJECTION_MAX_ATTEMPTS:-8}"

server=wildfly-config/target/server
base=target/demo/standalone
mkdir -p "$base"
# A server base directory of its own: the provisioned server stays clean for the tests, and the demo's
# data directory (H2 database) survives rebuilds.
cp -r "$server/standalone/configuration" "$base/"
mkdir -p "$base/deployments"
rm -f "$base"/deployments/projection-ear.ear.*
cp projection-ear/target/projection-ear.ear "$base/deployments/"
if [ -n "$demo_passwords" ]; then
  echo "!!! Console users get DEMO passwords (admin / $PROJECTION_ADMIN_PASSWORD, viewer / $PROJECTION_VIEWER_PASSWORD): for the demo only !!!"
fi

# The server's JVM must not outlive this script, whatever stops it. standalone.sh relays signals to the JVM only
# when it runs it in the background, and then records its pid: a run stopped by kill -9 (which no trap sees)
# leaves that pid behind, and the next run stops that server before starting its own.
export LAUNCH_JBOSS_IN_BACKGROUND=1
pidfile="$PWD/target/demo/server.pid"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "Stopping the demo server an earlier run left behind (pid $(cat "$pidfile"))"
  kill "$(cat "$pidfile")" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$(cat "$pidfile")" 2>/dev/null || break; sleep 1; done
fi
rm -f "$pidfile"
JBOSS_PIDFILE="$pidfile" "$server/bin/standalone.sh" -Djboss.server.base.dir="$PWD/$base" "$@" &
pid=$!
stop_server() {
  trap - INT TERM HUP EXIT
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
trap stop_server INT TERM HUP EXIT
for _ in $(seq 1 120); do
  if [ -f "$base/deployments/projection-ear.ear.deployed" ]; then
    echo
    echo "================================================================"
    echo " Projections demo is running."
    echo "   Console:  http://localhost:8080/projections/"
    if [ -n "$demo_passwords" ]; then
      echo "     log in as admin / $PROJECTION_ADMIN_PASSWORD (may act) or viewer / $PROJECTION_VIEWER_PASSWORD (may look)"
      echo "     !!! DEMO PASSWORDS, for this demo only: set PROJECTION_ADMIN_PASSWORD and"
      echo "     !!! PROJECTION_VIEWER_PASSWORD before starting any real server."
    else
      echo "     log in as admin or viewer with PROJECTION_ADMIN_PASSWORD / PROJECTION_VIEWER_PASSWORD"
    fi
    echo "   Demo API: http://localhost:8080/demo/api/orders"
    echo "   Try: curl -X POST -H 'Content-Type: application/json' \\"
    echo "          -d '{\"customer\":\"alice\",\"lines\":[{\"sku\":\"a\",\"quantity\":2,\"price\":9.5}]}' \\"
    echo "          http://localhost:8080/demo/api/orders"
    echo " Stop with Ctrl+C."
    echo "================================================================"
    break
  fi
  if [ -f "$base/deployments/projection-ear.ear.failed" ]; then
    echo "The demo EAR failed to deploy:" >&2
    cat "$base/deployments/projection-ear.ear.failed" >&2
    break
  fi
  sleep 1
done
wait $pid
