#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm run build` (run by `npm start`) produces it.
import('../dist/src/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('baton: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
  throw error;
});
