#!/usr/bin/env bash
# Times the on-ramp (issue 53): from an empty folder, with Skein running, through the README
# Quickstart's commands (install the SDK with tsx, `npx skein-sdk bot create`, run the example bot)
# to the bot's first reply to a message you send it. Prints "first reply after N s"; exits 1 when it
# takes 60 s or more. Run it from anywhere, with an account that may make bots with API keys:
#
#   SKEIN_USER=ada SKEIN_PASSWORD='correct horse battery staple' test/onramp/time-to-first-reply.sh
#
# SKEIN_URL (default http://localhost:8080) names the service, SKEIN_BOT_TAG (default timedbot) the
# bot. The folder is a new temporary one, removed at the end; the bot is stopped with SIGTERM to npx.
set -euo pipefail
SKEIN=$(cd "$(dirname "$0")/../.." && pwd)
export SKEIN_URL=${SKEIN_URL:-http://localhost:8080}
: "${SKEIN_USER:?set SKEIN_USER and SKEIN_PASSWORD: an account that may make bots with API keys}"
: "${SKEIN_PASSWORD:?set SKEIN_PASSWORD}"
TAG=${SKEIN_BOT_TAG:-timedbot}
folder=$(mktemp -d)
bot=
finish() {
  if [ -n "$bot" ]; then
    # SIGTERM to npx: the bot notices that npm is gone and stops cleanly (within a second or two).
    kill -TERM "$bot" 2>/dev/null || true
    for _ in $(seq 50); do grep -q 'stopped' "$folder/bot.log" 2>/dev/null && break; sleep 0.2; done
  fi
  rm -rf "$folder"
}
trap finish EXIT
started=$(date +%s%N)
cd "$folder"

npm install --no-audit --no-fund --silent tsx --install-links "$SKEIN/sdks/typescript"
npx skein-sdk bot create "$TAG"
npx tsx node_modules/skein-sdk/examples/echo-bot.ts >bot.log 2>&1 &
bot=$!

# Write to the bot as you (again every 5 s while it starts: a first start begins at "now") until it answers.
node --input-type=module -e '
const [url, user, password, tag] = process.argv.slice(1);
const call = async (path, token, body) => {
  const res = await fetch(url + path, {
    method: body ? "POST" : "GET",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body && JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
};
const { access_token: token } = await call("/v1/auth/password/login", null, { user_tag: user, password });
let { cursor } = await call("/v1/notifications?limit=1", token);
const sent = new Set();
for (let i = 0; i < 240; i += 1) {
  if (i % 20 === 0) {
    const [posted] = await call("/v1/messages", token, { content: `hello ${tag}`, recipients: [tag] });
    sent.add(posted.message.id);
  }
  const page = await call(`/v1/notifications?since=${cursor}&limit=100`, token);
  cursor = page.cursor;
  for (const { event } of page.notifications) {
    for (const message of event.content?.messages ?? []) {
      if (message.author.user_tag === tag && sent.has(message.parent_id)) process.exit(0);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}
console.error("no reply within 60 s");
process.exit(1);
' "$SKEIN_URL" "$SKEIN_USER" "$SKEIN_PASSWORD" "$TAG" || { cat bot.log >&2; exit 1; }

elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
seconds=$(printf '%d.%03d' $((elapsed / 1000)) $((elapsed % 1000)))
echo "first reply after $seconds s (empty folder, npm install, bot create, bot start, first answer)"
[ "$elapsed" -lt 60000 ]
