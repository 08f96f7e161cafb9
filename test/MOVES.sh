#!/usr/bin/env bash
# The test layout that mirrors shared/ (issue 14, item 5): test/<area>/ holds the tests of
# shared/<area>/ (and of the top-level cdk/, cli/, console/, local/); test/integration/ keeps the
# end-to-end scenarios that belong to no one module. Every move keeps the folder depth, so no
# relative import changes; the second half rewrites the paths that docs and comments name.
# Replayable: run from the repository root on a tree that still has the old paths
# (`bash test/MOVES.sh`); moves whose source is gone are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

MOVES=(
  test/unit/budget.test.ts                           test/helpers/budget.test.ts
  test/unit/checker.test.ts                          test/checker/checker.test.ts
  test/unit/cors.test.ts                             test/api/cors.test.ts
  test/unit/data-plane-token.test.ts                 test/lambda/data-plane-token.test.ts
  test/unit/engines.test.ts                          test/project/engines.test.ts
  test/unit/prerequisites.test.ts                    test/setup/prerequisites.test.ts
  test/unit/reports.test.ts                          test/status/reports.test.ts
  test/unit/routing.test.ts                          test/router/routing.test.ts
  test/unit/snapshot.test.ts                         test/catalog/snapshot.test.ts
  test/unit/stream-poller.test.ts                    test/local/stream-poller.test.ts
  test/unit/transition.test.ts                       test/status/transition.test.ts
  test/unit/workspace.test.ts                        test/planner/workspace.test.ts
  test/integration/answer-limits.test.ts             test/api/answer-limits.test.ts
  test/integration/api-authenticate-in-function.test.ts test/api/api-authenticate-in-function.test.ts
  test/integration/api.test.ts                       test/api/api.test.ts
  test/integration/deployed-profile.test.ts          test/local/deployed-profile.test.ts
  test/integration/effects.test.ts                   test/executor/effects.test.ts
  test/integration/executor-batch.test.ts            test/executor/executor-batch.test.ts
  test/integration/executor-fifo-group.test.ts       test/executor/executor-fifo-group.test.ts
  test/integration/fast-path.test.ts                 test/effects/fast-path.test.ts
  test/integration/gc.test.ts                        test/sweeper/full-pass.test.ts
  test/integration/many-instances.test.ts            test/catalog/many-instances.test.ts
  test/integration/queue-poller.test.ts              test/local/queue-poller.test.ts
  test/integration/races.test.ts                     test/catalog/races.test.ts
  test/integration/replay.test.ts                    test/sweeper/replay.test.ts
  test/integration/restart.test.ts                   test/local/restart.test.ts
  test/integration/secret-versions.test.ts           test/secrets/secret-versions.test.ts
  test/integration/secrets.test.ts                   test/secrets/secrets.test.ts
  test/integration/snapshot-cache.test.ts            test/catalog/snapshot-cache.test.ts
  test/integration/staged.test.ts                    test/catalog/staged.test.ts
  test/integration/staged-races.test.ts              test/catalog/staged-races.test.ts
  test/integration/status-reports.test.ts            test/status/status-reports.test.ts
  test/integration/status.test.ts                    test/status/status.test.ts
)

for ((i = 0; i < ${#MOVES[@]}; i += 2)); do
  from=${MOVES[i]} to=${MOVES[i + 1]}
  [ -e "$from" ] || continue
  mkdir -p "$(dirname "$to")"
  git mv "$from" "$to"
done

# Paths named in docs and comments (README's test table, docs/*.md, source comments).
for ((i = 0; i < ${#MOVES[@]}; i += 2)); do
  from=${MOVES[i]} to=${MOVES[i + 1]}
  for f in $(git grep -lF "$from" -- ':!test/MOVES.sh' || true); do
    sed -i "s#$from#$to#g" "$f"
  done
done
