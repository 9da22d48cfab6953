import t from 'tap';
import { pino } from 'pino';
import type { KitLogger } from '../../src/actors/kit/index.js';

t.test('a pino logger can be passed wherever the kit wants a logger', async (t) => {
  const lines: string[] = [];
  const logger: KitLogger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });

  logger.warn({ actor: 'sys://root/usage' }, 'usage batch write failed');

  t.match(JSON.parse(lines[0] ?? '{}'), { level: 40, actor: 'sys://root/usage', msg: 'usage batch write failed' });
});
