// grundy explorer: plain JavaScript, no build step. The server sends each position's structure
// (`board`, tagged by `kind`); the page draws it by the drawer of its kind (KINDS), whatever
// the family. A board of an unknown kind gets the text box and the move list.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function svgRoot(w, h) {
  return svgEl('svg', { width: w, height: h, viewBox: `0 0 ${w} ${h}` });
}
function button(label, onClick, attrs) {
  const b = document.createElement('button');
  b.textContent = label;
  b.addEventListener('click', onClick);
  for (const [k, v] of Object.entries(attrs || {})) b.setAttribute(k, v);
  return b;
}

// ---------------------------------------------------------------- state
const state = {
  families: [],
  // The request for the current position: family, position, board, graph, rule, misere.
  req: null,
  answer: null, // the last /api/solve answer
  // The structure of the current position (`board` of the answer, or the one a set-up click
  // wrote the position from before its answer came), or null when not known yet.
  board: null,
  history: [], // requests to undo to
  played: [], // the moves made since the position was set, engine's too (cram draws them)
  play: null, // { human: true/false to move, over: false }
  selected: null, // a selected bomb or vertex (drawers use it)
  busy: false,
  ply: 0, // moves made so far (shown as data-ply on the body)
  seq: 0, // number of the latest /api/solve request
  status: 0, // HTTP status of the latest /api/solve answer
  lastFamily: null, // the built-in family chosen last (where "Back to the built-in families" goes)
};

async function api(path, body) {
  const r = await fetch(path, {
    method: body ? 'POST' : 'GET',
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(j.error || `HTTP ${r.status}`), { status: r.status });
  return j;
}

// ---------------------------------------------------------------- drawers
// Every answer carries the position's structure in `board`, tagged by `kind` (docs/api.md):
// the drawer is chosen by that kind (KINDS below), so a family the page has never heard of is
// drawn as soon as its kind is known (a new heap game code, say). A drawer draws from the board
// and never reads the position's text:
//   { draw(svgParent, board, ui), editor?(box, board, ui), write(board), filter?(move, ui),
//     start?, afterMove?(board, move) }.
// `ui.moves` is the move list of the current position (or null), `ui.family` the family's
// name, `ui.playable` tells whether clicks make moves, `ui.play(moveText)` makes a move,
// `ui.set(board)` changes the position being set up to the structure `board`: the drawer's
// `write` turns it into the family's notation for the server (the page writes notation, it
// never parses it). Editors build the next structure from `latest(kind)`, the structure of
// the newest position, as the drawing may lag behind quick clicks.

function moveIn(ui, text) {
  return ui.moves ? ui.moves.find((m) => m.move === text) : null;
}
function resultClass(m) {
  return m ? (m.wins ? 'win' : 'lose') : '';
}
// The structure of the newest position if it is of this kind, else null.
function latest(kind) {
  const b = state.board;
  return b && b.kind === kind ? b : null;
}

// `heaps`: nim and the heap games.
const heapDrawer = {
  // A family the page has no example for starts here, if it is a heap game.
  start: { kind: 'heaps', heaps: [3, 5, 7] },
  write: (b) => b.heaps.join(' '),
  draw(root, board, ui) {
    const heaps = board.heaps;
    const shown = heaps.map((n) => Math.min(n, 40));
    const h = 40 + 18 * Math.max(1, ...shown);
    const svg = svgRoot(Math.max(200, 60 * heaps.length + 20), h);
    heaps.forEach((n, i) => {
      const x = 40 + 60 * i;
      svgEl('text', { x: x - 8, y: h - 6 }, svg).textContent = String(n);
      for (let k = 0; k < shown[i]; k++) {
        // Clicking token k (from the bottom) takes it and every token above it.
        const m = moveIn(ui, `${i + 1}:${n}->${k}`);
        const c = svgEl('circle', { cx: x, cy: h - 30 - 18 * k, r: 8, class: `token ${ui.playable ? resultClass(m) : ''}` }, svg);
        c.setAttribute('data-heap', i + 1);
        c.setAttribute('data-token', k + 1);
        if (m && ui.playable) {
          c.classList.add('clickable');
          c.setAttribute('data-move', m.move);
          c.addEventListener('click', () => ui.play(m.move));
        }
      }
    });
    root.appendChild(svg);
  },
  editor(box, board, ui) {
    // The heaps of the newest position, changed by `f` (removing the last heap leaves one token).
    const edit = (f) => () => {
      const b = latest('heaps');
      if (!b) return;
      const h = f([...b.heaps]);
      if (h) ui.set({ kind: 'heaps', heaps: h.length ? h : [1] });
    };
    board.heaps.forEach((n, i) => {
      const span = document.createElement('span');
      span.textContent = ` heap ${i + 1}: `;
      box.appendChild(span);
      const at = (f) => edit((h) => (i < h.length ? (f(h), h) : null));
      box.appendChild(button('−', at((h) => { h[i] = Math.max(0, h[i] - 1); }), { 'data-testid': `heap-minus-${i + 1}` }));
      box.appendChild(button('+', at((h) => { h[i] += 1; }), { 'data-testid': `heap-plus-${i + 1}` }));
      box.appendChild(button('×', at((h) => { h.splice(i, 1); })));
    });
    box.appendChild(button('add a heap', edit((h) => [...h, 3]), { 'data-testid': 'add-heap' }));
  },
};

// ---------------------------------------------------------------- grids
// `grid` boards: `rows`, one character per cell. Bombs, cram and darkraft all send grids, but
// the same characters mean different things and clicks make different moves: in bombs `#` is
// a bomb you select and then move along an edge (cells named from 0), in cram `#` is a hole or
// a covered square and a move is a domino on two squares (from 1), in darkraft a letter is a
// cell whose lasers fire when clicked and `.` is destroyed. Bombs and cram use the very same
// characters (`.` and `#`), and a darkraft board may be all `.`, so the characters cannot tell
// them apart: GRID_FAMILIES keys these interaction and appearance details (click actions,
// set-up clicks, numbering, the look of `.`) by family name. The cells themselves always come
// from `board.rows`. A grid of any other family is drawn by its characters (`#` filled, `.`
// empty, any other character written in its square) and played from the move list.

function gridCells(board) {
  return board.rows.map((r) => [...r]);
}
function gridBoard(cells) {
  return { kind: 'grid', rows: cells.map((r) => r.join('')) };
}
// The cells of the newest position (a copy), or null.
function latestCells() {
  const b = latest('grid');
  return b ? gridCells(b) : null;
}

// Draws rows of cells numbered from 0 (as bombs names them); `#` is filled.
function drawCellsFrom0(root, g, ui) {
  const rows = g.length, cols = Math.max(1, ...g.map((r) => r.length));
  const s = Math.max(14, Math.min(40, Math.floor(480 / Math.max(rows, cols))));
  const svg = svgRoot(cols * s + 30, rows * s + 30);
  for (let c = 0; c < cols; c++) svgEl('text', { x: 24 + c * s + s / 3, y: 12 }, svg).textContent = String(c);
  for (let r = 0; r < rows; r++) {
    svgEl('text', { x: 2, y: 20 + r * s + s / 2 }, svg).textContent = String(r);
    for (let c = 0; c < cols; c++) {
      const ch = g[r][c] || '.';
      const rect = svgEl('rect', { x: 20 + c * s, y: 16 + r * s, width: s, height: s, class: `cell ${ch === '#' ? 'on' : ''}` }, svg);
      rect.setAttribute('data-cell', `${r},${c}`);
      if (ui.cellClick) {
        rect.classList.add('clickable');
        rect.addEventListener('click', () => ui.cellClick(r, c, g));
      }
      if (ui.decorate) ui.decorate(rect, r, c, ch);
    }
  }
  root.appendChild(svg);
}

// Set-up click on cell (r, c) (from 0): the newest cells with that cell changed by `next`.
function editCell(ui, r, c, next) {
  const now = latestCells();
  if (!now || !now[r] || now[r][c] === undefined) return;
  now[r][c] = next(now[r][c]);
  ui.set(gridBoard(now));
}

// Buttons to resize a grid (new cells are `fill`); `hint` says what clicks on the cells do.
function gridEditor(box, ui, fill, hint) {
  const resize = (dr, dc) => () => {
    const g = latestCells() || [];
    const rows = g.length + dr, cols = Math.max(1, ...g.map((r) => r.length)) + dc;
    if (rows < 1 || cols < 1) return;
    ui.set(gridBoard(Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (g[i] && g[i][j]) || fill))));
  };
  box.appendChild(document.createTextNode(hint || 'Click cells to toggle them. '));
  box.appendChild(button('rows −', resize(-1, 0), { 'data-testid': 'rows-minus' }));
  box.appendChild(button('rows +', resize(1, 0), { 'data-testid': 'rows-plus' }));
  box.appendChild(button('columns −', resize(0, -1), { 'data-testid': 'columns-minus' }));
  box.appendChild(button('columns +', resize(0, 1), { 'data-testid': 'columns-plus' }));
}

