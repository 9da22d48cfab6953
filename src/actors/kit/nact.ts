/**
 * The one place that loads nact. nact@7.6.2's bundled typings have gaps (refs are structurally
 * empty so any ref fits any other, `any` throughout, supervision directives typed as `Symbol` and
 * not exported, `ctx.log` undefined unless logging is configured, mailbox items typed as messages
 * although they are `{ message, sender }`), and its runtime has two holes this module closes:
 *
 * - `stop()` of an actor, and of the system, does not stop the actor's children: nact's internal
 *   `stop` looks children up by `.type`, which actor instances lack, so a stopped parent leaves its
 *   subtree running but unreachable (timers firing, `afterStop` never called). Every actor spawned
 *   here is recorded under its parent, and `stop` (and the stop/reset directives below) stop the
 *   subtree deepest-first while it is still reachable.
 * - an escalation that reaches the system is `console.log`ged; the crash wrapper turns it into a
 *   plain stop instead.
 *
 * The rest of the code imports from `actors/kit/`, never from 'nact'.
 */
import { createRequire } from 'node:module';

declare const accepts: unique symbol;
declare const systemBrand: unique symbol;

/** A reference to an actor that accepts `Msg`. Contravariant: a `Ref<A | B>` is usable as a `Ref<A>`. */
export interface Ref<Msg> {
  readonly [accepts]: (msg: Msg) => void;
}

/** The actor system (one per worker); only a parent for top-level actors and a handle for `stop`. */
export interface SystemRef {
  readonly [systemBrand]: true;
}

/** Anything an actor can be spawned under. */
export type ParentRef = Ref<never> | SystemRef;

export interface ActorPath {
  readonly parts: readonly string[];
  readonly system: string;
  toString(): string;
}

/** What nact passes to a handler, minus the implicit `sender` (replies go to explicit refs) and `log`. */
export interface ActorContext<Msg> {
  readonly self: Ref<Msg>;
  /** Undefined once the actor has been stopped. */
  readonly parent: ParentRef | undefined;
  readonly name: string;
  readonly path: ActorPath;
  readonly children: ReadonlyMap<string, Ref<never>>;
}

/** A supervision decision, as data; the crash wrapper maps it to nact's private symbols. */
export const Directive = {
  /** Stop the faulted actor (and its subtree). */
  stop: 'stop',
  /** Restart the faulted actor: fresh state, children stopped, the faulting message dropped. */
  reset: 'reset',
  /** Hand the fault to the parent's policy, which sees it as a child fault. */
  escalate: 'escalate',
  /** Drop the faulting message and go on with the same state. */
  resume: 'resume',
  /** Parent decisions on an escalated child fault. */
  stopChild: 'stopChild',
  resetChild: 'resetChild',
} as const;
export type Directive = (typeof Directive)[keyof typeof Directive];

/** One fault as a policy sees it. `child` is set when a child escalated to this actor. */
export interface Crash {
  readonly error: unknown;
  /** The message being handled (the child's message for an escalation); undefined for a failed init. */
  readonly message: unknown;
  /** The actor whose policy is deciding. */
  readonly self: Ref<never>;
  readonly selfPath: string;
  readonly child: Ref<never> | undefined;
  /** Path of the actor that actually faulted (the child's on an escalation). */
  readonly faultedPath: string;
  readonly parentIsSystem: boolean;
}

/** A supervision policy (nact's `onCrash`, typed). Must not throw; a throw counts as `stop`. */
export type CrashPolicy = (crash: Crash) => Directive | Promise<Directive>;

export type ActorFn<State, Msg> = (state: State, msg: Msg, ctx: ActorContext<Msg>) => State | Promise<State>;
export type StatelessActorFn<Msg> = (msg: Msg, ctx: ActorContext<Msg>) => void | Promise<void>;

/** Exactly one way to build the state. `initialStateFunc` also runs on every reset. */
export type StateInit<State, Msg> =
  | { readonly initialState: State; readonly initialStateFunc?: never }
  | { readonly initialStateFunc: (ctx: ActorContext<Msg>) => State; readonly initialState?: never };

