// tengu serve: the charts of the run page (page.js) and of the compare page (compare.js),
// inline SVG with hover values. One chart function draws one series or many: a series is
// { tag, label, run, points: [[x, y, step]], band: [[x, low, high, step]], smoothed, heldout,
// color, dash (a stroke-dasharray), sessions: the steps that start a trainer session (no
// line is drawn across) }.
// Test hooks: .chart[data-chart] with .chart-legend span.last[data-tag][data-run][data-value]
// [data-smoothed], polyline[data-tag][data-run] (.raw, .smoothed, .plain; one per trainer
// session), .band[data-tag][data-run], text.tick.x / .tick.y.
var tenguChart = (function () {
  'use strict';
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  /// GET `url` as JSON; an error answer's `error` is the failure's message.
  function get(url) {
    return fetch(url, { cache: 'no-store' }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body && body.error ? body.error : url + ': status ' + r.status);
        return body;
      });
    });
  }
  function num(x, digits) {
    if (typeof x !== 'number' || !isFinite(x)) return '\u2013';
    var a = Math.abs(x);
    if (digits != null) return x.toFixed(digits);
    if (a >= 1e6) return x.toExponential(3);
    if (a >= 100) return x.toFixed(0);
    if (a >= 1) return x.toFixed(3);
    return x.toPrecision(4);
  }
  var COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
  // The chain's own matches (elo/vs_model-...) place it: the chain line says them.
  function baseline(t) { return t.indexOf('/vs_model-') < 0; }
  // A loss chart: the training and held-out series of one loss.
  function lossChart(name) {
    return [name + ' loss', function (t) { return t === 'loss/' + name || t === 'heldout/' + name; }];
  }
  // Charts: title and the tags drawn in it (a function of the tag): the policy's loss, one
  // per head of the network (`heads`: the server's, in the table's order), then the rest.
  function charts(heads) {
    heads = heads || ['value', 'ownership', 'material'];
    return [lossChart('policy')].concat(heads.map(lossChart), OTHER_CHARTS);
  }
  var OTHER_CHARTS = [
    ['Elo: rating chain and against baselines', function (t) { return t.indexOf('elo/') === 0 && baseline(t); }],
    ['score against baselines', function (t) { return t.indexOf('score/') === 0 && baseline(t); }],
    ['tactics suite', function (t) { return t === 'suite/top1' || t === 'suite/top3' || t === 'suite/value_sign'; }],
    ['games per hour', function (t) { return t === 'run/games_per_hour'; }],
    ['rows per hour', function (t) { return t === 'run/rows_per_hour'; }],
    ['training samples / s', function (t) { return t === 'train/samples_per_second'; }],
    ['CPU-hours', function (t) { return t === 'run/cpu_hours'; }],
  ];
  // Series this long are smoothed (measurements taken now and then are not).
  var SMOOTH_FROM = 20;

  /// The rows of `curves`' axes ([step, hours, CPU-hours], by step) that have column `col`,
  /// kept on the document (a series asks once per point).
  function axisRows(curves, col) {
    var kept = curves.axisRows || (curves.axisRows = {});
    if (!kept[col]) kept[col] = (curves.axes || []).filter(function (r) { return typeof r[col] === 'number'; });
    return kept[col];
  }
  /// x of a step on the chosen axis: interpolated in the loss log's step -> (hours,
  /// CPU-hours) of `curves` (a run's /api/curves document); null where it has none.
  function xOf(curves, step, axis) {
    if (axis === 'step') return step;
    var col = axis === 'hours' ? 1 : 2, pts = axisRows(curves, col), n = pts.length;
    if (!n) return null;
    if (step <= pts[0][0]) return pts[0][col];
    if (step > pts[n - 1][0]) return pts[n - 1][col];
    // The first row at or after the step, by bisection (runs have tens of thousands).
    var lo = 1, hi = n - 1;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (pts[mid][0] < step) lo = mid + 1; else hi = mid;
    }
    var p = pts[lo - 1], q = pts[lo], f = (step - p[0]) / ((q[0] - p[0]) || 1);
    return p[col] + f * (q[col] - p[col]);
  }

  /// Exponential moving average with TensorBoard's debiasing: weight w in [0, 1).
  function smooth(values, w) {
    var out = [], acc = 0, n = 0;
    values.forEach(function (v) {
      n++;
      acc = acc * w + (1 - w) * v;
      out.push(w > 0 ? acc / (1 - Math.pow(w, n)) : v);
    });
    return out;
  }

  /// The points split where a trainer session starts (`starts`: those steps), so that no
  /// line is drawn across the pause.
  function splitSessions(points, starts) {
    var parts = [], cur = [];
    points.forEach(function (p, i) {
      if (i > 0 && starts.some(function (s) { return points[i - 1][2] < s && s <= p[2]; })) {
        parts.push(cur);
        cur = [];
      }
      cur.push(p);
    });
    if (cur.length) parts.push(cur);
    return parts;
  }

  /// About `count` round tick values covering [lo, hi], at least `least` apart (1 for
  /// training steps): the values and their spacing, which sets their labels' digits.
  function ticks(lo, hi, count, least) {
    var span = hi - lo;
    if (!(span > 0)) return { values: [lo], step: least || 1 };
    var step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var err = span / count / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    if (least && step < least) step = least;
    var out = [];
    for (var i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) out.push(i === 0 ? 0 : i * step);
    return { values: out, step: step };
  }
  /// A tick's label with the digits its spacing needs: 80 (not "80.000"), 0.25, 12000, 150k,
  /// 12M, 1.5e-6.
  function tickText(v, step) {
    var a = Math.abs(v), unit = '', scale = 1;
    if (v === 0) return '0';
    // Tiny values (a loss near 0) in powers of ten: 5e-7, 1.0e-6, 1.5e-6.
    if (step < 1e-3 && a < 1e-2) {
      var e = Math.floor(Math.log10(step) + 1e-9), d = Math.max(0, Math.floor(Math.log10(a) + 1e-9) - e);
      return v.toExponential(Math.min(d, 6)).replace('-', v < 0 ? '\u2212' : '-');
    }
    if (step >= 1e6 || (a >= 1e7 && step >= 1e5)) { unit = 'M'; scale = 1e6; }
    else if (step >= 1e4 || (a >= 1e5 && step >= 1e3)) { unit = 'k'; scale = 1e3; }
    var s = step / scale, digits = s >= 1 ? 0 : Math.min(8, Math.ceil(-Math.log10(s) - 1e-9));
    // 2.5-spaced ticks (0.25) need one digit more than their power of ten says.
    if (Math.abs(Math.round(s * Math.pow(10, digits)) - s * Math.pow(10, digits)) > 1e-6) digits++;
    var t = (v / scale).toFixed(digits);
    if (/^-0(\.0*)?$/.test(t)) t = t.slice(1);
    return t.replace('-', '\u2212') + unit;
  }

  /// The series of `curves` (a run's /api/curves document) whose tags pass `test`, on
  /// `axis`, smoothed with weight `w` when long enough; training series first, held-out ones
  /// last (drawn on top). `opts.run` and `opts.color`: the run they are of and its colour
  /// (the compare page: labelled by run, held-out ones dashed); else held-out ones orange.
  function series(curves, test, axis, w, opts) {
    opts = opts || {};
    var all = curves.series || {}, intervals = curves.intervals || {};
    var tags = Object.keys(all).sort(function (a, b) {
      return (a.indexOf('heldout/') === 0) - (b.indexOf('heldout/') === 0) || (a < b ? -1 : a > b ? 1 : 0);
    });
    return tags.filter(test).filter(function (t) { return all[t].length; }).map(function (t) {
      var pts = all[t].map(function (p) { return [xOf(curves, p[0], axis), p[1], p[0]]; })
        .filter(function (p) { return typeof p[0] === 'number'; });
      var band = (intervals[t] || []).map(function (b) { return [xOf(curves, b[0], axis), b[1], b[2], b[0]]; })
        .filter(function (b) { return typeof b[0] === 'number'; });
      var smoothed = pts.length >= SMOOTH_FROM && w > 0 ? smooth(pts.map(function (p) { return p[1]; }), w) : null;
      var heldout = t.indexOf('heldout/') === 0;
      return { tag: t, label: opts.run != null ? opts.run + ' ' + t : t, run: opts.run, points: pts, band: band,
        smoothed: smoothed, heldout: heldout, sessions: curves.sessions || [],
        color: opts.color || (heldout ? COLORS[1] : null) };
    });
  }

  /// One chart of one series or many (`series`' shape): `title`, and `opts.axis` ('step',
  /// 'hours', 'cpu': the x axis, which names it unless `opts.label` does), `opts.tooltip`
  /// (the element hover values go in; `#tooltip` by default), `opts.width` and
  /// `opts.height` (pixels; 460 x 250 by default). A series without a colour
  /// takes the palette's next, skipping orange (held-out's).
  function draw(title, list, opts) {
    var axis = opts.axis, tooltip = opts.tooltip || document.getElementById('tooltip');
    var W = opts.width || 460, H = opts.height || 250, L = 56, R = 10, T = 24, B = 34;
    var xs = [], ys = [];
    // Held-out series orange; the others take the palette in order, skipping orange.
    var others = COLORS.filter(function (c, i) { return i !== 1; }), k = 0;
    list.forEach(function (s) {
      if (!s.color) s.color = others[k++ % others.length];
      s.points.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); });
      s.band.forEach(function (b) { xs.push(b[0]); ys.push(b[1], b[2]); });
    });
    // One value (a series of one point, a constant) gets a range around it, never below 0
    // for a value of 0 or more.
    function range(v, atLeastZero) {
      var lo = Math.min.apply(null, v), hi = Math.max.apply(null, v);
      if (!isFinite(lo)) return [0, 1];
      if (hi - lo < 1e-12) {
        var pad = Math.max(Math.abs(lo) * 0.1, !atLeastZero ? 0.5 : axis === 'step' ? 1 : 0.1);
        // A constant count, loss or CPU-hours of 0 does not reach below 0.
        return lo >= 0 && lo - pad < 0 ? [0, hi + pad] : [lo - pad, hi + pad];
      }
      return [lo, hi];
    }
    var rx = range(xs, true), ry = range(ys, false);
    function sx(x) { return L + (x - rx[0]) / (rx[1] - rx[0]) * (W - L - R); }
    function sy(y) { return H - B - (y - ry[0]) / (ry[1] - ry[0]) * (H - T - B); }
    var wrap = el('div', { 'class': 'chart', 'data-chart': title });
    // A card as wide as its chart (the style sheet's width is the default chart's).
    if (opts.width) wrap.style.width = (W + 2) + 'px';
    var svg = sv('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
    svg.appendChild(sv('text', { 'class': 'title', x: L, y: 15 }, title));
    var label = opts.label || { step: 'training step', hours: 'hours', cpu: 'CPU-hours' }[axis];
    var ty = ticks(ry[0], ry[1], 5);
    ty.values.forEach(function (v) {
      svg.appendChild(sv('line', { 'class': 'grid', x1: L, x2: W - R, y1: sy(v), y2: sy(v) }));
      svg.appendChild(sv('text', { 'class': 'tick y', x: L - 4, y: sy(v) + 3, 'text-anchor': 'end' }, tickText(v, ty.step)));
    });
    var tx = ticks(rx[0], rx[1], 5, axis === 'step' ? 1 : 0);
    tx.values.forEach(function (v) {
      svg.appendChild(sv('line', { 'class': 'grid', x1: sx(v), x2: sx(v), y1: T, y2: H - B }));
      // A label at the right edge ends there (centred it would be cut off).
      var edge = sx(v) > W - R - 16;
      svg.appendChild(sv('text', { 'class': 'tick x', x: edge ? W - 2 : sx(v), y: H - B + 13, 'text-anchor': edge ? 'end' : 'middle' },
        tickText(v, tx.step)));
    });
    svg.appendChild(sv('rect', { 'class': 'frame', x: L, y: T, width: W - L - R, height: H - T - B }));
    svg.appendChild(sv('text', { 'class': 'tick', x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' }, label));
    function line(points, cls, s) {
      splitSessions(points, s.sessions || []).forEach(function (part) {
        var attrs = { 'class': cls, stroke: s.color, 'data-tag': s.tag, 'data-run': s.run || '' };
        if (s.dash) attrs['stroke-dasharray'] = s.dash;
        svg.appendChild(sv('polyline', Object.assign(attrs, {
          points: part.map(function (p) { return sx(p[0]).toFixed(1) + ',' + sy(p[1]).toFixed(1); }).join(' ') })));
      });
    }
    list.forEach(function (s) {
      // The 95% interval: a band between the points, a bar at each.
      if (s.band.length) {
        var upper = s.band.map(function (b) { return sx(b[0]).toFixed(1) + ',' + sy(b[2]).toFixed(1); });
        var lower = s.band.slice().reverse().map(function (b) { return sx(b[0]).toFixed(1) + ',' + sy(b[1]).toFixed(1); });
        svg.appendChild(sv('polygon', { 'class': 'band', fill: s.color, 'data-tag': s.tag, 'data-run': s.run || '', points: upper.concat(lower).join(' ') }));
        s.band.forEach(function (b) {
          svg.appendChild(sv('line', { 'class': 'bar', stroke: s.color, x1: sx(b[0]), x2: sx(b[0]), y1: sy(b[1]), y2: sy(b[2]) }));
        });
      }
    });
    // Training series, then held-out ones on top; within each, every faint raw line under
    // every solid one (one series' noise never hides another's smoothed line).
    [false, true].forEach(function (heldout) {
      var group = list.filter(function (s) { return !!s.heldout === heldout; }), extra = heldout ? ' heldout' : '';
      group.forEach(function (s) { if (s.smoothed) line(s.points, 'raw' + extra, s); });
      group.forEach(function (s) {
        if (s.smoothed) {
          line(s.points.map(function (p, i) { return [p[0], s.smoothed[i], p[2]]; }), 'smoothed' + extra, s);
        } else {
          line(s.points, 'plain' + extra, s);
        }
        if (s.points.length === 1) {
          svg.appendChild(sv('circle', { cx: sx(s.points[0][0]), cy: sy(s.points[0][1]), r: 2.5, fill: s.color }));
        }
      });
    });
    var cursor = sv('line', { 'class': 'cursor', x1: 0, x2: 0, y1: T, y2: H - B, visibility: 'hidden' });
    svg.appendChild(cursor);
    wrap.appendChild(svg);
    var legend = el('div', { 'class': 'chart-legend' });
    list.forEach(function (s) {
      var sw = el('span', { 'class': 'swatch', 'data-run': s.run || '' });
      sw.style.background = s.color;
      legend.appendChild(sw);
      var n = s.points.length, last = s.points[n - 1];
      var sm = s.smoothed ? s.smoothed[n - 1] : null;
      legend.appendChild(document.createTextNode((s.label || s.tag) + ' '));
      legend.appendChild(el('span', { 'class': 'last', 'data-tag': s.tag, 'data-run': s.run || '', 'data-value': last ? last[1] : '',
        'data-smoothed': sm == null ? '' : sm }, last ? num(last[1]) + (sm == null ? '' : ' (smoothed ' + num(sm) + ')') : '\u2013'));
    });
    wrap.appendChild(legend);
    // Hover: each series' point nearest the pointer's x, in a tooltip.
    svg.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var px = (ev.clientX - box.left) * W / box.width;
      var x = rx[0] + (px - L) / (W - L - R) * (rx[1] - rx[0]);
      var lines = [];
      list.forEach(function (s) {
        var best = null, at = -1;
        s.points.forEach(function (p, i) { if (!best || Math.abs(p[0] - x) < Math.abs(best[0] - x)) { best = p; at = i; } });
        if (!best) return;
        var iv = s.band.filter(function (b) { return b[3] === best[2]; })[0];
        lines.push((s.label || s.tag) + ': ' + num(best[1]) + (s.smoothed ? ' (smoothed ' + num(s.smoothed[at]) + ')' : '') +
          (iv ? ' [' + num(iv[1]) + ' .. ' + num(iv[2]) + ']' : '') +
          '  (step ' + best[2] + (axis === 'step' ? '' : ', ' + label + ' ' + num(best[0])) + ')');
      });
      cursor.setAttribute('x1', Math.max(L, Math.min(W - R, px)));
      cursor.setAttribute('x2', Math.max(L, Math.min(W - R, px)));
      cursor.setAttribute('visibility', 'visible');
      var tip = tooltip;
      tip.hidden = false;
      tip.textContent = lines.join('\n');
      tip.style.left = (ev.pageX + 12) + 'px';
      tip.style.top = (ev.pageY + 12) + 'px';
    });
    svg.addEventListener('mouseleave', function () {
      cursor.setAttribute('visibility', 'hidden');
      tooltip.hidden = true;
    });
    return wrap;
  }

  return { COLORS: COLORS, num: num, el: el, sv: sv, get: get, charts: charts, series: series, draw: draw };
})();