const bombsGrid = {
  draw(root, g, ui) {
    const sel = state.selected;
    const local = { ...ui };
    if (ui.playable) {
      local.cellClick = (r, c) => {
        if (g[r][c] === '#') { state.selected = `${r},${c}`; render(); return; }
        // A bomb on an edge moves along it: click its target.
        if (sel) {
          const m = moveIn(ui, `${sel}->${r},${c}`);
          if (m) ui.play(m.move);
        }
      };
      local.decorate = (rect, r, c) => {
        if (sel === `${r},${c}`) rect.classList.add('sel');
        if (sel) {
          const m = moveIn(ui, `${sel}->${r},${c}`);
          if (m) { rect.classList.add(resultClass(m)); rect.setAttribute('data-move', m.move); }
        }
      };
    } else if (ui.editing) {
      local.cellClick = (r, c) => editCell(ui, r, c, (ch) => (ch === '#' ? '.' : '#'));
    }
    drawCellsFrom0(root, g, local);
  },
  editor(box, board, ui) { gridEditor(box, ui, '.'); },
  filter: (m) => !state.selected || m.move.startsWith(`${state.selected}->`),
};

// ---------------------------------------------------------------- boards counted from 1
// darkraft, cram and chomp name cells `row,col` from 1, so their drawings do too (in
// data-cell as in data-move).

// The moves by their text (boards may have thousands of cells).
function moveMap(ui) {
  return new Map((ui.moves || []).map((m) => [m.move, m]));
}

// Boards larger than this are not drawn (the server refuses most of them anyway).
const MAX_DRAWN_CELLS = 20000;

function tooLarge(root, rows, cols) {
  if (rows * cols <= MAX_DRAWN_CELLS && rows > 0 && cols > 0) return false;
  const p = document.createElement('p');
  p.className = 'about';
  p.textContent = rows > 0 && cols > 0 ? `A board of ${rows}×${cols} cells is too large to draw.` : 'Nothing to draw.';
  root.appendChild(p);
  return true;
}

// An SVG of rows × cols squares numbered from 1 along the sides; `rowNumber(r)` is the label
// of the r-th row drawn from the top (from 0), `r + 1` unless given (chomp counts from the
// bottom). `square(r, c, cls)` draws a square, `letter(r, c, text)` writes in it.
function squareBoard(rows, cols, rowNumber) {
  const s = Math.max(14, Math.min(44, Math.floor(480 / Math.max(rows, cols))));
  const left = 28, top = 18;
  const svg = svgRoot(cols * s + left + 8, rows * s + top + 8);
  const every = s < 20 ? 5 : 1;
  const label = (n) => n === 1 || n % every === 0;
  for (let c = 0; c < cols; c++) {
    if (label(c + 1)) svgEl('text', { x: left + c * s + s / 2, y: 12, 'text-anchor': 'middle' }, svg).textContent = String(c + 1);
  }
  for (let r = 0; r < rows; r++) {
    const n = rowNumber ? rowNumber(r) : r + 1;
    if (label(n)) svgEl('text', { x: left - 6, y: top + r * s + s / 2 + 4, 'text-anchor': 'end' }, svg).textContent = String(n);
  }
  return {
    svg,
    s,
    at: (r, c) => [left + c * s, top + r * s],
    square: (r, c, cls) => svgEl('rect', { x: left + c * s, y: top + r * s, width: s, height: s, class: `cell ${cls || ''}` }, svg),
    letter(r, c, text, cls) {
      const t = svgEl('text', { x: left + c * s + s / 2, y: top + r * s + s / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'pointer-events': 'none', class: `letter ${cls || ''}` }, svg);
      t.style.fontSize = `${Math.max(9, Math.round(s * 0.45))}px`;
      t.textContent = text;
    },
  };
}

// While the pointer is over `el`, the squares `cells()` returns are marked (class `hit`): what
// the move would take.
function preview(el, cells) {
  el.addEventListener('mouseenter', () => { for (const e of cells()) if (e) e.classList.add('hit'); });
  el.addEventListener('mouseleave', () => { for (const e of cells()) if (e) e.classList.remove('hit'); });
}

// A grid of a family the page has no behaviour for: drawn by its characters, no clicks.
const plainGrid = {
  draw(root, g) {
    const rows = g.length, cols = Math.max(0, ...g.map((r) => r.length));
    if (tooLarge(root, rows, cols)) return;
    const b = squareBoard(rows, cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const ch = g[r][c] || '.';
        b.square(r, c, ch === '#' ? 'on' : '').setAttribute('data-cell', `${r + 1},${c + 1}`);
        if (ch !== '.' && ch !== '#') b.letter(r, c, ch);
      }
    }
    root.appendChild(b.svg);
  },
};

const DARKRAFT_NEXT = { L: 'R', R: 'X', X: '.', '.': 'L' };
const DARKRAFT_RAYS = { L: [[1, -1], [-1, 1]], R: [[-1, -1], [1, 1]], X: [[1, -1], [-1, 1], [-1, -1], [1, 1]] };

// The cells a shot at (r, c) (from 0) destroys: the cell, and along each of its lasers every
// intact cell up to a destroyed one or the border (as `Board::fire` in darkraft.rs).
function darkraftShot(g, r, c) {
  const hit = [[r, c]];
  for (const [dr, dc] of DARKRAFT_RAYS[g[r][c]] || []) {
    for (let i = r + dr, j = c + dc; g[i] && g[i][j] && g[i][j] !== '.'; i += dr, j += dc) hit.push([i, j]);
  }
  return hit;
}

const darkraftGrid = {
  draw(root, g, ui) {
    const rows = g.length, cols = Math.max(0, ...g.map((r) => r.length));
    if (tooLarge(root, rows, cols)) return;
    const b = squareBoard(rows, cols);
    const moves = moveMap(ui);
    const rects = g.map(() => []);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const ch = g[r][c] || '.';
        const m = moves.get(`${r + 1},${c + 1}`);
        const rect = b.square(r, c, ch === '.' ? 'dead' : ui.playable ? resultClass(m) : '');
        rect.setAttribute('data-cell', `${r + 1},${c + 1}`);
        rects[r][c] = rect;
        if (ch !== '.') b.letter(r, c, ch);
        if (ui.playable && m) {
          // Every intact cell is a move: fire its lasers.
          rect.classList.add('clickable');
          rect.setAttribute('data-move', m.move);
          rect.addEventListener('click', () => ui.play(m.move));
          preview(rect, () => darkraftShot(g, r, c).map(([i, j]) => rects[i][j]));
        } else if (ui.editing) {
          rect.classList.add('clickable');
          rect.addEventListener('click', () => editCell(ui, r, c, (now) => DARKRAFT_NEXT[now] || 'L'));
        }
      }
    }
    root.appendChild(b.svg);
  },
  editor(box, board, ui) {
    gridEditor(box, ui, 'L', 'Click a cell to change it: L → R → X → . (destroyed) → L. ');
  },
};

