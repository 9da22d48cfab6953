/**
 * A fake of the Concurrency port (src/ports/limits.ts) as a workflow run uses it, for one account:
 * it grants every slot asked for (or answers `answer`), and keeps the order of takes and releases.
 */
import type { SlotAcquisition, SlotState } from '../../src/domain/limits.js';
import type { Concurrency } from '../../src/ports/limits.js';

export class RecordingSlots implements Pick<Concurrency, 'acquire' | 'release' | 'state'> {
  /** 'acquire:<runId>' and 'release:<runId>', in order. */
  readonly log: string[] = [];
  answer: SlotAcquisition['status'] = 'started';

  async acquire(_accountId: string, runId: string): Promise<SlotAcquisition> {
    this.log.push(`acquire:${runId}`);
    if (this.answer === 'queued') return { status: 'queued', position: 1, promoted: [] };
    return { status: this.answer, promoted: [] };
  }

  release(_accountId: string, runId: string): void {
    this.log.push(`release:${runId}`);
  }

  async state(): Promise<SlotState> {
    return 'none';
  }
}
