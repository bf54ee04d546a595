// tengu analysis on a board: the answer of the analysis engine (POST /api/play/analyze on
// the play page, POST /api/game/analyze for a game of the run) drawn over a tenguBoard
// board (board.js): the top moves as arrows with visits and values, the policy as a heat
// map on the destinations, and the candidate moves as table rows. Shared by the play page
// (play.js) and the run page's game viewer (page.js); values are shown for Black.
var tenguAnalysis = (function () {
  'use strict';
  // The board's drawing (tenguBoard): squares of CELL units after a margin.
  var CELL = 32, LEFT = 20, TOP = 16;
  var SVG = 'http://www.w3.org/2000/svg';

  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }

  /// A value as text, signed: "+0.25".
  function fmt(v) { return (v >= 0 ? '+' : '') + v.toFixed(2); }

  /// A JSON request; a refusal is thrown as an Error with the server's cause and field.
  function api(method, path, body) {
    var options = { method: method, headers: {}, cache: 'no-store' };
    if (body !== undefined) {
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    return fetch(path, options).then(function (r) {
      return r.json().catch(function () { return { error: 'the server answered ' + r.status }; }).then(function (j) {
        if (!r.ok) {
          var e = new Error(j.error || 'HTTP ' + r.status);
          e.cause = j.cause;
          e.field = j.field;
          throw e;
        }
        return j;
      });
    });
  }

  /// The board index of a square name (`9j`) on a board of n files: files from n on the
  /// left, ranks from a on top.
  function squareIndex(name, n) {
    var m = /^(\d+)([a-z])/.exec(name);
    if (!m) return null;
    return (m[2].charCodeAt(0) - 97) * n + (n - Number(m[1]));
  }

  /// From and to of a move in coordinate notation (`9j>9h{9i}`).
  function moveSquares(text, n) {
    var parts = text.split('>');
    return [squareIndex(parts[0], n), squareIndex(parts[1] || '', n)];
  }

  /// The board's geometry: `size` and `drawn` (board index -> drawn index; the identity
  /// where the board is not flipped).
  function corner(i, geo) {
    var d = geo.drawn ? geo.drawn(i) : i, n = geo.size;
    return [LEFT + (d % n) * CELL, TOP + Math.floor(d / n) * CELL];
  }
  function centre(i, geo) {
    var c = corner(i, geo);
    return [c[0] + CELL / 2, c[1] + CELL / 2];
  }

  /// The side to move's sign: +1 when Black is to move (values are the mover's).
  function blackSign(a) { return a.side_to_move === 'black' ? 1 : -1; }

  /// The policy's prior summed by destination, as squares shaded by it.
  function heat(overlay, policy, geo) {
    var byTo = new Map();
    policy.forEach(function (p) {
      var to = moveSquares(p.move, geo.size)[1];
      if (to != null) byTo.set(to, (byTo.get(to) || 0) + p.prior);
    });
    var top = Math.max.apply(null, Array.from(byTo.values()).concat([1e-9]));
    byTo.forEach(function (prior, i) {
      var c = corner(i, geo);
      overlay.appendChild(sv('rect', { 'class': 'heat', x: c[0], y: c[1], width: CELL, height: CELL,
        'fill-opacity': (0.5 * Math.sqrt(prior / top)).toFixed(3), 'data-index': i, 'data-prior': prior.toFixed(4) }));
    });
  }

  /// The five most visited moves as arrows as thick as their visits, labelled with visits
  /// over the value for Black.
  function arrows(overlay, a, geo) {
    var black = blackSign(a), moves = a.moves.slice(0, 5);
    var most = Math.max.apply(null, [1].concat(moves.map(function (m) { return m.visits; })));
    moves.forEach(function (m, k) {
      var ft = moveSquares(m.move, geo.size), from = ft[0], to = ft[1];
      if (from == null || to == null) return;
      var p1 = centre(from, geo), p2 = centre(to, geo), x1 = p1[0], y1 = p1[1], x2 = p2[0], y2 = p2[1];
      var width = 2 + 5 * m.visits / most;
      var g = sv('g', { 'class': 'arrow-group', 'data-move': m.move });
      if (from === to) {
        g.appendChild(sv('circle', { 'class': 'arrow' + (k ? '' : ' best'), cx: x1, cy: y1, r: 11, 'stroke-width': width / 2 }));
      } else {
        var len = Math.hypot(x2 - x1, y2 - y1), ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        var hx = x2 - ux * 10, hy = y2 - uy * 10;
        g.appendChild(sv('line', { 'class': 'arrow' + (k ? '' : ' best'), x1: x1, y1: y1, x2: hx, y2: hy, 'stroke-width': width }));
        g.appendChild(sv('polygon', { 'class': 'arrow-head', points: [x2, y2, hx - uy * 6, hy + ux * 6, hx + uy * 6, hy - ux * 6].join(' ') }));
      }
      // Visits over value on the destination square, so neighbouring arrows' labels do not meet.
      var label = sv('text', { 'class': 'arrow-label', x: x2, y: y2 - 5, 'data-label': m.visits + ' ' + fmt(black * m.value) });
      label.appendChild(sv('tspan', { x: x2, dy: 0 }, String(m.visits)));
      label.appendChild(sv('tspan', { x: x2, dy: 10 }, fmt(black * m.value)));
      g.appendChild(label);
      overlay.appendChild(g);
    });
  }

  /// Heat map (when `withHeat` and the answer has a policy) and arrows on `svg`, in an
  /// overlay group of their own.
  function draw(svg, a, geo, withHeat) {
    var overlay = sv('g', { 'class': 'analysis-overlay' });
    if (withHeat && a.policy) heat(overlay, a.policy, geo);
    arrows(overlay, a, geo);
    svg.appendChild(overlay);
    return overlay;
  }

  /// The candidate moves as rows of `tbody` (none when `a` is null).
  function table(tbody, a) {
    if (!a) {
      tbody.replaceChildren();
      return;
    }
    var black = blackSign(a);
    tbody.replaceChildren.apply(tbody, a.moves.map(function (m) {
      var tr = document.createElement('tr');
      [['mv', m.move], ['visits', String(m.visits)], ['value', fmt(black * m.value)],
        ['prior', m.prior.toFixed(3)], ['pv', m.pv.slice(1).join(' ')]].forEach(function (c) {
        var td = document.createElement('td');
        td.className = c[0];
        td.textContent = c[1];
        tr.appendChild(td);
      });
      return tr;
    }));
  }

  /// One line on the answer: visits, time, the value for Black, the best move.
  function summary(a) {
    var black = blackSign(a);
    return 'ply ' + a.ply + ': ' + a.visits + ' visits in ' + a.time_ms + ' ms; value for Black ' + fmt(black * a.value) +
      (a.network ? ' (the network alone ' + fmt(black * a.network.value) + ')' : '') + (a.best ? '; best ' + a.best : '');
  }

  /// The root value for Black.
  function blackValue(a) { return blackSign(a) * a.value; }

  return { CELL: CELL, LEFT: LEFT, TOP: TOP, sv: sv, fmt: fmt, api: api, squareIndex: squareIndex,
    moveSquares: moveSquares, draw: draw, table: table, summary: summary, blackValue: blackValue };
})();
