// The outbound address rule for IPv6 forms that carry an IPv4 address (security review 2026-11-23
// #17): each such block is refused whatever IPv4 address it holds; ordinary addresses are not.
import { describe, expect, it } from '@jest/globals';
import { carriesIPv4 } from '../../src/platform/http/embedded-ipv4.js';

describe('carriesIPv4', () => {
  it('when an IPv6 address embeds an IPv4 one (compatible, mapped, SIIT, NAT64, 6to4, Teredo), then true', () => {
    const embedding = [
      '::7f00:1', // ::127.0.0.1, the form that passed request-filtering-agent
      '::127.0.0.1',
      '::a00:1',
      '::ffff:7f00:1',
      '::ffff:127.0.0.1',
      '::ffff:0:a00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ];
    for (const address of embedding)
      expect({ address, refused: carriesIPv4(address) }).toEqual({ address, refused: true });
  });

  it('when the address is plain IPv4, ordinary IPv6 or a name, then false (the agent judges those)', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '2a00:1450::1',
      'localhost',
    ]) {
      expect({ address, refused: carriesIPv4(address) }).toEqual({ address, refused: false });
    }
  });
});
