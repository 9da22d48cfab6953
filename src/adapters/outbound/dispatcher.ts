/**
 * The one undici dispatcher every outbound call (agents, tools, webhooks) goes through. It
 * enforces the URL policy when a connection is opened, after DNS: the name is resolved by a
 * guarded `lookup` that refuses blocked addresses, so a name that resolved to a public address
 * at registration and resolves to 10.0.0.5 now (DNS rebinding) still cannot be reached. IP
 * literals never reach `lookup` (net.connect skips it for them), so they are checked before it.
 */
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { checkAddress, checkHost, normalizeHostname, UrlNotAllowedError } from '../../domain/url-policy.js';
import type { UrlPolicyOptions } from '../../domain/url-policy.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a hostname to every address it has. Injectable so tests can simulate rebinding. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts and search domains apply as for any client). */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export interface OutboundDispatcherOptions extends UrlPolicyOptions {
  /** Most sockets kept open per origin (scheme+host+port); further requests queue. Default 128. */
  readonly connections?: number;
  /** Idle keep-alive sockets close after this long unless the server hints less. Default 4000. */
  readonly keepAliveTimeoutMs?: number;
  /** TCP+TLS connect budget, separate from the caller's overall deadline. Default 10000. */
  readonly connectTimeoutMs?: number;
  /** Replaces DNS resolution (tests). Default: `systemResolver`. */
  readonly resolver?: Resolver;
}

function requestedFamily(family: dns.LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `net.connect` lookup that resolves through `resolver` and fails with UrlNotAllowedError if
 * ANY address of the name is blocked: a name mixing public and private answers is treated as
 * hostile rather than filtered, since the mix is what a rebinding attack looks like.
 */
export function createGuardedLookup(resolver: Resolver, policy: UrlPolicyOptions): LookupFunction {
  return function guardedLookup(hostname, options, callback) {
    const host = normalizeHostname(hostname);
    resolver(host).then(
      (addresses) => {
        for (const entry of addresses) {
          const refusal = checkAddress(host, entry.address, policy);
          if (refusal !== null) {
            callback(refusal, '');
            return;
          }
        }
        const family = requestedFamily(options.family);
        const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
          err.code = 'ENOTFOUND';
          callback(err, '');
          return;
        }
        if (options.all === true) {
          callback(null, usable.map((entry) => ({ address: entry.address, family: entry.family })));
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), '');
      },
    );
  };
}

/**
 * Creates the outbound undici Agent: keep-alive pools per origin, and every new connection
 * checked against the URL policy (scheme, literal IP, resolved addresses). A refused connection
 * fails the request with UrlNotAllowedError.
 */
export function createOutboundDispatcher(options: OutboundDispatcherOptions): Agent {
  const policy: UrlPolicyOptions = { allowPrivate: options.allowPrivate };
  const connector = buildConnector({
    lookup: createGuardedLookup(options.resolver ?? systemResolver, policy),
    timeout: options.connectTimeoutMs ?? 10_000,
  });
  const guardedConnect: buildConnector.connector = (connectOptions, callback) => {
    const refusal = refuseAtConnect(connectOptions.protocol, connectOptions.hostname, policy);
    if (refusal !== null) {
      callback(refusal, null);
      return;
    }
    connector(connectOptions, callback);
  };
  return new Agent({
    connections: options.connections ?? 128,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connect: guardedConnect,
  });
}

function refuseAtConnect(protocol: string, hostname: string, policy: UrlPolicyOptions): UrlNotAllowedError | null {
  // Repeated here so a caller that skipped checkUrlSyntax is still held to https.
  if (protocol !== 'https:' && !(policy.allowPrivate && protocol === 'http:')) {
    return new UrlNotAllowedError('scheme', hostname, `Scheme '${protocol}' is not allowed for outbound calls`);
  }
  // net.connect's own test for "no lookup needed"; checked directly because lookup will not run.
  if (net.isIP(hostname) !== 0) return checkAddress(hostname, hostname, policy);
  return checkHost(hostname, policy);
}