// A cram move `r1,c1-r2,c2` for the squares `a` and `b` (`row,col` from 1), the first above or
// left of the second.
function cramMove(a, b) {
  const [ra, ca] = a.split(',').map(Number), [rb, cb] = b.split(',').map(Number);
  return ra < rb || (ra === rb && ca < cb) ? `${a}-${b}` : `${b}-${a}`;
}

// Cram's grid: `.` an empty square, `#` a hole or a covered square.
const cramGrid = {
  draw(root, g, ui) {
    const rows = g.length, cols = Math.max(0, ...g.map((r) => r.length));
    if (tooLarge(root, rows, cols)) return;
    const b = squareBoard(rows, cols);
    const moves = moveMap(ui);
    const sel = ui.playable ? state.selected : null;
    const rects = {};
    // Squares that some domino may still cover.
    const free = new Set([...moves.keys()].flatMap((m) => m.split('-')));
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const here = `${r + 1},${c + 1}`;
        const empty = g[r][c] === '.';
        const rect = b.square(r, c, empty ? '' : 'on');
        rect.setAttribute('data-cell', here);
        rects[here] = rect;
        if (ui.playable && free.has(here)) {
          // Click a square, then a square next to it: the domino on both.
          const m = sel && sel !== here ? moves.get(cramMove(sel, here)) : null;
          rect.classList.add('clickable');
          if (sel === here) rect.classList.add('sel');
          if (m) {
            rect.classList.add(resultClass(m));
            rect.setAttribute('data-move', m.move);
            preview(rect, () => [rects[sel], rect]);
          }
          rect.addEventListener('click', () => {
            if (m) return ui.play(m.move);
            state.selected = sel === here ? null : here;
            render();
          });
        } else if (ui.editing) {
          rect.classList.add('clickable');
          rect.addEventListener('click', () => editCell(ui, r, c, (now) => (now === '.' ? '#' : '.')));
        }
      }
    }
    // The dominoes played since the position was set, drawn as dominoes (holes stay squares).
    for (const mv of state.played) {
      const [a, z] = mv.split('-');
      const [r1, c1] = (a || '').split(',').map(Number), [r2, c2] = (z || '').split(',').map(Number);
      if (!(g[r1 - 1] && g[r1 - 1][c1 - 1] === '#' && g[r2 - 1] && g[r2 - 1][c2 - 1] === '#')) continue;
      const [x, y] = b.at(Math.min(r1, r2) - 1, Math.min(c1, c2) - 1);
      const pad = b.s * 0.1, across = r1 === r2;
      const d = svgEl('rect', {
        x: x + pad, y: y + pad, rx: b.s * 0.18,
        width: (across ? 2 : 1) * b.s - 2 * pad, height: (across ? 1 : 2) * b.s - 2 * pad,
        class: 'domino',
      }, b.svg);
      d.setAttribute('data-played', mv);
    }
    if (ui.playable) {
      // Or click the joint between two empty squares: a domino across it.
      for (const m of moves.values()) {
        const [a, z] = m.move.split('-');
        const [r1, c1] = a.split(',').map(Number), [r2, c2] = z.split(',').map(Number);
        const [x, y] = b.at(r1 - 1, c1 - 1);
        const s = b.s, across = r1 === r2;
        const w = across ? s * 0.3 : s * 0.6, h = across ? s * 0.6 : s * 0.3;
        const cx = across ? x + s : x + s / 2, cy = across ? y + s / 2 : y + s;
        const j = svgEl('rect', { x: cx - w / 2, y: cy - h / 2, width: w, height: h, rx: 3, class: `joint clickable ${resultClass(m)}` }, b.svg);
        j.setAttribute('data-move', m.move);
        j.addEventListener('click', () => ui.play(m.move));
        preview(j, () => [rects[a], rects[z]]);
      }
    }
    root.appendChild(b.svg);
  },
  editor(box, board, ui) {
    gridEditor(box, ui, '.', 'Click a square to make it a hole (#) or empty again. ');
  },
  filter: (m) => !state.selected || m.move.split('-').includes(state.selected),
};

// Interaction and appearance of the grid families (why by name: see the top of this section).
const GRID_FAMILIES = { bombs: bombsGrid, cram: cramGrid, darkraft: darkraftGrid };
const gridStyle = (ui) => GRID_FAMILIES[ui.family] || plainGrid;

const gridDrawer = {
  write: (b) => b.rows.join('/'),
  draw: (root, board, ui) => gridStyle(ui).draw(root, gridCells(board), ui),
  editor(box, board, ui) {
    const style = gridStyle(ui);
    if (style.editor) style.editor(box, board, ui);
  },
  filter(m, ui) {
    const style = gridStyle(ui);
    return style.filter ? style.filter(m) : true;
  },
};

// ---------------------------------------------------------------- strips, sheets, bars
// `strip`: a row of one-character squares (crosses); a move is the number of a square (from 1)
// and puts an X there.
const stripDrawer = {
  write: (b) => b.cells,
  draw(root, board, ui) {
    const cells = [...board.cells];
    const s = Math.max(16, Math.min(40, Math.floor(900 / Math.max(1, cells.length))));
    const svg = svgRoot(cells.length * s + 20, s + 36);
    cells.forEach((ch, i) => {
      const m = moveIn(ui, String(i + 1));
      const rect = svgEl('rect', { x: 10 + i * s, y: 8, width: s, height: s, class: `cell ${ui.playable ? resultClass(m) : ''}` }, svg);
      rect.setAttribute('data-cell', String(i + 1));
      if (ch !== '.') {
        svgEl('text', { x: 10 + i * s + s / 2 - 5, y: 8 + s / 2 + 5, 'pointer-events': 'none' }, svg).textContent = ch;
      }
      svgEl('text', { x: 10 + i * s + 2, y: s + 28 }, svg).textContent = String(i + 1);
      if (ui.playable && m) {
        rect.classList.add('clickable');
        rect.setAttribute('data-move', m.move);
        rect.addEventListener('click', () => ui.play(m.move));
      } else if (ui.editing) {
        rect.classList.add('clickable');
        rect.addEventListener('click', () => {
          const b = latest('strip');
          if (!b || i >= b.cells.length) return;
          const now = [...b.cells];
          now[i] = now[i] === '.' ? 'X' : '.';
          ui.set({ kind: 'strip', cells: now.join('') });
        });
      }
    });
    root.appendChild(svg);
  },
  editor(box, board, ui) {
    const cells = () => (latest('strip') || board).cells;
    box.appendChild(document.createTextNode('Click squares to put or remove an X. '));
    box.appendChild(button('shorter', () => cells().length > 1 && ui.set({ kind: 'strip', cells: cells().slice(0, -1) })));
    box.appendChild(button('longer', () => ui.set({ kind: 'strip', cells: `${cells()}.` })));
  },
  // The strip after a move (the server does not read a strip with three X in a row).
  afterMove(board, move) {
    const cells = [...board.cells];
    const i = cells.findIndex((_, k) => String(k + 1) === move);
    if (i < 0) return null;
    cells[i] = 'X';
    return { kind: 'strip', cells: cells.join('') };
  },
};

// The cuts of sheet k (from 0) of w × h: where the line is, the move's text and the two
// sheets it leaves.
function sheetCuts(k, w, h) {
  const cuts = [];
  for (let a = 1; a < w; a++) cuts.push({ down: true, at: a, text: `${k + 1}:${w}x${h}->${a}x${h}+${w - a}x${h}`, pieces: [[a, h], [w - a, h]] });
  for (let b = 1; b < h; b++) cuts.push({ down: false, at: b, text: `${k + 1}:${w}x${h}->${w}x${b}+${w}x${h - b}`, pieces: [[w, b], [w, h - b]] });
  return cuts;
}

