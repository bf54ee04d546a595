//! The static HTML book: one page per position, readable from disk without a server.
//!
//! Layout (after KataGo's book export): `index.html` (the title and a link to the start
//! position), the shared `book.css` and `book.js`, and one page per position at
//! `nodes/<first two hex digits of the key>/<key>.html`. Browsers refuse `fetch()` of local
//! files, so every page carries its own data as a script constant (`const NODE = {..};`, JSON
//! with `<`, `>` and `&` written as `\u003c` etc., so no string can end the script) and
//! `book.js` draws the board (inline SVG), the value, the way from the start and the table
//! of book moves from it. Pages hold no external resource; a 17x17 page is about 2-3 KB.
//!
//! Stable hooks for tests: svg `#board` with one `rect.square` per square (`data-square` =
//! display index, class `last` on the last move's squares) and one `g.piece` per piece
//! (`data-square`, `data-token`, `data-color` = `b`/`w`, a `text` with the token); `#value`;
//! `#path` with `a.step` links (the first, `#path-start`, to the start position); table
//! `#moves` with one `tr.book-move` per book move (an `a.move` link with `data-key` where the
//! move has a page) and a last `tr.other` row.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;

use serde::Serialize;

/// W/D/L of a move or a position from the view of the side to move at the page's position,
/// probabilities summing to 1, with the standard error of the expected score.
#[derive(Clone, Debug, PartialEq)]
pub struct HtmlValue {
    pub win: f32,
    pub draw: f32,
    pub loss: f32,
    /// Standard error of the expected score `win + draw / 2`.
    pub err: f32,
    /// Search visits behind the value.
    pub visits: u64,
}

/// One book move of a page.
#[derive(Clone, Debug, PartialEq)]
pub struct HtmlMove {
    /// The move in tengu's notation (RULES.md §12.3).
    pub text: String,
    /// Key (32 hex digits) of the page the move leads to; `None` when that position has no
    /// page (below the export's minimum visits).
    pub child: Option<String>,
    /// The network's prior of the move, in [0, 1].
    pub prior: f32,
    /// The backed-up value after the move, from this page's mover's view.
    pub value: HtmlValue,
}

/// One page: a book position.
#[derive(Clone, Debug, PartialEq)]
pub struct HtmlNode {
    /// 32 hex digits; the page is `nodes/<first two digits>/<key>.html`.
    pub key: String,
    /// Plies from the start position along `path`.
    pub ply: u32,
    /// "Black" or "White".
    pub side_to_move: String,
    /// The position in tengu's text form (RULES.md §12.2).
    pub position: String,
    /// Board side length N (17 or 19).
    pub size: usize,
    /// N * N squares in display order: the top row first (rank `a`, White's side), each
    /// row from the left (file N) to the right (file 1); `None` empty, else the piece's
    /// token without colour (e.g. `+GG`) and whether it is Black's.
    pub board: Vec<Option<(String, bool)>>,
    /// File labels left to right (N .. 1) and rank labels top to bottom (a ..).
    pub files: Vec<String>,
    pub ranks: Vec<String>,
    /// Display indices of the last move's from and to squares (none at the start).
    pub last_move: Option<(usize, usize)>,
    /// The way here from the start: each move with the key of the position it was
    /// played from (so every step back is a link).
    pub path: Vec<(String, String)>,
    /// Book moves, best first.
    pub moves: Vec<HtmlMove>,
    /// The value of the best move not in the book (KataGo's "other moves" row); `None` when
    /// every legal move is in the book.
    pub other: Option<HtmlValue>,
    /// The backed-up value of the position.
    pub value: HtmlValue,
}

/// What `write_html` wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HtmlStats {
    /// Position pages (`nodes/**.html`), not counting `index.html`.
    pub pages: usize,
    /// Bytes of every file written: pages, `index.html`, `book.css`, `book.js`.
    pub bytes: u64,
    /// Links dropped because their target key has no page among `nodes` (a move's `child`
    /// or a step of a `path`): rendered as plain text rather than as a broken link.
    pub unlinked: usize,
}

