// tengu play: the play page of `tengu serve` (src/cmd/serve/play.rs). The server owns the
// rules: every state it sends lists the legal moves with the squares each is clicked by
// (`path`, board indices), and the page only matches clicks against those paths.
'use strict';

const $ = (id) => document.getElementById(id);
// The board's drawing (tenguBoard, book/src/html.rs) and the analysis on it (analysis.js).
const { CELL, LEFT, TOP, sv, fmt, api } = tenguAnalysis;

let setup = null;        // /api/play/setup
let state = null;        // the game in play, as the server last sent it
let flipped = false;
let prefix = [];         // squares clicked so far of the move being entered
let promotionChoice = null; // the two moves (promote, decline) of a completed path
let analysis = null;     // {id, ply, data}: the last analysis, shown while its ply is on the board
let pollTimer = null;
let review = null;       // {id, ply, data}: an earlier position of the game on the board, else null

// For the browser test and the curious: what the page shows.
window.tenguPlay = { get state() { return state; }, get analysis() { return analysis; }, get review() { return review; } };

// ---- setup ----

async function loadSetup() {
  setup = await api('GET', '/api/play/setup');
  const game = $('game');
  game.replaceChildren(...setup.games.map((g) => new Option(g.name, g.id)));
  const c = setup.caps;
  $('caps').textContent = `This server allows ${c.visits} visits or ${c.ms / 1000} s a request, alpha-beta to depth ${c.depth}, ` +
    `${c.games} games and ${c.queries} analyses at once; games are saved to ${setup.play_dir}.`;
  $('visits').max = c.visits;
  $('depth').max = c.depth;
  $('seconds').max = c.ms / 1000;
  $('analysis-visits').max = c.visits;
  onGameChosen();
}

function onGameChosen() {
  const g = setup.games.find((x) => x.id === $('game').value);
  $('preset').replaceChildren(...g.presets.map((p) => {
    const o = new Option(p.name, p.name);
    o.title = p.doc;
    return o;
  }));
  const nets = setup.networks.filter((n) => n.game === g.id);
  $('opponent').replaceChildren(...nets.map((n) => new Option(n.label, n.id)), new Option('alpha-beta', 'alphabeta'));
  $('analysis-network').replaceChildren(...nets.map((n) => new Option(n.label, n.id)));
  // The books' lines of this game (tengu serve --book), each a starting position.
  const lines = [];
  for (const b of setup.books.filter((x) => x.game === g.id)) {
    for (const o of b.openings) {
      const moves = o.moves.length > 6 ? o.moves.slice(0, 6).join(' ') + ' ...' : o.moves.join(' ');
      const option = new Option(`${b.name}, ply ${o.ply}: ${moves} (score ${o.score.toFixed(2)})`, o.id);
      option.title = o.moves.join(' ');
      lines.push(option);
    }
  }
  $('opening').replaceChildren(...lines);
  $('start-opening').hidden = !lines.length;
  if (!lines.length && $('start-kind').value === 'opening') $('start-kind').value = 'initial';
  onStartKind();
  onOpponentChosen();
}

function onOpponentChosen() {
  const ab = $('opponent').value === 'alphabeta';
  $('visits-label').hidden = ab;
  $('depth-label').hidden = !ab;
}

function onStartKind() {
  const kind = $('start-kind').value;
  $('start-text').hidden = kind === 'initial' || kind === 'opening';
  $('opening').hidden = kind !== 'opening';
  $('start-text').placeholder = kind === 'record' ? 'a game record (tengu show reads the same)' : 'e.g. 9,k,7/17/.../8,K,8 b -';
}

async function newGame(ev) {
  ev.preventDefault();
  $('setup-error').textContent = '';
  const body = { game: $('game').value, preset: $('preset').value, side: $('side').value, opponent: $('opponent').value };
  // Seconds a move, when given, replace a network's visits and cap alpha-beta's time.
  const seconds = Number($('seconds').value);
  if (seconds > 0) body.max_ms = Math.max(1, Math.round(seconds * 1000));
  if (body.opponent === 'alphabeta') body.depth = Number($('depth').value);
  else if (!body.max_ms) body.visits = Number($('visits').value);
  const kind = $('start-kind').value;
  if (kind === 'opening') body.opening = $('opening').value;
  else if (kind !== 'initial') body[kind] = $('start-text').value;
  if (state && !state.over) {
    // The game left behind is closed: it no longer takes one of the server's places.
    await api('POST', `/api/play/game/${state.id}/close`, {}).catch(() => {});
  }
  $('start').disabled = true;
  try {
    const s = await api('POST', '/api/play/new', body);
    flipped = s.human === 'white';
    analysis = null;
    review = null;
    show(s);
  } catch (e) {
    $('setup-error').textContent = (e.field ? `${e.field}: ` : '') + e.message;
  } finally {
    $('start').disabled = false;
  }
}

