#!/usr/bin/env bash
# Checks the Docker set-up where there is no Docker engine (as in CI):
# 1. docker-compose.yml is valid, when a compose implementation is installed (skipped otherwise);
# 2. the image's data folder: the final stage's RUN lines that prepare /data are replayed on a
#    root-owned stand-in, and then the service's own outbox writer (what email verification uses)
#    runs as an unprivileged user (as the image's `USER node`) and must be able to write there;
#    a control run without those lines must fail, so the check cannot pass by accident.
# Needs root for step 2 (CI runs as root); prints "docker checks passed" at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "docker check failed: $*" >&2
  exit 1
}

if docker compose version >/dev/null 2>&1; then
  docker compose config -q || fail "docker compose config"
  echo "docker compose config: ok"
elif command -v docker-compose >/dev/null 2>&1; then
  docker-compose config -q || fail "docker-compose config"
  echo "docker-compose config: ok"
else
  echo "docker compose config: skipped (no compose implementation installed)"
fi

[ "$(id -u)" -eq 0 ] || fail "the data-folder check needs root (to act as an unprivileged user)"
final_stage=$(awk '/^FROM /{stage=""} {stage = stage $0 "\n"} END {printf "%s", stage}' Dockerfile)
grep -qx 'USER node' <<<"$final_stage" || fail "the final stage does not run as USER node"
grep -qx 'CMD \["node", "dist/src/start.js"\]' <<<"$final_stage" || fail "unexpected CMD"
prepare=$(sed '/^USER node$/q' <<<"$final_stage" | grep '^RUN .*/data' | sed 's/^RUN //' || true)
[ -n "$prepare" ] || fail "no RUN line prepares /data before USER node"

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
write_outbox() { # $1: data folder; runs as nobody, like the image's node user
  setpriv --reuid=nobody --regid=nogroup --clear-groups env DATA_DIR="$1" \
    node --import tsx --input-type=module -e "
      import { OutboxFile } from './src/platform/messaging/outbox-file.js';
      import { createLogger } from './src/platform/logger.js';
      await new OutboxFile(process.env.DATA_DIR, createLogger('silent')).append(
        { to: 'ada@example.com', kind: 'email', subject: 'code', body: 'Your code is 123456', code: '123456' });
    "
}

# Control: a root-owned folder, as a fresh volume was before the fix, refuses the write.
mkdir -m 755 "$work/control"
if write_outbox "$work/control" 2>/dev/null; then fail "the control write into a root-owned folder succeeded"; fi

# The image's own preparation, with /data and its owner mapped onto the stand-in and nobody.
sh -ec "$(sed -e "s#/data#$work/data#g" -e 's/node:node/nobody:nogroup/g' <<<"$prepare")"
write_outbox "$work/data" || fail "the unprivileged user cannot write the outbox in the prepared data folder"
grep -q '"code":"123456"' "$work/data/outbox.jsonl" || fail "the outbox line is missing"
echo "docker checks passed"
