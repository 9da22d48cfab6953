/**
 * The operator console (docs/console.md): static files built by `npm run build:console` into
 * dist/console, read once at start and served from memory at /console. They hold no data: the
 * page asks for an API key and calls the ordinary API with it. Every answer carries a strict
 * Content-Security-Policy (own scripts, styles and connections only; no inline code, no framing).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RawReply, Route } from '../route.js';
import { route } from '../route.js';
import { asset } from '../../support/paths.js';

export const CONSOLE_DIR = asset('dist/console');

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Asset names are content-hashed by the build, so they may be cached for good; the page may not. */
const ASSET_NAME = /^[A-Za-z0-9_-]{1,64}\.(js|css|svg|png)$/;

function reply(status: number, contentType: string, body: Buffer, cacheControl: string): RawReply {
  return { kind: 'raw', status, contentType, body, headers: { ...SECURITY_HEADERS, 'Cache-Control': cacheControl } };
}

function loadFiles(dir: string): Map<string, RawReply> {
  const files = new Map<string, RawReply>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type === undefined || (name !== 'index.html' && !ASSET_NAME.test(name))) continue;
    const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable';
    files.set(name, reply(200, type, readFileSync(path.join(dir, name)), cache));
  }
  return files;
}

export function consoleRoutes(dir: string = CONSOLE_DIR): Route[] {
  const files = loadFiles(dir);
  const notBuilt = reply(503, 'text/plain; charset=utf-8', Buffer.from('The console is not built: run `npm run build` (or `npm run build:console`) and restart.\n'), 'no-store');
  const missing = reply(404, 'text/plain; charset=utf-8', Buffer.from('Not found\n'), 'no-store');
  const page = (): RawReply => files.get('index.html') ?? notBuilt;
  const access = { kind: 'public' } as const;
  return [
    route({ method: 'get', path: '/console', access, handle: page }),
    route({ method: 'get', path: '/console/', access, handle: page }),
    route({
      method: 'get',
      path: '/console/assets/:file',
      access,
      handle: (ctx) => {
        const file = ctx.params.file!;
        return (file !== 'index.html' && files.get(file)) || missing;
      },
    }),
  ];
}