// `sheets`: sheets of paper [width, height] (cutting).
const sheetsDrawer = {
  write: (b) => b.sheets.map(([w, h]) => `${w}x${h}`).join(' '),
  draw(root, board, ui) {
    const sheets = board.sheets;
    const s = 22;
    let x = 10;
    const height = Math.max(...sheets.map(([, h]) => h || 1)) * s + 40;
    const width = sheets.reduce((a, [w]) => a + (w || 1) * s + 24, 20);
    const svg = svgRoot(Math.min(width, 4000), Math.min(height, 4000));
    sheets.forEach(([w, h], k) => {
      svgEl('rect', { x, y: 10, width: w * s, height: h * s, class: 'sheet' }, svg);
      svgEl('text', { x, y: h * s + 26 }, svg).textContent = `${w}x${h}`;
      for (const cut of sheetCuts(k, w, h)) {
        const [x1, y1, x2, y2] = cut.down ? [x + cut.at * s, 10, x + cut.at * s, 10 + h * s] : [x, 10 + cut.at * s, x + w * s, 10 + cut.at * s];
        svgEl('line', { x1, y1, x2, y2, class: 'grid' }, svg);
        const m = moveIn(ui, cut.text);
        if (ui.playable && m) {
          // A band around the line to click (a bare line has no area to hit).
          const band = cut.down ? { x: x1 - 4, y: y1, width: 8, height: y2 - y1 } : { x: x1, y: y1 - 4, width: x2 - x1, height: 8 };
          const l = svgEl('rect', { ...band, class: `cut clickable ${resultClass(m)}` }, svg);
          l.setAttribute('data-move', m.move);
          l.addEventListener('click', () => ui.play(m.move));
        }
      }
      x += w * s + 24;
    });
    root.appendChild(svg);
  },
  editor(box, board, ui) {
    // The sheets of the newest position, changed by `f` (removing the last sheet leaves 2x2).
    const edit = (f) => () => {
      const b = latest('sheets');
      if (!b) return;
      const sheets = f(b.sheets.map(([w, h]) => [w, h]));
      if (sheets) ui.set({ kind: 'sheets', sheets: sheets.length ? sheets : [[2, 2]] });
    };
    board.sheets.forEach((_, k) => {
      box.appendChild(document.createTextNode(` sheet ${k + 1}: `));
      const resize = (dw, dh) => edit((sh) => {
        if (k >= sh.length) return null;
        sh[k] = [Math.max(1, sh[k][0] + dw), Math.max(1, sh[k][1] + dh)];
        return sh;
      });
      box.appendChild(button('w−', resize(-1, 0)));
      box.appendChild(button('w+', resize(1, 0)));
      box.appendChild(button('h−', resize(0, -1)));
      box.appendChild(button('h+', resize(0, 1)));
      box.appendChild(button('×', edit((sh) => (k < sh.length ? (sh.splice(k, 1), sh) : null))));
    });
    box.appendChild(button('add a sheet', edit((sh) => [...sh, [3, 3]])));
  },
  // The sheets after a cut (the server does not read a position with a 1x1 sheet).
  afterMove(board, move) {
    for (const [k, [w, h]] of board.sheets.entries()) {
      const cut = sheetCuts(k, w, h).find((c) => c.text === move);
      if (cut) return { kind: 'sheets', sheets: [...board.sheets.slice(0, k), ...cut.pieces, ...board.sheets.slice(k + 1)] };
    }
    return null;
  },
};

// `columns`: a Young diagram by column heights (chomp): square (1, 1) at the bottom left is
// poisoned; a move `r,c` takes that square with every square above and right of it.
const columnsDrawer = {
  write: (b) => b.heights.join(' '),
  draw(root, board, ui) {
    const h = board.heights;
    // When setting up, one more row and column of empty places to add squares in.
    const extra = ui.editing ? 1 : 0;
    const rows = Math.max(0, ...h) + extra, cols = h.length + extra;
    if (tooLarge(root, rows, cols)) return;
    // Rows count from 1 at the bottom, columns from 1 at the left: square (1, 1) is poisoned.
    const b = squareBoard(rows, cols, (i) => rows - i);
    const moves = moveMap(ui);
    const squares = {};
    const has = (r, c) => c <= h.length && h[c - 1] >= r;
    for (let c = 1; c <= cols; c++) {
      for (let r = 1; r <= rows; r++) {
        const here = `${r},${c}`;
        if (!has(r, c) && !ui.editing) continue;
        const poison = r === 1 && c === 1;
        const m = moves.get(here);
        const cls = !has(r, c) ? 'ghost' : poison ? 'poison' : ui.playable && m ? resultClass(m) : 'choc';
        const rect = b.square(rows - r, c - 1, cls);
        rect.setAttribute('data-cell', here);
        squares[here] = rect;
        if (poison) b.letter(rows - r, c - 1, '☠', 'poison');
        if (ui.playable && m) {
          // Take this square and every square above and to the right of it.
          rect.classList.add('clickable');
          rect.setAttribute('data-move', m.move);
          rect.addEventListener('click', () => ui.play(m.move));
          preview(rect, () => Object.entries(squares)
            .filter(([k]) => { const [i, j] = k.split(',').map(Number); return i >= r && j >= c; })
            .map(([, e]) => e));
        } else if (ui.editing && !poison) {
          rect.classList.add('clickable');
          rect.addEventListener('click', this.edit(ui, (now) => {
            if (c <= now.length && now[c - 1] >= r) {
              // A square of the bar: bite it off with all above and right of it.
              for (let j = c; j <= now.length; j++) now[j - 1] = Math.min(now[j - 1], r - 1);
            } else {
              // An empty place: add it and every place below and left of it.
              while (now.length < c) now.push(0);
              for (let j = 1; j <= c; j++) now[j - 1] = Math.max(now[j - 1], r);
            }
            return now;
          }));
        }
      }
    }
    root.appendChild(b.svg);
  },
  // A handler setting the heights of the newest position changed by `f` (empty columns go;
  // an empty bar leaves the poisoned square).
  edit: (ui, f) => () => {
    const b = latest('columns');
    if (!b) return;
    const h = f([...b.heights]).filter((x) => x > 0);
    ui.set({ kind: 'columns', heights: h.length ? h : [1] });
  },
  editor(box, board, ui) {
    box.appendChild(document.createTextNode('Click a square to take it with all above and right of it; click an empty place to add it with all below and left of it. '));
    box.appendChild(button('rows −', this.edit(ui, (h) => h.map((x) => x - 1)), { 'data-testid': 'rows-minus' }));
    box.appendChild(button('rows +', this.edit(ui, (h) => h.map((x) => x + 1)), { 'data-testid': 'rows-plus' }));
    box.appendChild(button('columns −', this.edit(ui, (h) => h.slice(1)), { 'data-testid': 'columns-minus' }));
    box.appendChild(button('columns +', this.edit(ui, (h) => [h[0], ...h]), { 'data-testid': 'columns-plus' }));
  },
};

// ---------------------------------------------------------------- graphs
// Where to draw the points of a graph, by the board's name: the NEFU 1356 board and grids by
// rows, paths in rows of ten, others on a circle.
function layout(board) {
  const n = board.points;
  const W = 420, H = 300;
  if (board.name === 'maoershan') {
    const rows = [[1, 2], [3, 4, 5, 6], [7, 8, 9, 10], [11, 12]];
    const cols = { 1: 1, 2: 2, 3: 0, 4: 1, 5: 2, 6: 3, 7: 0, 8: 1, 9: 2, 10: 3, 11: 1, 12: 2 };
    const at = {};
    rows.forEach((r, i) => r.forEach((p) => { at[p] = [60 + cols[p] * 100, 40 + i * 70]; }));
    return (p) => at[p];
  }
  const grid = /^grid:(\d+)x(\d+)$/.exec(board.name);
  if (grid) {
    const c = Number(grid[2]);
    return (p) => [40 + ((p - 1) % c) * 60, 40 + Math.floor((p - 1) / c) * 60];
  }
  if (/^path:/.test(board.name)) return (p) => [30 + ((p - 1) % 10) * 50, 40 + Math.floor((p - 1) / 10) * 60];
  return (p) => {
    const t = (2 * Math.PI * (p - 1)) / n - Math.PI / 2;
    return [W / 2 + (W / 2 - 40) * Math.cos(t), H / 2 + (H / 2 - 30) * Math.sin(t)];
  };
}

