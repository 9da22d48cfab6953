/**
 * Builds the operator console (console/src) into dist/console: one minified, content-hashed
 * script and stylesheet bundled with esbuild (preact included, nothing fetched at run time),
 * and an index.html naming them. Run by `npm run build` and before the tests.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { asset } from '../src/support/paths.js';

const outdir = asset('dist/console');

async function main(): Promise<void> {
  const started = performance.now();
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: [asset('console/src/main.tsx')],
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error(`console build produced ${outputs.join(', ')}`);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Baton console</title>
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body><div id="app"></div></body>
</html>
`;
  await writeFile(path.join(outdir, 'index.html'), html);
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  console.log(`console built in ${Math.round(performance.now() - started)} ms: ${script}, ${style} (${(bytes / 1024).toFixed(1)} KiB)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
