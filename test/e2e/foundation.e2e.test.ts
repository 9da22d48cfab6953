/**
 * End to end over real sockets against a spawned server in embedded mode: health, accounts,
 * keys, auth, permissions, expiry, allowlists, revocation, activity (test/e2e/suites/foundation.ts).
 */
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { foundationSuite } from './suites/foundation.js';

foundationSuite(t, await startServer(t, { mode: 'embedded' }));
