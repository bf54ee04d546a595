#!/usr/bin/env bash
# Real-browser test of a static HTML opening book: scripts/browser-test.sh DIR
# or of `tengu serve`'s page:                        scripts/browser-test.sh --serve URL [EXPECT]
# or of its play page:                               scripts/browser-test.sh --play URL EXPECT
#
# DIR is what `tengu book export BOOK --html DIR` (book/src/html.rs) wrote. Installs, once,
# Debian's chromium (apt; we run as root) and playwright-core (npm ci from the committed
# lock file into scripts/browser-test/node_modules), then runs check_book_html.mjs, which
# opens file://DIR/index.html in headless Chromium and clicks three levels into the book,
# checking every page (see that file); with --serve, check_serve.mjs opens the page of a
# running `tengu serve` and checks it against EXPECT (see that file); with --play,
# check_play.mjs plays a game of each game on its play page by clicks. No network is needed
# once installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: scripts/browser-test.sh DIR (an HTML book from tengu book export --html) | --serve URL [EXPECT] | --play URL EXPECT"
dir="${1:?$usage}"
if [ "$dir" = "--serve" ] || [ "$dir" = "--play" ]; then
    [ -n "${2:-}" ] || { echo "$usage" >&2; exit 2; }
else
    [ -f "$dir/index.html" ] || { echo "browser-test: $dir/index.html does not exist" >&2; exit 2; }
fi

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
if [ "$dir" = "--serve" ]; then
    exec node "$here/browser-test/check_serve.mjs" "${@:2}"
fi
if [ "$dir" = "--play" ]; then
    exec node "$here/browser-test/check_play.mjs" "${@:2}"
fi
exec node "$here/browser-test/check_book_html.mjs" "$dir"
