// Real-browser test of `tengu serve`'s play page (src/cmd/serve/play/): plays a short game
// of each game in headless Chromium by clicks and checks what the page shows:
//
//   node scripts/browser-test/check_play.mjs URL EXPECT    (see scripts/browser-test.sh --play)
//
// EXPECT: { "games": [ { "game": "dai-dai", "opponent": "run:0", "visits": 2,
//                        "position": "<tengu position text>",
//                        "hover": {"square": "9j", "name": "Lion"},
//                        "steps": [ {"move": "9j>8h{8i}", "double": true, "takeback": true},
//                                   {"move": "10j>9h{9i}", "promotion": "="},   a promotion choice
//                                   {"promotion": "+"} ],   any move offering the choice
//                        "analysis": {"visits": 16, "network": "shipped:dai-dai"},   network optional
//                        "shot": true },
//                      { "game": "dai-dai", "opponent": "run:0", "visits": 2, "opening": true }, ... ] }
// A game with "opening" starts from the deepest line of the book (tengu serve --book)
// listed under "an opening of a book": its moves are the game's first, then it is resigned.
// Each game: chosen in the form (game, opponent at its visits, a position), started; a piece
// named on hover and in the legend; each step's move clicked square by square (the squares
// it may go on to marked after each click), a lion's double move capturing on its second
// square, a promotion asked and answered, the move list then naming it with its mark; the
// opponent's reply awaited; a take-back returning the board as it was; the analysis asked for, its
// arrows with visits and values drawn on the board, a heat map of the policy and the table;
// the value graph with a point for each of the opponent's moves and one for the analysis, a
// click on its first point showing that position (then back to the game);
// the board flipped and back; the record downloaded holding every move; then resigned, the
// result shown. With SHOTS=FILE it saves a PNG of the page (the last game's analysis).
// Prints what it checked; exits 1 with a FAIL line on the first failure.

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

const state = (page) => page.evaluate(() => window.tenguPlay.state);

/// Waits until the human is to move at ply `ply` (the opponent has replied).
async function yourMove(page, ply, what) {
  await page.waitForFunction((p) => {
    const s = window.tenguPlay.state;
    return s && !s.thinking && s.ply === p && (s.over || s.legal.length > 0 || s.problem);
  }, ply, { timeout: 60000 }).catch(() => { throw new Fail(`${what}: the game never reached your move at ply ${ply}`); });
  const s = await state(page);
  check(!s.problem, `${what}: ${s.problem}`);
  return s;
}

/// The board index of a square name.
function indexOf(s, name) {
  const m = /^(\d+)([a-z])$/.exec(name);
  return (m[2].charCodeAt(0) - 97) * s.size + (s.size - Number(m[1]));
}

async function clickIndex(page, i) {
  await page.locator(`#board rect.square[data-index="${i}"]`).click();
}

/// Clicks the squares of legal move `text` one by one, checking after each click but the
/// last that the squares it may go on to are marked.
async function clickMove(page, text, what) {
  const s = await state(page);
  const entries = s.legal.filter((m) => m.text === text || m.text.replace(/[+=]$/, '') === text);
  check(entries.length > 0, `${what}: ${text} is not among the ${s.legal.length} legal moves`);
  const path = entries[0].path;
  for (let k = 0; k < path.length; k++) {
    await clickIndex(page, path[k]);
    if (k + 1 < path.length) {
      const marked = await page.locator(`#board .mark.target[data-index="${path[k + 1]}"]`).count();
      check(marked === 1, `${what}: after ${k + 1} click(s) the next square of ${text} is not marked`);
    }
  }
  return path;
}

