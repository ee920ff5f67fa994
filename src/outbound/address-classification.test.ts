/**
 * Proves the address classifier the outbound guard relies on: public unicast addresses pass, and
 * every non-public kind (loopback, private, CGNAT, link-local, unique-local, unspecified,
 * multicast, broadcast, reserved, documentation) is named, whatever IPv6 form carries an IPv4
 * address (mapped, compatible, NAT64, 6to4). Also that the URL parser turns the odd IPv4 spellings
 * into the dotted form this module reads, since the guard depends on that.
 */
import { describe, expect, it } from 'vitest';
import { canonicalAddress, classifyAddress, type AddressKind } from './address-classification.js';

const CASES: ReadonlyArray<[string, AddressKind]> = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['172.32.0.1', 'public'],
  ['100.128.0.1', 'public'],
  ['2606:4700::1111', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::808:808', 'public'],
  ['2002:808:808::1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['2002:7f00:1::', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['::ffff:10.0.0.1', 'private'],
  ['64:ff9b::a00:1', 'private'],
  ['64:ff9b:1::1', 'private'],
  ['100.64.0.1', 'shared (carrier-grade NAT)'],
  ['100.127.255.255', 'shared (carrier-grade NAT)'],
  ['169.254.169.254', 'link-local'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fec0::1', 'site-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['2001::1', 'reserved'],
  ['100::1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.1', 'documentation'],
  ['203.0.113.1', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['localhost', 'not an IP address'],
  ['example.org', 'not an IP address'],
];

describe('classifyAddress', () => {
  it.each(CASES)('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('canonicalAddress', () => {
  it('spells every form of one address the same way', () => {
    expect(canonicalAddress('::1')).toBe(canonicalAddress('0:0:0:0:0:0:0:1'));
    expect(canonicalAddress('[::1]')).toBe(canonicalAddress('::1'));
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe(canonicalAddress('::FFFF:7F00:1'));
    expect(canonicalAddress('10.0.0.5')).toBe('10.0.0.5');
    expect(canonicalAddress('kb.example.org')).toBeUndefined();
  });
});

describe('the URL parser the guard relies on', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('reads %s as host %s, which the classifier refuses', (url, host) => {
    const hostname = new URL(url).hostname;
    expect(hostname).toBe(host);
    expect(classifyAddress(hostname)).not.toBe('public');
  });
});