/// Writes the static HTML book of `nodes` into `dir` (created if missing): `index.html`,
/// `book.css`, `book.js` and `nodes/<key[..2]>/<key>.html` per node; `root_key` is the start
/// position's page, the target of `index.html` and of every page's "start" link.
///
/// Fails with `InvalidInput` on a key that is not at least two hex digits (keys become file
/// names), a `root_key` without a page, or a node whose board, files or ranks do not match
/// its size; nothing is written then.
pub fn write_html(
    dir: &Path,
    title: &str,
    root_key: &str,
    nodes: &[HtmlNode],
) -> io::Result<HtmlStats> {
    for node in nodes {
        check_node(node)?;
    }
    let keys: HashSet<&str> = nodes.iter().map(|n| n.key.as_str()).collect();
    check_key(root_key)?;
    if !keys.contains(root_key) {
        return Err(invalid(format!("root key {root_key} has no page")));
    }

    let mut stats = HtmlStats::default();
    fs::create_dir_all(dir.join("nodes"))?;
    let mut put = |path: &Path, text: &str| -> io::Result<()> {
        fs::write(path, text)?;
        stats.bytes += text.len() as u64;
        Ok(())
    };
    put(&dir.join("book.css"), &format!("{BOOK_CSS}{BOARD_CSS}"))?;
    put(&dir.join("book.js"), &format!("{BOARD_JS}\n{BOOK_JS}"))?;
    put(
        &dir.join("index.html"),
        &index_page(title, root_key, nodes.len()),
    )?;
    let mut pages = 0;

    let mut made: HashSet<&str> = HashSet::new();
    let mut unlinked = 0;
    for node in nodes {
        let sub = &node.key[..2];
        if made.insert(sub) {
            fs::create_dir_all(dir.join("nodes").join(sub))?;
        }
        let data = page_data(title, root_key, node, &keys, &mut unlinked);
        let page = node_page(title, node, &data)?;
        put(
            &dir.join("nodes")
                .join(sub)
                .join(format!("{}.html", node.key)),
            &page,
        )?;
        pages += 1;
    }
    stats.pages = pages;
    stats.unlinked = unlinked;
    Ok(stats)
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn check_key(key: &str) -> io::Result<()> {
    if key.len() < 2 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid(format!("book key {key:?} is not hex digits")));
    }
    Ok(())
}

fn check_node(node: &HtmlNode) -> io::Result<()> {
    check_key(&node.key)?;
    let n = node.size;
    if n == 0 || node.board.len() != n * n || node.files.len() != n || node.ranks.len() != n {
        return Err(invalid(format!(
            "page {}: size {n} but {} squares, {} files, {} ranks",
            node.key,
            node.board.len(),
            node.files.len(),
            node.ranks.len()
        )));
    }
    if let Some((from, to)) = node.last_move {
        if from >= n * n || to >= n * n {
            return Err(invalid(format!(
                "page {}: last move {from}-{to} is off the board",
                node.key
            )));
        }
    }
    for key in node.path.iter().map(|(_, k)| k) {
        check_key(key)?;
    }
    for key in node.moves.iter().filter_map(|m| m.child.as_ref()) {
        check_key(key)?;
    }
    Ok(())
}

/// A value as the page's data holds it: fractions rounded to 4 digits.
#[derive(Serialize)]
struct ValueData {
    w: f64,
    d: f64,
    l: f64,
    e: f64,
    v: u64,
}

impl ValueData {
    fn new(value: &HtmlValue) -> Self {
        ValueData {
            w: round4(value.win),
            d: round4(value.draw),
            l: round4(value.loss),
            e: round4(value.err),
            v: value.visits,
        }
    }
}

#[derive(Serialize)]
struct MoveData<'a> {
    /// Move text.
    m: &'a str,
    /// Child key, `null` without a page.
    c: Option<&'a str>,
    /// Prior.
    p: f64,
    #[serde(flatten)]
    value: ValueData,
}

