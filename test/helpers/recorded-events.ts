/** A fake event appender (the coordination port's `appendEvent`) keeping each stream's events in order. */
import type { EventAppender } from '../../src/logic/workflow-events.js';
import type { StreamEvent } from '../../src/domain/events.js';

export interface AppendedEvent {
  readonly stream: string;
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

export class RecordedEvents implements EventAppender {
  readonly events: AppendedEvent[] = [];
  readonly #lastSeq = new Map<string, number>();

  /** Event types appended, in order. */
  get types(): string[] {
    return this.events.map((e) => e.type);
  }

  async appendEvent(stream: string, type: string, data: string, floorSeq = 0): Promise<StreamEvent> {
    const seq = Math.max(this.#lastSeq.get(stream) ?? 0, floorSeq) + 1;
    this.#lastSeq.set(stream, seq);
    this.events.push({ stream, seq, type, data: JSON.parse(data) as Record<string, unknown> });
    return { seq, type, data };
  }
}
