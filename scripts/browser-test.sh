#!/usr/bin/env bash
# Real-browser test of a static HTML opening book: scripts/browser-test.sh DIR
#
# DIR is what `tengu book export BOOK --html DIR` (book/src/html.rs) wrote. Installs, once,
# Debian's chromium (apt; we run as root) and playwright-core (npm ci from the committed
# lock file into scripts/browser-test/node_modules), then runs check_book_html.mjs, which
# opens file://DIR/index.html in headless Chromium and clicks three levels into the book,
# checking every page (see that file). No network is needed once installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:?usage: scripts/browser-test.sh DIR (an HTML book from tengu book export --html)}"
[ -f "$dir/index.html" ] || { echo "browser-test: $dir/index.html does not exist" >&2; exit 2; }

if [ ! -x /usr/bin/chromium ]; then
    echo "browser-test: installing chromium (apt)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d "$here/browser-test/node_modules/playwright-core" ]; then
    echo "browser-test: installing playwright-core (npm ci)" >&2
    (cd "$here/browser-test" && npm ci --no-audit --no-fund --loglevel=error)
fi
exec node "$here/browser-test/check_book_html.mjs" "$dir"