/// The `NODE` constant of a page.
#[derive(Serialize)]
struct PageData<'a> {
    title: &'a str,
    root: &'a str,
    key: &'a str,
    ply: u32,
    stm: &'a str,
    position: &'a str,
    size: usize,
    files: &'a [String],
    ranks: &'a [String],
    /// Per square in display order: `""` empty, else `b` or `w` (Black's, White's) and
    /// the token.
    board: Vec<String>,
    last: Option<[usize; 2]>,
    /// `[move text, key of the position it was played from or null]`.
    path: Vec<(&'a str, Option<&'a str>)>,
    moves: Vec<MoveData<'a>>,
    other: Option<ValueData>,
    value: ValueData,
}

/// Rounds to 4 decimals (keeps pages small); non-finite stays as is (serialised as null).
fn round4(x: f32) -> f64 {
    let x = f64::from(x);
    if x.is_finite() {
        (x * 1e4).round() / 1e4
    } else {
        x
    }
}

fn page_data<'a>(
    title: &'a str,
    root: &'a str,
    node: &'a HtmlNode,
    keys: &HashSet<&str>,
    unlinked: &mut usize,
) -> PageData<'a> {
    let mut link = |key: &'a str| -> Option<&'a str> {
        if keys.contains(key) {
            Some(key)
        } else {
            *unlinked += 1;
            None
        }
    };
    let path = node
        .path
        .iter()
        .map(|(text, key)| (text.as_str(), link(key)))
        .collect();
    let moves = node
        .moves
        .iter()
        .map(|m| MoveData {
            m: &m.text,
            c: m.child.as_deref().and_then(&mut link),
            p: round4(m.prior),
            value: ValueData::new(&m.value),
        })
        .collect();
    let board = node
        .board
        .iter()
        .map(|sq| match sq {
            None => String::new(),
            Some((token, black)) => format!("{}{token}", if *black { 'b' } else { 'w' }),
        })
        .collect();
    PageData {
        title,
        root,
        key: &node.key,
        ply: node.ply,
        stm: &node.side_to_move,
        position: &node.position,
        size: node.size,
        files: &node.files,
        ranks: &node.ranks,
        board,
        last: node.last_move.map(|(a, b)| [a, b]),
        path,
        moves,
        other: node.other.as_ref().map(ValueData::new),
        value: ValueData::new(&node.value),
    }
}

/// JSON safe inside a `<script>` element: `<`, `>` and `&` (which JSON allows only inside
/// strings) become `\u003c`, `\u003e`, `\u0026`, so no `</script>` or `<!--` can appear.
fn script_json<T: Serialize>(value: &T) -> io::Result<String> {
    let json = serde_json::to_string(value).map_err(io::Error::other)?;
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            // Valid in JSON strings and (since ES2019) in JS strings, but not in older engines.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Text for HTML element content and quoted attribute values.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The marker before a page's data, for readers of the pages (tests).
pub const DATA_PREFIX: &str = "<script>const NODE = ";

fn node_page(title: &str, node: &HtmlNode, data: &PageData) -> io::Result<String> {
    let json = script_json(data)?;
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{} \u{b7} ply {}</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"stylesheet\" href=\"../../book.css\">\n</head>\n<body>\n\
         <main id=\"page\"><noscript>This page draws its board with JavaScript.</noscript></main>\n\
         {DATA_PREFIX}{json};</script>\n\
         <script src=\"../../book.js\"></script>\n</body>\n</html>\n",
        escape_html(title),
        node.ply
    ))
}

fn index_page(title: &str, root_key: &str, pages: usize) -> String {
    let title = escape_html(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"stylesheet\" href=\"book.css\">\n</head>\n<body>\n<main>\n\
         <h1>{title}</h1>\n\
         <p>An opening book of {pages} positions. Each page shows a position, its value and \
         its book moves; follow a move to its position.</p>\n\
         <p><a id=\"start\" href=\"nodes/{}/{root_key}.html\">Start position</a></p>\n\
         </main>\n</body>\n</html>\n",
        &root_key[..2]
    )
}

