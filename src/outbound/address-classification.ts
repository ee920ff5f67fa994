/**
 * Says whether an IP address is one Merino may call on an organization's behalf: a public unicast
 * address, or else which kind of non-public address it is (loopback, private, link-local, …).
 * The outbound guard asks this of every address a connection is about to use, so the table below
 * is the whole policy on destinations. Addresses are compared as bytes, never as text, so that no
 * spelling of an address (IPv4-mapped IPv6, NAT64, 6to4, `::127.0.0.1`) slips past a prefix test.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is not public; each value reads well after "the address is …". */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared (carrier-grade NAT)'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'not an IP address';

interface Range {
  /** Network address as bytes (4 for IPv4, 16 for IPv6). */
  network: readonly number[];
  prefixLength: number;
  kind: Exclude<AddressKind, 'public' | 'not an IP address'>;
}

function v4(text: string, prefixLength: number, kind: Range['kind']): Range {
  return { network: text.split('.').map(Number), prefixLength, kind };
}

function v6(text: string, prefixLength: number, kind: Range['kind']): Range {
  return { network: ipv6Bytes(text) as number[], prefixLength, kind };
}

// IANA's IPv4 and IPv6 special-purpose registries, whole blocks at a time: the few globally
// reachable anycast entries inside them (192.0.0.9, say) are no provider's address, so refusing
// them costs nothing. The broadcast address is listed before 240/4 so it is named.
const IPV4_RANGES: readonly Range[] = [
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared (carrier-grade NAT)'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, 'reserved'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('255.255.255.255', 32, 'broadcast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const IPV6_RANGES: readonly Range[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('64:ff9b:1::', 48, 'private'),
  v6('100::', 64, 'reserved'),
  v6('2001::', 23, 'reserved'),
  v6('2001:db8::', 32, 'documentation'),
  v6('3fff::', 20, 'documentation'),
  v6('5f00::', 16, 'reserved'),
  v6('fc00::', 7, 'unique-local'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local'),
  v6('ff00::', 8, 'multicast'),
];

/** IPv6 forms that carry an IPv4 address, which is what the packet really reaches: prefix and where the four bytes sit. */
const EMBEDDED_IPV4: ReadonlyArray<{ prefix: Range; offset: number }> = [
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (the deprecated IPv4-compatible form).
  { prefix: v6('::ffff:0:0', 96, 'reserved'), offset: 12 },
  { prefix: v6('::', 96, 'reserved'), offset: 12 },
  // NAT64's well-known prefix translates to the IPv4 address in the last four bytes.
  { prefix: v6('64:ff9b::', 96, 'reserved'), offset: 12 },
  // 6to4 tunnels to the IPv4 address in bytes 2 to 5.
  { prefix: v6('2002::', 16, 'reserved'), offset: 2 },
];

/** The 16 bytes of an IPv6 address in text form (a zone such as `%eth0` is ignored), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  if (!isIPv6(address)) return undefined;
  let tail: number[] = [];
  let head = address;
  // A trailing dotted IPv4 part stands for the last two groups.
  const lastColon = address.lastIndexOf(':');
  const lastPart = address.slice(lastColon + 1);
  if (isIPv4(lastPart)) {
    tail = lastPart.split('.').map(Number);
    head = address.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groupsOf = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [before, after] = head.includes('::') ? head.split('::') : [head, undefined];
  const leading = groupsOf(before);
  const trailing = groupsOf(after ?? '');
  const missing = 8 - tail.length / 2 - leading.length - trailing.length;
  const groups = after === undefined ? leading : [...leading, ...new Array<number>(missing).fill(0), ...trailing];
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  return [...bytes, ...tail];
}

function inRange(bytes: readonly number[], range: Range): boolean {
  if (bytes.length !== range.network.length) return false;
  let bitsLeft = range.prefixLength;
  for (let index = 0; bitsLeft > 0; index += 1, bitsLeft -= 8) {
    const mask = bitsLeft >= 8 ? 0xff : (0xff << (8 - bitsLeft)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((range.network[index] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyBytes(bytes: readonly number[]): AddressKind {
  if (bytes.length === 16) {
    // `::` and `::1` sit inside the IPv4-compatible prefix but are IPv6's own unspecified and loopback addresses.
    const exact = IPV6_RANGES.find((range) => range.prefixLength === 128 && inRange(bytes, range));
    if (exact !== undefined) return exact.kind;
    const embedded = EMBEDDED_IPV4.find(({ prefix }) => inRange(bytes, prefix));
    if (embedded !== undefined) return classifyBytes(bytes.slice(embedded.offset, embedded.offset + 4));
  }
  const ranges = bytes.length === 4 ? IPV4_RANGES : IPV6_RANGES;
  return ranges.find((range) => inRange(bytes, range))?.kind ?? 'public';
}

/**
 * The kind of an address written as text (`127.0.0.1`, `::ffff:7f00:1`, `[::1]`). Only canonical
 * dotted IPv4 is read here: other spellings (`2130706433`, `0x7f.1`) are normalized by the URL
 * parser before any host reaches this module.
 */
export function classifyAddress(text: string): AddressKind {
  const address = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(address)) return classifyBytes(address.split('.').map(Number));
  const bytes = ipv6Bytes(address);
  return bytes === undefined ? 'not an IP address' : classifyBytes(bytes);
}

/** The same address in one spelling (IPv6 fully expanded, lower case), so two spellings compare equal. */
export function canonicalAddress(text: string): string | undefined {
  const address = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(address)) return address.split('.').map(Number).join('.');
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return undefined;
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push((((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0)).toString(16));
  return groups.join(':');
}