// Families whose position is one 0/1 per point, so set-up clicks on points can write it (the
// `graph` family's position is its edge list: clicks on its points do not set it up).
const POINTS_NOTATION = new Set(['points']);

// `graph`: pieces on the points of a graph (`present`), moves `p` or `p-q` (from 1).
const graphDrawer = {
  write: (b) => b.present.map((on) => (on ? '1' : '0')).join(''),
  draw(root, board, ui) {
    const at = layout(board);
    const pts = Array.from({ length: board.points }, (_, i) => at(i + 1));
    const w = Math.max(...pts.map((p) => p[0])) + 40, h = Math.max(...pts.map((p) => p[1])) + 40;
    const svg = svgRoot(w, h);
    const present = board.present;
    for (const [p, q] of board.edges) {
      const [x1, y1] = at(p), [x2, y2] = at(q);
      const on = present[p - 1] && present[q - 1];
      svgEl('line', { x1, y1, x2, y2, class: 'edge', 'stroke-dasharray': on ? '' : '4 4' }, svg);
    }
    const sel = state.selected;
    for (let p = 1; p <= board.points; p++) {
      const [x, y] = at(p);
      const single = moveIn(ui, String(p));
      const pair = sel && sel !== p ? moveIn(ui, `${Math.min(sel, p)}-${Math.max(sel, p)}`) : null;
      const m = pair || (sel === p || !sel ? single : null);
      const c = svgEl('circle', { cx: x, cy: y, r: 14, class: `vertex ${present[p - 1] ? 'on' : ''} ${sel === p ? 'sel' : ''} ${ui.playable ? resultClass(m) : ''}` }, svg);
      c.setAttribute('data-point', String(p));
      svgEl('text', { x: x + 16, y: y - 10 }, svg).textContent = String(p);
      if (ui.playable && present[p - 1]) {
        c.classList.add('clickable');
        c.addEventListener('click', () => {
          const hasPairs = ui.moves.some((mv) => mv.move.split('-').includes(String(p)) && mv.move.includes('-'));
          if (pair) return ui.play(pair.move);
          if (sel === p && single) return ui.play(single.move);
          if (!hasPairs && single) return ui.play(single.move);
          state.selected = sel === p ? null : p;
          render();
        });
      } else if (ui.editing && POINTS_NOTATION.has(ui.family)) {
        c.classList.add('clickable');
        c.addEventListener('click', () => {
          const b = latest('graph');
          if (!b || p > b.points) return;
          const now = [...b.present];
          now[p - 1] = !now[p - 1];
          ui.set({ ...b, present: now });
        });
      }
    }
    root.appendChild(svg);
  },
  filter: (m) => !state.selected || m.move.split('-').includes(String(state.selected)),
};

// The drawer of each kind of board the server sends.
const KINDS = {
  heaps: heapDrawer,
  grid: gridDrawer,
  strip: stripDrawer,
  sheets: sheetsDrawer,
  columns: columnsDrawer,
  graph: graphDrawer,
};

function drawerFor(board) {
  return (board && KINDS[board.kind]) || null;
}

// The first position of a family: its example from GET /api/families, in its notation (the
// graph family starts from a built-in board instead, so from no text). A family not listed
// (a heap game typed by its code, say) has none (null): it starts from a kind's `start`.
function exampleOf(name) {
  if (name === 'graph') return '';
  const f = state.families.find((f) => f.name === name);
  return f ? f.example : null;
}

// ---------------------------------------------------------------- rendering
function setStatus(text, cls) {
  const s = $('status');
  s.textContent = text;
  s.className = `status ${cls || ''}`;
}

function showNote(msg) {
  const e = $('note');
  e.hidden = !msg;
  e.textContent = msg || '';
}

function showError(msg) {
  const e = $('error');
  e.hidden = !msg;
  e.textContent = msg || '';
}

function render() {
  const a = state.answer;
  const req = state.req;
  const board = state.board;
  const drawer = drawerFor(board);
  const playing = !!state.play;
  const humanTurn = playing && state.play.human && !state.play.over && !state.busy;
  const editing = !playing && $('edit').checked;
  const ui = {
    moves: a ? a.moves : null,
    family: a ? a.family : req.family,
    playable: !editing && (humanTurn || !playing) && !!a && !state.busy,
    editing,
    play: (m) => makeMove(m),
    set: (b) => setBoard(b),
  };
  const drawing = $('drawing');
  drawing.innerHTML = '';
  if (drawer) drawer.draw(drawing, board, ui);
  else drawing.textContent = req.position;
  const editor = $('editor');
  editor.innerHTML = '';
  if (drawer && drawer.editor && editing) drawer.editor(editor, board, ui);

  $('outcome').textContent = a ? (a.outcome === 'first' ? 'first player (to move) wins' : 'second player wins') : '–';
  $('grundy').textContent = a ? (a.grundy === null ? (a.convention === 'misere' ? 'none (misère)' : 'none (wins at once)') : String(a.grundy)) : '–';
  $('remoteness').textContent = a && a.remoteness !== null ? String(a.remoteness) : '–';
  const box = $('moves');
  box.innerHTML = '';
  if (a) {
    const filter = drawer && drawer.filter ? (m) => drawer.filter(m, ui) : () => true;
    for (const m of a.moves.filter(filter)) {
      const b = button(m.move, () => makeMove(m.move), {
        class: `move ${m.wins ? 'win' : 'lose'}`,
        'data-move': m.move,
        title: `${m.wins ? 'wins' : 'loses'}; grundy after: ${m.grundy ?? '–'}; remoteness after: ${m.remoteness ?? '–'}`,
      });
      b.disabled = !(!state.busy && (!playing || humanTurn));
      box.appendChild(b);
    }
    if (a.moves.length === 0) box.textContent = 'no move';
  }
  $('undo').disabled = state.history.length === 0 || state.busy;
  $('explore').hidden = !playing;
  // For tests and scripts: whose turn it is, and how many moves were made.
  const turn = !playing ? 'explore' : state.play.over ? 'over' : state.busy ? 'busy' : state.play.human ? 'human' : 'engine';
  document.body.dataset.turn = turn;
  document.body.dataset.analysed = a ? a.position : '';
  document.body.dataset.family = a ? a.family : '';
  document.body.dataset.ply = String(state.ply);
}

function syncInputs() {
  const req = state.req;
  $('position').value = req.position;
  const graphy = req.family === 'points' || req.family === 'graph';
  $('board-label').hidden = !graphy;
  $('rule-label').hidden = !graphy;
}

// Seconds a misère remoteness search may take before the page asks for the outcomes alone.
const REMOTENESS_SECONDS = 3;

function request() {
  const r = { ...state.req, misere: $('misere').checked, remoteness: $('remote').checked || !!state.play };
  for (const k of ['board', 'graph', 'rule', 'game']) if (r[k] === null || r[k] === undefined || r[k] === '') delete r[k];
  // A game file is the game: the family's name and options are not sent with it.
  if (r.game) for (const k of ['family', 'board', 'graph', 'rule']) delete r[k];
  // Misère remoteness searches whole positions, which may be out of reach where the
  // outcomes are not: give it REMOTENESS_SECONDS (as `grundy play` does), then ask for the
  // outcomes alone (solveCurrent) rather than wait for the server's whole limit.
  if (r.misere && r.remoteness) r.timeout = REMOTENESS_SECONDS;
  return r;
}

