/**
 * Headless Chromium for the console's browser tests: Debian's package (`apt-get install
 * chromium`; .ci/run installs it), driven by playwright-core, which never downloads a browser.
 * BATON_CHROMIUM overrides the path.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string | null {
  const override = process.env.BATON_CHROMIUM;
  if (override !== undefined && override !== '') return override;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error('Chromium not found: apt-get install -y chromium (or set BATON_CHROMIUM)');
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
