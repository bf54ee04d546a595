// Real-browser test of tengu's static HTML opening book (book/src/html.rs).
//
//   node scripts/browser-test/check_book_html.mjs DIR    (see scripts/browser-test.sh)
//
// Opens file://DIR/index.html in headless Debian Chromium, follows the start link to the
// root page, then clicks three levels of book moves (at each level the first move that
// links to a page), checking every page's board, path, moves and data against the page's
// own NODE constant; then walks the path links back to the start. Prints what it checked;
// exits 1 with a FAIL line on the first failure. With SHOTS=DIR it saves a PNG per page.

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const EXECUTABLE = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage'];
const LEVELS = 3;

let passed = 0;
class Fail extends Error {}
function check(cond, what) {
  if (!cond) throw new Fail(what);
  passed++;
}
function log(msg) { console.log(msg); }

/// The NODE constant of a page file, parsed the way a reader without a browser would.
function fileData(file) {
  const text = fs.readFileSync(file, 'utf8');
  const prefix = '<script>const NODE = ';
  const start = text.indexOf(prefix);
  check(start >= 0, `${file}: no "${prefix}" data script`);
  const end = text.indexOf(';</script>', start);
  check(end > start, `${file}: the data script does not end`);
  try {
    return JSON.parse(text.slice(start + prefix.length, end));
  } catch (e) {
    throw new Fail(`${file}: the page data is not JSON: ${e.message}`);
  }
}

function keyOfUrl(url) {
  const m = /\/nodes\/([0-9a-f]{2})\/([0-9a-f]+)\.html$/i.exec(new URL(url).pathname);
  if (!m || !m[2].startsWith(m[1])) throw new Fail(`${url} is not a book page URL`);
  return m[2];
}

function pageUrl(dir, key) {
  return pathToFileURL(path.join(dir, 'nodes', key.slice(0, 2), key + '.html')).href;
}