async function solveCurrent() {
  // Answers may come back out of order: only the latest request's answer counts.
  const seq = ++state.seq;
  state.busy = true;
  // Scripts watching whose turn it is must not see the previous turn while this solves.
  if (state.play) document.body.dataset.turn = 'busy';
  showError('');
  let answer = null;
  let error = '';
  let status = 200;
  let note = '';
  const req = request();
  try {
    answer = await api('/api/solve', req);
  } catch (e) {
    error = e.message;
    status = e.status || 0;
    // Misère remoteness needs a search of whole positions, which can be out of reach where
    // the outcomes are not (sums of large heaps: the misère quotient answers them). Too slow
    // (504) or past a limit (422): ask for the outcomes alone, as `grundy play` does.
    if (req.misere && req.remoteness && (status === 504 || status === 422)) {
      try {
        answer = await api('/api/solve', { ...req, remoteness: false, timeout: undefined });
        note = 'Remoteness is out of reach here: outcomes only (the engine wins when it can, not always fastest).';
        error = '';
        status = 200;
      } catch (e2) {
        error = e2.message;
        status = e2.status || 0;
      }
    }
  }
  if (seq !== state.seq) return state.answer;
  state.answer = answer;
  state.status = status;
  showNote(note);
  // On an error the board stays what it was known to be (null after a move or typed text).
  if (answer) state.board = answer.board || null;
  if (answer && state.req.family !== 'graph') state.req.position = answer.position;
  showError(error);
  if (state.req.game) markGameError(error);
  state.busy = false;
  syncInputs();
  render();
  return answer;
}

// Sets the position to `text`; `board` is its structure when the page wrote the text from one.
function setPosition(text, board) {
  state.req.position = text;
  state.board = board || null;
  state.played = [];
  state.selected = null;
  syncInputs();
  solveCurrent();
}

// Sets the position being set up to the structure `board`, written in the family's notation.
function setBoard(board) {
  setPosition(drawerFor(board).write(board), board);
}

async function chooseFamily(name) {
  showGameMode(false);
  state.lastFamily = name;
  const graphy = name === 'points' || name === 'graph';
  state.req = {
    family: name,
    position: exampleOf(name),
    board: graphy ? $('board').value || (name === 'graph' ? 'petersen' : 'maoershan') : null,
    rule: graphy ? $('rule').value : null,
  };
  if (name === 'graph' && !$('board').value) $('board').value = 'petersen';
  const f = state.families.find((f) => f.name === name);
  $('family-about').textContent = f ? f.description : '';
  state.history = [];
  state.played = [];
  state.play = null;
  state.selected = null;
  setStatus('');
  $('table').innerHTML = '';
  $('table-what').textContent = '';
  state.board = null;
  if (state.req.position === null) {
    // A family the page has no example for (a heap game typed by its code) starts from the
    // first kind's `start` the server reads as one of its positions (heaps 3 5 7); the empty
    // text is not a position.
    await firstPosition(kindStarts(), () => state.req.family === name);
    return;
  }
  syncInputs();
  await solveCurrent();
}

// The positions of the kinds' `start`s, in the kinds' notations.
function kindStarts() {
  return Object.values(KINDS).filter((d) => d.start).map((d) => d.write(d.start));
}

// Solves the first of `positions` the server reads as a position of the current game, while
// `current()` says the page still shows that game; returns its answer, or null.
async function firstPosition(positions, current) {
  for (const p of positions) {
    state.req.position = p;
    syncInputs();
    const a = await solveCurrent();
    if (!current()) return null;
    if (a) return a;
    // No position helps a game the server does not know (404: a Lua script on a server
    // built without scripts, say).
    if (state.status === 404) return null;
  }
  return null;
}

// The request after a move: for the graph family the game goes on as points on its graph.
function after(move) {
  const next = { ...state.req, position: move.position_after };
  if (next.family === 'graph') {
    next.family = 'points';
    if (!next.board) next.graph = state.req.position;
  }
  return next;
}

// The board after a move that ends the game: the server does not read such positions (three
// X in a row, a 1x1 sheet), so the drawer works it out from its own moves; null if it cannot
// (the position's text is shown instead). Other boards come with the next answer.
function boardAfterEnd(board, move) {
  const d = drawerFor(board);
  return (d && d.afterMove && d.afterMove(board, move)) || null;
}

async function makeMove(text) {
  const a = state.answer;
  if (!a || state.busy) return;
  const m = a.moves.find((x) => x.move === text);
  if (!m) return;
  state.history.push({ req: { ...state.req }, play: state.play ? { ...state.play } : null, played: state.played.length });
  state.ply += 1;
  state.played.push(m.move);
  state.req = after(m);
  state.board = m.ends_game ? boardAfterEnd(state.board, m.move) : null;
  state.selected = null;
  syncInputs();
  if (state.play) {
    if (m.ends_game) return finish(true, m);
    if (leavesNoMove(m)) return finishNoMove(true, m);
    state.play.human = false;
    await solveCurrent();
    await engineTurn();
  } else {
    await solveCurrent();
  }
}

function finish(humanMovedLast, m) {
  // The player who made the winning move `m` wins at once.
  state.play.over = true;
  state.answer = { ...state.answer, moves: [] };
  state.req.position = m.position_after;
  syncInputs();
  render();
  const humanWins = humanMovedLast;
  setStatus(humanWins ? 'You win! (the move wins at once)' : 'The engine wins (its move wins at once).', humanWins ? 'win' : 'lose');
}

// Whether move `m` of the last answer leaves a position with no move: its remoteness is 0
// (a game in play always asks for remoteness). The game is then over, and the page does not
// ask the server about that position to find out.
function leavesNoMove(m) {
  return !m.ends_game && m.remoteness === 0;
}

// The end of a game whose last move `m` left no move: under normal play its player wins,
// under misère play loses. The final position is drawn by its drawer's `afterMove` when it
// has one; otherwise its picture (only the picture: the game is over already) comes from the
// server, as the position's text is never empty.
async function finishNoMove(humanMovedLast, m) {
  const a = state.answer;
  state.play.over = true;
  state.answer = { ...a, position: m.position_after, moves: [], winning_moves: [], best_move: null };
  state.req.position = m.position_after;
  syncInputs();
  render();
  const moverWins = a.convention !== 'misere';
  const humanWins = moverWins === humanMovedLast;
  setStatus(humanWins ? 'You win! No move is left.' : 'The engine wins: no move is left.', humanWins ? 'win' : 'lose');
  if (state.board || !m.position_after.trim()) return;
  const wanted = { ...request(), remoteness: false, timeout: undefined };
  try {
    const final = await api('/api/solve', wanted);
    // Only if the page still shows that finished game.
    if (state.play && state.play.over && state.req.position === m.position_after && !state.board) {
      state.board = final.board || null;
      render();
    }
  } catch (e) {
    // The text of the position is shown instead.
  }
}

function checkOver() {
  const a = state.answer;
  if (!state.play || !a || a.moves.length > 0) return false;
  // Nobody can move: the player to move loses under normal play, wins under misère.
  const moverWins = a.convention === 'misere';
  const humanWins = moverWins === state.play.human;
  state.play.over = true;
  render();
  setStatus(humanWins ? 'You win! No move is left.' : 'The engine wins: no move is left.', humanWins ? 'win' : 'lose');
  return true;
}

function promptHuman() {
  const a = state.answer;
  if (!a) return;
  const r = a.remoteness !== null ? ` (remoteness ${a.remoteness})` : '';
  if (a.outcome === 'first') setStatus(`Your move: you can win${r}. Green moves win.`, 'win');
  else setStatus(`Your move: perfect play beats you${r}. Hold out!`, 'lose');
}