// ---- the game ----

function show(s) {
  const moved = !state || state.id !== s.id || state.ply !== s.ply;
  state = s;
  if (review && (review.id !== s.id || review.ply >= s.ply)) review = null;
  if (moved) {
    prefix = [];
    promotionChoice = null;
  }
  render();
  clearTimeout(pollTimer);
  if (state.thinking) pollTimer = setTimeout(poll, 300);
}

async function poll() {
  if (!state) return;
  const id = state.id;
  try {
    const s = await api('GET', `/api/play/game/${id}`);
    if (state && state.id === id) show(s);
  } catch (e) {
    $('status').textContent = e.message;
  }
}

async function act(what) {
  if (!state) return;
  try {
    show(await api('POST', `/api/play/game/${state.id}/${what}`, {}));
  } catch (e) {
    $('status').textContent = e.message;
  }
}

async function send(text) {
  prefix = [];
  promotionChoice = null;
  try {
    show(await api('POST', `/api/play/game/${state.id}/move`, { move: text, ply: state.ply }));
  } catch (e) {
    render();
    $('status').textContent = `${text}: ${e.message}`;
  }
}

const samePath = (m, p) => m.path.length === p.length && p.every((s, k) => m.path[k] === s);
const startsWith = (m, p) => m.path.length >= p.length && p.every((s, k) => m.path[k] === s);

/// A click on square i (a board index) while a move is entered.
function clickSquare(i) {
  if (!state || review || !state.legal.length || promotionChoice) return;
  const legal = state.legal;
  const own = legal.some((m) => m.path[0] === i);
  if (!prefix.length) {
    if (own) prefix = [i];
    render();
    return;
  }
  if (prefix.length === 1 && i === prefix[0]) {
    prefix = [];
    render();
    return;
  }
  // The square just clicked again: the move ends there (where it may).
  if (prefix.length >= 2 && i === prefix[prefix.length - 1] && legal.some((m) => samePath(m, prefix))) {
    finish(prefix);
    return;
  }
  const next = prefix.concat([i]);
  const matches = legal.filter((m) => startsWith(m, next));
  if (!matches.length) {
    prefix = own ? [i] : [];
    render();
    return;
  }
  if (matches.every((m) => m.path.length === next.length)) {
    finish(next);
    return;
  }
  prefix = next;
  render();
}

function finish(path) {
  const moves = state.legal.filter((m) => samePath(m, path));
  if (moves.length > 1) {
    promotionChoice = moves;
    prefix = path;
    render();
    return;
  }
  if (moves.length === 1) send(moves[0].text);
}

function choosePromotion(mark) {
  const m = promotionChoice && promotionChoice.find((x) => x.promotion === mark);
  if (m) send(m.text);
}

// ---- drawing ----

/// Board index <-> drawn index (the same map both ways).
function drawn(i) { return flipped ? state.size * state.size - 1 - i : i; }

function render() {
  const s = state;
  const playing = s && !s.over;
  $('takeback').disabled = !s || !s.moves.length;
  $('resign').disabled = !playing;
  $('analyse').disabled = !s;
  if (!s) return;
  $('status').className = s.over ? 'over' : '';
  $('status').textContent = statusText(s);
  $('review').hidden = !review;
  if (review) $('review-text').textContent = `The position after ply ${review.ply} of ${s.ply}` +
    (review.data.stm === 'black' ? ', Black to move.' : ', White to move.');
  const dl = $('download');
  dl.hidden = false;
  dl.href = `/api/play/game/${s.id}/record`;
  dl.setAttribute('download', '');
  $('saved').textContent = s.saved ? `saved as ${s.saved}` : '';
  drawBoard();
  drawMoves();
  drawGraph();
  drawCaptures();
  drawLegend();
  drawAnalysisTable();
  const canPass = prefix.length === 1 && s.legal.some((m) => samePath(m, [prefix[0], prefix[0]]));
  $('pass').hidden = !canPass;
  $('promotion').hidden = !promotionChoice;
  if (promotionChoice) {
    const token = s.board[promotionChoice[0].path[0]].slice(1);
    $('promotion-text').textContent = `${s.names[token] || token}: promote?`;
  }
}