/// Checks the page the browser shows; returns its data and what it drew.
async function checkPage(page, dir, expectKey, label) {
  const url = page.url();
  const key = keyOfUrl(url);
  check(key === expectKey, `${label}: arrived at ${key}, expected ${expectKey}`);
  await page.waitForSelector('#board', { timeout: 10000 }).catch(() => {
    throw new Fail(`${label} (${key}): no #board drawn (book.js failed?)`);
  });
  const data = fileData(fileURLToPath(url));
  const live = await page.evaluate(() => NODE);
  check(JSON.stringify(live) === JSON.stringify(data), `${label}: the page's NODE differs from its file's JSON`);
  check(data.key === key, `${label}: data key ${data.key} is not the page's ${key}`);
  const n = data.size;
  check(Array.isArray(data.board) && data.board.length === n * n, `${label}: data board has ${data.board.length} squares, not ${n}x${n}`);

  const drawn = await page.evaluate(() => {
    const svg = document.querySelector('svg#board');
    const box = svg.getBoundingClientRect();
    const q = (s) => Array.from(document.querySelectorAll(s));
    return {
      width: box.width, height: box.height,
      squares: q('#board rect.square').length,
      last: q('#board rect.square.last').map((r) => Number(r.dataset.square)),
      files: q('#board text.label.file').map((t) => t.textContent),
      ranks: q('#board text.label.rank').map((t) => t.textContent),
      pieces: q('#board .piece').map((g) => ({
        square: Number(g.dataset.square), token: g.dataset.token, color: g.dataset.color,
        text: g.querySelector('text') ? g.querySelector('text').textContent : null,
        transform: g.getAttribute('transform') || '',
      })),
      value: (document.querySelector('#value') || {}).textContent || '',
      path: q('#path a.step').map((a) => ({ href: a.href, text: a.textContent, id: a.id })),
      rows: q('#moves tr.book-move').map((tr) => {
        const a = tr.querySelector('a.move');
        return { text: tr.querySelector('td.mv').textContent, href: a ? a.href : null, key: a ? a.dataset.key : null };
      }),
      other: q('#moves tr.other').length,
    };
  });

  check(drawn.width > 100 && drawn.height > 100, `${label}: the board is drawn ${drawn.width}x${drawn.height} px`);
  check(drawn.squares === n * n, `${label}: ${drawn.squares} rect.square, expected ${n * n}`);
  check(JSON.stringify(drawn.files) === JSON.stringify(data.files), `${label}: file labels ${drawn.files} != ${data.files}`);
  check(JSON.stringify(drawn.ranks) === JSON.stringify(data.ranks), `${label}: rank labels ${drawn.ranks} != ${data.ranks}`);
  const occupied = data.board.filter((s) => s !== '').length;
  check(drawn.pieces.length === occupied, `${label}: ${drawn.pieces.length} pieces drawn, ${occupied} in the data`);
  for (const p of drawn.pieces) {
    const want = data.board[p.square];
    check(want === p.color + p.token, `${label}: square ${p.square} drawn ${p.color}${p.token}, data ${JSON.stringify(want)}`);
    check(p.text === p.token, `${label}: square ${p.square} shows "${p.text}", token ${p.token}`);
    check((p.color === 'w') === p.transform.includes('rotate(180'), `${label}: square ${p.square} (${p.color}) transform "${p.transform}"`);
  }
  const wantLast = [...new Set(data.last || [])].sort((a, b) => a - b);
  check(JSON.stringify([...drawn.last].sort((a, b) => a - b)) === JSON.stringify(wantLast),
    `${label}: last-move squares ${drawn.last}, data ${data.last}`);
  check(drawn.value.includes(String(data.value.v)) && drawn.value.includes(data.stm), `${label}: #value "${drawn.value}"`);

  check(drawn.path.length === data.path.length + 1, `${label}: ${drawn.path.length} path links for ${data.path.length} steps (+ start)`);
  check(drawn.path[0].id === 'path-start' && drawn.path[0].href === pageUrl(dir, data.root), `${label}: the start link goes to ${drawn.path[0].href}`);
  data.path.forEach((step, i) => {
    check(drawn.path[i + 1].text === step[0] && drawn.path[i + 1].href === pageUrl(dir, step[1]),
      `${label}: path step ${i + 1} is ${drawn.path[i + 1].text} -> ${drawn.path[i + 1].href}, data ${step}`);
  });

  check(drawn.rows.length === data.moves.length, `${label}: ${drawn.rows.length} move rows, ${data.moves.length} moves`);
  data.moves.forEach((m, i) => {
    const row = drawn.rows[i];
    check(row.text === m.m, `${label}: move ${i + 1} shows "${row.text}", data "${m.m}"`);
    if (m.c === null) check(row.href === null, `${label}: move ${m.m} has no page but a link ${row.href}`);
    else check(row.key === m.c && row.href === pageUrl(dir, m.c), `${label}: move ${m.m} links ${row.href}, child ${m.c}`);
  });
  check(drawn.other === (data.other ? 1 : 0), `${label}: ${drawn.other} "other moves" rows, data other ${JSON.stringify(data.other)}`);

  const links = drawn.rows.filter((r) => r.href).length;
  log(`ok  ${label}: ${key} ply ${data.ply}, ${n}x${n} board with ${occupied} pieces, ` +
    `${data.moves.length} moves (${links} linked), path ${data.path.length}`);
  if (process.env.SHOTS) {
    fs.mkdirSync(process.env.SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(process.env.SHOTS, `${label.replace(/\W+/g, '_')}.png`), fullPage: true });
  }
  return { data, drawn, url };
}

async function follow(page, locator, expectUrl, what) {
  check((await locator.count()) > 0, `${what}: no link to click`);
  await Promise.all([page.waitForURL(expectUrl, { timeout: 10000 }), locator.first().click()]).catch((e) => {
    if (e instanceof Fail) throw e;
    throw new Fail(`${what}: clicking did not reach ${expectUrl} (at ${page.url()}): ${e.message.split('\n')[0]}`);
  });
}