async function playGame(page, url, g) {
  const what = g.game;
  await page.goto(url + 'play');
  await page.waitForSelector('#game option', { state: 'attached' });
  await page.selectOption('#game', g.game);
  await page.selectOption('#opponent', g.opponent);
  await page.fill('#visits', String(g.visits));
  if (g.opening) return startFromOpening(page, g);
  await page.selectOption('#start-kind', 'position');
  await page.fill('#start-text', g.position);
  await page.click('#start');
  let s = await yourMove(page, 0, what);
  check(s.game === g.game && s.human === 'black', `${what}: the game started is ${s.game}, you play ${s.human}`);
  const opponent = await page.locator('#opponent option:checked').textContent();
  log(`ok  ${what}: a new game against ${opponent} from a position; ${s.legal.length} legal moves`);

  // Hover names the piece; the legend has it, in bold as on the board.
  const hoverIndex = indexOf(s, g.hover.square);
  await page.locator(`#board rect.square[data-index="${hoverIndex}"]`).hover();
  const hovered = await page.locator('#hover').textContent();
  check(hovered.includes(g.hover.name), `${what}: hovering ${g.hover.square} says "${hovered}"`);
  const legendRow = page.locator('#legend tr.hovered');
  check(await legendRow.count() === 1 && (await legendRow.textContent()).includes(g.hover.name),
    `${what}: the legend does not mark the ${g.hover.name}`);
  const kinds = await page.locator('#legend tbody tr').count();
  log(`ok  ${what}: hovering ${g.hover.square} names it ("${hovered}"), the legend of ${kinds} kinds marks it`);

  let ply = 0;
  /// One step: its move clicked square by square, the promotion answered, the reply awaited.
  const play = async (step) => {
    let text = step.move;
    if (!text) {
      const found = (await state(page)).legal.find((m) => m.promotion === step.promotion);
      check(found, `${what}: no legal move offers a promotion choice`);
      text = found.text.slice(0, -1);
    }
    const before = await state(page);
    const path = await clickMove(page, text, what);
    let asked = null;
    if (step.promotion) {
      await page.waitForSelector('#promotion:not([hidden])');
      asked = await page.locator('#promotion-text').textContent();
      await page.click(step.promotion === '+' ? '#promote' : '#decline');
      text += step.promotion;
    }
    s = await yourMove(page, ply + 2, `${what} after ${text}`);
    const played = s.moves[ply];
    check(played.text === text, `${what}: the move played is ${played.text}, not ${text}`);
    const listed = await page.locator('#moves li').nth(ply).textContent();
    check(listed === text, `${what}: the move list says ${listed}, not ${text}`);
    if (step.double) {
      check(path.length === 3 && path[0] !== path[2] && played.to === path[2] && played.captures.includes(path[1]) &&
        played.captured.length === 1, `${what}: ${text} is not a double move capturing on its second square (path ${path})`);
    }
    log(`ok  ${what}: ${text} clicked on ${path.length} squares (each next square marked)` +
      (step.double ? ', a lion double move' : '') + (asked ? `, promotion asked ("${asked}") and answered ${step.promotion}` : '') +
      `; the move list says it; the opponent replied ${s.moves[ply + 1].text}`);
    ply += 2;
    if (step.takeback) {
      await page.click('#takeback');
      ply -= 2;
      s = await yourMove(page, ply, `${what} take-back`);
      check(s.board[path[0]] === before.board[path[0]] && s.board.every((t, i) => t === before.board[i]),
        `${what}: after the take-back the board is not as before ${text}`);
      check(await page.locator('#moves li').count() === ply, `${what}: after the take-back the move list has ${await page.locator('#moves li').count()} moves`);
      log(`ok  ${what}: taken back to ply ${ply}: the board as before, the move list without it; played again`);
      await play({ ...step, takeback: false });
    }
  };
  for (const step of g.steps) await play(step);

  // The last move is marked and the captures listed.
  const lastMarked = await page.locator('#board rect.square.last').count();
  check(lastMarked >= 2, `${what}: the last move is not marked (${lastMarked} squares)`);
  const taken = await page.locator('#captures .chip').count();
  const captured = s.captured.black.length + s.captured.white.length;
  check(taken === captured, `${what}: ${taken} captured pieces listed, the game has ${captured}`);

  // Analysis: arrows with visits and values, the heat map and the table.
  if (g.analysis.network) await page.selectOption('#analysis-network', g.analysis.network);
  await page.fill('#analysis-visits', String(g.analysis.visits));
  await page.click('#analyse');
  await page.waitForSelector('#board .arrow-group', { timeout: 60000 })
    .catch(() => { throw new Fail(`${what}: no analysis arrows`); });
  const labels = await page.locator('#board .arrow-label').evaluateAll((ts) => ts.map((t) => t.dataset.label));
  check(labels.length >= 1 && labels.every((t) => /^\d+ [+-]\d\.\d\d$/.test(t)), `${what}: arrow labels ${labels.join(' | ')}`);
  const heat = await page.locator('#board rect.heat').count();
  check(heat >= 1, `${what}: no policy heat map`);
  const rows = await page.locator('#analysis-table tbody tr').count();
  const a = await page.evaluate(() => window.tenguPlay.analysis.data);
  check(rows === a.moves.length && a.visits === g.analysis.visits, `${what}: ${rows} rows for ${a.moves.length} moves, ${a.visits} visits`);
  const visits = labels.map((t) => Number(t.split(' ')[0]));
  check(visits[0] === a.moves[0].visits, `${what}: the first arrow says ${visits[0]} visits, the analysis ${a.moves[0].visits}`);
  const said = await page.locator('#analysis-status').textContent();
  log(`ok  ${what}: analysis of ${a.visits} visits: ${labels.length} arrows (${labels.join(', ')}), heat on ${heat} squares, ` +
    `${rows} rows; "${said}"`);

  // The value graph: a point for each of the opponent's searches and one for the analysis;
  // a click on the first point shows the position after that ply.
  await page.waitForFunction((p) => window.tenguPlay.state.values.some((v) => v.source === 'analysis' && v.ply === p),
    s.ply, { timeout: 20000 }).catch(() => { throw new Fail(`${what}: the analysis is not on the value graph`); });
  s = await state(page);
  const points = await page.locator('#value-graph circle.point').count();
  const byOpponent = s.values.filter((v) => v.source === 'opponent').length;
  check(points === s.values.length && byOpponent === s.ply / 2,
    `${what}: ${points} points drawn of ${s.values.length}; ${byOpponent} by the opponent in ${s.ply} plies`);
  check(await page.locator(`#value-graph circle.point.analysis[data-ply="${s.ply}"]`).count() === 1,
    `${what}: no analysis point at ply ${s.ply}`);
  await page.locator('#value-graph circle.point[data-ply="1"]').first().click();
  await page.waitForSelector('#review:not([hidden])').catch(() => { throw new Fail(`${what}: a click on ply 1 shows no earlier position`); });
  const review = await page.evaluate(() => window.tenguPlay.review);
  const firstTo = s.moves[0].to;
  check(review.ply === 1 && review.data.last.to === firstTo && review.data.stm === 'white' &&
    await page.locator(`#board rect.square.last[data-index="${firstTo}"]`).count() === 1,
  `${what}: the position shown after a click on ply 1 is not the one after ${s.moves[0].text}`);
  const reviewText = await page.locator('#review-text').textContent();
  await page.click('#back-to-game');
  check(await page.evaluate(() => window.tenguPlay.review) === null && await page.locator('#review').isHidden(),
    `${what}: back to the game still shows ply 1`);
  log(`ok  ${what}: the value graph has ${points} points (${byOpponent} of the opponent's searches, the analysis at ply ${s.ply}); ` +
    `a click on ply 1 showed it ("${reviewText}"), then back to the game`);

  // Flip and back: the square under the same piece keeps its index.
  await page.click('#flip');
  const flippedFirst = await page.locator('#board text.label.file').first().textContent();
  check(flippedFirst === '1', `${what}: flipped, the first file label is ${flippedFirst}`);
  await page.click('#flip');
  log(`ok  ${what}: flipped (file 1 on the left) and back`);

  // The record, downloaded from the link.
  const href = await page.locator('#download').getAttribute('href');
  const record = await page.evaluate(async (h) => (await fetch(h)).text(), href);
  for (const m of s.moves) check(record.includes(m.text), `${what}: the record lacks ${m.text}:\n${record}`);
  log(`ok  ${what}: the record downloaded (${href}) holds all ${s.moves.length} moves`);

  if (process.env.SHOTS && g.shot) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: process.env.SHOTS, fullPage: false });
    log(`ok  screenshot ${process.env.SHOTS}`);
  }
  await page.click('#resign');
  await page.waitForFunction(() => window.tenguPlay.state.over);
  const status = await page.locator('#status').textContent();
  check(status.includes('0-1') && status.includes('resignation'), `${what}: after resigning the page says "${status}"`);
  log(`ok  ${what}: resigned: "${status}"`);
}

