/** Progress lines appear on a terminal only, never in CI or when stderr is piped. */
import t from 'tap';
import { Progress, progressWanted } from '../../bench/progress.js';

t.test('progress is wanted on a terminal, not when piped or under CI', async (t) => {
  t.equal(progressWanted({ isTTY: true }, {}), true);
  t.equal(progressWanted({ isTTY: true }, { CI: 'false' }), true);
  t.equal(progressWanted({ isTTY: false }, {}), false);
  t.equal(progressWanted({}, {}), false);
  t.equal(progressWanted({ isTTY: true }, { CI: 'true' }), false);
  t.equal(progressWanted({ isTTY: true }, { CI: '1' }), false);
});

function captureStderr(run: () => void): string {
  const original = process.stderr.write.bind(process.stderr);
  let out = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    run();
  } finally {
    process.stderr.write = original;
  }
  return out;
}

t.test('a quiet progress writes nothing for steps and counts, but still prints notes', async (t) => {
  const out = captureStderr(() => {
    const p = new Progress(3, 0, false);
    p.step('first');
    p.count(2, 'items');
    p.note('a skipped scenario');
    p.end();
  });
  t.equal(out, 'a skipped scenario\n');
});

t.test('a live progress redraws one line with the step count and label', async (t) => {
  const out = captureStderr(() => {
    const p = new Progress(3, 0, true);
    p.step('first');
    p.step('second');
    p.end();
  });
  t.match(out, /\r\x1b\[K\[1\/3\] first 0\.\ds/);
  t.match(out, /\r\x1b\[K\[2\/3\] second 0\.\ds/);
  t.ok(out.endsWith('\r\x1b[K'), 'the line is cleared at the end');
});