export type ActorProps<State, Msg> = StateInit<State, Msg> & {
  /** Default: escalate (a top-level actor is then stopped). */
  readonly onCrash?: CrashPolicy;
  /** Runs after a stop (not after a reset), on a later turn. */
  readonly afterStop?: (state: State, ctx: ActorContext<Msg>) => void | Promise<void>;
};

export interface StatelessActorProps {
  /** Default: resume (nact's default for stateless actors). */
  readonly onCrash?: CrashPolicy;
}

// ---- the raw module, narrowed from unknown --------------------------------------------------

interface RawContext {
  readonly self: object;
  readonly parent: object | undefined;
  readonly path: { toString(): string };
  readonly [directive: string]: unknown;
}
type RawFn = (state: unknown, msg: unknown, ctx: RawContext) => unknown;
type RawOnCrash = (msg: unknown, err: unknown, ctx: RawContext, child: object | undefined) => Promise<unknown>;
interface RawProps {
  readonly initialState?: unknown;
  readonly initialStateFunc?: (ctx: RawContext) => unknown;
  readonly onCrash: RawOnCrash;
  readonly afterStop: (state: unknown, ctx: RawContext) => unknown;
}
interface RawNact {
  start(options?: { readonly name: string }): object;
  spawn(parent: object, f: RawFn, name: string | undefined, props: RawProps): object;
  dispatch(ref: object, msg: unknown): void;
  stop(ref: object): void;
  query(ref: object, build: (tempRef: object) => unknown, timeout: number): Promise<unknown>;
}

function isRawNact(mod: unknown): mod is RawNact {
  if (typeof mod !== 'object' || mod === null) return false;
  return ['start', 'spawn', 'dispatch', 'stop', 'query'].every(
    (name) => typeof (mod as Record<string, unknown>)[name] === 'function',
  );
}

const loaded: unknown = createRequire(import.meta.url)('nact');
if (!isRawNact(loaded)) throw new Error('nact did not load with the expected API (start, spawn, dispatch, stop, query)');
const raw: RawNact = loaded;

// Brands exist only at compile time; these are the single places a runtime ref gains its type.
const toRef = <Msg>(ref: object): Ref<Msg> => ref as Ref<Msg>;
const toSystem = (ref: object): SystemRef => ref as SystemRef;
const rawOf = (ref: ParentRef | Ref<never>): object => ref as object;
const asContext = <Msg>(ctx: RawContext): ActorContext<Msg> => ctx as unknown as ActorContext<Msg>;

// ---- subtree bookkeeping (nact's own stop misses children) -------------------------------------

const childrenOf = new WeakMap<object, Set<object>>();
const systemRefs = new WeakSet<object>();

function adopt(parent: object, child: object): void {
  let set = childrenOf.get(parent);
  if (!set) childrenOf.set(parent, (set = new Set()));
  set.add(child);
}

function release(parent: object | undefined, child: object): void {
  if (parent) childrenOf.get(parent)?.delete(child);
}

function stopDescendants(ref: object): void {
  const kids = childrenOf.get(ref);
  if (!kids) return;
  for (const kid of [...kids]) {
    stopDescendants(kid);
    raw.stop(kid);
  }
  kids.clear();
}

function pathOf(ref: object | undefined): string {
  if (ref && 'path' in ref) {
    const path: unknown = ref.path;
    if (typeof path === 'object' && path !== null) return String(path);
  }
  return '?';
}

// ---- the typed API ----------------------------------------------------------------------------

/** Starts an actor system; pass `name` to make paths readable in logs. */
export function start(options: { readonly name?: string } = {}): SystemRef {
  const ref = options.name === undefined ? raw.start() : raw.start({ name: options.name });
  systemRefs.add(ref);
  return toSystem(ref);
}

