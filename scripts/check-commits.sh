#!/usr/bin/env bash
# Commit discipline (issue 49): every commit after BASE has a one-line subject of at most 72
# characters and, when it has a body, a blank line between the two. Figures and reasons go in
# the body or in docs/. Run by .ci/run; scripts/git-hooks/commit-msg checks one message
# locally (`git config core.hooksPath scripts/git-hooks`).
set -euo pipefail
cd "$(dirname "$0")/.."
# The last commit before the rule: older subjects stay as they were.
BASE=3cc9aab0a6a304cddfd52c1c75bf9f0b8c60009c
if ! git rev-parse --verify -q "$BASE^{commit}" >/dev/null; then
  echo "check-commits: $BASE is not in this clone (shallow?); nothing checked" >&2
  exit 0
fi
bad=0
while read -r sha; do
  if ! git log -1 --format=%B "$sha" | bash scripts/git-hooks/commit-msg /dev/stdin; then
    echo "  in commit $sha" >&2
    bad=1
  fi
done < <(git rev-list "$BASE..HEAD")
exit "$bad"
