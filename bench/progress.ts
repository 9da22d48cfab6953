/**
 * Progress for long runs (bench, selection evaluation): one self-redrawing line on stderr when
 * stderr is a terminal, nothing at all otherwise or when CI is set, so logs and piped output
 * carry only results. Notes (a skipped scenario, the run's settings) are printed either way.
 */
export function progressWanted(stream: { isTTY?: boolean } = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env.CI ?? '').toLowerCase();
  return stream.isTTY === true && (ci === '' || ci === '0' || ci === 'false');
}

export class Progress {
  private label = '';
  private started = 0;
  private readonly timer: NodeJS.Timeout | null;
  private readonly live: boolean;

  constructor(
    private readonly total: number,
    private done = 0,
    live = progressWanted(),
  ) {
    this.live = live;
    this.timer = live ? setInterval(() => this.draw(), 250) : null;
    this.timer?.unref();
  }

  /** Starts the next of `total` steps (the previous one counts as done). */
  step(label: string): void {
    if (this.label !== '') this.done++;
    this.label = label;
    this.started = Date.now();
    this.draw();
  }

  /** Sets the count directly (`done` of `total` items finished). */
  count(done: number, label: string): void {
    this.done = done;
    this.label = label;
    if (this.started === 0) this.started = Date.now();
    this.draw();
  }

  note(text: string): void {
    if (this.live) process.stderr.write('\r\x1b[K');
    process.stderr.write(`${text}\n`);
    this.draw();
  }

  end(): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.live) process.stderr.write('\r\x1b[K');
  }

  private draw(): void {
    if (!this.live || this.label === '') return;
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[K[${Math.min(this.done + 1, this.total)}/${this.total}] ${this.label} ${seconds}s`);
  }
}