function wrapPolicy(policy: CrashPolicy | undefined, fallback: Directive): RawOnCrash {
  return async (msg, err, ctx, child) => {
    const self = ctx.self;
    const parentIsSystem = ctx.parent !== undefined && systemRefs.has(ctx.parent);
    let decision: Directive = fallback;
    if (policy) {
      try {
        decision = await policy({
          error: err,
          message: msg,
          self: toRef<never>(self),
          selfPath: pathOf(self),
          child: child ? toRef<never>(child) : undefined,
          faultedPath: child ? pathOf(child) : pathOf(self),
          parentIsSystem,
        });
      } catch {
        decision = Directive.stop;
      }
    }
    // nact answers a top-level escalation with console.log + stop; stop quietly instead.
    if (decision === Directive.escalate && parentIsSystem) decision = Directive.stop;
    // A child directive with no child (the actor faulted itself) would throw inside nact.
    if (!child && decision === Directive.stopChild) decision = Directive.stop;
    if (!child && decision === Directive.resetChild) decision = Directive.reset;
    if (decision === Directive.stop || decision === Directive.reset) stopDescendants(self);
    if (child && (decision === Directive.stopChild || decision === Directive.resetChild)) stopDescendants(child);
    if (child && decision === Directive.stopChild) release(self, child);
    return ctx[decision];
  };
}

/** Spawns a stateful actor under `parent`; throws if the name is taken, invalid, or the parent is gone. */
export function spawn<State, Msg>(
  parent: ParentRef,
  f: ActorFn<State, Msg>,
  name: string | undefined,
  props: ActorProps<State, Msg>,
): Ref<Msg> {
  const parentRaw = rawOf(parent);
  const { initialStateFunc, afterStop } = props;
  const rawProps: RawProps = {
    ...(initialStateFunc
      ? { initialStateFunc: (ctx: RawContext) => initialStateFunc(asContext<Msg>(ctx)) }
      : { initialState: props.initialState }),
    onCrash: wrapPolicy(props.onCrash, Directive.escalate),
    afterStop: (state, ctx) => {
      release(parentRaw, ctx.self);
      return afterStop?.(state as State, asContext<Msg>(ctx));
    },
  };
  const rawFn: RawFn = (state, msg, ctx) => f(state as State, msg as Msg, asContext<Msg>(ctx));
  const ref = raw.spawn(parentRaw, rawFn, name, rawProps);
  adopt(parentRaw, ref);
  return toRef<Msg>(ref);
}

/** Spawns an actor without state; messages are still handled one at a time. */
export function spawnStateless<Msg>(
  parent: ParentRef,
  f: StatelessActorFn<Msg>,
  name?: string,
  props: StatelessActorProps = {},
): Ref<Msg> {
  const rawFn: RawFn = async (_state, msg, ctx) => {
    await f(msg as Msg, asContext<Msg>(ctx));
    return undefined;
  };
  const parentRaw = rawOf(parent);
  const ref = raw.spawn(parentRaw, rawFn, name, {
    initialState: undefined,
    onCrash: wrapPolicy(props.onCrash, Directive.resume),
    afterStop: (_state, ctx) => release(parentRaw, ctx.self),
  });
  adopt(parentRaw, ref);
  return toRef<Msg>(ref);
}

/** Fire-and-forget. A stopped or unknown actor drops the message silently. */
export function dispatch<Msg>(ref: Ref<Msg>, msg: NoInfer<Msg>): void {
  raw.dispatch(rawOf(ref), msg);
}

/** Stops an actor and its whole subtree (children first), or a whole system. Idempotent. */
export function stop(ref: Ref<never> | SystemRef): void {
  const target = rawOf(ref);
  stopDescendants(target);
  raw.stop(target);
}

/**
 * nact's temp-ref query; rejects with a plain Error on timeout or a missing actor.
 * Internal to the kit: use `ask`, which types the timeout.
 */
export function query<Msg, Reply>(ref: Ref<Msg>, build: (tempRef: Ref<Reply>) => Msg, timeoutMs: number): Promise<Reply> {
  return raw.query(rawOf(ref), (tempRef) => build(toRef<Reply>(tempRef)), timeoutMs) as Promise<Reply>;
}