/// A game started from a book's line: the page lists the book's lines of the game, the game
/// starts after the moves of the one chosen, the move list shows them; then resigned.
async function startFromOpening(page, g) {
  const what = `${g.game} from a book`;
  // An option is never "visible" to playwright (its list is closed): its hidden attribute says.
  check(await page.locator('#start-opening').evaluate((o) => !o.hidden), `${what}: the start list offers no opening of a book`);
  await page.selectOption('#start-kind', 'opening');
  check(await page.locator('#opening').isVisible(), `${what}: choosing an opening shows no list of openings`);
  const options = page.locator('#opening option');
  const count = await options.count();
  check(count >= 1, `${what}: the book lists no line`);
  const last = options.nth(count - 1);
  const id = await last.getAttribute('value'), label = await last.textContent(), line = (await last.getAttribute('title')).split(' ');
  await page.selectOption('#opening', id);
  await page.click('#start');
  // Black (you) moves at an even ply: after an odd line tengu replies first.
  const s = await yourMove(page, line.length + (line.length % 2), what);
  check(s.moves.slice(0, line.length).every((m, k) => m.text === line[k]), `${what}: the game's first moves ${s.moves.map((m) => m.text).join(' ')} are not the line ${line.join(' ')}`);
  const listed = await page.locator('#moves li').allTextContents();
  check(line.every((m, k) => listed[k] === m), `${what}: the move list ${listed.join(' ')} does not start with the line`);
  log(`ok  ${what}: ${count} lines listed; started from "${label}": the game's first ${line.length} moves are the line's, now ply ${s.ply}`);
  await page.click('#resign');
  await page.waitForFunction(() => window.tenguPlay.state.over);
  log(`ok  ${what}: resigned`);
}

async function main() {
  const [url, expectFile] = process.argv.slice(2);
  if (!url || !expectFile) {
    console.error('usage: node check_play.mjs URL EXPECT');
    process.exit(2);
  }
  const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tengu-chromium-'));
  const started = Date.now();
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE, headless: true, args: ARGS, viewport: { width: 1500, height: 1050 },
    });
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(20000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console error: ${m.text()}`); });
    page.on('request', (r) => { if (!r.url().startsWith(url)) errors.push(`request outside the server: ${r.url()}`); });
    for (const g of expect.games) {
      await playGame(page, url, g);
      check(errors.length === 0, `${g.game}: ${errors.join('; ')}`);
    }
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  }
  log(`browser test of ${url}play in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  log(`browser-test: ${passed} passed, 0 failed`);
}

const watchdog = setTimeout(() => {
  console.error('FAIL: the browser test did not finish in 300 s');
  process.exit(1);
}, 300000);
watchdog.unref();

main().then(() => process.exit(0), (e) => {
  console.error(`FAIL: ${e instanceof Fail ? e.message : (e && e.stack) || e}`);
  console.error(`browser-test: ${passed} passed, 1 failed`);
  process.exit(1);
});
