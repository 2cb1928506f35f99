/**
 * Client addresses as rate limits count them. One IPv6 subscriber holds a whole /64 and can rotate through
 * it at will, so an IPv6 address counts as its /64; an IPv4 address counts alone, or as its /24 where a
 * limit must hold against someone who rents a few neighbouring addresses (new website chat visitors).
 */
import ipaddr from 'ipaddr.js';

/**
 * The key of `address` for a limit: `a.b.c.d` (or `a.b.c.0/24` with `ipv4Prefix` 24) for IPv4 and
 * IPv4-mapped IPv6, `x:x:x:x::/64` for IPv6. An address that does not parse is its own key.
 */
export function addressRange(address: string, ipv4Prefix: 24 | 32 = 32): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    const o = (parsed as ipaddr.IPv4).octets;
    return ipv4Prefix === 24 ? `${o[0]}.${o[1]}.${o[2]}.0/24` : o.join('.');
  }
  const p = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${p.map((n) => n.toString(16)).join(':')}::/64`;
}
