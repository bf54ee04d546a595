// Real-browser test of `tengu serve` (src/cmd/serve/): opens the page in headless Chromium
// and checks it against what the test knows of the run (an EXPECT JSON file):
//
//   node scripts/browser-test/check_serve.mjs URL EXPECT    (see scripts/browser-test.sh)
//
// EXPECT: { "loss": {"tag": "loss/value", "value": 0.93,     the loss log's last value
//                    "sessions": 2},                        trainer sessions in the loss log
//           "game": {"key": "games/...records", "index": 0,
//                    "board": [["GG", ".", "gg", ...], ...],  `tengu show`'s final board
//                    "last_value": 0.42,                    the search's value of its last move
//                    "last_black_value": -0.42},            the same from Black's view
//           "ladder": {"rungs": 5, "first_elo": 225.4, "games": 810},   ladder/ladder.json
//           "damaged": {"key": "games/...", "games": 2, "line": 3},     a file with a torn line
//           "unreadable": "games/...",                      a file with no intact game
//           "live": true,                                   a worker is playing on
//           "publish": {"step": 1000, "marker": "/tmp/.../ready"},
//           "charts": true,                                 check every chart's ticks and width
//           "archived": {"games_seen": 845},                a kept run: grey dot, loss-log counts
//           "ladders": [{"dir": "ladder-600", "rungs": 5}, {"dir": "ladder-to-the-end", "matches": 4}],
//           "summary": {"match": "ladder / step-...", "text": "step-12597: +0 =28 −2"},
//           "rated": [[800, "ladder"], ...],                steps the ladders rated
//           "long_game": "ladder/.../game-00000.record",   a game of 250+ plies
//           "link": {"key": "ladder/.../game-00000.record", "ply": 40, "visits": 8},   a link to a ply, analysed
//           "compare": {"runs": ["a", "b"], "ladder_runs": ["a"], "axis": "cpu"} }   the compare page
//                                                          of a server of several runs (then nothing else is checked)
// Every key is optional; each names the checks below it runs.
// Checks: the ladder's table and chart; the curves show the loss log's last value, smoothed,
// held-out on top, a loss chart for each head of the network that has a series, tick labels, no line across the pause between trainer sessions, the Elo
// chart without the chain's own matches and with intervals, hover values that go when the
// axis changes; the game replays to the final position of `tengu show`, one move back marks
// the last move, the last move shows the search's value from Black's view, the value graph
// takes a click to its ply, the result line sits above the board, pieces are named on
// hover; the intact games of a damaged file are shown with the damaged line named, a file
// that cannot be shown clears the viewer; a ladder game shows its result and no values; a
// worker's game in progress appears in the Live panel with its last move marked, moves on
// without a reload, and its worker is seen in Now; then writes the marker file, and the
// test publishes checkpoint `step`, which must appear in Now and in the checkpoint table
// without a reload. Every chart's tick labels are distinct, uncut and no longer than their
// spacing needs, its card as wide as the others; an archived run says so with a grey dot and
// the loss log's games; every ladder folder is shown, its matches in step order, a group
// summed up as its rung's results, the ladders' ratings beside their checkpoints; opening
// every group moves no board, a long game's moves scroll beside the board, and the live
// and replayed move lists say their values are Black's; a link to a game at a ply opens it
// there, its analysis draws arrows with visits and values, a heat map, a table and a dot
// on the value graph, kept with its ply; a link past the end shows the end. Without EXPECT it only loads the page. With SHOTS=FILE it saves a PNG of
// the page (the game at its end), with LINK_SHOT=FILE one of the game viewer with the
// link's analysis. Prints what it checked; exits 1 with a FAIL line on the
// first failure.

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

