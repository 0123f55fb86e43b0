// IPv6 addresses that carry an IPv4 address inside them, refused as outbound targets. The SSRF guard
// (request-filtering-agent) lets through what ipaddr.js names `unicast`, and ipaddr.js names the
// IPv4-compatible block ::/96 so: [::127.0.0.1] (that is ::7f00:1) passed the guard and reached
// connect(), and on a host with automatic 6in4 tunnels it would reach IPv4 loopback. Each block below
// can lead to an IPv4 host, private ones included, so all of it is refused instead of judging the
// IPv4 address inside. (The agent already refused most of these by name; listing them all keeps the
// rule whole if ipaddr.js renames a range.)
import { BlockList, isIPv6 } from 'node:net';

const EMBEDS_IPV4 = new BlockList();
const BLOCKS: readonly (readonly [string, number])[] = [
  ['::', 96], // IPv4-compatible (RFC 4291, deprecated); also holds :: and ::1
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT, RFC 6145)
  ['64:ff9b::', 96], // NAT64 well-known prefix (RFC 6052)
  ['64:ff9b:1::', 48], // NAT64 local use (RFC 8215)
  ['2002::', 16], // 6to4
  ['2001::', 32], // Teredo
];
for (const [prefix, bits] of BLOCKS) EMBEDS_IPV4.addSubnet(prefix, bits, 'ipv6');

/** True for an IPv6 address (no brackets) in one of the blocks; never for an IPv4 address or a name. */
export function carriesIPv4(address: string): boolean {
  // Only IPv6: BlockList also matches a plain IPv4 address against ::ffff:0:0/96.
  return isIPv6(address) && EMBEDS_IPV4.check(address, 'ipv6');
}