async function main() {
  const arg = process.argv[2];
  if (!arg) {
    console.error('usage: node check_book_html.mjs DIR   (DIR from `tengu book export BOOK --html DIR`)');
    process.exit(2);
  }
  const dir = path.resolve(arg);
  for (const f of ['index.html', 'book.css', 'book.js']) check(fs.existsSync(path.join(dir, f)), `${dir}/${f} is missing`);

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tengu-chromium-'));
  const started = Date.now();
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE, headless: true, args: ARGS, viewport: { width: 1100, height: 900 },
    });
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(15000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console error: ${m.text()}`); });
    page.on('request', (r) => { if (!r.url().startsWith('file:')) errors.push(`request outside the book: ${r.url()}`); });
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure() && r.failure().errorText})`));
    const noErrors = (where) => check(errors.length === 0, `${where}: ${errors.join('; ')}`);

    const index = pathToFileURL(path.join(dir, 'index.html')).href;
    await page.goto(index);
    const start = page.locator('a#start');
    check((await start.count()) === 1, 'index.html: no a#start link');
    const rootKey = keyOfUrl(await start.evaluate((a) => a.href));
    log(`ok  index.html: title "${await page.title()}", start link to ${rootKey}`);
    await follow(page, start, pageUrl(dir, rootKey), 'index.html start link');
    let parent = await checkPage(page, dir, rootKey, 'root');
    noErrors('root');
    const visited = [parent];

    // Which links to click: read the pages' data from disk and choose, at each level, the
    // first book move whose page continues the line LEVELS deep and whose stored path comes
    // through the page clicked from (a transposition's stored path may come another way).
    const nodeData = (key) => {
      const html = fs.readFileSync(path.join(dir, 'nodes', key.slice(0, 2), `${key}.html`), 'utf8');
      const start = html.indexOf('const NODE = ') + 'const NODE = '.length;
      return JSON.parse(html.slice(start, html.indexOf(';</script>', start)));
    };
    const deepLine = (node, depth) => {
      if (depth === 0) return [];
      for (let i = 0; i < node.moves.length; i++) {
        const key = node.moves[i].c;
        if (!key) continue;
        const child = nodeData(key);
        const through = child.path.length === node.path.length + 1 &&
          child.path[child.path.length - 1][1] === node.key;
        if (!through) continue;
        const rest = deepLine(child, depth - 1);
        if (rest) return [i, ...rest];
      }
      return null;
    };
    const line = deepLine(nodeData(rootKey), LEVELS);
    check(line !== null, `the book has no line of ${LEVELS} book moves with pages from the start`);

    for (let level = 1; level <= LEVELS; level++) {
      const moveIndex = line[level - 1];
      const link = page.locator('#moves tr.book-move').nth(moveIndex).locator('a.move');
      check((await link.count()) > 0, `level ${level}: the page ${parent.data.key} has no link for book move ${moveIndex + 1}`);
      const childKey = await link.getAttribute('data-key');
      const moveText = await link.textContent();
      await follow(page, link, pageUrl(dir, childKey), `level ${level} move ${moveText}`);
      const child = await checkPage(page, dir, childKey, `level ${level}`);
      noErrors(`level ${level}`);
      check(child.data.path.length === parent.data.path.length + 1,
        `level ${level}: path has ${child.data.path.length} steps, the parent's ${parent.data.path.length}`);
      const last = child.drawn.path[child.drawn.path.length - 1];
      check(last.href === parent.url,
        `level ${level}: the last path link goes to ${last.href}, not back to the parent ${parent.url} ` +
        '(a transposition whose stored path comes another way?)');
      check(last.text === moveText, `level ${level}: the last path step is "${last.text}", the move clicked "${moveText}"`);
      check(child.data.ply === parent.data.ply + 1, `level ${level}: ply ${child.data.ply} after ${parent.data.ply}`);
      const changed = child.data.board.filter((s, i) => s !== parent.data.board[i]).length;
      // A move that ends where it started (a pass, or a lion's capture without moving
      // "igui") may leave every square as it was; any other move changes 1 to 4 squares.
      const [from, rest] = moveText.split('>');
      const to = (rest || '').split('{')[0];
      const least = from === to ? 0 : 1;
      check(changed >= least && changed <= 4,
        `level ${level}: ${changed} squares differ from the parent's board after ${moveText} (want ${least}..4)`);
      log(`ok  level ${level}: "${moveText}" -> ${childKey}, ${changed} squares changed, path back to the parent`);
      visited.push(child);
      parent = child;
    }

    // Back along the path: the step two moves before the end, then the start link.
    if (parent.drawn.path.length >= 3) {
      const back = visited[visited.length - 3];
      const stepLink = page.locator('#path a.step').nth(parent.drawn.path.length - 2);
      await follow(page, stepLink, back.url, 'path link two steps back');
      await checkPage(page, dir, back.data.key, 'path back');
      log(`ok  path link two steps back reached ${back.data.key}`);
    }
    await follow(page, page.locator('#path-start'), pageUrl(dir, rootKey), 'path start link');
    await checkPage(page, dir, rootKey, 'start again');
    noErrors('start again');
    log(`ok  the path's start link reached the root ${rootKey}`);
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
  log(`browser test of ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
