// Real-browser test of `tengu serve` (src/cmd/serve/): opens the page in headless Chromium
// and checks it against what the test knows of the run (an EXPECT JSON file):
//
//   node scripts/browser-test/check_serve.mjs URL EXPECT    (see scripts/browser-test.sh)
//
// EXPECT: { "loss": {"tag": "loss/value", "value": 0.93},     the loss log's last value
//           "game": {"key": "games/...records", "index": 0,
//                    "board": [["GG", ".", "gg", ...], ...],  `tengu show`'s final board
//                    "last_value": 0.42},                   the search's value of its last move
//           "live": true,                                   a worker is playing on
//           "publish": {"step": 1000, "marker": "/tmp/.../ready"} }
// Checks: the curves show the loss log's last value and hover values; the game replays to
// the final position of `tengu show`, one move back marks the last move, the last move shows
// the search's value of the records file; a worker's game in progress appears in the Live
// panel with its last move marked and moves on without a reload; then writes the
// marker file, and the test publishes checkpoint `step`, which must appear in Now and in the
// checkpoint table without a reload. Without EXPECT it only loads the page. With SHOTS=FILE
// it saves a PNG of the page (the game at its end). Prints what it checked; exits 1 with a
// FAIL line on the first failure.

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const EXECUTABLE = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage'];

let passed = 0;
class Fail extends Error {}
function check(cond, what) {
  if (!cond) throw new Fail(what);
  passed++;
}
function log(msg) { console.log(msg); }

