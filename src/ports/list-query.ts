/** Newest-first keyset paging shared by the execution and workflow-run lists. */
/** A page of a list read newest first: `after` is the opaque `nextCursor` of the previous page. */
export interface NewestFirstQuery<Status extends string> {
  readonly status: Status | null;
  readonly limit: number;
  readonly after: string | null;
}
export interface NewestFirstPage<T> {
  readonly items: readonly T[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}
/** A list read was given a cursor it did not issue. */
export class InvalidListCursor extends RangeError {
  constructor() {
    super('cursor is not one this service issued');
    this.name = 'InvalidListCursor';
  }
}
