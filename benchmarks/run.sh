#!/usr/bin/env bash
# Runs the benchmark suite in a plain JVM against PostgreSQL (default: database projection_bench on
# 127.0.0.1:5432, user postgres, created when missing; its schema is dropped and recreated).
#   benchmarks/run.sh --quick            smoke-sized run (2,000 orders, 1 run), a minute or two
#   benchmarks/run.sh                    50,000 orders, 3 runs per scenario
#   benchmarks/run.sh --runs 1 --big     one run each, plus a rebuild of 1,000,000 orders
#   benchmarks/run.sh --help             every option
# Builds first, offline (MVN_OFFLINE= benchmarks/run.sh lets Maven download what is missing).
set -euo pipefail
cd "$(dirname "$0")/.."

# what the module depends on, installed from this work tree (the class path names the jars in ~/.m2), then the
# module; Maven's own output goes to stderr, so stdout holds the benchmark's tables only
mvn -B -q -Dstyle.color=never ${MVN_OFFLINE--o} install -DskipTests \
  -pl projection-core,:projection-liquibase,test-support -am >&2
mvn -B -q -Dstyle.color=never ${MVN_OFFLINE--o} -pl benchmarks package -DskipTests >&2

exec java ${BENCH_JAVA_OPTS:--Xmx2g} -cp "benchmarks/target/classes:$(cat benchmarks/target/bench-classpath.txt)" \
  dev.projections.bench.BenchMain "$@"