/// Every chart: tick labels with only the digits their spacing needs ("80", not "80.000"),
/// distinct on each axis (a one-point series too), inside their chart (the last x tick not
/// cut off); every card as wide as the others.
async function checkCharts(page) {
  const charts = await page.locator('.chart').evaluateAll((cs) => cs.map((c) => {
    const box = c.querySelector('svg').getBoundingClientRect();
    const axis = (k) => Array.from(c.querySelectorAll('text.tick.' + k)).map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent, inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 };
    });
    return { name: c.dataset.chart, width: c.getBoundingClientRect().width, x: axis('x'), y: axis('y') };
  }));
  check(charts.length >= 3, `curves: ${charts.length} charts`);
  for (const c of charts) {
    for (const k of ['x', 'y']) {
      const labels = c[k].map((t) => t.text);
      check(new Set(labels).size === labels.length, `curves: ${c.name}: ${k} tick labels repeat: ${labels.join(' ')}`);
      const decimals = labels.filter((t) => t.includes('.'));
      check(!decimals.length || decimals.some((t) => !/0[kM]?$/.test(t)), `curves: ${c.name}: ${k} tick labels with digits they do not need: ${labels.join(' ')}`);
      check(c[k].every((t) => t.inside), `curves: ${c.name}: a ${k} tick label is cut off: ${labels.join(' ')}`);
    }
  }
  const widths = new Set(charts.map((c) => Math.round(c.width)));
  check(widths.size === 1, `curves: chart cards of widths ${[...widths].join(', ')} px`);
  log(`ok  curves: ${charts.length} charts of one width, tick labels distinct, uncut and as short as their spacing allows ` +
    `(e.g. ${charts.map((c) => c.name + ': ' + c.y.map((t) => t.text).join(' ')).slice(-2).join('; ')})`);
}

