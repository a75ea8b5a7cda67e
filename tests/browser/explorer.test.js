// Browser tests of the grundy explorer: Debian's chromium driven by playwright-core plays
// real games to the end by clicks, checks the API's errors from the page, and saves a
// screenshot to docs/screenshot.png.
//
// Run: cargo build --bin grundy && (cd tests/browser && npm ci && npm test)
// GRUNDY_BIN names the binary (default: $CARGO_TARGET_DIR or ../../target, debug build);
// CHROMIUM the browser (default /usr/bin/chromium).
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const path = require('node:path');
const { chromium } = require('playwright-core');

const root = path.resolve(__dirname, '..', '..');
const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
const bin = process.env.GRUNDY_BIN || path.join(targetDir, 'debug', 'grundy');
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';

let server;
let base;
let browser;

// Starts `grundy serve` on a free loopback port and reads the address it prints.
function startServer(extra = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['--no-db', 'serve', '--addr', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`grundy serve did not start: ${err}`)), 20000);
    p.stderr.on('data', (d) => {
      err += d;
      const m = /http:\/\/([0-9.]+:\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc: p, base: `http://${m[1]}` });
      }
    });
    p.on('exit', (code) => reject(new Error(`grundy serve exited with ${code}: ${err}`)));
    p.on('error', reject);
  });
}

before(async () => {
  const s = await startServer();
  server = s.proc;
  base = s.base;
  browser = await chromium.launch({
    executablePath: browserPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
});

async function openPage(at = base) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(at + '/');
  await page.waitForSelector('#moves .move');
  return { page, errors };
}

// Waits until it is the person's turn or the game is over (the page says whose turn it is in
// data-turn on its body); returns the status line.
async function waitTurn(page) {
  await page.waitForFunction(() => ['human', 'over'].includes(document.body.dataset.turn), null, { timeout: 20000 });
  return page.textContent('#status');
}

// Clicks `target` (a selector or an element) and waits for the move to be made.
async function clickMove(page, target) {
  const ply = await page.evaluate(() => document.body.dataset.ply);
  if (typeof target === 'string') await page.click(target);
  else await target.click();
  await page.waitForFunction((p) => document.body.dataset.ply !== p, ply);
}

async function chooseFamily(page, name) {
  await page.selectOption('#family', name);
  // The page has analysed the family's example (data-family and data-analysed on its body).
  await page.waitForFunction((n) => document.body.dataset.family === n &&
    document.body.dataset.analysed === document.getElementById('position').value, name);
}

// Plays the game by clicking the board: a winning move when there is one, else any move.
// Returns the final status line.
async function playToEnd(page, maxTurns) {
  for (let turn = 0; turn < maxTurns; turn++) {
    const status = await waitTurn(page);
    if (/You win|The engine wins/.test(status)) return status;
    const wins = await page.$$eval('#moves .move.win', (bs) => bs.map((b) => b.dataset.move));
    let target = null;
    for (const w of wins) {
      target = await page.$(`#drawing [data-move="${w}"]`);
      if (target) break;
    }
    if (!target) target = await page.$('#drawing [data-move]');
    assert.ok(target, `no clickable move on the board (status: ${status})`);
    await clickMove(page, target);
  }
  throw new Error('the game did not end');
}

test('nim: set up by clicks, then win against perfect play by clicking tokens', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'nim');
  assert.strictEqual(await page.inputValue('#position'), '3 5 7');
  // Set up 3 5 6 by clicking: one token off heap 3.
  await page.click('[data-testid="heap-minus-3"]');
  await page.waitForFunction(() => document.body.dataset.analysed === '3 5 6');
  assert.strictEqual(await page.textContent('#grundy'), '0');
  assert.match(await page.textContent('#outcome'), /second/);
  await page.click('[data-testid="heap-plus-1"]');
  await page.waitForFunction(() => document.body.dataset.analysed === '4 5 6');
  assert.strictEqual(await page.textContent('#grundy'), '7');
  // Every move is coloured by its result: 4 5 6 has exactly the winning moves to 3 5 6, 4 2 6, 4 5 1.
  const wins = await page.$$eval('#moves .move.win', (bs) => bs.map((b) => b.dataset.move));
  assert.deepStrictEqual(wins.sort(), ['1:4->3', '2:5->2', '3:6->1']);
  // The game ends on the move that leaves no token (its remoteness is 0): the page never
  // asks the server about an empty position.
  const positions = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/solve')) positions.push(JSON.parse(r.postData()).position);
  });
  await page.click('[data-testid="play-me"]');
  const status = await playToEnd(page, 40);
  assert.match(status, /You win! No move is left/);
  assert.strictEqual(await page.inputValue('#position'), '0');
  assert.ok(positions.length > 0 && positions.every((p) => p.trim() !== ''), JSON.stringify(positions));
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('crosses: the engine starts and wins against a person who plays on', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'crosses');
  await page.fill('#position', '.........');
  await page.click('#apply');
  await page.waitForFunction(() => document.getElementById('moves').children.length === 9);
  await page.click('[data-testid="play-engine"]');
  const status = await playToEnd(page, 20);
  assert.match(status, /The engine wins/);
  assert.match(await page.inputValue('#position'), /XXX/);
  // The server does not read the final strip; the page draws it from the winning move.
  const xs = await page.$$eval('#drawing text', (ts) => ts.filter((t) => t.textContent === 'X').length);
  assert.strictEqual(xs, [...await page.inputValue('#position')].filter((c) => c === 'X').length);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('undo takes back the person\'s move and the engine\'s reply', async () => {
  const { page } = await openPage();
  await chooseFamily(page, 'nim');
  await page.click('[data-testid="play-me"]');
  await waitTurn(page);
  await clickMove(page, '#drawing [data-move="3:7->6"]');
  const status = await waitTurn(page);
  assert.match(status, /^Engine played/);
  assert.notStrictEqual(await page.inputValue('#position'), '3 5 6');
  await page.click('[data-testid="undo"]');
  await page.waitForFunction(() => document.getElementById('position').value === '3 5 7');
  assert.match(await waitTurn(page), /^Your move/);
  await page.close();
});

