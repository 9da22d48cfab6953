/**
 * IP allowlists (ENTERPRISE keys): entries are single addresses or CIDR ranges, IPv4 or IPv6.
 * Parsed once per key into ranges; IPv4-mapped IPv6 addresses match their IPv4 form.
 */
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface IpAllowlist {
  allows(address: string): boolean;
}

/** Returns the offending entry, or null when every entry is a valid address or CIDR range. */
export function findInvalidEntry(entries: readonly string[]): string | null {
  for (const entry of entries) {
    if (parseEntry(entry) === null) return entry;
  }
  return null;
}

function parseEntry(entry: string): Range | null {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return [normalize(address), address.kind() === 'ipv6' && normalize(address).kind() === 'ipv4' ? bits - 96 : bits];
    }
    const address = normalize(ipaddr.parse(entry));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

function normalize(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

export function compileAllowlist(entries: readonly string[]): IpAllowlist {
  const ranges = entries.map(parseEntry).filter((r): r is Range => r !== null);
  return {
    allows(text: string): boolean {
      let address: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        address = normalize(ipaddr.parse(text));
      } catch {
        return false;
      }
      return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match([base, bits] as never));
    },
  };
}

/** Canonical text of an address: `::ffff:127.0.0.1` becomes `127.0.0.1`, IPv6 compressed. */
export function canonicalAddress(text: string): string {
  try {
    return normalize(ipaddr.parse(text)).toString();
  } catch {
    return text;
  }
}

/**
 * The client address: the socket peer, unless it is a trusted proxy, in which case walk
 * X-Forwarded-For from the right and take the first hop that is not trusted.
 */
export function resolveClientAddress(peer: string, forwardedFor: string, trusted: IpAllowlist | null): string {
  const canonicalPeer = canonicalAddress(peer);
  if (trusted === null || forwardedFor === '' || !trusted.allows(canonicalPeer)) return canonicalPeer;
  const hops = forwardedFor.split(',').map((h) => h.trim()).filter((h) => h.length > 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalAddress(hops[i]!);
    if (!ipaddr.isValid(hop)) return canonicalPeer;
    if (!trusted.allows(hop)) return hop;
  }
  return hops.length > 0 ? canonicalAddress(hops[0]!) : canonicalPeer;
}