function statusText(s) {
  const you = s.human === 'black' ? 'Black' : 'White';
  if (s.problem) return s.problem;
  if (s.over) {
    const how = s.termination ? ` (${s.termination})` : '';
    return `Game over: ${s.result}${how}`;
  }
  if (s.thinking) return `${s.opponent} is thinking...`;
  return `Your move (${you})${s.in_check ? ': check!' : ''}`;
}

/// What the board shows: the game now, or the earlier position picked on the graph.
function viewed() {
  if (review) return { board: review.data.board, stm: review.data.stm, last: review.data.last, ply: review.ply };
  const s = state, last = s.moves.length ? s.moves[s.moves.length - 1] : null;
  return { board: s.board, stm: s.stm, last, ply: s.ply };
}

function drawBoard() {
  const s = state, n = s.size, view = viewed();
  const board = new Array(n * n);
  view.board.forEach((t, i) => { board[drawn(i)] = t; });
  const last = view.last;
  const lastSquares = last ? [last.from, last.to].concat(last.captures).map(drawn) : [];
  const files = flipped ? s.files.slice().reverse() : s.files;
  const ranks = flipped ? s.ranks.slice().reverse() : s.ranks;
  const svg = tenguBoard({ size: n, stm: view.stm, files, ranks, board, last: lastSquares });
  svg.querySelectorAll('rect.square').forEach((r) => {
    const i = drawn(Number(r.dataset.square));
    r.dataset.index = i;
    const t = view.board[i];
    const title = r.querySelector('title');
    if (t && title) title.textContent += `: ${t[0] === 'b' ? 'Black' : 'White'} ${s.names[t.slice(1)] || t.slice(1)}`;
  });
  if (flipped) {
    // Each side's pieces point away from it: the side at the bottom points up.
    svg.querySelectorAll('g.piece').forEach((g) => {
      if (g.getAttribute('transform')) g.removeAttribute('transform');
      else {
        const d = Number(g.dataset.square);
        g.setAttribute('transform', `rotate(180 ${LEFT + (d % n + 0.5) * CELL} ${TOP + (Math.floor(d / n) + 0.5) * CELL})`);
      }
    });
  }
  const overlay = sv('g', { 'class': 'overlay' });
  const mark = (i, cls) => {
    const d = drawn(i);
    overlay.appendChild(sv('rect', { 'class': 'mark ' + cls, x: LEFT + (d % n) * CELL, y: TOP + Math.floor(d / n) * CELL,
      width: CELL, height: CELL, 'data-index': i }));
  };
  const shown = analysis && analysis.id === s.id && analysis.ply === view.ply ? analysis.data : null;
  if (prefix.length) {
    mark(prefix[0], 'picked');
    const matches = s.legal.filter((m) => startsWith(m, prefix));
    const next = new Set(matches.filter((m) => m.path.length > prefix.length).map((m) => m.path[prefix.length]));
    next.forEach((i) => mark(i, 'target'));
    if (prefix.length >= 2 && matches.some((m) => m.path.length === prefix.length)) mark(prefix[prefix.length - 1], 'stop');
  }
  svg.appendChild(overlay);
  if (shown) tenguAnalysis.draw(svg, shown, { size: n, drawn }, $('heat').checked);
  svg.addEventListener('click', (ev) => {
    const r = ev.target.closest('rect.square');
    if (r) clickSquare(Number(r.dataset.index));
  });
  svg.addEventListener('mouseover', (ev) => {
    const r = ev.target.closest('rect.square');
    if (r) hover(Number(r.dataset.index));
  });
  $('board-box').replaceChildren(svg);
}

function hover(i) {
  const s = state, t = viewed().board[i];
  const name = s.files[i % s.size] + s.ranks[Math.floor(i / s.size)];
  document.querySelectorAll('#legend tr.hovered').forEach((r) => r.classList.remove('hovered'));
  if (!t) {
    $('hover').textContent = name;
    return;
  }
  const token = t.slice(1);
  const entry = s.legend.find((k) => k.token === token);
  $('hover').textContent = `${name}: ${t[0] === 'b' ? 'Black' : 'White'} ${s.names[token] || token} (${token})` +
    (entry ? `, moves ${entry.betza}` + (entry.promotes ? `, promotes to ${entry.promotes}` : '') : '');
  const row = document.querySelector(`#legend tr[data-token="${CSS.escape(token)}"]`);
  if (row) row.classList.add('hovered');
}