/// The board drawing shared by the HTML book (`book.js`) and `tengu serve`'s game viewer:
/// a global `tenguBoard(N)` returning an inline SVG `#board` of `N` = `{size, stm, files,
/// ranks, board, last}` (`board`: N*N strings in display order, "" or "b"/"w" + token;
/// `last`: display indices of the last move's squares). Hooks as in the module docs.
pub const BOARD_JS: &str = r#"// tengu board: tenguBoard(N) draws N.board (display order, "" or "b"/"w" + token) as SVG.
function tenguBoard(N) {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  var n = N.size, cell = 32, left = 20, top = 16, w = left + n * cell + 2, h = top + n * cell + 2;
  var s = sv('svg', { id: 'board', viewBox: '0 0 ' + w + ' ' + h, width: w, height: h,
    role: 'img', 'aria-label': 'board, ' + N.stm + ' to move' });
  var last = N.last || [];
  for (var c = 0; c < n; c++)
    s.appendChild(sv('text', { 'class': 'label file', x: left + (c + 0.5) * cell, y: top / 2 }, N.files[c]));
  for (var r = 0; r < n; r++)
    s.appendChild(sv('text', { 'class': 'label rank', x: left / 2, y: top + (r + 0.5) * cell }, N.ranks[r]));
  for (var i = 0; i < n * n; i++) {
    var x = left + (i % n) * cell, y = top + Math.floor(i / n) * cell;
    var sq = sv('rect', { 'class': last.indexOf(i) >= 0 ? 'square last' : 'square',
      x: x, y: y, width: cell, height: cell, 'data-square': i });
    sq.appendChild(sv('title', {}, N.files[i % n] + N.ranks[Math.floor(i / n)]));
    s.appendChild(sq);
  }
  for (i = 0; i < n * n; i++) {
    var t = N.board[i];
    if (!t) continue;
    var black = t[0] === 'b', token = t.slice(1);
    x = left + (i % n) * cell; y = top + Math.floor(i / n) * cell;
    var cx = x + cell / 2, cy = y + cell / 2;
    var g = sv('g', { 'class': 'piece ' + (black ? 'black' : 'white'), 'data-square': i,
      'data-token': token, 'data-color': black ? 'b' : 'w' });
    // A shogi piece pointing up (towards White) for Black; White's turned 180 degrees.
    if (!black) g.setAttribute('transform', 'rotate(180 ' + cx + ' ' + cy + ')');
    g.appendChild(sv('polygon', { points: [cx, y + 2, x + cell - 5, y + 7, x + cell - 3, y + cell - 2,
      x + 3, y + cell - 2, x + 5, y + 7].join(' ') }));
    var size = token.length <= 2 ? 12 : token.length === 3 ? 10 : 8.5;
    g.appendChild(sv('text', { x: cx, y: cy + 2.5, 'font-size': size }, token));
    s.appendChild(g);
  }
  return s;
}
"#;

/// The board's style (`#board` and its squares, labels and pieces), shared like [`BOARD_JS`].
pub const BOARD_CSS: &str = r#"#board { display: block; max-width: 100%; height: auto; margin: 0.6em 0; }
#board .square { fill: #f3dca8; stroke: #8a6d3b; stroke-width: 0.6; }
#board .square.last { fill: #e9b35f; }
#board .label { font-size: 10px; fill: #555; text-anchor: middle; dominant-baseline: central; }
#board .piece { pointer-events: none; }
#board .piece polygon { fill: #fff8e6; stroke: #6b5124; stroke-width: 0.7; }
#board .piece.white polygon { fill: #e4e4ee; stroke: #444466; }
#board .piece text { text-anchor: middle; dominant-baseline: central; font-weight: 600; fill: #111; }
#board .piece.white text { fill: #a01818; }
"#;