async function engineTurn() {
  if (!state.answer || checkOver()) return;
  setStatus('The engine is thinking…');
  state.busy = true;
  render();
  await new Promise((r) => setTimeout(r, 250));
  state.busy = false;
  const a = state.answer;
  const m = a.moves.find((x) => x.move === a.best_move);
  if (!m) return;
  state.ply += 1;
  state.played.push(m.move);
  state.req = after(m);
  state.board = m.ends_game ? boardAfterEnd(state.board, m.move) : null;
  syncInputs();
  if (m.ends_game) return finish(false, m);
  if (leavesNoMove(m)) return finishNoMove(false, m);
  state.play.human = true;
  await solveCurrent();
  if (!checkOver()) {
    promptHuman();
    setStatus(`Engine played ${m.move}. ${$('status').textContent}`, $('status').className.replace('status', '').trim());
  }
}

async function startGame(humanFirst) {
  $('edit').checked = false;
  state.play = { human: humanFirst, over: false };
  state.history = [];
  state.played = [];
  state.selected = null;
  await solveCurrent();
  if (!state.answer) { state.play = null; return; }
  if (humanFirst) {
    if (!checkOver()) promptHuman();
  } else {
    state.play.human = false;
    await engineTurn();
  }
}

async function undo() {
  if (state.busy) return;
  // Back to the last position where the person was to move (or one step when exploring).
  let h = state.history.pop();
  while (h && state.play && h.play && !h.play.human && state.history.length) h = state.history.pop();
  if (!h) return;
  state.req = h.req;
  state.played.length = Math.min(state.played.length, h.played || 0);
  state.play = h.play ? { ...h.play, over: false, human: true } : null;
  state.board = null;
  state.selected = null;
  syncInputs();
  await solveCurrent();
  if (state.play) promptHuman();
  else setStatus('');
}

// ---------------------------------------------------------------- your own game
// A game file (a TOML spec or a Lua script, docs/game-files.md) pasted, opened or started
// from an example: once used, every request carries its text in `game` instead of `family`
// (state.req.game), and the page solves, draws and plays its positions as for a built-in
// family, from the answers' `board`. Choosing a family in the menu leaves it.

// The server's limit for a game file (grundy_games::gamefile::MAX_FILE_LEN): 1 MiB.
const MAX_GAME_FILE = 1048576;
// The menu's entry for the game of the editor.
const GAME_OPTION = '(your own game)';

// Files to start from, each with a position of its game.
const GAME_EXAMPLES = [
  {
    name: 'Kayles (take-and-break)',
    position: '5 9 12',
    text: `# Kayles: a row of pins; a move knocks down one pin or two adjacent pins, which may
# split the row in two. Positions are rows of pins: "5 9 12".
kind = "take-and-break"
name = "kayles"
# Remove 1 or 2 tokens from a heap, leaving 0, 1 or 2 heaps (the same as code = "0.77").
rules = [
  { remove = [1, 2], leave = [0, 1, 2] },
]
`,
  },
  {
    name: 'Subtraction game {1, 3, 4}',
    position: '9 14',
    text: `# Take 1, 3 or 4 tokens from one heap; who cannot move loses. Positions are heap
# sizes: "9 14".
kind = "subtraction"
name = "take-1-3-4"
set = [1, 3, 4]
# all-but = true: any number but these; split = true: the rest may be left as two heaps
`,
  },
  {
    name: 'Node Kayles on the Petersen graph (graph)',
    position: '1111111111',
    text: `# Node Kayles: a move takes a point of the graph together with its neighbours.
# Positions are one 0/1 a point (1: still on the board): "1111111111" is the whole graph.
kind = "graph"
name = "node-kayles-petersen"
rule = "node-kayles"      # or one-or-two, take-vertex, arc-kayles
board = "petersen"        # or path:N, cycle:N, grid:RxC, ...; or edges = [[1, 2], [2, 3]]
`,
  },
  {
    name: "Grundy's game (a Lua script)",
    position: '10',
    text: `-- Grundy's game: a move splits one heap into two heaps of different, non-zero sizes.
-- Positions are heap sizes: "7 10".
name = "grundys-game"
position = "integer"

-- The options of one heap of n: emit(a, b) for each pair of heaps a move may leave.
function options(n, emit)
  for a = 1, (n - 1) // 2 do
    emit(a, n - a)
  end
end
`,
  },
];

// Shows whether the page plays the editor's game, and which.
function showGameMode(on, name) {
  $('game-panel').classList.toggle('active', on);
  if (on) $('game-panel').open = true;
  $('leave-game').hidden = !on;
  $('game-state').textContent = on ? `Playing your game${name ? `: ${name}` : ''}. Pick a family in the menu to leave it.` : '';
  document.body.dataset.game = on ? 'on' : '';
  if (on) {
    $('family').value = GAME_OPTION;
    $('family-code').value = '';
    $('family-about').textContent = 'Your own game, from the file in the editor below.';
  }
}

// Line numbers beside the editor's text, line `bad` marked.
function gameLines(bad) {
  const text = $('game-text').value;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  const gutter = $('game-lines');
  // Rebuilt only when the count of lines or the marked line changes (a file may have
  // thousands of lines, and this runs on every key).
  const key = `${n}:${bad || 0}`;
  if (gutter.dataset.key !== key) {
    const lines = [];
    for (let i = 1; i <= n; i++) lines.push(i === bad ? `<span class="bad">${i}</span>` : String(i));
    gutter.innerHTML = lines.join('\n');
    gutter.dataset.key = key;
  }
  gutter.scrollTop = $('game-text').scrollTop;
}

function gameError(msg) {
  const e = $('game-error');
  if (msg) $('game-panel').open = true;
  e.hidden = !msg;
  e.textContent = msg || '';
}

// The line and column of an error in the game file (`<request>:LINE:COLUMN: message`), or null.
function fileErrorAt(msg) {
  const m = /^<request>:(\d+):(\d+): /.exec(msg || '');
  return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
}

// Shows an error of the game in use by the editor, marking its line when it names one;
// `jump` selects that line in the text.
function markGameError(msg, jump) {
  const at = fileErrorAt(msg);
  if (!at) {
    if (!msg) {
      gameLines(0);
      gameError('');
    }
    return;
  }
  gameError(`Line ${at.line}, column ${at.column}: ${msg.replace(/^<request>:\d+:\d+: /, '')}`);
  gameLines(at.line);
  if (!jump) return;
  const area = $('game-text');
  const text = area.value;
  let start = 0;
  for (let l = 1; l < at.line && start >= 0; l++) start = text.indexOf('\n', start) + 1;
  if (start < 0 || start > text.length) return;
  const end = text.indexOf('\n', start);
  area.focus();
  area.setSelectionRange(start, end < 0 ? text.length : end);
  const lh = parseFloat(getComputedStyle(area).lineHeight) || 19;
  area.scrollTop = Math.max(0, (at.line - 3) * lh);
  gameLines(at.line);
}