test('points on the maoershan board: take pieces by clicking vertices until the game ends', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'points');
  await page.waitForSelector('#drawing [data-point="12"]');
  await page.fill('#position', '110100000011');
  await page.click('#apply');
  await page.waitForFunction(() => document.getElementById('position').value === '110100000011');
  await page.click('[data-testid="play-me"]');
  for (let turn = 0; turn < 20; turn++) {
    const status = await waitTurn(page);
    if (/You win|The engine wins/.test(status)) break;
    const best = await page.$eval('#moves .move', (b) => b.dataset.move);
    const [p, q] = best.split('-');
    const ply = await page.evaluate(() => document.body.dataset.ply);
    await page.click(`#drawing [data-point="${p}"]`);
    if (q) await page.click(`#drawing [data-point="${q}"]`);
    else if (await page.$(`#drawing circle.sel[data-point="${p}"]`)) await page.click(`#drawing [data-point="${p}"]`);
    await page.waitForFunction((x) => document.body.dataset.ply !== x, ply);
  }
  assert.match(await page.textContent('#status'), /You win|The engine wins/);
  assert.match(await page.inputValue('#position'), /^0+$/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('cutting: cut sheets by clicking grid lines until someone cuts off a 1x1', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'cutting');
  await page.fill('#position', '5x3');
  await page.click('#apply');
  await page.waitForFunction(() => document.getElementById('position').value === '5x3');
  await page.click('[data-testid="play-me"]');
  const status = await playToEnd(page, 30);
  // 5x3 is a first-player win, and playToEnd clicks winning cuts when there are some.
  assert.match(status, /You win/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('bombs: set up a board by clicking cells, then play by selecting bombs', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'bombs');
  // Clear the example board, then place two bombs by clicking.
  for (const cell of await page.$$eval('#drawing rect.cell.on', (rs) => rs.map((r) => r.dataset.cell))) {
    const before = await page.inputValue('#position');
    await page.click(`#drawing rect[data-cell="${cell}"]`);
    await page.waitForFunction((b) => document.getElementById('position').value !== b, before);
  }
  for (const cell of ['0,2', '1,1']) {
    const before = await page.inputValue('#position');
    await page.click(`#drawing rect[data-cell="${cell}"]`);
    await page.waitForFunction((b) => document.getElementById('position').value !== b, before);
  }
  await page.waitForFunction(() => document.body.dataset.analysed === '..#/.#./...');
  assert.strictEqual(await page.textContent('#grundy'), '3');
  await page.click('[data-testid="play-me"]');
  for (let turn = 0; turn < 30; turn++) {
    const status = await waitTurn(page);
    if (/You win|The engine wins/.test(status)) break;
    // Select a bomb on the board, then play one of its moves (a winning one if any).
    const bomb = await page.$eval('#drawing rect.cell.on', (r) => r.dataset.cell);
    await page.click(`#drawing rect[data-cell="${bomb}"]`);
    await page.waitForSelector('#drawing rect.cell.sel');
    const moves = await page.$$eval('#moves .move', (bs) => bs.map((b) => [b.dataset.move, b.classList.contains('win')]));
    assert.ok(moves.length > 0 && moves.every(([m]) => m.startsWith(`${bomb}->`)), JSON.stringify(moves));
    const pick = (moves.find(([, w]) => w) || moves[0])[0];
    await clickMove(page, `#moves .move[data-move="${pick}"]`);
  }
  assert.match(await page.textContent('#status'), /You win/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

// Clicks `selector` in set-up mode and waits until the page has analysed the new position;
// returns the position text.
async function editClick(page, selector) {
  const before = await page.inputValue('#position');
  await page.click(selector);
  await page.waitForFunction((b) => {
    const now = document.getElementById('position').value;
    return now !== b && document.body.dataset.analysed === now;
  }, before);
  return page.inputValue('#position');
}

test('darkraft: set up a board by clicking cells, see what a shot destroys, then win', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'darkraft');
  assert.strictEqual(await page.inputValue('#position'), 'XLRL/RXLR/LRXL');
  assert.strictEqual(await page.$$eval('#drawing rect.cell', (rs) => rs.length), 12);
  assert.strictEqual(await editClick(page, '[data-testid="rows-minus"]'), 'XLRL/RXLR');
  assert.strictEqual(await editClick(page, '[data-testid="columns-minus"]'), 'XLR/RXL');
  // A click turns a cell L -> R -> X -> . (destroyed) -> L.
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="2,2"]'), 'XLR/R.L');
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="1,1"]'), '.LR/R.L');
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="1,1"]'), 'LLR/R.L');
  assert.strictEqual(await page.textContent('#grundy'), '3');
  assert.match(await page.textContent('#outcome'), /first/);
  assert.ok(await page.$('#drawing rect.dead[data-cell="2,2"]'));
  // Exploring: every intact cell is a move, coloured by its result; 2,1 alone wins.
  await page.uncheck('#edit');
  await page.waitForSelector('#drawing rect[data-move]');
  const cells = await page.$$eval('#drawing rect[data-move]', (rs) => rs.map((r) => [r.dataset.move, r.classList.contains('win') ? 'win' : r.classList.contains('lose') ? 'lose' : '']));
  assert.deepStrictEqual(cells.sort(), [['1,1', 'lose'], ['1,2', 'lose'], ['1,3', 'lose'], ['2,1', 'win'], ['2,3', 'lose']]);
  // Hovering a cell marks what its lasers destroy: the cells the move turns to '.'.
  await page.hover('#drawing rect[data-move="1,2"]');
  const hit = await page.$$eval('#drawing rect.hit', (rs) => rs.map((r) => r.dataset.cell).sort());
  const after = await page.evaluate(async () => {
    const res = await fetch('/api/solve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ family: 'darkraft', position: 'LLR/R.L' }) });
    return (await res.json()).moves.find((m) => m.move === '1,2').position_after;
  });
  const destroyed = [];
  after.split('/').forEach((row, r) => [...row].forEach((ch, c) => { if (ch === '.' && 'LLR/R.L'.split('/')[r][c] !== '.') destroyed.push(`${r + 1},${c + 1}`); }));
  assert.deepStrictEqual(hit, destroyed.sort());
  assert.deepStrictEqual(hit, ['1,2', '2,1']);
  await page.click('[data-testid="play-me"]');
  const status = await playToEnd(page, 10);
  assert.match(status, /You win/);
  assert.match(await page.inputValue('#position'), /^[.\/]+$/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('cram: set up holes by clicking, the engine starts, place dominoes by clicks and win', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'cram');
  assert.strictEqual(await page.inputValue('#position'), '3x4');
  assert.strictEqual(await editClick(page, '[data-testid="rows-plus"]'), '4x4');
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="1,1"]'), '#.../..../..../....');
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="4,4"]'), '#.../..../..../...#');
  // Symmetric under the half turn, no domino on its own image: the second player wins.
  assert.strictEqual(await page.textContent('#grundy'), '0');
  assert.match(await page.textContent('#outcome'), /second/);
  assert.ok(await page.$('#drawing rect.on[data-cell="1,1"]'));
  await page.click('[data-testid="play-engine"]');
  assert.match(await waitTurn(page), /^Engine played/);
  // First move by two clicks: a square, then the square next to it.
  const win = await page.$eval('#moves .move.win', (b) => b.dataset.move);
  const [a, b] = win.split('-');
  await page.click(`#drawing rect[data-cell="${a}"]`);
  await page.waitForSelector(`#drawing rect.sel[data-cell="${a}"]`);
  const listed = await page.$$eval('#moves .move', (bs) => bs.map((x) => x.dataset.move));
  assert.ok(listed.length > 0 && listed.every((m) => m.split('-').includes(a)), JSON.stringify(listed));
  assert.ok(await page.$(`#drawing rect.cell.win[data-cell="${b}"][data-move="${win}"]`));
  await clickMove(page, `#drawing rect.cell[data-cell="${b}"]`);
  // Dominoes played (the engine's and the person's) are drawn as dominoes; holes are not.
  await waitTurn(page);
  const played = await page.$$eval('#drawing rect.domino', (rs) => rs.map((r) => r.dataset.played));
  assert.ok(played.length >= 2 && played.includes(win), JSON.stringify(played));
  assert.ok(played.every((m) => !m.split('-').includes('1,1') && !m.split('-').includes('4,4')), JSON.stringify(played));
  // Then by clicking the joints between two empty squares.
  const status = await playToEnd(page, 20);
  assert.match(status, /You win/);
  assert.match(await page.inputValue('#position'), /^[.#\/]+$/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('chomp: shape the bar by clicking squares, see what a bite takes, then win', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'chomp');
  assert.strictEqual(await page.inputValue('#position'), '4x5');
  // A click on a square takes it with everything above and right of it...
  assert.strictEqual(await editClick(page, '#drawing rect[data-cell="2,3"]'), '4 4 1 1 1');
  assert.strictEqual(await editClick(page, '[data-testid="rows-minus"]'), '3x2');
  // ... and a click on an empty place adds it with everything below and left of it.
  assert.strictEqual(await editClick(page, '#drawing rect.ghost[data-cell="1,3"]'), '3 3 1');
  assert.strictEqual(await page.textContent('#grundy'), '3');
  assert.match(await page.textContent('#outcome'), /first/);
  await page.uncheck('#edit');
  await page.waitForSelector('#drawing rect[data-move]');
  // Every square but the poisoned one is a move; 3,1 and 2,2 win.
  assert.ok(await page.$('#drawing rect.poison[data-cell="1,1"]:not([data-move])'));
  const wins = await page.$$eval('#drawing rect.win', (rs) => rs.map((r) => r.dataset.move).sort());
  assert.deepStrictEqual(wins, ['2,2', '3,1']);
  assert.strictEqual(await page.$$eval('#drawing rect[data-move]', (rs) => rs.length), 6);
  await page.hover('#drawing rect[data-move="2,2"]');
  assert.deepStrictEqual(await page.$$eval('#drawing rect.hit', (rs) => rs.map((r) => r.dataset.cell).sort()), ['2,2', '3,2']);
  await page.click('[data-testid="play-me"]');
  const status = await playToEnd(page, 10);
  assert.match(status, /You win/);
  assert.strictEqual(await page.inputValue('#position'), '1');
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('a heap game typed by a code the page has no preset for: drawn as heaps, played by tokens', async () => {
  const { page, errors } = await openPage();
  // Neither in the menu nor known to the page's code: the answer's board says it is heaps.
  const code = 'sub-all-but:2,5';
  assert.ok(!(await page.$$eval('#family option', (os) => os.map((o) => o.value))).includes(code));
  await page.fill('[data-testid="family-code"]', code);
  await page.press('[data-testid="family-code"]', 'Enter');
  await page.waitForFunction((n) => document.body.dataset.family === n &&
    document.body.dataset.analysed === document.getElementById('position').value &&
    document.querySelectorAll('#drawing circle.token').length > 0, code);
  // A heap game without an example starts from heaps 3 5 7, set up by the heap buttons.
  assert.strictEqual(await page.inputValue('#position'), '3 5 7');
  assert.strictEqual(await page.$$eval('#drawing circle.token', (cs) => cs.length), 15);
  assert.strictEqual(await editClick(page, '[data-testid="heap-minus-3"]'), '3 5 6');
  assert.strictEqual(await page.textContent('#grundy'), '0');
  assert.strictEqual(await editClick(page, '[data-testid="heap-plus-3"]'), '3 5 7');
  assert.strictEqual(await page.textContent('#grundy'), '1');
  // Exploring: a token is a move when taking it and those above it is allowed (never 2 or 5).
  await page.uncheck('#edit');
  await page.waitForSelector('#drawing circle.token[data-move]');
  const heap2 = await page.$$eval('#drawing circle.token[data-heap="2"][data-move]', (cs) => cs.map((c) => c.dataset.move).sort());
  assert.deepStrictEqual(heap2, ['2:5->1', '2:5->2', '2:5->4']);
  const listed = await page.$$eval('#moves .move', (bs) => bs.map((b) => b.dataset.move).sort());
  const drawn = await page.$$eval('#drawing circle.token[data-move]', (cs) => cs.map((c) => c.dataset.move).sort());
  assert.deepStrictEqual(drawn, listed);
  await page.click('[data-testid="play-me"]');
  const status = await playToEnd(page, 40);
  assert.match(status, /You win/);
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('a misère sum whose remoteness is out of reach: the page asks for the outcomes alone and says so', async () => {
  // The remoteness search of this sum does not finish, the misère quotient answers its
  // outcomes at once. The server would wait a minute: the page asks for 3 s (the request's
  // `timeout`), so the note comes well before the server's limit (about 4 s on a quiet
  // 2-core machine, the page's earlier requests included). It took 11 s, and over 45 s on a
  // loaded machine, while the server answered a late solve 408: Chromium sent the request
  // again twice (docs/api.md, "Errors"); the answer is 504 now.
  const quick = await startServer(['--timeout', '60']);
  try {
    const { page, errors } = await openPage(quick.base);
    await page.fill('[data-testid="family-code"]', '0.75');
    await page.press('[data-testid="family-code"]', 'Enter');
    await page.waitForFunction(() => document.body.dataset.family === '0.75');
    await page.check('#misere');
    await page.check('#remote');
    await page.fill('#position', '1000 999 3');
    await page.click('#apply');
    await page.waitForSelector('#note:not([hidden])', { timeout: 45000 });
    assert.match(await page.textContent('#note'), /Remoteness is out of reach/);
    await page.waitForFunction(() => document.body.dataset.analysed === '1000 999 3');
    assert.match(await page.textContent('#outcome'), /first/);
    assert.strictEqual(await page.textContent('#remoteness'), '–');
    assert.ok((await page.$$('#moves .move.win')).length > 0);
    assert.ok(await page.$eval('#error', (e) => e.hidden));
    // A small sum keeps its remoteness, and the note goes.
    await page.fill('#position', '3 4');
    await page.click('#apply');
    await page.waitForFunction(() => document.body.dataset.analysed === '3 4');
    assert.ok(await page.$eval('#note', (e) => e.hidden));
    assert.notStrictEqual(await page.textContent('#remoteness'), '–');
    assert.deepStrictEqual(errors, []);
    await page.close();
  } finally {
    quick.proc.kill('SIGTERM');
  }
});

test('your own game: a pasted subtraction spec is solved and played; a broken file shows its line', async () => {
  const { page, errors } = await openPage();
  await chooseFamily(page, 'nim');
  // A subtraction game the menu does not have, pasted into the editor (folded at first).
  assert.strictEqual(await page.isVisible('[data-testid="game-text"]'), false);
  await page.click('#game-panel summary');
  await page.fill('[data-testid="game-text"]', '# take 1, 2 or 5\nkind = "subtraction"\nset = [1, 2, 5]\n');
  const sent = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/solve')) sent.push(JSON.parse(r.postData()));
  });
  await page.click('[data-testid="use-game"]');
  // It starts from the position in the box (nim's 3 5 7 reads as heaps of this game too).
  await page.waitForFunction(() => document.body.dataset.game === 'on' && document.body.dataset.family === 'sub:1,2,5' &&
    document.body.dataset.analysed === '3 5 7');
  assert.strictEqual(await page.inputValue('#family'), '(your own game)');
  assert.match(await page.textContent('[data-testid="game-state"]'), /sub:1,2,5/);
  // G(n) = n mod 3 for {1, 2, 5}: 3 5 7 -> 0 ^ 2 ^ 1 = 3.
  assert.strictEqual(await page.textContent('#grundy'), '3');
  // Every request carries the file, not the family.
  assert.ok(sent.length > 0 && sent.every((b) => b.game && b.game.includes('set = [1, 2, 5]') && !('family' in b)), JSON.stringify(sent));
  // Set up a position by typing it, solve it: heaps of 4 and 6.
  await page.fill('#position', '4 6');
  await page.click('#apply');
  await page.waitForFunction(() => document.body.dataset.analysed === '4 6');
  // Exploring, tokens are the moves: taking 1, 2 or 5 tokens only (never 3 or 4 from the heap of 6).
  await page.uncheck('#edit');
  await page.waitForSelector('#drawing circle.token[data-move]');
  const heap2 = await page.$$eval('#drawing circle.token[data-heap="2"][data-move]', (cs) => cs.map((c) => c.dataset.move).sort());
  assert.deepStrictEqual(heap2, ['2:6->1', '2:6->4', '2:6->5']);
  // Play against perfect play by clicking tokens, to the end.
  await page.click('[data-testid="play-me"]');
  await waitTurn(page);
  const before = await page.evaluate(() => document.body.dataset.ply);
  const win = await page.$eval('#moves .move.win', (b) => b.dataset.move);
  await clickMove(page, `#drawing [data-move="${win}"]`);
  const status = await waitTurn(page);
  assert.match(status, /^Engine played|You win/);
  assert.ok(Number(await page.evaluate(() => document.body.dataset.ply)) >= Number(before) + 1);
  assert.match(await playToEnd(page, 40), /You win/);
  assert.ok(sent.every((b) => b.game && !('family' in b)));
  // The table of the game (its Grundy sequence).
  await page.fill('#table-size', '8');
  await page.click('[data-testid="show-table"]');
  await page.waitForSelector('#table svg');
  assert.match(await page.textContent('#table-what'), /sub:1,2,5/);
  // A file opened from disk is read into the editor; one past the server's limit of 1 MiB
  // is refused in the page.
  await page.setInputFiles('[data-testid="game-file"]', { name: 'big.toml', mimeType: 'text/plain', buffer: Buffer.alloc(1048577, 35) });
  await page.waitForSelector('[data-testid="game-error"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="game-error"]'), /big\.toml has 1048577 bytes: .*at most 1 MiB/);
  const opened = 'kind = "take-and-break"\ncode = "0.07"\n';
  await page.setInputFiles('[data-testid="game-file"]', { name: 'dawson.toml', mimeType: 'text/plain', buffer: Buffer.from(opened) });
  await page.waitForFunction((t) => document.getElementById('game-text').value === t, opened);
  // A broken file: the error names its line, which the editor marks and selects.
  await page.fill('[data-testid="game-text"]', 'kind = "subtraction"\n# the set\nset = [1, 2, 5\n');
  await page.click('[data-testid="use-game"]');
  await page.waitForSelector('[data-testid="game-error"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="game-error"]'), /^Line 3, column \d+: .*unclosed array/);
  assert.strictEqual(await page.$eval('#game-lines .bad', (e) => e.textContent), '3');
  const selected = await page.$eval('#game-text', (t) => t.value.slice(t.selectionStart, t.selectionEnd));
  assert.strictEqual(selected, 'set = [1, 2, 5');
  // An example starts a graph game, played by clicking points.
  await page.selectOption('[data-testid="game-example"]', { label: 'Node Kayles on the Petersen graph (graph)' });
  await page.click('[data-testid="use-game"]');
  await page.waitForFunction(() => document.body.dataset.family === 'points' && document.body.dataset.analysed === '1111111111');
  assert.strictEqual(await page.isHidden('[data-testid="game-error"]'), true);
  assert.strictEqual(await page.$$eval('#drawing circle[data-point]', (cs) => cs.length), 10);
  await page.click('[data-testid="play-me"]');
  await waitTurn(page);
  await clickMove(page, '#drawing [data-point="1"]');
  assert.match(await waitTurn(page), /Engine played|You win|The engine wins/);
  // Back to a built-in family from the menu: the requests name it again.
  await chooseFamily(page, 'nim');
  assert.strictEqual(await page.evaluate(() => document.body.dataset.game), '');
  assert.strictEqual(await page.isHidden('[data-testid="leave-game"]'), true);
  await page.fill('#position', '1 2');
  sent.length = 0;
  await page.click('#apply');
  await page.waitForFunction(() => document.body.dataset.analysed === '1 2');
  assert.ok(sent.length > 0 && sent.every((b) => b.family === 'nim' && !('game' in b)), JSON.stringify(sent));
  assert.deepStrictEqual(errors, []);
  await page.close();
});

