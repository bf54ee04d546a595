// tengu serve: the compare page. Asks /api/compare for the runs served (the page's own
// `?run=NAME&run=NAME` chooses some), fetches each run's curves, and draws every chart of
// the run page with every run's series in it, one colour a run (held-out ones dashed), and
// every run's ladder reports on one chart (chart.js draws them all). Asks again every 15 s,
// refetches the curves of a run whose step moved and redraws when anything did.
// Test hooks: #compare[data-runs][data-drawn] (1 once every chosen run's curves are drawn),
// #compare-runs li[data-run][data-color][data-step], .chart[data-chart] with
// polyline[data-run], .chart-legend span.last[data-run]; the ladder chart is
// #ladder-chart .chart[data-chart="ladders"].
(function () {
  'use strict';
  var POLL_MS = 15000;
  // Charts larger than the run page's: several runs' lines share each.
  var SIZE = { width: 620, height: 300 };
  var C = tenguChart, el = C.el;
  var state = { runs: [], text: null, curves: {}, steps: {}, left: {}, axisChosen: false };

  function $(id) { return document.getElementById(id); }

  function poll() {
    C.get('/api/compare' + location.search).then(function (doc) {
      $('problem').hidden = true;
      // Nothing new: nothing redrawn (a redraw would take the hover values away).
      var text = JSON.stringify(doc);
      if (text === state.text) return null;
      state.text = text;
      state.runs = doc.runs;
      state.runs.forEach(function (r, i) { r.color = C.COLORS[i % C.COLORS.length]; });
      showRuns();
      chooseAxis();
      var asked = state.runs.filter(function (r) {
        return !(r.name in state.curves) || state.steps[r.name] !== r.step;
      }).map(function (r) {
        return C.get(r.curves).then(function (c) { state.curves[r.name] = c; state.steps[r.name] = r.step; });
      });
      return Promise.all(asked).then(draw);
    }).catch(function (e) {
      var p = $('problem');
      p.hidden = false;
      p.textContent = e.message;
    }).then(function () { setTimeout(poll, POLL_MS); });
  }

  /// The runs with their colour, a box to leave one out, and what they are now.
  function showRuns() {
    var ul = $('compare-runs');
    ul.textContent = '';
    $('compare').dataset.runs = state.runs.length;
    state.runs.forEach(function (r) {
      var li = el('li', { 'data-run': r.name, 'data-color': r.color, 'data-step': r.step == null ? '' : r.step });
      var box = el('input', { type: 'checkbox' });
      box.checked = !state.left[r.name];
      box.addEventListener('change', function () { state.left[r.name] = !box.checked; draw(); });
      var sw = el('span', { 'class': 'swatch' });
      sw.style.background = r.color;
      var label = el('label');
      label.appendChild(box);
      label.appendChild(sw);
      label.appendChild(el('b', {}, r.name));
      li.appendChild(label);
      var facts = [r.location, r.game || 'no game yet',
        r.step == null ? 'no loss log yet' : 'step ' + r.step.toLocaleString('en-US'),
        C.num(r.cpu_hours, 3) + ' CPU-hours' + (r.cpu_hours_axis ? '' : ' (its loss log has none)'),
        r.ladders.length + (r.ladders.length === 1 ? ' ladder report' : ' ladder reports')];
      li.appendChild(document.createTextNode(' \u2013 ' + facts.join(', ')));
      if (r.problem) li.appendChild(el('div', { 'class': 'problem' }, r.problem));
      ul.appendChild(li);
    });
  }

  /// CPU-hours where every run's loss log has them (arms compared at equal cost), else steps;
  /// the CPU-hours axis is offered only where some run has it.
  function chooseAxis() {
    var some = state.runs.some(function (r) { return r.cpu_hours_axis; });
    var all = state.runs.length && state.runs.every(function (r) { return r.cpu_hours_axis; });
    var cpu = $('x-axis').querySelector('option[value="cpu"]');
    cpu.disabled = !some;
    if (!state.axisChosen) $('x-axis').value = all ? 'cpu' : 'step';
    if (!some && $('x-axis').value === 'cpu') $('x-axis').value = 'step';
  }

  function shown() {
    return state.runs.filter(function (r) { return !state.left[r.name] && state.curves[r.name]; });
  }

  function draw() {
    $('tooltip').hidden = true;
    drawLadders();
    drawCurves();
    var done = state.runs.every(function (r) { return state.curves[r.name]; });
    $('compare').dataset.drawn = done ? '1' : '0';
  }

  /// Every run's ladder reports on one chart: Elo against CPU-hours, one colour a run, its
  /// second and later ladders dashed.
  function drawLadders() {
    var box = $('ladder-chart'), list = [];
    box.textContent = '';
    state.runs.filter(function (r) { return !state.left[r.name]; }).forEach(function (r) {
      r.ladders.forEach(function (l, k) {
        list.push({ tag: 'ladder/' + l.dir, label: r.name + ' ' + l.dir + '/ (' + (l.zero || '?') + ' = 0)', run: r.name,
          color: r.color, dash: k ? (k % 2 ? '6 3' : '2 2') : null, smoothed: null, heldout: false, sessions: [],
          points: l.rungs.map(function (x) { return [x.cpu_hours, x.elo, x.step]; }),
          band: l.rungs.map(function (x) { return [x.cpu_hours, x.elo_low, x.elo_high, x.step]; }) });
      });
    });
    if (!list.length) {
      box.appendChild(el('p', { 'class': 'legend' }, 'No ladder report in these runs: tengu ladder --run RUN writes one.'));
      return;
    }
    var chart = C.draw('Elo of each ladder\u2019s rungs', list, Object.assign({ axis: 'cpu', label: 'CPU-hours' }, SIZE));
    chart.dataset.chart = 'ladders';
    box.appendChild(chart);
  }

  /// The run page's charts, each with the series of every run shown.
  function drawCurves() {
    var box = $('charts'), axis = $('x-axis').value, w = Number($('smoothing').value);
    box.textContent = '';
    $('smoothing-label').textContent = w.toFixed(2);
    var runs = shown();
    var without = runs.filter(function (r) { return axis === 'cpu' && !r.cpu_hours_axis; });
    $('axis-note').textContent = without.length
      ? without.map(function (r) { return r.name; }).join(', ') + ': no CPU-hours in the loss log, not drawn on this axis.' : '';
    var heads = runs.reduce(function (h, r) { return h || state.curves[r.name].heads; }, null);
    var drawn = 0;
    C.charts(heads).forEach(function (chart) {
      var list = [];
      runs.forEach(function (r) {
        if (without.indexOf(r) >= 0) return;
        C.series(state.curves[r.name], chart[1], axis, w, { run: r.name, color: r.color }).forEach(function (s) {
          if (!s.points.length) return;
          if (s.heldout) s.dash = '5 3';
          list.push(s);
        });
      });
      if (!list.length) return;
      box.appendChild(C.draw(chart[0], list, Object.assign({ axis: axis }, SIZE)));
      drawn++;
    });
    if (!drawn) box.appendChild(el('p', { 'class': 'legend' }, 'No curves: none of these runs has a loss log yet.'));
  }

  $('x-axis').addEventListener('change', function () { state.axisChosen = true; draw(); });
  $('smoothing').addEventListener('input', draw);
  poll();
})();