// Plays the game of the editor's file: checks its size, then solves a first position (the
// example's, the position in the box, then the kinds' `start`s) until one reads.
async function useGame() {
  const text = $('game-text').value;
  gameError('');
  gameLines(0);
  if (!text.trim()) {
    gameError('Paste a game file, open one or start from an example first.');
    return;
  }
  const size = new TextEncoder().encode(text).length;
  if (size > MAX_GAME_FILE) {
    gameError(`The file has ${size} bytes: the server reads game files of at most 1 MiB (${MAX_GAME_FILE} bytes).`);
    return;
  }
  const example = GAME_EXAMPLES.find((e) => e.text === text);
  const typed = $('position').value.trim();
  const tries = [...new Set([example && example.position, typed, ...kindStarts()].filter(Boolean))];
  state.req = { family: '', game: text, position: tries[0] };
  state.history = [];
  state.played = [];
  state.play = null;
  state.selected = null;
  state.board = null;
  setStatus('');
  $('table').innerHTML = '';
  $('table-what').textContent = '';
  showGameMode(true);
  const current = () => state.req.game === text;
  const a = await firstPosition(tries, current);
  if (!current()) return;
  if (a) {
    // The file's name (`name = "..."`) if it has one, and the game it is solved as.
    const named = /^name\s*=\s*["']([\w-]+)["']/m.exec(text);
    showGameMode(true, named && named[1] !== a.family ? `${named[1]} (solved as ${a.family})` : a.family);
    return;
  }
  const msg = $('error').textContent;
  if (fileErrorAt(msg)) {
    markGameError(msg, true);
    $('game-state').textContent = 'The file has an error: correct it and press “Use this game” again.';
  } else if (state.status === 404) {
    gameError(`The server cannot play this file: ${msg}`);
    $('game-state').textContent = '';
  } else {
    state.req.position = '';
    syncInputs();
    render();
    showError(msg);
    const tried = tries.map((p) => `"${p}"`).join(', ');
    gameError(`No first position found (tried ${tried}): ${msg} — type a position of your game in the Position box and press Solve.`);
  }
}

// Reads an opened file into the editor (at most MAX_GAME_FILE bytes).
function openGameFile() {
  const input = $('game-file');
  const file = input.files && input.files[0];
  if (!file) return;
  gameError('');
  if (file.size > MAX_GAME_FILE) {
    gameError(`${file.name} has ${file.size} bytes: the server reads game files of at most 1 MiB (${MAX_GAME_FILE} bytes).`);
    input.value = '';
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    $('game-text').value = String(reader.result);
    $('game-example').value = '';
    gameLines(0);
    $('game-state').textContent = state.req.game ? 'Opened: press “Use this game” to play it.' : '';
    input.value = '';
  };
  reader.onerror = () => gameError(`Cannot read ${file.name}: ${reader.error}`);
  reader.readAsText(file);
}

function initGameEditor() {
  const sel = $('game-example');
  GAME_EXAMPLES.forEach((e, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = e.name;
    sel.appendChild(o);
  });
  sel.addEventListener('change', () => {
    const e = GAME_EXAMPLES[Number(sel.value)];
    if (!sel.value || !e) return;
    $('game-text').value = e.text;
    gameError('');
    gameLines(0);
  });
  $('game-file').addEventListener('change', openGameFile);
  const area = $('game-text');
  area.addEventListener('input', () => {
    gameLines(0);
    if (sel.value && GAME_EXAMPLES[Number(sel.value)].text !== area.value) sel.value = '';
    if (state.req && state.req.game && area.value !== state.req.game) {
      $('game-state').textContent = 'Edited: press “Use this game” to play the new text.';
    }
  });
  area.addEventListener('scroll', () => { $('game-lines').scrollTop = area.scrollTop; });
  $('use-game').addEventListener('click', useGame);
  $('leave-game').addEventListener('click', () => {
    const first = [...$('family').options].find((o) => o.value !== GAME_OPTION);
    const back = state.lastFamily || (first && first.value) || 'nim';
    $('family').value = back;
    chooseFamily(back);
  });
  gameLines(0);
}

// ---------------------------------------------------------------- tables
function colour(v) {
  if (v === null || v === undefined) return '#ddd';
  if (v === 0) return '#263042';
  return `hsl(${(v * 47) % 360}, 65%, ${60 + (v % 3) * 8}%)`;
}

async function showTable() {
  const game = state.req.game;
  const size = Number($('table-size').value) || 20;
  const box = $('table');
  box.innerHTML = '';
  try {
    const t = await api('/api/table', game ? { game, size } : { family: state.req.family, size });
    // A game file's table is named by its game (`sub:1,3,4`, ...).
    const family = game ? t.family : state.req.family;
    $('table-what').textContent = t.kind === 'grid' ? `— ${family}: rows = ${t.rows}, columns = ${t.cols}` : `— ${family}: Grundy value by ${t.cols}`;
    if (t.kind === 'grid') {
      const table = document.createElement('table');
      table.className = 'grundy';
      const head = table.insertRow();
      head.appendChild(document.createElement('th'));
      t.values[0].forEach((_, j) => { const th = document.createElement('th'); th.textContent = String(j + t.first); head.appendChild(th); });
      t.values.forEach((row, i) => {
        const tr = table.insertRow();
        const th = document.createElement('th');
        th.textContent = String(i + t.first);
        tr.appendChild(th);
        row.forEach((v) => {
          const td = tr.insertCell();
          td.textContent = v === null ? '·' : String(v);
          td.style.background = colour(v);
          td.style.color = v === 0 ? '#fff' : '#000';
        });
      });
      box.appendChild(table);
    } else {
      const vals = t.values[0];
      const max = Math.max(1, ...vals.map((v) => v ?? 0));
      const W = Math.max(300, vals.length * 18 + 40), H = 200;
      const svg = svgRoot(W, H + 30);
      svgEl('line', { x1: 30, y1: H, x2: W, y2: H, class: 'edge' }, svg);
      vals.forEach((v, n) => {
        const x = 36 + n * 18;
        if (v !== null) {
          const y = H - (v / max) * (H - 20);
          svgEl('circle', { cx: x, cy: y, r: 5, fill: colour(v), stroke: '#333' }, svg);
          svgEl('text', { x: x - 4, y: y - 8 }, svg).textContent = String(v);
        }
        if (n % 5 === 0) svgEl('text', { x: x - 4, y: H + 16 }, svg).textContent = String(n + t.first);
      });
      box.appendChild(svg);
    }
  } catch (e) {
    box.textContent = e.message;
  }
}

// ---------------------------------------------------------------- start
async function init() {
  const f = await api('/api/families');
  state.families = f.families;
  const sel = $('family');
  for (const fam of f.families) {
    const o = document.createElement('option');
    o.value = fam.name;
    o.textContent = fam.name;
    sel.appendChild(o);
  }
  // The last entry plays the game of the editor below ("Your own game").
  const mine = document.createElement('option');
  mine.value = GAME_OPTION;
  mine.textContent = 'your own game (from a file)…';
  sel.appendChild(mine);
  sel.addEventListener('change', () => {
    $('family-code').value = '';
    if (sel.value === GAME_OPTION) useGame();
    else chooseFamily(sel.value);
  });
  // A family typed by name or code (heap games have endless codes): the menu gets it too.
  $('family-code').addEventListener('change', () => {
    const name = $('family-code').value.trim();
    if (!name) return;
    if (![...sel.options].some((o) => o.value === name)) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name;
      sel.appendChild(o);
    }
    sel.value = name;
    chooseFamily(name);
  });
  $('apply').addEventListener('click', () => { state.play = null; state.history = []; setStatus(''); setPosition($('position').value.trim()); });
  $('misere').addEventListener('change', () => solveCurrent());
  $('remote').addEventListener('change', () => solveCurrent());
  $('board').addEventListener('change', async () => {
    state.req.board = $('board').value;
    if (state.req.family === 'points') {
      // Every point of the new board holds a piece to start with.
      try {
        const g = await api('/api/solve', { family: 'graph', board: state.req.board, position: '' });
        state.req.position = '1'.repeat(g.board.points);
        state.board = null;
      } catch (e) { showError(e.message); return; }
    }
    solveCurrent();
  });
  $('edit').addEventListener('change', () => render());
  $('rule').addEventListener('change', () => { state.req.rule = $('rule').value; solveCurrent(); });
  $('play-me').addEventListener('click', () => startGame(true));
  $('play-engine').addEventListener('click', () => startGame(false));
  $('undo').addEventListener('click', undo);
  $('explore').addEventListener('click', () => { state.play = null; setStatus(''); render(); });
  $('show-table').addEventListener('click', showTable);
  initGameEditor();
  chooseFamily(sel.value || 'nim');
}

init().catch((e) => showError(e.message));
