/**
 * The outbound URL policy shared by agents, tools and webhooks (DESIGN §9): https only, no
 * credentials in the URL, and never an address inside the operator's network. Two layers:
 * `checkUrlSyntax` refuses what the URL string alone shows (used at registration, for a clear
 * error early); the dispatcher in `dispatcher.ts` repeats the address check on every connection,
 * after DNS, which is the check that actually holds (DNS rebinding).
 */
import ipaddr from 'ipaddr.js';

/** Longest URL accepted; longer ones are refused rather than truncated. */
export const MAX_URL_LENGTH = 2048;

export const UrlNotAllowedReason = {
  INVALID_URL: 'invalid_url',
  SCHEME: 'scheme',
  CREDENTIALS: 'credentials',
  TOO_LONG: 'too_long',
  BLOCKED_HOSTNAME: 'blocked_hostname',
  BLOCKED_ADDRESS: 'blocked_address',
  UNRESOLVABLE: 'unresolvable',
} as const;
export type UrlNotAllowedReason = (typeof UrlNotAllowedReason)[keyof typeof UrlNotAllowedReason];

/** Thrown (as a connect error) by the outbound dispatcher; the protocol client maps it to an outcome. */
export class UrlNotAllowedError extends Error {
  readonly code = 'ERR_URL_NOT_ALLOWED';
  readonly reason: UrlNotAllowedReason;
  readonly host: string;
  /** The address that was refused, when the refusal came from an address check. */
  readonly address: string | undefined;

  constructor(reason: UrlNotAllowedReason, host: string, message: string, address?: string) {
    super(message);
    this.name = 'UrlNotAllowedError';
    this.reason = reason;
    this.host = host;
    this.address = address;
  }
}

/** Type guard that survives errors crossing module copies (checks the code, not the prototype). */
export function isUrlNotAllowedError(err: unknown): err is UrlNotAllowedError {
  return err instanceof UrlNotAllowedError
    || (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_URL_NOT_ALLOWED');
}

export type UrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly reason: UrlNotAllowedReason; readonly message: string };

export interface UrlPolicyOptions {
  /** Allows http and loopback/private/link-local addresses (dev, tests). Cloud metadata stays blocked. */
  readonly allowPrivate: boolean;
}

/**
 * How an address is classed. Everything other than `public` is refused, except that
 * `allowPrivate` lets through all classes but `metadata`.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'carrier_grade_nat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

/*
 * Cloud metadata endpoints: AWS/GCP/Azure/OpenStack/DigitalOcean 169.254.169.254, AWS IPv6
 * fd00:ec2::254, Alibaba 100.100.100.200, Oracle 192.0.0.192. Blocked even with allowPrivate,
 * because a leaked instance credential is never what a dev setting means to allow.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
]);

const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.internal',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

const IPV4_CLASS: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
  reserved: 'reserved',
  as112: 'reserved',
  amt: 'reserved',
};

const IPV6_CLASS: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  linkLocal: 'link_local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
};

// IPv4-compatible addresses (::a.b.c.d) are deprecated; nothing legitimate uses them.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Classifies an IP address literal (v4, v6, bracketless); anything unparseable is `invalid`. */
export function classifyAddress(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4);
  return classifyV6(parsed as ipaddr.IPv6);
}

function classifyV4(ip: ipaddr.IPv4): AddressClass {
  if (METADATA_ADDRESSES.has(ip.toString())) return 'metadata';
  return IPV4_CLASS[ip.range()] ?? 'reserved';
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  // toString() is the RFC 5952 compact form the set is written in.
  if (METADATA_ADDRESSES.has(ip.toString())) return 'metadata';
  const range = ip.range();
  // Forms that carry an IPv4 address reach that address; judge them by it.
  const embedded = embeddedV4(ip, range);
  if (embedded !== null) return classifyV4(embedded);
  if (range === 'unicast' && ip.match(IPV4_COMPATIBLE)) return 'reserved';
  return IPV6_CLASS[range] ?? 'reserved';
}

function embeddedV4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // NAT64 64:ff9b::a.b.c.d (DNS64 networks)
      return new ipaddr.IPv4(bytes.slice(12, 16));
    case '6to4': // 2002:AABB:CCDD::
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

/** Whether an address class may be connected to under the given policy. */
export function isAddressAllowed(cls: AddressClass, options: UrlPolicyOptions): boolean {
  if (cls === 'public') return true;
  if (cls === 'metadata' || cls === 'invalid') return false;
  return options.allowPrivate;
}

/** Lower-cased hostname without brackets or a trailing dot, as DNS and the policy see it. */
export function normalizeHostname(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  while (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/**
 * Checks one host (a name or an IP literal) against the policy without resolving it.
 * Returns null when allowed, the refusal otherwise.
 */
export function checkHost(hostname: string, options: UrlPolicyOptions): UrlNotAllowedError | null {
  const host = normalizeHostname(hostname);
  if (host === '') return new UrlNotAllowedError('invalid_url', hostname, 'URL has no host');
  if (ipaddr.isValid(host)) return checkAddress(host, host, options);
  if (METADATA_HOSTNAMES.has(host)) {
    return new UrlNotAllowedError('blocked_hostname', host, `Host '${host}' is a cloud metadata endpoint`);
  }
  if (!options.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return new UrlNotAllowedError('blocked_hostname', host, `Host '${host}' is a loopback name`);
  }
  return null;
}

/** Checks a resolved address for `host`; null when allowed. */
export function checkAddress(host: string, address: string, options: UrlPolicyOptions): UrlNotAllowedError | null {
  const cls = classifyAddress(address);
  if (isAddressAllowed(cls, options)) return null;
  const shown = host === address ? `Address ${address}` : `Host '${host}' resolves to ${address}, which`;
  return new UrlNotAllowedError(
    'blocked_address',
    host,
    `${shown} is ${cls.replace(/_/g, '-')} and not allowed for outbound calls`,
    address,
  );
}

/**
 * Checks what the URL string alone shows: parseable, https (http too with allowPrivate), no
 * credentials, at most MAX_URL_LENGTH, host not a metadata name or a blocked IP literal.
 * Names are NOT resolved here; the dispatcher checks their addresses at connect time.
 */
export function checkUrlSyntax(raw: string, options: UrlPolicyOptions): UrlCheck {
  if (raw.length > MAX_URL_LENGTH) {
    return refuse('too_long', `URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('invalid_url', 'URL is not a valid absolute URL');
  }
  const schemeOk = url.protocol === 'https:' || (options.allowPrivate && url.protocol === 'http:');
  if (!schemeOk) {
    return refuse('scheme', options.allowPrivate ? 'URL must use http or https' : 'URL must use https');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('credentials', 'URL must not carry a username or password');
  }
  const hostRefusal = checkHost(url.hostname, options);
  if (hostRefusal !== null) return refuse(hostRefusal.reason, hostRefusal.message);
  return { ok: true, url };
}

function refuse(reason: UrlNotAllowedReason, message: string): UrlCheck {
  return { ok: false, reason, message };
}