function drawMoves() {
  const ol = $('moves');
  ol.replaceChildren(...state.moves.map((m, k) => {
    const li = document.createElement('li');
    li.className = m.by + (k === state.moves.length - 1 ? ' last' : '') + (review && review.ply === k + 1 ? ' viewed' : '');
    li.textContent = m.text;
    li.addEventListener('click', () => showPly(k + 1));
    li.title = m.hodges + (m.captured.length ? `, takes ${m.captured.map((t) => state.names[t.slice(1)] || t).join(', ')}` : '');
    return li;
  }));
  const focus = review ? ol.children[review.ply - 1] : ol.lastChild;
  if (focus) focus.scrollIntoView({ block: 'nearest' });
}

// ---- the value graph ----

const GRAPH = { width: 380, height: 110, left: 28, right: 8, top: 8, bottom: 18 };

/// The x of ply p on a graph of `plies` plies, and the ply nearest an x.
function graphX(p, plies) { return GRAPH.left + (GRAPH.width - GRAPH.left - GRAPH.right) * p / Math.max(plies, 1); }
function graphPly(x, plies) {
  const p = Math.round((x - GRAPH.left) * Math.max(plies, 1) / (GRAPH.width - GRAPH.left - GRAPH.right));
  return Math.min(Math.max(p, 0), plies);
}
function graphY(v) { return GRAPH.top + (GRAPH.height - GRAPH.top - GRAPH.bottom) * (1 - v) / 2; }

/// The values after each ply (state.values: {ply, source, black}) as one line a source; a
/// click picks the nearest ply.
function drawGraph() {
  const s = state, plies = s.ply, W = GRAPH.width, H = GRAPH.height;
  const svg = sv('svg', { id: 'graph', width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'data-plies': plies,
    'data-points': s.values.length });
  svg.appendChild(sv('rect', { x: 0, y: 0, width: W, height: H, fill: '#fff' }));
  for (const v of [1, 0, -1]) {
    svg.appendChild(sv('line', { 'class': v ? 'axis' : 'zero', x1: GRAPH.left, x2: W - GRAPH.right, y1: graphY(v), y2: graphY(v) }));
    svg.appendChild(sv('text', { 'class': 'tick', x: GRAPH.left - 4, y: graphY(v) + 3, 'text-anchor': 'end' }, v > 0 ? '+1' : String(v)));
  }
  const step = Math.max(1, Math.ceil(plies / 8));
  for (let p = 0; p <= plies; p += step) {
    svg.appendChild(sv('text', { 'class': 'tick', x: graphX(p, plies), y: H - 4, 'text-anchor': 'middle' }, String(p)));
  }
  const at = review ? review.ply : plies;
  svg.appendChild(sv('line', { 'class': 'cursor', x1: graphX(at, plies), x2: graphX(at, plies), y1: GRAPH.top, y2: H - GRAPH.bottom }));
  for (const source of ['opponent', 'analysis']) {
    const points = s.values.filter((v) => v.source === source);
    if (points.length > 1) {
      const d = points.map((v, k) => `${k ? 'L' : 'M'}${graphX(v.ply, plies).toFixed(1)},${graphY(v.black).toFixed(1)}`).join(' ');
      svg.appendChild(sv('path', { 'class': 'series ' + source, d }));
    }
    for (const v of points) {
      const dot = sv('circle', { 'class': 'point ' + source, cx: graphX(v.ply, plies), cy: graphY(v.black), r: 3,
        'data-ply': v.ply, 'data-value': v.black.toFixed(3) });
      dot.appendChild(sv('title', {}, `ply ${v.ply}, ${source}: ${fmt(v.black)} for Black`));
      svg.appendChild(dot);
    }
  }
  svg.addEventListener('click', (ev) => {
    const box = svg.getBoundingClientRect();
    showPly(graphPly((ev.clientX - box.left) * W / box.width, plies));
  });
  $('value-graph').replaceChildren(svg);
}

