/** Shapes every actor message shares. */
import type { Ref } from './nact.js';

/** Every message is plain data discriminated by `type: '<actor>.<verb>'`. */
export interface Message {
  readonly type: string;
}

/** Where a reply goes: an explicit reference carried in the request, never an implicit sender. */
export type ReplyRef<Reply> = Ref<Reply>;

/** The union of reply types that messages of `Msg` declare through their `replyTo` field. */
export type RepliesOf<Msg> = Msg extends { readonly replyTo: ReplyRef<infer Reply> } ? Reply : never;
