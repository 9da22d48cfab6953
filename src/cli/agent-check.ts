/**
 * `baton agent check URL`: runs the conformance checks (src/cli/conformance.ts) and prints
 * each finding with how to fix it, or the report as JSON. Exit code 1 when any check failed.
 */
import { checkAgent, type CheckFinding, type CheckReport } from './conformance.js';

export interface AgentCheckCommandOptions {
  readonly allowPrivate?: boolean;
  readonly timeout?: number;
  readonly deadline?: number;
  readonly prompt?: string;
  readonly json?: boolean;
}

const MARK: Readonly<Record<CheckFinding['status'], string>> = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

export function formatReport(report: CheckReport): string {
  const width = Math.max(...report.findings.map((f) => f.check.length));
  const lines = [`Checking ${report.url} as Baton calls it`, ''];
  for (const finding of report.findings) {
    lines.push(`${MARK[finding.status]}  ${finding.check.padEnd(width)}  ${finding.summary}`);
    if (finding.fix !== undefined) lines.push(`${' '.repeat(width + 8)}fix: ${finding.fix}`);
  }
  const failed = report.findings.filter((f) => f.status === 'fail').length;
  const warned = report.findings.filter((f) => f.status === 'warn').length;
  lines.push('', failed === 0
    ? `The agent follows the protocol${warned === 0 ? '' : ` (${warned} warning${warned === 1 ? '' : 's'})`}.`
    : `${failed} check${failed === 1 ? '' : 's'} failed: Baton would not use this agent as it is.`);
  return lines.join('\n');
}

/** Runs the check and sets the exit code; the report goes to stdout. */
export async function agentCheckCommand(url: string, options: AgentCheckCommandOptions): Promise<void> {
  const report = await checkAgent(url, {
    allowPrivate: options.allowPrivate === true,
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
    ...(options.deadline === undefined ? {} : { deadlineMs: options.deadline }),
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
  });
  process.stdout.write(`${options.json === true ? JSON.stringify(report, null, 2) : formatReport(report)}\n`);
  process.exitCode = report.ok ? 0 : 1;
}
