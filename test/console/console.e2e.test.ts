/**
 * The operator console end to end in headless Chromium against a spawned embedded server: sign
 * in with a key, start a workflow whose high-risk tool pauses it, approve it from the inbox with
 * a reason, and watch the run's live stream reach `done`. Set CONSOLE_SCREENSHOTS_DIR to also
 * write the screenshots used in docs/console.md.
 */
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { chromiumPath, launchChromium } from '../helpers/chromium.js';
import { api, startServer } from '../helpers/server.js';
import { registerAgents, setupWorkflow, startToolServer, waitForStatus } from '../workflows/fixtures.js';

const screenshots = process.env.CONSOLE_SCREENSHOTS_DIR ?? '';

if (chromiumPath() === null && process.env.CI !== 'true') {
  t.plan(0, 'Chromium is not installed (apt-get install -y chromium); .ci/run installs it');
} else {
  const server = await startServer(t, { mode: 'embedded' });
  const tools = await startToolServer();
  t.teardown(() => tools.close());
  const browser: Browser = await launchChromium();
  t.teardown(() => browser.close());

  async function shot(page: Page, name: string): Promise<void> {
    if (screenshots !== '') await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  }

  /** A signed-in page; `violations` collects the page's Content-Security-Policy reports. */
  async function signedIn(t: Test, key: string): Promise<{ page: Page; violations: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/console`);
    await page.fill('#api-key', key);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav >> text=Sign out');
    return { page, violations };
  }

  t.test('a workflow started from the console pauses, is approved from the inbox, and completes', async (t) => {
    const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
    const { page, violations } = await signedIn(t, key);

    await page.goto(`${server.url}/console#/workflows`);
    await page.waitForSelector(`select[aria-label=Workflow] >> option[value="${slug}"]`, { state: 'attached' });
    await page.selectOption('select[aria-label=Workflow]', slug);
    await page.fill('input[aria-label=Task]', 'what is the weather');
    await page.click('.run-form button[type=submit]');
    await page.waitForURL(/#\/runs\/exec_/);
    const runId = /#\/runs\/(exec_[A-Za-z0-9_-]+)/.exec(page.url())![1]!;
    await page.waitForSelector('.event-approval_request');
    t.equal(await page.textContent('.stream-state'), 'live', 'the stream is read live, with the key in a header');
    await shot(page, 'run-paused');

    await page.click('nav >> text=Approvals');
    const card = page.locator('article.approval', { hasText: runId });
    await card.waitFor();
    t.match(await card.textContent(), /lookup/);
    await shot(page, 'approvals');
    await card.locator('input[aria-label=Reason]').fill('looks safe');
    await card.locator('button.approve').click();
    await page.waitForSelector('text=Nothing waits for a decision.');

    await page.goto(`${server.url}/console#/runs/${runId}`);
    await page.waitForSelector('.event-done');
    t.match(await page.textContent('.final-answer'), /^answer: /);
    t.ok(await page.isVisible('.event-approval_resolved'), 'the decision is in the stream');
    await shot(page, 'run-completed');

    const run = await waitForStatus(server, key, runId, ['completed']);
    t.equal(run.status, 'completed');
    const decided = await api(server, 'GET', '/v1/approvals?status=approved', { key });
    t.match((decided.body.approvals as unknown[])[0], { execution_id: runId, reason: 'looks safe' });

    await page.click('nav >> text=Workflows');
    await page.waitForSelector(`table >> text=${runId}`);
    await shot(page, 'workflows');
    await page.click('nav >> text=Agents');
    await page.waitForSelector('table >> text=healthy');
    await shot(page, 'agents');
    t.same(violations, [], 'the page breaks none of its own Content-Security-Policy');
  });

  t.test('executions show live status and cost, and one execution its detail', async (t) => {
    const { key } = await setupWorkflow(server, tools, t.teardown.bind(t));
    await registerAgents(server, key, [{ info: { id: 'console-summarizer', name: 'Summarizer', description: 'summarises text', capabilities: ['summaries'] } }], t.teardown.bind(t));
    const started = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'summarise this text', selectionCriteria: { requiredCapabilities: ['summaries'] } } });
    t.equal(started.status, 202);
    const id = started.body.executionId as string;
    const { page, violations } = await signedIn(t, key);
    const row = page.locator('tr', { hasText: id });
    await row.locator('text=COMPLETED').waitFor();
    t.match(await row.textContent(), /\$\d/, 'the row shows costs');
    await shot(page, 'executions');
    await row.locator(`a[href="#/executions/${id}"]`).click();
    await page.waitForSelector('dl.facts >> text=COMPLETED');
    t.match(await page.textContent('dl.facts'), /Actual cost\$\d/);
    t.same(violations, []);
  });

  t.test('a wrong key is refused at sign-in and nothing is shown', async (t) => {
    const context = await browser.newContext();
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${server.url}/console`);
    await page.fill('#api-key', 'mk_not-a-real-key');
    await page.click('button[type=submit]');
    await page.waitForSelector('.sign-in .error');
    t.match(await page.textContent('.sign-in .error'), /UNAUTHORIZED/);
    t.notOk(await page.isVisible('nav'), 'no console without a valid key');
  });
}