/// Shows the position after ply p of the game (the game now when p is its last ply).
async function showPly(p) {
  if (!state) return;
  const s = state;
  if (p >= s.ply) {
    review = null;
    render();
    return;
  }
  try {
    const data = await api('GET', `/api/play/game/${s.id}/ply/${p}`);
    if (state && state.id === s.id && p < state.ply) {
      review = { id: s.id, ply: p, data };
      prefix = [];
      promotionChoice = null;
      render();
    }
  } catch (e) {
    $('status').textContent = e.message;
  }
}

function drawCaptures() {
  const chips = (list) => list.map((t) => {
    const span = document.createElement('span');
    span.className = 'chip ' + (t[0] === 'b' ? 'black' : 'white');
    span.textContent = t.slice(1);
    span.title = state.names[t.slice(1)] || t.slice(1);
    return span;
  });
  const line = (who, list) => {
    const p = document.createElement('p');
    p.append(`${who} took ${list.length}: `, ...chips(list));
    return p;
  };
  $('captures').replaceChildren(line('Black', state.captured.black), line('White', state.captured.white));
}

let legendOf = null;
function drawLegend() {
  const body = document.querySelector('#legend tbody');
  if (legendOf !== state.game) {
    legendOf = state.game;
    body.replaceChildren(...state.legend.map((k) => {
      const tr = document.createElement('tr');
      tr.dataset.token = k.token;
      for (const [cls, text] of [['token', k.token], ['name', k.name], ['betza', k.betza], ['promotes', k.promotes || '']]) {
        const td = document.createElement('td');
        td.className = cls;
        td.textContent = text;
        tr.appendChild(td);
      }
      return tr;
    }));
  }
  const onBoard = new Set(state.board.filter((t) => t).map((t) => t.slice(1)));
  body.querySelectorAll('tr').forEach((tr) => tr.classList.toggle('on-board', onBoard.has(tr.dataset.token)));
}

// ---- analysis ----

async function analyse() {
  if (!state) return;
  const s = state;
  // The position on the board: the game now, or the earlier one picked on the graph.
  const ply = review ? review.ply : s.ply;
  const body = { game: s.game, position: s.start, moves: s.moves.slice(0, ply).map((m) => m.text), play_game: s.id,
    visits: Number($('analysis-visits').value), include_policy: $('heat').checked, max_moves: 8, pv_plies: 6 };
  const net = $('analysis-network').value;
  if (net) body.network = net;
  $('analysis-status').textContent = 'analysing...';
  $('analyse').disabled = true;
  try {
    const a = await api('POST', '/api/play/analyze', body);
    analysis = { id: s.id, ply, data: a };
    $('analysis-status').textContent = tenguAnalysis.summary(a);
    // The game's value graph now has the value: draw the state with it.
    if (state && state.id === s.id) show(await api('GET', `/api/play/game/${s.id}`));
  } catch (e) {
    $('analysis-status').textContent = (e.field ? `${e.field}: ` : '') + e.message;
  } finally {
    $('analyse').disabled = false;
  }
}

function drawAnalysisTable() {
  const body = document.querySelector('#analysis-table tbody');
  const a = analysis && analysis.id === state.id && analysis.ply === viewed().ply ? analysis.data : null;
  tenguAnalysis.table(body, a);
}

// ---- wiring ----

$('game').addEventListener('change', onGameChosen);
$('opponent').addEventListener('change', onOpponentChosen);
$('start-kind').addEventListener('change', onStartKind);
$('new-game').addEventListener('submit', newGame);
$('flip').addEventListener('click', () => { flipped = !flipped; if (state) render(); });
$('takeback').addEventListener('click', () => act('takeback'));
$('resign').addEventListener('click', () => act('resign'));
$('pass').addEventListener('click', () => { if (prefix.length === 1) finish([prefix[0], prefix[0]]); });
$('promote').addEventListener('click', () => choosePromotion('+'));
$('decline').addEventListener('click', () => choosePromotion('='));
$('cancel-promotion').addEventListener('click', () => { promotionChoice = null; prefix = []; render(); });
$('analyse').addEventListener('click', analyse);
$('back-to-game').addEventListener('click', () => { review = null; if (state) render(); });
$('heat').addEventListener('change', () => { if (state) render(); });
document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && state) { prefix = []; promotionChoice = null; review = null; render(); }
});
loadSetup().catch((e) => { $('setup-error').textContent = `cannot load the setup: ${e.message}`; });
