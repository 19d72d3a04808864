#!/usr/bin/env bash
# Runs the benchmark suite in a plain JVM against PostgreSQL (default: database projection_bench on
# 127.0.0.1:5432, user postgres, created when missing; its schema is dropped and recreated).
#   benchmarks/run.sh --quick            smoke-sized run (2,000 orders, 1 run), a minute or two
#   benchmarks/run.sh                    50,000 orders, 3 runs per scenario
#   benchmarks/run.sh --runs 1 --big     one run each, plus a rebuild of 1,000,000 orders
#   benchmarks/run.sh --help             every option
#   benchmarks/run.sh --server [--quick] the demo EAR on the provisioned WildFly over HTTP (it-tests' ServerBenchmark):
#                                        business load with marking off/on/refreshing, latency, drain, rebuild, and a
#                                        rebuild of 1,000,000 seeded orders beside live load (--quick: 50,000); its
#                                        tables go to stdout and it-tests/target/server-bench.txt; -Dbench.parts=3,4 (6: from a cold start,
#                                        7: a web node and one, then two processing nodes, 8: part 2 with
#                                        projection.synchronous-commit=off; -Dbench.parts=2,8 sets the two side by side)
#                                        -Dbench.rebuild-repetitions=6 runs the drain and six rebuilds only, and
#                                        -Dbench.server-settings=k=v,k=v sets the engine's settings on the server
# Builds first, offline (MVN_OFFLINE= benchmarks/run.sh lets Maven download what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--server" ]; then
  shift
  sizes=()
  if [ "${1:-}" = "--quick" ]; then
    shift
    sizes=(-Dbench.load-seconds=5 -Dbench.warm-up-seconds=3 -Dbench.drain-orders=5000 -Dbench.live-rebuild-ids=50000 -Dbench.latency-samples=100 -Dbench.sparse-samples=20 -Dbench.quiet-samples=10 -Dbench.live-rebuild-seconds=20 -Dbench.rounds=1)
  fi
  # the EAR, the provisioned server and the test classes, then the one class; the server is started by the test
  mvn -B -q -Dstyle.color=never ${MVN_OFFLINE--o} install -DskipTests -Dinvoker.skip=true >&2
  env -u PROJECTION_TEST_MARIADB_URL \
    PROJECTION_TEST_JDBC_URL="${PROJECTION_TEST_JDBC_URL:-jdbc:postgresql://127.0.0.1:5432/postgres}" \
    PROJECTION_TEST_JDBC_USER="${PROJECTION_TEST_JDBC_USER:-postgres}" \
    mvn -B -Dstyle.color=never ${MVN_OFFLINE--o} -pl it-tests verify -Dit.test=ServerBenchmark -Dinvoker.skip=true \
      -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false "${sizes[@]}" "$@" >&2
  exec cat it-tests/target/server-bench.txt
fi

# what the module depends on, installed from this work tree (the class path names the jars in ~/.m2), then the
# module; Maven's own output goes to stderr, so stdout holds the benchmark's tables only
mvn -B -q -Dstyle.color=never ${MVN_OFFLINE--o} install -DskipTests \
  -pl projection-core,:projection-liquibase,test-support -am >&2
mvn -B -q -Dstyle.color=never ${MVN_OFFLINE--o} -pl benchmarks package -DskipTests >&2

exec java ${BENCH_JAVA_OPTS:--Xmx2g} -cp "benchmarks/target/classes:$(cat benchmarks/target/bench-classpath.txt)" \
  dev.projections.bench.BenchMain "$@"
