/** The service version, read once from package.json. */
import { readFileSync } from 'node:fs';
import { asset } from './paths.js';

export const VERSION: string = (JSON.parse(readFileSync(asset('package.json'), 'utf8')) as { version: string }).version;
