/** What the comparison needs from each system: a running server and its three user journeys. */
import type { Flow } from './closed-loop.js';

export interface ComparedSystem {
  readonly name: string;
  /** How the flows talk to this system, printed under the table. */
  readonly note: string;
  /** The server process (its tree is pinned to the server core). */
  readonly pid: number;
  readonly flows: {
    /** Start one run and wait for its result. */
    readonly runAndWait: Flow;
    /** Start one run and read its event stream to the end. */
    readonly stream: Flow;
    /** Start a run that pauses for a human, approve it, and see it finish. */
    readonly hitl: Flow;
  };
  stop(): Promise<void>;
}
