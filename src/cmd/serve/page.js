// tengu serve: the page's script. Polls /api/now every two seconds; when the run's
// version changes (a checkpoint, games, curves or books are new) it refetches those.
// Draws curves as inline SVG with hover values, replays games with tenguBoard (board.js).
// Test hooks: #now-checkpoint[data-step], #now-trainer[data-state], #now-workers
// .worker[data-worker][data-playing], #ladder-table tr[data-step][data-elo], .chart[data-chart]
// with .chart-legend span.last[data-tag][data-value][data-smoothed], polyline[data-tag]
// (.raw, .smoothed; one per trainer session), .band[data-tag], text.tick.x / .tick.y;
// #viewer[data-key][data-index][data-ply][data-plies][data-failed], #ply-value[data-value]
// (the search's value of the move shown, from Black's view) [data-mover-value],
// #value-graph[data-points] (Black's view over the game; a click goes to that ply), #board
// (see board.js; each piece's <title> and its square's name it), game lists
// li[data-key][data-index], #checkpoint-table tr[data-step], #live-list li[data-key][data-stale],
// #live-viewer[data-key][data-plies][data-unix-ms][data-stale] with #live-board (a second
// board.js board) and #live-value[data-value] (Black's view)[data-mover-value][data-mover],
// #live-moves li[data-ply][data-value] (Black's view), .ladder[data-dir] with
// .ladder-table tr[data-step] (a report's rungs) or tr[data-match] (a folder without one),
// #arena-games li[data-match] (source / match), #checkpoint-table .ladder-rating[data-ladder],
// #live[data-state] (live, stopped, archived), #now-selfplay[data-games].
// The game viewer's analysis (analysis.js): #va-analyse asks POST /api/game/analyze for the
// ply shown; its arrows and heat map go on #board, its moves in #va-table, its value on
// #value-graph as circle.analysis[data-ply]; #game-link is this page opening the game at
// the ply shown (#game=KEY&index=I&ply=P, read when the page loads).
(function () {
  'use strict';
  var POLL_MS = 2000;
  var state = { version: -1, curves: null, game: null, ply: 0, chosen: null, chosenIndex: 0,
    liveVersion: -1, live: null, liveChosen: null, liveShown: null,
    analyses: {}, networks: null, link: linked() };

  /// The game and ply a link names (`#game=KEY&index=I&ply=P`), or null.
  function linked() {
    var q = new URLSearchParams(location.hash.slice(1));
    if (!q.get('game')) return null;
    var ply = q.get('ply');
    return { key: q.get('game'), index: Number(q.get('index')) || 0, ply: ply == null || ply === '' ? null : Number(ply) };
  }

  function $(id) { return document.getElementById(id); }
  // The page's elements and numbers as the charts make them (chart.js).
  var el = tenguChart.el, sv = tenguChart.sv, num = tenguChart.num;
  function when(unix) {
    if (typeof unix !== 'number') return '\u2013';
    return new Date(unix * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  }
  /// A search value (from the view of the side that moved) as text: "+0.231".
  function signed(v) { return (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + Math.abs(v).toFixed(3); }
  /// A count with thousands separated: 204,567.
  function count(n) { return typeof n === 'number' ? Math.round(n).toLocaleString('en-US') : '\u2013'; }
  function other(c) { return c === 'Black' ? 'White' : 'Black'; }
  /// The side that played move `ply` (1-based) of game `g`.
  function moverOf(g, ply) { return (ply - 1) % 2 === 0 ? g.start_stm : other(g.start_stm); }
  /// The search's value of move `ply` (1-based) from Black's view (values are the mover's).
  function blackValue(g, ply) {
    var v = g.moves[ply - 1].value;
    if (typeof v !== 'number') return null;
    return moverOf(g, ply) === 'Black' ? v : -v;
  }
  var get = tenguChart.get;

  // ---- Now ----
  function showNow(now) {
    $('run-location').textContent = now.location || '';
    $('run-game').textContent = now.game ? '(' + now.game + ')' : '';
    document.title = 'tengu serve: ' + (now.location || '');
    var problem = $('problem');
    problem.hidden = !now.problem;
    problem.textContent = now.problem || '';
    var c = now.newest_checkpoint, cd = $('now-checkpoint');
    cd.textContent = c ? c.name + ' (step ' + c.step + ', ' + when(c.unix_time) + ')' : 'none yet';
    cd.dataset.step = c ? c.step : '';
    $('now-step').textContent = now.step == null ? 'no training step yet' : String(now.step);
    var t = now.trainer || {}, td = $('now-trainer');
    td.textContent = (t.state || '\u2013') + (t.detail ? ': ' + t.detail : '');
    td.dataset.state = t.state || '';
    var logged = now.logged || {}, act = now.activity || {}, running = !act.state || act.state === 'live';
    var sp = $('now-selfplay');
    if (!now.shards && typeof logged.games_seen === 'number') {
      // No shards here (a kept copy keeps none): the trainer's last count is the run's.
      sp.textContent = count(logged.games_seen) + ' games, ' + count(logged.rows_seen) + ' rows seen by the trainer ' +
        '(its loss log at step ' + logged.step + ', ' + when(logged.unix_time) + '; no shards in this run)';
    } else {
      sp.textContent = count(now.games || 0) + ' games, ' + count(now.rows || 0) + ' rows in ' + count(now.shards || 0) + ' shards';
    }
    sp.dataset.games = !now.shards && typeof logged.games_seen === 'number' ? logged.games_seen : (now.games || 0);
    $('now-rates').textContent = now.games_per_hour != null
      ? num(now.games_per_hour, 0) + ' games, ' + num(now.rows_per_hour, 0) + ' rows an hour (last hour)'
      : running ? 'not measured yet (under a minute of shards in the last hour)'
      : 'none: the run is ' + act.state;
    // The dot: green while something runs, grey for a stopped or archived run.
    var dot = $('live');
    dot.dataset.state = act.state || '';
    $('live-text').textContent = running ? 'live'
      : act.state + (act.last_unix ? ' (last activity ' + when(act.last_unix) + ')' : '');
    dot.title = (running ? 'a trainer, worker or game in progress is active in this run'
      : act.state === 'archived' ? 'a kept copy of a run: no process works on it'
      : 'nothing runs in this run now') + '; the page asks the server what is new every two seconds';
    $('now-cpu').textContent = num(now.cpu_hours, 3);
    var w = now.workers || [], wd = $('now-workers');
    wd.textContent = w.length ? '' : 'none in the last 15 minutes';
    w.forEach(function (x) {
      var playing = x.playing != null;
      var shards = x.shards ? x.shards + ' shards, last ' + when(x.last_shard_unix) : 'no shard in the last 15 minutes';
      wd.appendChild(el('span', { 'class': 'worker', 'data-worker': x.worker, 'data-playing': playing ? '1' : '0' },
        x.worker + ' (' + (playing ? 'playing game ' + x.playing + ' now; ' : '') + shards + ')'));
    });
    var ul = $('now-problems');
    ul.textContent = '';
    (now.problems || []).forEach(function (p) { ul.appendChild(el('li', {}, p)); });
  }

  function poll() {
    get('/api/now').then(function (now) {
      $('live').classList.remove('stale');
      showNow(now);
      if (now.version !== state.version) {
        state.version = now.version;
        refresh();
      }
      if (now.live_version !== state.liveVersion) {
        state.liveVersion = now.live_version;
        get('/api/live').then(showLive).catch(report);
      }
    }).catch(function (e) {
      $('live').classList.add('stale');
      $('live-text').textContent = 'no answer';
      var p = $('problem');
      p.hidden = false;
      p.textContent = 'The server does not answer: ' + e.message;
    }).then(function () { setTimeout(poll, POLL_MS); });
  }

  function refresh() {
    get('/api/curves').then(function (c) { state.curves = c; drawCurves(); }).catch(report);
    get('/api/checkpoints').then(showCheckpoints).catch(report);
    get('/api/games').then(showGames).catch(report);
    get('/api/books').then(showBooks).catch(report);
    get('/api/ladder').then(showLadder).catch(report);
  }

  function report(e) {
    var ul = $('now-problems');
    ul.appendChild(el('li', {}, e.message));
  }

  // ---- Ladders ----
  /// Every ladder folder of the run (`ladder/`, `ladder-600/`, ...): its report (chart and
  /// rungs) where it has one, else its matches with the named player's results.
  function showLadder(doc) {
    var box = $('ladders'), list = doc.ladders || (doc.ladder ? [Object.assign({ dir: 'ladder', matches: [] }, doc.ladder)] : []);
    box.textContent = '';
    if (!list.length) {
      box.appendChild(el('p', { 'class': 'legend' }, 'No compute ladder in this run yet: tengu ladder --run RUN writes one.'));
      return;
    }
    list.forEach(function (l) {
      var div = el('div', { 'class': 'ladder', 'data-dir': l.dir });
      div.appendChild(el('h3', {}, l.dir + '/'));
      box.appendChild(div);
      var r = l.report;
      if (!r) {
        div.appendChild(el('p', { 'class': l.problem ? 'problem' : 'legend' }, l.problem ||
          'No report (ladder.json) in this folder: its matches, each with the first player\u2019s wins (+), draws (=) and losses (\u2212); the games are under Games.'));
        var t = el('table', { 'class': 'ladder-table' });
        t.appendChild(el('thead')).appendChild(el('tr')).innerHTML = '<th>match</th><th>games</th><th>result of the first player</th>';
        var tb = t.appendChild(el('tbody'));
        (l.matches || []).forEach(function (m) {
          var tr = el('tr', { 'data-match': m.match, 'data-wins': m.wins, 'data-draws': m.draws, 'data-losses': m.losses });
          tr.appendChild(el('td', {}, m.a + ' vs ' + m.b));
          tr.appendChild(el('td', {}, String(m.games)));
          tr.appendChild(el('td', {}, m.a + ' +' + m.wins + ' =' + m.draws + ' \u2212' + m.losses));
          tb.appendChild(tr);
        });
        div.appendChild(t);
        return;
      }
      div.appendChild(el('p', { 'class': 'legend' }, r.game + ': each rung is the checkpoint nearest to a CPU-hours target, rated against ' +
        r.opponents.join(', ') + (r.rungs.some(function (x) { return x.matches.length > r.opponents.length; }) ? ' and the rung before' : '') +
        ' (' + r.games_per_match + ' games a match, ' + r.visits + ' visits, ' + r.max_plies + ' plies at most); Elo by maximum likelihood, ' +
        r.opponents[0] + ' = 0, with 95% intervals.'));
      var layout = div.appendChild(el('div', { 'class': 'ladder-layout' }));
      // A new report is a new picture: the address changes with it.
      layout.appendChild(el('img', { 'class': 'ladder-svg', alt: 'the ladder\u2019s chart: Elo against CPU-hours with 95% intervals',
        src: l.svg + '?rungs=' + r.rungs.length + '&e=' + r.rungs.map(function (x) { return Math.round(x.elo); }).join('_') }));
      var table = layout.appendChild(el('table', { 'class': 'ladder-table' }));
      table.appendChild(el('thead')).appendChild(el('tr')).innerHTML = '<th>CPU-hours</th><th>step</th><th>Elo (95% interval)</th>' +
        '<th>matches (+ wins, = draws, &minus; losses, score)</th><th>value loss (held-out)</th>';
      var body = table.appendChild(el('tbody'));
      r.rungs.forEach(function (rung) {
        var tr = el('tr', { 'data-step': rung.step, 'data-elo': rung.elo });
        tr.appendChild(el('td', {}, num(rung.cpu_hours, 2) + ' (target ' + rung.target_hours + ')'));
        tr.appendChild(el('td', {}, String(rung.step)));
        tr.appendChild(el('td', {}, (rung.elo >= 0 ? '+' : '') + num(rung.elo, 0) + ' (' + num(rung.elo_low, 0) + ' .. ' + num(rung.elo_high, 0) + ')'));
        var m = el('td');
        rung.matches.forEach(function (x) {
          m.appendChild(el('div', {}, 'vs ' + x.opponent + ': +' + x.wins + ' =' + x.draws + ' \u2212' + x.losses +
            ', score ' + num(x.score, 3)));
        });
        tr.appendChild(m);
        tr.appendChild(el('td', {}, num(rung.value_loss, 3) + ' (' + num(rung.heldout_value_loss, 3) + ')'));
        body.appendChild(tr);
      });
    });
  }

  // ---- Curves (chart.js draws them) ----
  function drawCurves() {
    $('tooltip').hidden = true;
    var box = $('charts');
    box.textContent = '';
    var curves = state.curves || {};
    var axis = $('x-axis').value, w = Number($('smoothing').value);
    $('smoothing-label').textContent = w.toFixed(2);
    var drawn = 0;
    tenguChart.charts(curves.heads).forEach(function (chart) {
      var list = tenguChart.series(curves, chart[1], axis, w);
      if (!list.length) return;
      box.appendChild(tenguChart.draw(chart[0], list, { axis: axis }));
      drawn++;
    });
    if (!drawn) box.appendChild(el('p', { 'class': 'legend' }, 'No curves yet: the trainer has logged no step.'));
  }

  // ---- Games ----
  /// A game's line in a list: players, result, length, termination.
  function gameLabel(s, prefix) {
    var players = s.black || s.white ? (s.black || '?') + ' (Black) vs ' + (s.white || '?') + ' (White)' : '';
    var result = [s.result || '*', s.plies != null ? s.plies + ' plies' : null, s.termination].filter(Boolean).join(', ');
    return prefix + result + (players ? ' \u2013 ' + players : '');
  }

  /// What a match's games say of its named player (the first of `<a>-vs-<b>`, the rung or
  /// the checkpoint rated): " (step-800: +3 =2 \u22125)"; colours only where no result says
  /// who played which side.
  function tally(match, list) {
    var name = String(match || '').split('-vs-')[0], w = 0, d = 0, l = 0, known = 0, colours = {};
    list.forEach(function (x) {
      if (typeof x.a_result === 'number') {
        known++;
        if (x.a_result > 0) w++; else if (x.a_result < 0) l++; else d++;
      } else if (x.result) colours[x.result] = (colours[x.result] || 0) + 1;
    });
    if (known) return ' (' + name + ': +' + w + ' =' + d + ' \u2212' + l + ')';
    if (!Object.keys(colours).length) return '';
    return ' (Black won ' + (colours['1-0'] || 0) + ', White won ' + (colours['0-1'] || 0) + ', drawn ' + (colours['1/2-1/2'] || 0) + ')';
  }

  function showGames(g) {
    function item(ul, key, index, text) {
      var li = el('li', { 'data-key': key, 'data-index': index }, text);
      if (state.chosen === key && state.chosenIndex === index) li.className = 'chosen';
      li.addEventListener('click', function (ev) { ev.stopPropagation(); loadGame(key, index); });
      ul.appendChild(li);
      return li;
    }
    var ul = $('selfplay-games');
    ul.textContent = '';
    if (!g.selfplay.length) ul.appendChild(el('li', { 'class': 'none' }, 'none yet'));
    g.selfplay.forEach(function (f) {
      var damaged = f.damaged || [];
      var head = (f.unix_ms ? when(f.unix_ms / 1000) : f.stem) + (f.games != null ? ' \u2013 ' + f.games + (f.games === 1 ? ' game' : ' games') : '');
      var li = el('li', { 'class': 'file', 'data-file': f.key }, head);
      if (damaged.length) {
        li.appendChild(el('div', { 'class': 'damaged', title: damaged.join('\n') },
          damaged.length + ' damaged line' + (damaged.length > 1 ? 's' : '') + ' left out (' + damaged[0].split(':')[0] + ')'));
      }
      var games = el('ul');
      var sums = f.summaries && f.summaries.length ? f.summaries : [{ index: 0 }];
      sums.forEach(function (s) {
        item(games, f.key, s.index, gameLabel(s, 'game ' + (s.index + 1) + ': '));
      });
      li.appendChild(games);
      ul.appendChild(li);
    });
    // Arena and ladder games, by match.
    var ua = $('arena-games'), groups = [], byMatch = {};
    ua.textContent = '';
    if (!g.arena.length) ua.appendChild(el('li', { 'class': 'none' }, 'none yet'));
    g.arena.forEach(function (x) {
      var id = x.source + ' / ' + x.match;
      if (!byMatch[id]) { byMatch[id] = []; groups.push(id); }
      byMatch[id].push(x);
    });
    groups.forEach(function (id) {
      var list = byMatch[id], li = el('li', { 'class': 'file', 'data-match': id });
      var d = el('details');
      if (list.some(function (x) { return x.key === state.chosen; })) d.open = true;
      d.appendChild(el('summary', {}, id + ' \u2013 ' + list.length + ' games' + tally(list[0].match, list)));
      var games = el('ul');
      list.forEach(function (x) {
        item(games, x.key, 0, gameLabel(x, (x.index != null ? 'game ' + (x.index + 1) : x.file) + ': '));
      });
      d.appendChild(games);
      li.appendChild(d);
      ua.appendChild(li);
    });
    if (!state.chosen && g.selfplay.length) loadGame(g.selfplay[0].key, 0);
  }

  /// Clears the viewer when a game cannot be shown: nothing of the previous game stays.
  function clearViewer(key, message) {
    state.game = null;
    state.ply = 0;
    $('game-title').textContent = key + ': cannot be shown';
    $('game-result').textContent = '';
    var w = $('game-warning');
    w.hidden = false;
    w.textContent = message;
    var sel = $('game-index');
    sel.textContent = '';
    sel.hidden = true;
    $('ply').max = 0;
    $('ply').value = 0;
    $('ply-label').textContent = '';
    var pv = $('ply-value');
    pv.textContent = '';
    pv.dataset.value = '';
    pv.dataset.moverValue = '';
    $('value-box').textContent = '';
    $('board-box').textContent = '';
    $('va-analyse').disabled = true;
    $('copy-link').disabled = true;
    tenguAnalysis.table(document.querySelector('#va-table tbody'), null);
    $('move-list').textContent = '';
    var v = $('viewer');
    v.dataset.key = key;
    v.dataset.index = '';
    v.dataset.plies = 0;
    v.dataset.ply = 0;
    v.dataset.failed = '1';
  }

  function loadGame(key, index, ply) {
    state.chosen = key;
    state.chosenIndex = index;
    Array.prototype.forEach.call(document.querySelectorAll('.game-list li[data-key]'), function (li) {
      li.className = li.dataset.key === key && Number(li.dataset.index) === index ? 'chosen' : '';
    });
    get('/api/game?key=' + encodeURIComponent(key) + '&index=' + index).then(function (g) {
      state.game = g;
      var sel = $('game-index');
      sel.textContent = '';
      for (var i = 0; i < g.count; i++) sel.appendChild(el('option', { value: i }, 'game ' + (i + 1) + ' of ' + g.count));
      sel.value = g.index;
      sel.hidden = g.count < 2;
      var tag = function (n) { var t = g.tags.filter(function (x) { return x[0] === n; })[0]; return t ? t[1] : null; };
      $('game-title').textContent = key + (g.count > 1 ? ' #' + (g.index + 1) : '') + ': ' +
        (tag('Black') || 'Black') + ' (Black) vs ' + (tag('White') || 'White') + ' (White)';
      $('game-result').textContent = 'Result ' + (g.result || '*') + (g.termination ? ', ' + g.termination : '') +
        ' after ' + g.moves.length + ' plies.';
      var w = $('game-warning');
      w.hidden = !g.warning;
      w.textContent = g.warning || '';
      var ol = $('move-list');
      ol.textContent = '';
      g.moves.forEach(function (m, i) {
        var bv = blackValue(g, i + 1);
        var li = el('li', { 'data-ply': i + 1, title: m.text + (bv != null ? ': search value ' + signed(bv) + ' for Black' : '') }, m.hodges);
        if (bv != null) li.appendChild(el('span', { 'class': 'value' }, ' ' + signed(bv)));
        li.addEventListener('click', function () { showPly(i + 1); });
        ol.appendChild(li);
      });
      // Whose view the values are, where the game has any.
      var known = g.moves.some(function (m) { return typeof m.value === 'number'; });
      document.querySelector('#viewer .moves-note').innerHTML = known
        ? 'moves, each with the search\u2019s value <b>for Black</b> (+1: Black wins)' : 'moves';
      var v = $('viewer');
      v.dataset.key = key;
      v.dataset.index = g.index;
      v.dataset.plies = g.moves.length;
      v.dataset.failed = '';
      $('ply').max = g.moves.length;
      drawValueGraph(g);
      offerNetworks(g);
      if (ply != null && !(ply >= 0 && ply <= g.moves.length)) {
        // A link past the game's end (or no ply at all): its end, and why.
        w.hidden = false;
        w.textContent = (w.textContent ? w.textContent + '; ' : '') + 'the link names ply ' + ply +
          ', this game has plies 0 to ' + g.moves.length + ': its end is shown';
        ply = null;
      }
      showPly(ply == null ? g.moves.length : ply);
    }).catch(function (e) { clearViewer(key, e.message); });
  }

  /// The search's value over the whole game from Black's view (+1 Black wins), a click goes
  /// to that ply. Games without values (arena, ladder, older workers) have none.
  function drawValueGraph(g) {
    var box = $('value-box');
    box.textContent = '';
    var pts = [], asked = analysedValues(g);
    g.moves.forEach(function (m, i) { var v = blackValue(g, i + 1); if (v != null) pts.push([i + 1, v]); });
    if (!pts.length && !asked.length) {
      box.appendChild(el('p', { 'class': 'legend' }, 'No search values in this game (arena and ladder games and older workers\u2019 games keep none).'));
      return;
    }
    var W = 560, H = 90, L = 30, R = 6, T = 8, B = 14, n = Math.max(1, g.moves.length);
    function sx(p) { return L + p / n * (W - L - R); }
    function sy(v) { return T + (1 - v) / 2 * (H - T - B); }
    var svg = sv('svg', { id: 'value-graph', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'data-points': pts.length });
    svg.appendChild(sv('rect', { x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fafafa', stroke: '#ddd' }));
    svg.appendChild(sv('line', { 'class': 'zero', x1: L, x2: W - R, y1: sy(0), y2: sy(0) }));
    [[1, '+1'], [0, '0'], [-1, '\u22121']].forEach(function (t) {
      svg.appendChild(sv('text', { x: L - 4, y: sy(t[0]) + 3, 'text-anchor': 'end' }, t[1]));
    });
    svg.appendChild(sv('text', { x: L, y: H - 2 }, 'value for Black (line: the search, each move; dots: analyses asked for); click to go to a ply'));
    if (pts.length) svg.appendChild(sv('polyline', { points: pts.map(function (p) { return sx(p[0]).toFixed(1) + ',' + sy(p[1]).toFixed(1); }).join(' ') }));
    asked.forEach(function (p) {
      var dot = sv('circle', { 'class': 'analysis', cx: sx(p[0]), cy: sy(p[1]), r: 3, 'data-ply': p[0], 'data-value': p[1].toFixed(3) });
      dot.appendChild(sv('title', {}, 'ply ' + p[0] + ', analysis: ' + tenguAnalysis.fmt(p[1]) + ' for Black'));
      svg.appendChild(dot);
    });
    svg.appendChild(sv('line', { 'class': 'cursor', id: 'value-cursor', x1: 0, x2: 0, y1: T, y2: H - B }));
    svg.addEventListener('click', function (ev) {
      var r = svg.getBoundingClientRect();
      var x = (ev.clientX - r.left) * W / r.width;
      showPly(Math.round((x - L) / (W - L - R) * n));
    });
    box.appendChild(svg);
  }

  /// Names each piece on the board (its <title>, and its square's, which the pointer meets).
  function namePieces(g) {
    var names = g.names || {};
    Array.prototype.forEach.call(document.querySelectorAll('#board g.piece'), function (p) {
      var name = (p.dataset.color === 'b' ? 'Black ' : 'White ') + (names[p.dataset.token] || p.dataset.token);
      p.appendChild(sv('title', {}, name));
      var sq = document.querySelector('#board rect.square[data-square="' + p.dataset.square + '"] title');
      if (sq) sq.textContent = sq.textContent + ': ' + name;
    });
  }

  function showPly(ply) {
    var g = state.game;
    if (!g) return;
    ply = Math.max(0, Math.min(g.moves.length, ply));
    state.ply = ply;
    var board = g.start.slice();
    for (var i = 0; i < ply; i++) {
      g.moves[i].changes.forEach(function (c) { board[c[0]] = c[1]; });
    }
    var last = ply > 0 ? [g.moves[ply - 1].from, g.moves[ply - 1].to] : [];
    var stm = ply % 2 === 0 ? g.start_stm : (g.start_stm === 'Black' ? 'White' : 'Black');
    var box = $('board-box');
    box.textContent = '';
    var svg = tenguBoard({ size: g.size, stm: stm, files: g.files, ranks: g.ranks, board: board, last: last });
    box.appendChild(svg);
    namePieces(g);
    var a = state.analyses[analysisKey(g, ply)];
    if (a) tenguAnalysis.draw(svg, a, { size: g.size }, $('va-heat').checked);
    tenguAnalysis.table(document.querySelector('#va-table tbody'), a || null);
    var link = $('game-link');
    link.href = location.origin + location.pathname + '#game=' + encodeURIComponent(g.key) + '&index=' + g.index + '&ply=' + ply;
    link.textContent = 'link to ply ' + ply;
    $('copy-link').disabled = false;
    $('va-analyse').disabled = !$('va-network').options.length;
    fitMoves($('move-list'), box);
    $('viewer').dataset.ply = ply;
    $('ply').value = ply;
    $('ply-label').textContent = 'ply ' + ply + ' / ' + g.moves.length + (ply > 0 ? ': ' + g.moves[ply - 1].hodges : '') +
      ', ' + stm + ' to move';
    var mv = ply > 0 ? g.moves[ply - 1] : null, pv = $('ply-value');
    var bv = mv ? blackValue(g, ply) : null;
    pv.textContent = bv != null ? 'search value ' + signed(bv) + ' for Black' : '';
    pv.dataset.value = bv != null ? bv : '';
    pv.dataset.moverValue = bv != null ? mv.value : '';
    var cur = document.getElementById('value-cursor');
    if (cur) {
      var x = 30 + ply / Math.max(1, g.moves.length) * (560 - 30 - 6);
      cur.setAttribute('x1', x);
      cur.setAttribute('x2', x);
    }
    var current = null;
    Array.prototype.forEach.call(document.querySelectorAll('#move-list li'), function (li) {
      li.className = Number(li.dataset.ply) === ply ? 'current' : '';
      if (li.className) current = li;
    });
    reveal($('move-list'), current);
  }

  // ---- The game viewer's analysis ----
  function analysisKey(g, ply) { return g.key + '|' + g.index + '|' + ply; }

  /// The analyses asked for of game `g`: [ply, value for Black], by ply.
  function analysedValues(g) {
    var out = [];
    for (var ply = 0; ply <= g.moves.length; ply++) {
      var a = state.analyses[analysisKey(g, ply)];
      if (a) out.push([ply, tenguAnalysis.blackValue(a)]);
    }
    return out;
  }

  /// The networks that play game `g` (the play page's setup: the run's checkpoints, those
  /// given with --checkpoint, the shipped ones), in the viewer's network list.
  function offerNetworks(g) {
    var fill = function (setup) {
      var sel = $('va-network'), keep = sel.value;
      sel.textContent = '';
      setup.networks.filter(function (n) { return n.game === g.base; }).forEach(function (n) {
        sel.appendChild(el('option', { value: n.id }, n.label));
      });
      if (keep && Array.prototype.some.call(sel.options, function (o) { return o.value === keep; })) sel.value = keep;
      $('va-visits').max = setup.caps.visits;
      $('va-analyse').disabled = !sel.options.length || state.game !== g;
      if (!sel.options.length) $('va-status').textContent = 'No network of this server plays ' + g.base + ': nothing to analyse with.';
    };
    if (state.networks) fill(state.networks);
    else get('/api/play/setup').then(function (setup) { state.networks = setup; fill(setup); })
      .catch(function (e) { $('va-status').textContent = 'cannot list the networks: ' + e.message; });
  }

  /// Asks the analysis engine for the ply shown; its answer is drawn while that ply is shown.
  function analyse() {
    var g = state.game, ply = state.ply;
    if (!g) return;
    var body = { key: g.key, index: g.index, ply: ply, visits: Number($('va-visits').value),
      include_policy: $('va-heat').checked, max_moves: 8, pv_plies: 6 };
    if ($('va-network').value) body.network = $('va-network').value;
    $('va-status').textContent = 'analysing ply ' + ply + '...';
    $('va-analyse').disabled = true;
    tenguAnalysis.api('POST', '/api/game/analyze', body).then(function (a) {
      state.analyses[analysisKey(g, ply)] = a;
      $('va-status').textContent = tenguAnalysis.summary(a);
      if (state.game === g) {
        drawValueGraph(g);
        showPly(state.ply);
      }
    }).catch(function (e) {
      $('va-status').textContent = (e.field ? e.field + ': ' : '') + e.message;
    }).then(function () { $('va-analyse').disabled = !state.game; });
  }

  function copyLink() {
    var href = $('game-link').href;
    var said = function (text) { $('va-status').textContent = text; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(href).then(function () { said('link copied: ' + href); },
        function () { said('copy this link: ' + href); });
    } else {
      said('copy this link: ' + href);
    }
  }

  $('va-analyse').addEventListener('click', analyse);
  $('copy-link').addEventListener('click', copyLink);
  $('va-heat').addEventListener('change', function () { showPly(state.ply); });

  /// A move list as tall as the board beside it: it scrolls, the page does not grow.
  function fitMoves(list, boardBox) {
    var board = boardBox.querySelector('svg') || boardBox;
    var room = board.getBoundingClientRect().bottom - list.getBoundingClientRect().top;
    if (room > 150) list.style.maxHeight = Math.floor(room) + 'px';
  }
  /// Scrolls `list` (only it, never the page) so that `li` is in sight.
  function reveal(list, li) {
    if (!li) return;
    var top = li.offsetTop - list.offsetTop, bottom = top + li.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  $('first').addEventListener('click', function () { showPly(0); });
  $('prev').addEventListener('click', function () { showPly(state.ply - 1); });
  $('next').addEventListener('click', function () { showPly(state.ply + 1); });
  $('last').addEventListener('click', function () { showPly(Infinity); });
  $('ply').addEventListener('input', function () { showPly(Number($('ply').value)); });
  $('game-index').addEventListener('change', function () { loadGame(state.chosen, Number($('game-index').value)); });
  document.addEventListener('keydown', function (ev) {
    if (!state.game || ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT') return;
    var to = { ArrowLeft: state.ply - 1, ArrowRight: state.ply + 1, Home: 0, End: Infinity }[ev.key];
    if (to != null) { showPly(to); ev.preventDefault(); }
  });
  $('x-axis').addEventListener('change', drawCurves);
  $('smoothing').addEventListener('input', drawCurves);

  // ---- Live: the workers' games in progress ----
  function showLive(doc) {
    state.live = doc;
    var games = doc.games || [], ul = $('live-list');
    ul.textContent = '';
    if (!games.length) {
      ul.appendChild(el('li', { 'class': 'none' },
        'no game in progress (workers show one every selfplay.live_game_seconds)'));
    }
    games.forEach(function (x) {
      var text = x.problem ? x.problem
        : x.writer + ', game ' + x.game + ': ply ' + x.plies + (x.last ? ' (' + x.last + ')' : '') +
          (x.stale ? ' \u2013 stale, last written ' + when(x.unix_ms / 1000) : '');
      var li = el('li', { 'data-key': x.key, 'data-stale': x.stale ? '1' : '0' }, text);
      if (x.problem) li.className = 'problem';
      else if (x.stale) li.className = 'stale';
      if (!x.problem) li.addEventListener('click', function () { state.liveChosen = x.key; showLive(state.live); });
      ul.appendChild(li);
    });
    var shown = games.filter(function (x) { return !x.problem; });
    var pick = shown.filter(function (x) { return x.key === state.liveChosen; })[0] ||
      shown.filter(function (x) { return !x.stale; })[0] || shown[0];
    Array.prototype.forEach.call(ul.querySelectorAll('li'), function (li) {
      if (pick && li.dataset.key === pick.key) li.classList.add('chosen');
    });
    if (!pick) {
      state.liveShown = null;
      $('live-title').textContent = 'no game in progress';
      $('live-board-box').textContent = '';
      $('live-status').textContent = '';
      $('live-moves').textContent = '';
      var v = $('live-viewer');
      v.dataset.key = ''; v.dataset.plies = 0; v.dataset.unixMs = ''; v.dataset.stale = '';
      return;
    }
    var id = pick.key + '@' + pick.unix_ms;
    if (state.liveShown === id) {
      $('live-viewer').dataset.stale = pick.stale ? '1' : '0';
      return;
    }
    get('/api/live/game?key=' + encodeURIComponent(pick.key)).then(function (g) {
      state.liveShown = g.key + '@' + g.unix_ms;
      drawLive(g, pick.stale);
    }).catch(function (e) {
      $('live-status').textContent = pick.key + ': ' + e.message;
    });
  }

  function drawLive(g, stale) {
    var n = g.moves.length, board = g.start.slice();
    g.moves.forEach(function (m) { m.changes.forEach(function (c) { board[c[0]] = c[1]; }); });
    var last = n ? g.moves[n - 1] : null;
    var stm = n % 2 === 0 ? g.start_stm : other(g.start_stm);
    var svg = tenguBoard({ size: g.size, stm: stm, files: g.files, ranks: g.ranks, board: board,
      last: last ? [last.from, last.to] : [] });
    svg.id = 'live-board';
    var box = $('live-board-box');
    box.textContent = '';
    box.appendChild(svg);
    $('live-title').textContent = g.writer + ', game ' + g.game + ' with ' + g.model +
      (stale ? ' (stale: its worker stopped writing)' : '');
    var st = $('live-status'), known = last && typeof last.value === 'number';
    st.textContent = 'ply ' + n + (last ? ', last move ' + last.hodges : '') + ', ' + stm +
      ' to move; written ' + when(g.unix_ms / 1000) + ' ';
    // Values from Black's view, as the game viewer shows them (the records keep the mover's).
    var lastBlack = known ? blackValue(g, n) : null;
    st.appendChild(el('span', { id: 'live-value', 'data-value': known ? lastBlack : '', 'data-mover-value': known ? last.value : '',
      'data-mover': n ? moverOf(g, n) : '' },
      known ? '(search value ' + signed(lastBlack) + ' for Black)' : ''));
    var ol = $('live-moves');
    ol.textContent = '';
    g.moves.forEach(function (m, i) {
      var bv = blackValue(g, i + 1);
      var li = el('li', { value: i + 1, 'data-ply': i + 1, 'data-value': bv == null ? '' : bv,
        title: m.text + (bv != null ? ': search value ' + signed(bv) + ' for Black' : '') }, m.hodges);
      if (bv != null) li.appendChild(el('span', { 'class': 'value' }, ' ' + signed(bv)));
      ol.appendChild(li);
    });
    fitMoves(ol, box);
    ol.scrollTop = ol.scrollHeight;
    var v = $('live-viewer');
    v.dataset.key = g.key;
    v.dataset.plies = n;
    v.dataset.unixMs = g.unix_ms;
    v.dataset.stale = stale ? '1' : '0';
  }

  // ---- Checkpoints ----
  function showCheckpoints(list) {
    var body = document.querySelector('#checkpoint-table tbody');
    body.textContent = '';
    if (!list.length) {
      body.appendChild(el('tr')).appendChild(el('td', { colspan: 6 }, 'no committed checkpoint yet'));
      return;
    }
    list.forEach(function (c) {
      var tr = el('tr', { 'data-step': c.step, id: 'ckpt-' + c.step });
      tr.appendChild(el('td', {}, String(c.step)));
      tr.appendChild(el('td', {}, when(c.unix_time)));
      tr.appendChild(el('td', {}, String(c.rows_seen)));
      var w = el('td');
      w.appendChild(el('a', { href: c.download, download: c.name }, c.name));
      w.appendChild(el('br'));
      w.appendChild(el('span', { title: c.sha256 }, c.sha256.slice(0, 12) + '\u2026 ' + (c.size / 1e6).toFixed(2) + ' MB'));
      w.appendChild(el('br'));
      w.appendChild(el('a', { href: c.manifest }, 'manifest'));
      tr.appendChild(w);
      var a = el('td');
      var rated = c.ladder || [];
      if (!c.arena.length && !rated.length) a.textContent = '\u2013';
      c.arena.forEach(function (r) {
        var text = r.opponent != null
          ? 'vs ' + r.opponent + ': Elo ' + num(r.elo, 0) + (typeof r.score === 'number' ? ', score ' + num(r.score, 3) : '')
          : typeof r.rating === 'number' ? 'rating chain: ' + num(r.rating, 0) : JSON.stringify(r);
        a.appendChild(el('div', {}, text));
      });
      // What the ladders say of it: its rung's Elo in each report, each match it played.
      rated.forEach(function (r) {
        var text = r.match != null
          ? r.ladder + '/' + r.match + ': +' + r.wins + ' =' + r.draws + ' \u2212' + r.losses + ' vs ' + r.b
          : r.ladder + ': Elo ' + (r.elo >= 0 ? '+' : '') + num(r.elo, 0) + ' (' + num(r.elo_low, 0) + ' .. ' + num(r.elo_high, 0) +
            '; ' + r.zero + ' = 0) at ' + num(r.cpu_hours, 2) + ' CPU-hours';
        a.appendChild(el('div', { 'class': 'ladder-rating', 'data-ladder': r.ladder }, text));
      });
      tr.appendChild(a);
      tr.appendChild(el('td')).appendChild(el('code', {}, c.xboard));
      body.appendChild(tr);
    });
  }

  // ---- Books ----
  function showBooks(list) {
    var ul = $('book-list');
    ul.textContent = '';
    if (!list.length) {
      ul.appendChild(el('li', { 'class': 'legend' },
        'No books in this run. tengu book export BOOK --html RUN/books/NAME puts one here; tengu book build --out RUN/books/NAME.tbk one for the play page.'));
    }
    list.forEach(function (b) {
      var li = ul.appendChild(el('li', { 'data-book': b.name }));
      li.appendChild(el('a', { href: b.href, target: '_blank' }, b.name));
      if (b.file) li.appendChild(document.createTextNode(' \u2013 an opening book: its lines are starting positions on the play page'));
    });
  }

  // A link to a game at a ply opens it at once, in sight.
  if (state.link) {
    loadGame(state.link.key, state.link.index, state.link.ply);
    $('games').scrollIntoView();
  }
  poll();
})();