/// The compare page (`URL/compare`) of a server of several runs: each run listed in its own
/// colour and drawn in the curves (a line of its own in the value loss chart and a legend
/// entry), the runs with ladder reports drawn on the ladder chart, both x axes, a run left
/// out and back, hover values of every run, every chart's ticks; COMPARE_SHOT=FILE saves a
/// PNG of the page.
async function checkCompare(page, url, want) {
  await page.goto(url.replace(/\/?$/, '/') + 'compare');
  await page.waitForSelector('#compare[data-drawn="1"]', { timeout: 60000 }).catch(() => {
    throw new Fail('compare: the runs\' curves were not drawn within 60 s');
  });
  const problem = await page.locator('#problem').evaluate((p) => p.hidden ? '' : p.textContent);
  check(problem === '', `compare: the page reports a problem: ${problem}`);
  const listed = await page.locator('#compare-runs li[data-run]').evaluateAll((ls) => ls.map((l) => [l.dataset.run, l.dataset.color]));
  check(JSON.stringify(listed.map((l) => l[0])) === JSON.stringify(want.runs), `compare: runs listed ${JSON.stringify(listed)}, expected ${JSON.stringify(want.runs)}`);
  check(new Set(listed.map((l) => l[1])).size === listed.length, `compare: runs share a colour: ${JSON.stringify(listed)}`);
  const axis = await page.locator('#x-axis').inputValue();
  check(axis === (want.axis || 'cpu'), `compare: the x axis is ${axis}, expected ${want.axis || 'cpu'}`);
  // Every run in the value loss chart: its line in its colour and its legend entry.
  const drawnRuns = async () => {
    const chart = page.locator('.chart[data-chart="value loss"]');
    const out = {};
    for (const [run, color] of listed) {
      const lines = await chart.locator(`polyline[data-run="${run}"]`).evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
      const legend = await chart.locator(`.chart-legend span.last[data-run="${run}"]`).count();
      out[run] = { lines: lines.length, colours: [...new Set(lines)], legend, color };
    }
    return out;
  };
  for (const x of ['cpu', 'step']) {
    await page.locator('#x-axis').selectOption(x);
    const d = await drawnRuns();
    for (const run of want.runs) {
      check(d[run].lines >= 1 && d[run].legend >= 1, `compare: on the ${x} axis ${run} has ${d[run].lines} lines and ${d[run].legend} legend entries in the value loss chart`);
      check(d[run].colours.length === 1 && d[run].colours[0] === d[run].color, `compare: ${run}'s lines are ${d[run].colours.join(', ')}, its colour ${d[run].color}`);
    }
    log(`ok  compare: x axis ${x}: ${want.runs.map((r) => r + ' ' + d[r].lines + ' lines in ' + d[r].color).join(', ')}`);
  }
  await page.locator('#x-axis').selectOption(want.axis || 'cpu');
  // Hover: every run's value in the tooltip.
  const svg = page.locator('.chart[data-chart="value loss"] svg');
  await svg.scrollIntoViewIfNeeded();
  const box = await svg.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  const tip = await page.locator('#tooltip').evaluate((t) => t.hidden ? '' : t.textContent);
  for (const run of want.runs) check(tip.includes(run + ' loss/value: '), `compare: hovering shows no value of ${run}: "${tip}"`);
  await page.mouse.move(0, 0);
  // The ladders: one chart, a line for each run with a report.
  const ladder = page.locator('#ladder-chart .chart[data-chart="ladders"]');
  for (const run of want.ladder_runs || []) {
    check(await ladder.locator(`polyline[data-run="${run}"]`).count() >= 1, `compare: no ladder line of ${run}`);
    check(await ladder.locator(`.band[data-run="${run}"]`).count() >= 1, `compare: no ladder interval of ${run}`);
  }
  const ladderLegend = await ladder.locator('.chart-legend').textContent().catch(() => '');
  log(`ok  compare: ladders of ${(want.ladder_runs || []).join(', ')} on one chart ("${ladderLegend.slice(0, 120)}")`);
  // A run left out goes from every chart and comes back.
  const out = want.runs[want.runs.length - 1];
  await page.locator(`#compare-runs li[data-run="${out}"] input[type="checkbox"]`).uncheck();
  check(await page.locator(`.chart polyline[data-run="${out}"]`).count() === 0, `compare: ${out} left out is still drawn`);
  await page.locator(`#compare-runs li[data-run="${out}"] input[type="checkbox"]`).check();
  check(await page.locator(`.chart[data-chart="value loss"] polyline[data-run="${out}"]`).count() >= 1, `compare: ${out} did not come back`);
  log(`ok  compare: ${listed.length} runs in their colours; hover shows each ("${tip.split('\n').join(' | ').slice(0, 160)}"); ${out} left out and back`);
  await checkCharts(page);
  if (process.env.COMPARE_SHOT) {
    await page.screenshot({ path: process.env.COMPARE_SHOT, fullPage: true });
    log(`ok  screenshot ${process.env.COMPARE_SHOT}`);
  }
}

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

    if (expect && expect.compare) {
      await checkCompare(page, url, expect.compare);
      noErrors('compare');
      return finish(url, started);
    }

    await page.goto(url);
    await page.waitForSelector('#now-checkpoint[data-step]:not([data-step=""])');
    const problem = await page.locator('#problem').evaluate((p) => p.hidden ? '' : p.textContent);
    check(problem === '', `the page reports a problem: ${problem}`);
    log(`ok  page loaded: newest checkpoint step ${await page.locator('#now-checkpoint').getAttribute('data-step')}, ` +
      `trainer ${await page.locator('#now-trainer').getAttribute('data-state')}`);
    // A marker that a reload would lose.
    await page.evaluate(() => { window.__tenguNoReload = true; });

    if (expect && expect.ladder) {
      // The ladder: one row per rung of ladder.json, its chart served, its games listed.
      const rows = page.locator('.ladder[data-dir="ladder"] .ladder-table tr[data-step]');
      await rows.first().waitFor();
      check(await rows.count() === expect.ladder.rungs, `ladder: ${await rows.count()} rungs shown, ladder.json has ${expect.ladder.rungs}`);
      const elo = Number(await rows.first().getAttribute('data-elo'));
      check(Math.abs(elo - expect.ladder.first_elo) < 1e-6, `ladder: first rung Elo ${elo}, ladder.json says ${expect.ladder.first_elo}`);
      await page.waitForFunction(() => { const i = document.querySelector('.ladder[data-dir="ladder"] .ladder-svg'); return i.complete && i.naturalWidth > 0; })
        .catch(() => { throw new Fail('ladder: the chart ladder.svg did not load'); });
      await page.waitForSelector('#arena-games li[data-key^="ladder/"]', { state: 'attached' });
      const listed = await page.locator('#arena-games li[data-key^="ladder/"]').count();
      check(listed === expect.ladder.games, `ladder: ${listed} games listed, the run has ${expect.ladder.games}`);
      const label = await page.locator('#arena-games li[data-key^="ladder/"]').first().textContent();
      check(/(1-0|0-1|1\/2-1\/2), \d+ plies/.test(label) && label.includes('(Black) vs'), `ladder: a game's list entry says "${label}"`);
      log(`ok  ladder: ${expect.ladder.rungs} rungs (first at Elo ${elo.toFixed(1)}), chart loaded, ${listed} games listed ("${label}")`);
    }

    if (expect && expect.charts) {
      await page.waitForSelector('.chart text.tick.x');
      await checkCharts(page);
    }

    if (expect && expect.loss) {
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
      // Smoothed, one line per trainer session, held-out drawn last (on top), ticks on both axes.
      const c = page.locator('.chart[data-chart="value loss"]');
      const smoothed = await c.locator(`polyline.smoothed[data-tag="${expect.loss.tag}"]`).count();
      check(smoothed === expect.loss.sessions, `curves: ${smoothed} smoothed lines of ${expect.loss.tag}, the loss log has ${expect.loss.sessions} sessions`);
      check(await c.locator(`polyline.raw[data-tag="${expect.loss.tag}"]`).count() === expect.loss.sessions, 'curves: the raw values are not drawn beside the smoothed line');
      const order = await c.locator('polyline').evaluateAll((ps) => ps.map((p) => p.dataset.tag));
      const firstHeld = order.findIndex((t) => t.startsWith('heldout/'));
      check(firstHeld > 0 && order.slice(firstHeld).every((t) => t.startsWith('heldout/')), `curves: held-out lines are not drawn last: ${order.join(' ')}`);
      const xt = await c.locator('text.tick.x').count(), yt = await c.locator('text.tick.y').count();
      check(xt >= 3 && yt >= 3, `curves: ${xt} x and ${yt} y tick labels`);
      await checkCharts(page);
      // One loss chart per head of the network that has a series (the server's `heads`).
      const curves = await page.evaluate(async () => (await fetch('/api/curves')).json());
      const heads = curves.heads || [];
      check(heads.includes('value') && heads.includes('residual'), `curves: the server names the heads ${JSON.stringify(heads)}`);
      const drawnHeads = [];
      for (const h of heads) {
        if (!(curves.series['loss/' + h] || []).length) continue;
        check(await page.locator(`.chart[data-chart="${h} loss"]`).count() === 1, `curves: no chart for the ${h} head's loss`);
        drawnHeads.push(h);
      }
      check(drawnHeads.length >= 3, `curves: loss charts only for ${drawnHeads.join(', ')}`);
      const eloChart = page.locator('.chart[data-chart^="Elo"]');
      check(await eloChart.locator('polyline[data-tag^="elo/vs_model-"]').count() === 0, 'curves: the Elo chart draws the chain\'s own matches');
      check(await eloChart.locator('.band[data-tag="elo/vs_greedy"]').count() === 1, 'curves: no interval band for elo/vs_greedy');
      // The tooltip goes when the axis changes under it.
      await page.mouse.move(box.x + box.width - 20, box.y + box.height / 2);
      await page.locator('#x-axis').selectOption('hours');
      check(await page.locator('#tooltip').evaluate((t) => t.hidden), 'curves: the tooltip stayed after the axis changed');
      const hoursSmoothed = await page.locator(`.chart[data-chart="value loss"] polyline.smoothed[data-tag="${expect.loss.tag}"]`).count();
      check(hoursSmoothed === expect.loss.sessions, `curves: on the hours axis ${hoursSmoothed} lines, not one per session`);
      await page.locator('#x-axis').selectOption('step');
      log(`ok  curves: smoothed, ${expect.loss.sessions} sessions apart, held-out on top, ${xt}/${yt} ticks, Elo with intervals and without the chain's matches; the tooltip goes with the axis; a loss chart per head with a series (${drawnHeads.join(', ')})`);

    }

    if (expect && expect.game) {
      // The game: chosen from the list, replayed to its end, compared with tengu show.
      const g = expect.game;
      await page.locator(`#selfplay-games li[data-key="${g.key}"][data-index="${g.index}"]`).click();
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
        const mv = Number(await page.locator('#ply-value').getAttribute('data-mover-value'));
        check(Math.abs(mv - g.last_value) <= 1e-6, `game ${g.key}: the last move's value ${mv}, the records file says ${g.last_value}`);
        check(Math.abs(v - g.last_black_value) <= 1e-6, `game ${g.key}: the last move shows ${v} for Black, expected ${g.last_black_value}`);
        check((await page.locator('#viewer .moves-note').textContent()).includes('for Black'), 'game: the move list does not say whose view its values are');
        log(`ok  game ${g.key}: the last move shows the search's value "${await page.locator('#ply-value').textContent()}"`);
        // The value graph: a click in its middle goes to the middle of the game.
        const graph = page.locator('#value-graph');
        check(Number(await graph.getAttribute('data-points')) > 0, 'the value graph has no points');
        const gb = await graph.boundingBox();
        await page.mouse.click(gb.x + 30 + (gb.width - 36) / 2, gb.y + gb.height / 2);
        const at = Number(await page.locator('#viewer').getAttribute('data-ply'));
        check(Math.abs(at - plies / 2) <= 1, `a click in the value graph's middle went to ply ${at} of ${plies}`);
        log(`ok  value graph: ${await graph.getAttribute('data-points')} values; a click in its middle went to ply ${at} of ${plies}`);
        await page.locator('#last').click();
      }
      // The result line is above the board, not below the fold; pieces have names.
      const result = await page.locator('#game-result').boundingBox(), boardBox = await page.locator('#board').boundingBox();
      check(result.y + result.height <= boardBox.y, `the result line (y ${result.y}) is not above the board (y ${boardBox.y})`);
      const titles = await page.locator('#board g.piece').evaluateAll((ps) => ps.map((p) => [p.dataset.token, (p.querySelector('title') || {}).textContent || '']));
      const unnamed = titles.filter(([t, name]) => !/^(Black|White) /.test(name) || name.endsWith(' ' + t));
      check(titles.length > 0 && unnamed.length === 0, `pieces without a name on hover: ${unnamed.slice(0, 5).join('; ')}`);
      log(`ok  result line above the board; pieces named on hover (e.g. "${titles[0][1]}")`);
      await page.locator('#prev').click();
      check(Number(await page.locator('#viewer').getAttribute('data-ply')) === plies - 1, 'the back button did not go one move back');
      await page.locator('#last').click();
      noErrors('game');
    }

    if (expect && expect.damaged) {
      // A file with a torn line: its intact games listed and shown, the line named.
      const d = expect.damaged;
      const file = page.locator(`#selfplay-games li[data-file="${d.key}"]`);
      const text = await file.textContent();
      check(text.includes(`${d.games} games`) && text.includes(`line ${d.line}`), `damaged file: the list says "${text}"`);
      await file.locator(`li[data-index="${d.games - 1}"]`).click();
      await page.waitForSelector(`#viewer[data-key="${d.key}"][data-index="${d.games - 1}"]`);
      const warning = await page.locator('#game-warning').textContent();
      check(warning.includes(`line ${d.line}`), `damaged file: the warning "${warning}" does not name line ${d.line}`);
      log(`ok  damaged file: "${text.slice(0, 80)}"; game ${d.games} shown with "${warning.slice(0, 80)}"`);
    }

    if (expect && expect.unreadable) {
      // A file that cannot be shown clears the viewer: no control of the game before stays.
      await page.locator(`#selfplay-games li[data-key="${expect.unreadable}"]`).click();
      await page.waitForSelector(`#viewer[data-key="${expect.unreadable}"][data-failed="1"]`);
      const left = await page.evaluate(() => ({
        index: !document.querySelector('#game-index').hidden, label: document.querySelector('#ply-label').textContent,
        board: document.querySelectorAll('#board-box #board').length, moves: document.querySelectorAll('#move-list li').length,
        result: document.querySelector('#game-result').textContent, slider: document.querySelector('#ply').max,
      }));
      check(!left.index && left.label === '' && left.board === 0 && left.moves === 0 && left.result === '' && left.slider === '0',
        `a failed load left the previous game's controls: ${JSON.stringify(left)}`);
      log(`ok  unreadable file: the viewer says "${(await page.locator('#game-warning').textContent()).slice(0, 80)}" and shows nothing else`);
      // Its 422 answer is what this check asked for: Chromium's console line about it is no error.
      for (let i = errors.length - 1; i >= 0; i--) if (errors[i].includes('status of 422')) errors.splice(i, 1);
    }

    if (expect && expect.ladder) {
      // A ladder game: its result, no search values and no note about them per move.
      const li = page.locator('#arena-games li[data-key^="ladder/"]').first();
      await li.evaluate((e) => { e.closest('details').open = true; });
      const key = await li.getAttribute('data-key');
      await li.click();
      await page.waitForSelector(`#viewer[data-key="${key}"]:not([data-failed="1"])`);
      const pv = await page.locator('#ply-value').textContent();
      check(pv === '', `ladder game: the value line says "${pv}"`);
      check((await page.locator('#value-box').textContent()).includes('No search values'), 'ladder game: no word on the missing values');
      check(/^Result (1-0|0-1|1\/2-1\/2)/.test(await page.locator('#game-result').textContent()), 'ladder game: no result');
      log(`ok  ladder game ${key}: "${await page.locator('#game-result').textContent()}", no values claimed`);
      noErrors('ladder game');
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
      // Its values are Black's, as in the game viewer, and the list says so.
      const lv = await page.locator('#live-value').evaluate((e) => [e.dataset.value, e.dataset.moverValue, e.dataset.mover]);
      if (lv[0] !== '') {
        const want = lv[2] === 'Black' ? Number(lv[1]) : -Number(lv[1]);
        check(Math.abs(Number(lv[0]) - want) < 1e-9, `live: the last move's value ${lv[0]} is not Black's view of ${lv[2]}'s ${lv[1]}`);
        check((await page.locator('#live-value').textContent()).includes('for Black'), 'live: the last value does not say it is Black\'s');
      }
      check((await page.locator('#live-viewer .moves-note').textContent()).includes('for Black'), 'live: the move list does not say whose view its values are');
      check(await page.locator('#live-moves li').count() === second.plies, 'live: the move list does not hold every move');
      await page.waitForSelector('#now-workers .worker[data-playing="1"]', { timeout: 10000 })
        .catch(() => { throw new Fail('Now does not count the worker playing in the Live panel'); });
      log(`ok  live: ${await live.getAttribute('data-key')} at ply ${first.plies}, then ply ${second.plies} ` +
        `(${(Number(second.ms) - Number(first.ms)) / 1000} s later) without a reload; "${await page.locator('#live-status').textContent()}"`);
      noErrors('live');
    }

    if (expect && expect.archived) {
      // A kept run: grey dot saying archived, the trainer stopped, the loss log's counts.
      const a = expect.archived;
      await page.waitForSelector('#live[data-state="archived"]', { timeout: 10000 }).catch(() => { throw new Fail('archived run: the dot does not say archived'); });
      const dot = await page.locator('#live').evaluate((e) => [e.textContent, getComputedStyle(e).color]);
      check(dot[0].includes('archived') && !/rgb\(119, 204, 119\)/.test(dot[1]), `archived run: the dot says "${dot[0]}" in ${dot[1]}`);
      check((await page.locator('#now-trainer').getAttribute('data-state')) === 'stopped', 'archived run: the trainer is not said to be stopped');
      const games = Number(await page.locator('#now-selfplay').getAttribute('data-games'));
      check(games === a.games_seen, `archived run: ${games} games said, the loss log saw ${a.games_seen}`);
      check(!(await page.locator('#now-rates').textContent()).includes('not measured yet'), 'archived run: rates "not measured yet" as if it were running');
      log(`ok  archived run: "${dot[0].trim()}" (grey), trainer "${await page.locator('#now-trainer').textContent()}", "${await page.locator('#now-selfplay').textContent()}"`);
    }

    if (expect && expect.ladders) {
      // Every ladder folder: its report's rungs, or its matches where it has no report.
      for (const l of expect.ladders) {
        const div = page.locator(`.ladder[data-dir="${l.dir}"]`);
        await div.waitFor().catch(() => { throw new Fail(`ladders: the folder ${l.dir}/ is not shown`); });
        if (l.rungs != null) {
          const n = await div.locator('tr[data-step]').count();
          check(n === l.rungs, `ladders: ${l.dir}/ shows ${n} rungs, its ladder.json has ${l.rungs}`);
        } else {
          const n = await div.locator('tr[data-match]').count();
          check(n === l.matches, `ladders: ${l.dir}/ shows ${n} matches, it has ${l.matches}`);
        }
      }
      log(`ok  ladders: ${expect.ladders.map((l) => l.dir + '/ (' + (l.rungs != null ? l.rungs + ' rungs' : l.matches + ' matches') + ')').join(', ')}`);
      // Groups by step as numbers (800 before 1600 before 12597), per folder.
      const ids = await page.locator('#arena-games li[data-match]').evaluateAll((ls) => ls.map((l) => l.dataset.match));
      const bySource = {};
      ids.forEach((id) => { const [src, m] = id.split(' / '); (bySource[src] = bySource[src] || []).push(m); });
      for (const [src, ms] of Object.entries(bySource)) {
        const steps = ms.map((m) => Number((/^step-(\d+)/.exec(m) || [0, NaN])[1])).filter((x) => !isNaN(x));
        check(steps.every((x, i) => i === 0 || steps[i - 1] <= x), `games: ${src}'s matches are not in step order: ${ms.join(', ')}`);
      }
      for (const l of expect.ladders) check(bySource[l.dir], `games: no games of ${l.dir}/ listed`);
      log(`ok  games: every folder's matches in step order (${bySource.ladder.slice(0, 4).join(', ')}, ...)`);
    }

    if (expect && expect.summary) {
      // A group says what the named player did, not how often each colour won.
      const t = await page.locator(`#arena-games li[data-match="${expect.summary.match}"] summary`).textContent();
      check(t.includes(expect.summary.text), `games: the group says "${t}", expected "${expect.summary.text}"`);
      log(`ok  games: the group's summary "${t}"`);
    }

    if (expect && expect.rated) {
      // The checkpoint table names what the ladders say of each rung.
      for (const [step, dir] of expect.rated) {
        const n = await page.locator(`#checkpoint-table tr[data-step="${step}"] .ladder-rating[data-ladder="${dir}"]`).count();
        check(n >= 1, `checkpoints: step ${step} shows nothing of ${dir}/, which rated it`);
      }
      const t = await page.locator(`#checkpoint-table tr[data-step="${expect.rated[0][0]}"] td:nth-child(5)`).textContent();
      check(!t.startsWith('\u2013'), `checkpoints: a rated rung says "${t}"`);
      log(`ok  checkpoints: ${expect.rated.length} ladder ratings shown beside their checkpoints ("${t.slice(0, 90)}")`);
    }

    if (expect && expect.long_game) {
      // Opening a long group moves nothing but its own pane; a long game's moves scroll beside the board.
      const lists = page.locator('#games .game-lists');
      const first = page.locator(`#arena-games li[data-key="${expect.long_game}"]`);
      await first.evaluate((e) => { e.closest('details').open = true; });
      await first.click();
      await page.waitForSelector(`#viewer[data-key="${expect.long_game}"]:not([data-failed="1"]) #board`);
      const top = () => page.evaluate(() => document.querySelector('#board').getBoundingClientRect().top + window.scrollY);
      const before = await top();
      await page.evaluate(() => document.querySelectorAll('#arena-games details').forEach((d) => { d.open = true; }));
      const after = await top();
      const pane = await lists.evaluate((e) => [e.getBoundingClientRect().height, e.scrollHeight, window.innerHeight]);
      check(Math.abs(after - before) < 1, `games: opening every group moved the board from ${before} to ${after} px`);
      check(pane[0] <= pane[2] && pane[1] > pane[0], `games: the lists are ${pane[0]} px high (${pane[1]} px of content) in a ${pane[2]} px window`);
      const plies = Number(await page.locator('#viewer').getAttribute('data-plies'));
      const geo = await page.evaluate(() => {
        const b = document.querySelector('#board').getBoundingClientRect(), l = document.querySelector('#move-list');
        const r = l.getBoundingClientRect(), cur = l.querySelector('li.current').getBoundingClientRect();
        return { boardBottom: b.bottom, boardRight: b.right, listTop: r.top, listBottom: r.bottom, listLeft: r.left,
          scroll: l.scrollHeight, client: l.clientHeight, curTop: cur.top, curBottom: cur.bottom };
      });
      check(plies >= 200, `games: the long game has only ${plies} plies`);
      check(geo.listBottom <= geo.boardBottom + 20 && geo.listLeft >= geo.boardRight, `games: the move list (top ${geo.listTop}, bottom ${geo.listBottom}, left ${geo.listLeft}) is not beside the board (bottom ${geo.boardBottom}, right ${geo.boardRight})`);
      check(geo.scroll > geo.client, 'games: the long move list does not scroll');
      check(geo.curTop >= geo.listTop - 1 && geo.curBottom <= geo.listBottom + 1, 'games: the current move is not in sight in its list');
      log(`ok  games: opening every group left the board at y ${after}; the ${plies}-ply list is ${geo.client} px beside a board ending at ${geo.boardBottom.toFixed(0)} px, scrolled to the current move`);
      noErrors('layout');
    }

    if (expect && expect.link) {
      // A link to a game at a ply opens the page there; the analysis asked for draws its
      // arrows, heat map, table and a dot on the value graph, and stays with its ply.
      const k = expect.link, hash = `#game=${encodeURIComponent(k.key)}&index=${k.index || 0}&ply=${k.ply}`;
      await page.goto('about:blank');
      await page.goto(url + hash);
      await page.waitForSelector(`#viewer[data-key="${k.key}"][data-ply="${k.ply}"] #board`).catch(() => {
        throw new Fail(`link: ${hash} did not open ${k.key} at ply ${k.ply}`);
      });
      const href = await page.locator('#game-link').getAttribute('href');
      check(href === url + hash, `link: the viewer's link is ${href}, not ${url + hash}`);
      await page.waitForSelector('#va-network option', { state: 'attached' });
      await page.fill('#va-visits', String(k.visits));
      await page.click('#va-analyse');
      await page.waitForSelector('#board .arrow-group', { timeout: 60000 }).catch(async () => {
        throw new Fail(`link: no analysis arrows ("${await page.locator('#va-status').textContent()}")`);
      });
      const labels = await page.locator('#board .arrow-label').evaluateAll((ts) => ts.map((t) => t.dataset.label));
      check(labels.length >= 1 && labels.every((t) => /^\d+ [+-]\d\.\d\d$/.test(t)), `link: arrow labels ${labels.join(' | ')}`);
      const heat = await page.locator('#board rect.heat').count();
      const rows = await page.locator('#va-table tbody tr').count();
      const said = await page.locator('#va-status').textContent();
      check(heat >= 1 && rows >= 1 && said.startsWith(`ply ${k.ply}: ${k.visits} visits`), `link: heat on ${heat} squares, ${rows} rows, "${said}"`);
      check(await page.locator(`#value-graph circle.analysis[data-ply="${k.ply}"]`).count() === 1, `link: no analysis dot at ply ${k.ply} on the value graph`);
      // The arrows belong to their ply: gone one move on, back one move back.
      await page.click('#next');
      await page.waitForSelector(`#viewer[data-ply="${k.ply + 1}"]`);
      check(await page.locator('#board .arrow-group').count() === 0, 'link: the arrows stayed on the next ply');
      await page.click('#prev');
      await page.waitForSelector(`#viewer[data-ply="${k.ply}"]`);
      check(await page.locator('#board .arrow-group').count() === labels.length, 'link: the arrows did not come back with their ply');
      if (process.env.LINK_SHOT) {
        await page.mouse.move(0, 0);
        await page.locator('#viewer').screenshot({ path: process.env.LINK_SHOT });
        log(`ok  screenshot ${process.env.LINK_SHOT}`);
      }
      log(`ok  link: ${hash} opened ${k.key} at ply ${k.ply}; analysis: ${labels.length} arrows (${labels.join(', ')}), ` +
        `heat on ${heat} squares, ${rows} rows, a dot on the value graph; "${said}"`);
      // A link past the game's end shows its end and says so.
      const past = `#game=${encodeURIComponent(k.key)}&index=${k.index || 0}&ply=100000`;
      await page.goto('about:blank');
      await page.goto(url + past);
      await page.waitForSelector(`#viewer[data-key="${k.key}"]:not([data-plies="0"]) #board`);
      const plies = await page.locator('#viewer').getAttribute('data-plies');
      const warning = await page.locator('#game-warning').textContent();
      check(await page.locator('#viewer').getAttribute('data-ply') === plies && warning.includes('ply 100000'),
        `link: past the end the viewer is at ply ${await page.locator('#viewer').getAttribute('data-ply')} of ${plies} and says "${warning}"`);
      log(`ok  link: ply 100000 of a ${plies}-ply game shows its end and says "${warning}"`);
      noErrors('link');
    }

    if (process.env.SHOTS) {
      // Without EXPECT nothing above waited for the curves, the lists and the game.
      if (!expect) await page.waitForSelector('#viewer:not([data-plies="0"]) #board', { timeout: 30000 }).catch(() => {});
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
  finish(url, started);
}

function finish(url, started) {
  log(`browser test of ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  log(`browser-test: ${passed} passed, 0 failed`);
}

const watchdog = setTimeout(() => {
  console.error('FAIL: the browser test did not finish in 240 s');
  process.exit(1);
}, 240000);
watchdog.unref();

main().then(() => process.exit(0), (e) => {
  console.error(`FAIL: ${e instanceof Fail ? e.message : (e && e.stack) || e}`);
  console.error(`browser-test: ${passed} passed, 1 failed`);
  process.exit(1);
});
