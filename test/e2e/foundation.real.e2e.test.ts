/**
 * The foundation suite (test/e2e/suites/foundation.ts) against two workers sharing one port on
 * the real Postgres and Redis; skipped without DATABASE_URL and REDIS_URL.
 */
import t from 'tap';
import { realServersAvailable, startServer } from '../helpers/server.js';
import { foundationSuite } from './suites/foundation.js';

if (!realServersAvailable()) t.pass('skipped: needs DATABASE_URL and REDIS_URL');
else foundationSuite(t, await startServer(t, { mode: 'real', workers: 2 }));