test('bad input shows the server\'s message, and the API answers 4xx JSON', async () => {
  const { page } = await openPage();
  await page.fill('#position', '3 x 7');
  await page.click('#apply');
  await page.waitForSelector('#error:not([hidden])');
  assert.match(await page.textContent('#error'), /bad nim position/);
  const r = await page.evaluate(async () => {
    const res = await fetch('/api/solve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"family":' });
    return { status: res.status, body: await res.json() };
  });
  assert.strictEqual(r.status, 400);
  assert.match(r.body.error, /malformed JSON/);
  // A body a page of any site could send without asking first (text/plain) is refused.
  const plain = await page.evaluate(async () => {
    const res = await fetch('/api/solve', { method: 'POST', body: '{"family":"nim","position":"1 2"}' });
    return { status: res.status, body: await res.json() };
  });
  assert.strictEqual(plain.status, 415);
  assert.match(plain.body.error, /application\/json/);
  await page.close();
});

test('cutting table as a coloured grid; screenshot for docs', async () => {
  const { page } = await openPage();
  await chooseFamily(page, 'cutting');
  await page.fill('#table-size', '12');
  await page.click('[data-testid="show-table"]');
  await page.waitForSelector('#table table.grundy');
  // G(2,2) = G(2,3) = 0 (row 2, columns 2 and 3; the first row and column are sheets of side 1).
  const cells = await page.$$eval('#table table.grundy tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.strictEqual(cells[2][2], '0');
  assert.strictEqual(cells[2][3], '0');
  await page.click('[data-testid="play-me"]');
  await waitTurn(page);
  await page.screenshot({ path: path.join(root, 'docs', 'screenshot.png'), fullPage: true });
  await page.close();
});