const BOOK_CSS: &str = r#"/* tengu opening book */
body { font-family: system-ui, sans-serif; margin: 1em; color: #222; background: #fff; }
main { max-width: 60em; }
h1 { font-size: 1.3em; margin: 0 0 0.4em; }
h1 a { color: inherit; text-decoration: none; }
a { color: #1a4fa0; }
#path { margin: 0.4em 0; line-height: 1.6; }
#path .num { color: #888; margin: 0 0.2em 0 0.6em; }
#path .sep { color: #aaa; margin: 0 0.2em; }
#value { margin: 0.4em 0; }
table#moves { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
#moves th, #moves td { padding: 0.15em 0.6em; text-align: right; border-bottom: 1px solid #ddd; }
#moves th { background: #f2f2f2; }
#moves td.mv, #moves th.mv { text-align: left; font-family: ui-monospace, monospace; }
#moves tr.other td { color: #666; font-style: italic; }
details { margin: 0.6em 0; }
#position { font-family: ui-monospace, monospace; font-size: 0.8em; word-break: break-all; }
.legend { color: #666; font-size: 0.85em; }
"#;

const BOOK_JS: &str = r#"// tengu opening book: draws the page's NODE (a constant set by the page) into #page.
// NODE.board: per square in display order "" or "b"/"w" + token. Pages sit at
// nodes/<key[0..2]>/<key>.html, so a key's page is ../<key[0..2]>/<key>.html from here.
(function () {
  'use strict';
  var N = NODE, SVG = 'http://www.w3.org/2000/svg';

  function href(key) { return '../' + key.slice(0, 2) + '/' + key + '.html'; }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }
  function pct(x) { return typeof x === 'number' ? (100 * x).toFixed(1) : '\u2013'; }
  function score(v) { return typeof v.w === 'number' && typeof v.d === 'number' ? v.w + v.d / 2 : null; }
  function scoreText(v) { return pct(score(v)) + ' \u00b1 ' + pct(v.e); }

  function path() {
    var p = el('nav', { id: 'path' });
    p.appendChild(el('a', { id: 'path-start', 'class': 'step', href: href(N.root) }, 'start'));
    N.path.forEach(function (step, i) {
      p.appendChild(el('span', { 'class': 'num' }, (i + 1) + '.'));
      if (step[1]) p.appendChild(el('a', { 'class': 'step', href: href(step[1]), 'data-key': step[1],
        title: 'the position this move was played from' }, step[0]));
      else p.appendChild(el('span', { 'class': 'step' }, step[0]));
    });
    return p;
  }

  function moves() {
    var t = el('table', { id: 'moves' }), head = el('tr');
    [['#', ''], ['move', 'mv'], ['prior %', ''], ['win %', ''], ['draw %', ''], ['loss %', ''],
     ['score %', ''], ['visits', '']].forEach(function (c) { head.appendChild(el('th', c[1] ? { 'class': c[1] } : {}, c[0])); });
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    function row(cls, num, mv, prior, v) {
      var tr = el('tr', { 'class': cls });
      tr.appendChild(el('td', {}, num));
      var td = tr.appendChild(el('td', { 'class': 'mv' }));
      if (typeof mv === 'string') td.textContent = mv; else td.appendChild(mv);
      [prior, pct(v.w), pct(v.d), pct(v.l), scoreText(v), String(v.v)].forEach(function (x) { tr.appendChild(el('td', {}, x)); });
      body.appendChild(tr);
    }
    N.moves.forEach(function (m, i) {
      var mv = m.c ? el('a', { 'class': 'move', href: href(m.c), 'data-key': m.c }, m.m) : m.m;
      row('book-move', String(i + 1), mv, pct(m.p), m);
    });
    if (N.other) row('other', '', 'other moves', '', N.other);
    if (!N.moves.length && !N.other) body.appendChild(el('tr')).appendChild(el('td', { colspan: 8 }, 'no book moves'));
    return t;
  }

  var page = document.getElementById('page');
  page.textContent = '';
  var h1 = page.appendChild(el('h1'));
  h1.appendChild(el('a', { href: '../../index.html' }, N.title));
  page.appendChild(path());
  page.appendChild(el('p', { id: 'value' }, 'Ply ' + N.ply + ', ' + N.stm + ' to move. Value: win ' + pct(N.value.w) +
    '%, draw ' + pct(N.value.d) + '%, loss ' + pct(N.value.l) + '%, score ' + scoreText(N.value) + '%, ' +
    N.value.v + ' visits.'));
  page.appendChild(tenguBoard(N));
  page.appendChild(el('p', { 'class': 'legend' }, 'Black\u2019s pieces point up, White\u2019s (red) point down; ' +
    'highlighted squares: the last move. Values are from ' + N.stm + '\u2019s view; score = win + draw / 2.'));
  page.appendChild(moves());
  var d = page.appendChild(el('details'));
  d.appendChild(el('summary', {}, 'Position'));
  d.appendChild(el('code', { id: 'position' }, N.position));
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const N: usize = 17;
    const TITLE: &str = "Test book <b>&amp; </script><script>alert(1)</script>";

    fn key(i: u128) -> String {
        format!(
            "{:032x}",
            (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
        )
    }

    fn value(win: f32, draw: f32, visits: u64) -> HtmlValue {
        HtmlValue {
            win,
            draw,
            loss: 1.0 - win - draw,
            err: 0.02,
            visits,
        }
    }

    fn mv(text: &str, child: Option<String>, prior: f32) -> HtmlMove {
        HtmlMove {
            text: text.to_string(),
            child,
            prior,
            value: value(0.4, 0.2, 100),
        }
    }

    /// A 17x17 board with a few pieces of each side.
    fn start_board() -> Vec<Option<(String, bool)>> {
        let mut board = vec![None; N * N];
        let mut put = |row: usize, col: usize, token: &str, black: bool| {
            board[row * N + col] = Some((token.to_string(), black));
        };
        put(16, 8, "K", true);
        put(16, 7, "GG", true);
        put(15, 3, "+GG", true);
        put(12, 5, "P", true);
        put(12, 6, "P", true);
        put(0, 8, "K", false);
        put(0, 9, "GG", false);
        put(1, 13, "FL", false);
        put(4, 11, "P", false);
        board
    }

    fn node(
        i: u128,
        ply: u32,
        board: Vec<Option<(String, bool)>>,
        last_move: Option<(usize, usize)>,
        path: Vec<(String, String)>,
        moves: Vec<HtmlMove>,
        other: Option<HtmlValue>,
    ) -> HtmlNode {
        HtmlNode {
            key: key(i),
            ply,
            side_to_move: if ply.is_multiple_of(2) {
                "Black"
            } else {
                "White"
            }
            .to_string(),
            position: format!("position {i} </script> text"),
            size: N,
            board,
            files: (1..=N).rev().map(|f| f.to_string()).collect(),
            ranks: (0..N)
                .map(|r| ((b'a' + r as u8) as char).to_string())
                .collect(),
            last_move,
            path,
            moves,
            other,
            value: value(0.45, 0.1, 1000 >> ply),
        }
    }

    fn play(
        board: &[Option<(String, bool)>],
        from: usize,
        to: usize,
    ) -> Vec<Option<(String, bool)>> {
        let mut b = board.to_vec();
        b[to] = b[from].take();
        b
    }

    /// root(0) -> [no page, 1, 2]; 1 -> [3, 4, a key without a page]; 3 -> [5]; 2, 4, 5
    /// leaves. The first move of each level that has a page: 0 -> 1 -> 3 -> 5.
    fn book() -> Vec<HtmlNode> {
        let b0 = start_board();
        let (b1, l1) = (play(&b0, 12 * N + 5, 11 * N + 5), (12 * N + 5, 11 * N + 5));
        let (b2, l2) = (play(&b0, 12 * N + 6, 11 * N + 6), (12 * N + 6, 11 * N + 6));
        let (b3, l3) = (play(&b1, 4 * N + 11, 5 * N + 11), (4 * N + 11, 5 * N + 11));
        let (b4, l4) = (play(&b1, 0, 0), (0, 0)); // a pass-like move: no square changes
        let (b5, l5) = (play(&b3, 11 * N + 5, 5 * N + 11), (11 * N + 5, 5 * N + 11));
        let step = |text: &str, from: u128| (text.to_string(), key(from));
        vec![
            node(
                0,
                0,
                b0,
                None,
                vec![],
                vec![
                    mv("P 12f-11f </script>", None, 0.5),
                    mv("P 12e-11e", Some(key(1)), 0.3),
                    mv("P 11e-11d", Some(key(2)), 0.1),
                ],
                Some(value(0.2, 0.1, 5)),
            ),
            node(
                1,
                1,
                b1,
                Some(l1),
                vec![step("P 12e-11e", 0)],
                vec![
                    mv("p 5f-6f", Some(key(3)), 0.6),
                    mv("k 9a-9a", Some(key(4)), 0.2),
                    mv("fl 4b-5c", Some(key(99)), 0.1),
                ],
                None,
            ),
            node(2, 1, b2, Some(l2), vec![step("P 11e-11d", 0)], vec![], None),
            node(
                3,
                2,
                b3,
                Some(l3),
                vec![step("P 12e-11e", 0), step("p 5f-6f", 1)],
                vec![mv("Px 11e-6f", Some(key(5)), 0.9)],
                Some(value(0.3, 0.0, 2)),
            ),
            node(
                4,
                2,
                b4,
                Some(l4),
                vec![step("P 12e-11e", 0), step("k 9a-9a", 1)],
                vec![mv("P 12f-11f", None, 1.0)],
                None,
            ),
            node(
                5,
                3,
                b5,
                Some(l5),
                vec![
                    step("P 12e-11e", 0),
                    step("p 5f-6f", 1),
                    step("Px 11e-6f", 3),
                ],
                vec![mv("k 9a-8b", None, 0.7)],
                Some(value(0.1, 0.1, 3)),
            ),
        ]
    }

    fn page_path(dir: &Path, key: &str) -> std::path::PathBuf {
        dir.join("nodes")
            .join(&key[..2])
            .join(format!("{key}.html"))
    }

    /// The `NODE` constant of a written page, parsed.
    fn page_json(text: &str) -> Value {
        let start = text.find(DATA_PREFIX).expect("data script") + DATA_PREFIX.len();
        let len = text[start..]
            .find(";</script>")
            .expect("end of data script");
        serde_json::from_str(&text[start..start + len]).expect("page data is JSON")
    }

    fn write_book(dir: &Path) -> HtmlStats {
        write_html(dir, TITLE, &key(0), &book()).unwrap()
    }

    #[test]
    fn writes_index_assets_and_one_page_per_node() {
        let tmp = tempfile::tempdir().unwrap();
        let stats = write_book(tmp.path());
        // For the browser test (scripts/browser-test.sh): keep a copy of the book.
        if let Ok(keep) = std::env::var("TENGU_HTML_KEEP") {
            write_book(Path::new(&keep));
        }
        assert_eq!(stats.pages, 6);
        assert_eq!(stats.unlinked, 1, "the move to key(99) has no page");
        let mut bytes = 0;
        for name in ["index.html", "book.css", "book.js"] {
            bytes += fs::metadata(tmp.path().join(name)).unwrap().len();
        }
        for n in book() {
            let path = page_path(tmp.path(), &n.key);
            let len = fs::metadata(&path).unwrap().len();
            assert!(len < 4096, "{} is {len} bytes", path.display());
            bytes += len;
        }
        assert_eq!(stats.bytes, bytes);
        let index = fs::read_to_string(tmp.path().join("index.html")).unwrap();
        let root = key(0);
        assert!(index.contains(&format!("href=\"nodes/{}/{root}.html\"", &root[..2])));
        assert!(!index.contains("</script>"), "the title is escaped");
        assert!(index.contains("Test book &lt;b&gt;&amp;amp; &lt;/script&gt;"));
    }

    #[test]
    fn page_data_parses_back() {
        let tmp = tempfile::tempdir().unwrap();
        write_book(tmp.path());
        for n in book() {
            let text = fs::read_to_string(page_path(tmp.path(), &n.key)).unwrap();
            assert!(text.contains("<script src=\"../../book.js\"></script>"));
            assert!(text.contains("href=\"../../book.css\""));
            let data = page_json(&text);
            assert_eq!(data["key"], n.key.as_str());
            assert_eq!(data["root"], key(0).as_str());
            assert_eq!(data["title"], TITLE);
            assert_eq!(data["ply"], n.ply);
            assert_eq!(data["size"], N);
            assert_eq!(data["position"], n.position.as_str());
            let board = data["board"].as_array().unwrap();
            assert_eq!(board.len(), N * N);
            for (sq, cell) in n.board.iter().zip(board) {
                let want = match sq {
                    None => String::new(),
                    Some((t, true)) => format!("b{t}"),
                    Some((t, false)) => format!("w{t}"),
                };
                assert_eq!(cell.as_str().unwrap(), want);
            }
            assert_eq!(data["files"][0], "17");
            assert_eq!(data["ranks"][16], "q");
            assert_eq!(data["path"].as_array().unwrap().len(), n.path.len());
            for (step, (text, from)) in data["path"].as_array().unwrap().iter().zip(&n.path) {
                assert_eq!(step[0], text.as_str());
                assert_eq!(step[1], from.as_str());
            }
            assert_eq!(data["moves"].as_array().unwrap().len(), n.moves.len());
            for (m, want) in data["moves"].as_array().unwrap().iter().zip(&n.moves) {
                assert_eq!(m["m"], want.text.as_str());
                assert!((m["p"].as_f64().unwrap() - f64::from(want.prior)).abs() < 1e-4);
                assert!(
                    (m["w"].as_f64().unwrap() - 0.4).abs() < 1e-9,
                    "rounded: {m}"
                );
                assert_eq!(m["v"], 100);
            }
            assert_eq!(data["other"].is_null(), n.other.is_none());
            match n.last_move {
                None => assert!(data["last"].is_null()),
                Some((a, b)) => assert_eq!(data["last"], serde_json::json!([a, b])),
            }
        }
    }

    #[test]
    fn a_move_without_a_page_has_no_link() {
        let tmp = tempfile::tempdir().unwrap();
        write_book(tmp.path());
        let root = page_json(&fs::read_to_string(page_path(tmp.path(), &key(0))).unwrap());
        assert!(root["moves"][0]["c"].is_null(), "child None: no link");
        assert_eq!(root["moves"][1]["c"], key(1).as_str());
        let one = page_json(&fs::read_to_string(page_path(tmp.path(), &key(1))).unwrap());
        assert!(
            one["moves"][2]["c"].is_null(),
            "a child without a page: no link"
        );
        // book.js makes a link only from a non-null child.
        assert!(BOOK_JS.contains("var mv = m.c ? el('a', { 'class': 'move'"));
    }

    #[test]
    fn script_end_inside_a_string_is_escaped() {
        let tmp = tempfile::tempdir().unwrap();
        write_book(tmp.path());
        let text = fs::read_to_string(page_path(tmp.path(), &key(0))).unwrap();
        // Only the data script and book.js open and close scripts.
        assert_eq!(text.matches("<script").count(), 2);
        assert_eq!(text.matches("</script>").count(), 2);
        assert_eq!(
            text.matches("</").count(),
            2 + 6,
            "2 scripts, title, head, noscript, main, body, html"
        );
        assert!(text.contains("\\u003c/script\\u003e"));
        let data = page_json(&text);
        assert_eq!(data["moves"][0]["m"], "P 12f-11f </script>");
        assert!(data["position"].as_str().unwrap().contains("</script>"));
        assert_eq!(
            script_json(&"a</b>&\u{2028}").unwrap(),
            "\"a\\u003c/b\\u003e\\u0026\\u2028\""
        );
    }

    #[test]
    fn rejects_bad_keys_and_sizes() {
        let tmp = tempfile::tempdir().unwrap();
        let mut nodes = book();
        let err = write_html(tmp.path(), "t", &key(42), &nodes).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        nodes[2].key = "../../etc".to_string();
        let err = write_html(tmp.path(), "t", &key(0), &nodes).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let mut nodes = book();
        nodes[1].board.pop();
        let err = write_html(tmp.path(), "t", &key(0), &nodes).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(!tmp.path().join("index.html").exists(), "nothing written");
    }
}