async function main() {
  const [url, expectFile] = process.argv.slice(2);
  if (!url) {
    console.error('usage: node check_serve.mjs URL [EXPECT]');
    process.exit(2);
  }
  const expect = expectFile ? JSON.parse(fs.readFileSync(expectFile, 'utf8')) : null;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tengu-chromium-'));
  const started = Date.now();
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
    });
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(20000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console error: ${m.text()}`); });
    page.on('request', (r) => { if (!r.url().startsWith(url)) errors.push(`request outside the server: ${r.url()}`); });
    const noErrors = (where) => check(errors.length === 0, `${where}: ${errors.join('; ')}`);

    await page.goto(url);
    await page.waitForSelector('#now-checkpoint[data-step]:not([data-step=""])');
    const problem = await page.locator('#problem').evaluate((p) => p.hidden ? '' : p.textContent);
    check(problem === '', `the page reports a problem: ${problem}`);
    log(`ok  page loaded: newest checkpoint step ${await page.locator('#now-checkpoint').getAttribute('data-step')}, ` +
      `trainer ${await page.locator('#now-trainer').getAttribute('data-state')}`);
    // A marker that a reload would lose.
    await page.evaluate(() => { window.__tenguNoReload = true; });

    if (expect) {
      // Curves: the loss log's last value in the legend, hover values in the tooltip.
      const last = page.locator(`.chart-legend span.last[data-tag="${expect.loss.tag}"]`);
      await last.waitFor();
      const shown = Number(await last.getAttribute('data-value'));
      check(Math.abs(shown - expect.loss.value) <= 1e-6 * Math.max(1, Math.abs(expect.loss.value)),
        `curves: ${expect.loss.tag} last value ${shown}, the loss log says ${expect.loss.value}`);
      const chart = last.locator('xpath=ancestor::div[contains(@class, "chart")]').locator('svg');
      await chart.scrollIntoViewIfNeeded();
      const box = await chart.boundingBox();
      await page.mouse.move(box.x + box.width - 20, box.y + box.height / 2);
      const tip = await page.locator('#tooltip').evaluate((t) => t.hidden ? '' : t.textContent);
      check(tip.includes(expect.loss.tag + ': '), `curves: hovering shows no value of ${expect.loss.tag}: "${tip}"`);
      log(`ok  curves: ${expect.loss.tag} = ${shown} as in the loss log; hover shows "${tip.split('\n')[0]}"`);

      // The game: chosen from the list, replayed to its end, compared with tengu show.
      const g = expect.game;
      await page.locator(`#selfplay-games li[data-key="${g.key}"]`).click();
      if (g.index > 0) await page.locator('#game-index').selectOption(String(g.index));
      await page.waitForSelector(`#viewer[data-key="${g.key}"][data-index="${g.index}"]`);
      await page.locator('#first').click();
      const plies = Number(await page.locator('#viewer').getAttribute('data-plies'));
      check(plies > 0, `game ${g.key}: no moves`);
      check((await page.locator('#viewer').getAttribute('data-ply')) === '0', 'the first button did not go to ply 0');
      for (let i = 0; i < Math.min(plies, 5); i++) await page.locator('#next').click();
      await page.locator('#last').click();
      check(Number(await page.locator('#viewer').getAttribute('data-ply')) === plies, 'the last button did not go to the end');
      const drawn = await page.evaluate(() => Array.from(document.querySelectorAll('#board g.piece')).map((p) =>
        [Number(p.dataset.square), p.dataset.color, p.dataset.token]));
      const n = g.board.length;
      const want = [];
      g.board.forEach((row, r) => row.forEach((t, c) => {
        if (t === '.') return;
        const white = t !== t.toUpperCase();
        want.push([r * n + c, white ? 'w' : 'b', t.toUpperCase()]);
      }));
      const key = (x) => x.join(':');
      const a = drawn.map(key).sort(), b = want.map(key).sort();
      const differ = a.filter((x) => !b.includes(x)).concat(b.filter((x) => !a.includes(x)));
      check(differ.length === 0, `game ${g.key}: the board after ${plies} plies differs from tengu show: ${differ.slice(0, 8).join(' ')}`);
      log(`ok  game ${g.key} #${g.index}: ${plies} plies replayed, ${drawn.length} pieces as tengu show draws the final position`);
      const lastMarked = await page.locator('#board rect.square.last').count();
      check(lastMarked >= 1 && lastMarked <= 2, `the last move marks ${lastMarked} squares`);
      if (g.last_value != null) {
        const v = Number(await page.locator('#ply-value').getAttribute('data-value'));
        check(Math.abs(v - g.last_value) <= 1e-6, `game ${g.key}: the last move shows value ${v}, the records file says ${g.last_value}`);
        log(`ok  game ${g.key}: the last move shows the search's value "${await page.locator('#ply-value').textContent()}"`);
      }
      await page.locator('#prev').click();
      check(Number(await page.locator('#viewer').getAttribute('data-ply')) === plies - 1, 'the back button did not go one move back');
      await page.locator('#last').click();
      noErrors('game');
    }

    if (expect && expect.live) {
      // A game in progress: shown with its last move marked, then moving on without a reload.
      await page.waitForSelector('#live-viewer:not([data-unix-ms=""]):not([data-plies="0"])', { timeout: 60000 }).catch(() => {
        throw new Fail('no game in progress appeared in the Live panel within 60 s');
      });
      const live = page.locator('#live-viewer');
      const first = { ms: await live.getAttribute('data-unix-ms'), plies: Number(await live.getAttribute('data-plies')) };
      check((await live.getAttribute('data-stale')) === '0', 'the game in progress is marked stale');
      const pieces = await page.locator('#live-board g.piece').count();
      check(pieces > 0, 'the live board shows no pieces');
      const marked = await page.locator('#live-board rect.square.last').count();
      check(marked >= 1 && marked <= 2, `the live board marks ${marked} squares as the last move`);
      check(await page.locator('#board-box #board').count() === 1, 'the live board took the replay board\'s place');
      await page.waitForFunction((ms) => document.querySelector('#live-viewer').dataset.unixMs !== ms, first.ms, { timeout: 30000 })
        .catch(() => { throw new Fail('the game in progress did not move on within 30 s'); });
      const second = { ms: await live.getAttribute('data-unix-ms'), plies: Number(await live.getAttribute('data-plies')) };
      check(await page.evaluate(() => window.__tenguNoReload === true), 'the page was reloaded');
      log(`ok  live: ${await live.getAttribute('data-key')} at ply ${first.plies}, then ply ${second.plies} ` +
        `(${(Number(second.ms) - Number(first.ms)) / 1000} s later) without a reload; "${await page.locator('#live-status').textContent()}"`);
      noErrors('live');
    }

    if (process.env.SHOTS) {
      await page.mouse.move(0, 0);
      await page.screenshot({ path: process.env.SHOTS, fullPage: true });
      log(`ok  screenshot ${process.env.SHOTS}`);
    }

    if (expect && expect.publish) {
      // A checkpoint published now appears without a reload.
      const step = String(expect.publish.step);
      fs.writeFileSync(expect.publish.marker, 'ready\n');
      await page.waitForSelector(`#now-checkpoint[data-step="${step}"]`, { timeout: 30000 }).catch(() => {
        throw new Fail(`checkpoint ${step} did not appear in Now within 30 s`);
      });
      await page.waitForSelector(`#checkpoint-table tr[data-step="${step}"]`).catch(() => {
        throw new Fail(`checkpoint ${step} did not appear in the checkpoint table`);
      });
      check(await page.evaluate(() => window.__tenguNoReload === true), 'the page was reloaded');
      const cmd = await page.locator(`#checkpoint-table tr[data-step="${step}"] code`).textContent();
      check(cmd.startsWith('tengu xboard --checkpoint '), `checkpoint ${step}: command "${cmd}"`);
      log(`ok  checkpoint ${step} published during the test appeared without a reload ("${cmd}")`);
      noErrors('checkpoint');
    }
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
  log(`browser test of ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  log(`browser-test: ${passed} passed, 0 failed`);
}

const watchdog = setTimeout(() => {
  console.error('FAIL: the browser test did not finish in 180 s');
  process.exit(1);
}, 180000);
watchdog.unref();

main().then(() => process.exit(0), (e) => {
  console.error(`FAIL: ${e instanceof Fail ? e.message : (e && e.stack) || e}`);
  console.error(`browser-test: ${passed} passed, 1 failed`);
  process.exit(1);
});
