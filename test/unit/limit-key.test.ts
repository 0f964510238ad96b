import { expect } from 'chai';
import { addressLimitKey, anonymousCaller, localCaller } from '../../src/auth/caller.js';

describe('the limit key of a client address', () => {
  it('counts an IPv6 client by its /64 network: a new address in it for every request is the same caller', () => {
    const key = addressLimitKey('2001:db8:1:2::1');
    for (const other of ['2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:dead:beef:0:1', '2001:DB8:1:2::abcd', '2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::7%eth0']) {
      expect(addressLimitKey(other), other).to.equal(key);
    }
    expect(key).to.equal('address:2001:db8:1:2::/64');
    expect(addressLimitKey('2001:db8:1:3::1')).not.to.equal(key);
    expect(addressLimitKey('::1')).to.equal('address:0:0:0:0::/64');
    expect(addressLimitKey('2001:db8::1.2.3.4')).to.equal('address:2001:db8:0:0::/64');
  });

  it('counts an IPv4 client by its address, however it is written (IPv4-mapped IPv6 too), as before', () => {
    expect(addressLimitKey('192.0.2.7')).to.equal('address:192.0.2.7');
    expect(addressLimitKey('::ffff:192.0.2.7')).to.equal('address:192.0.2.7');
    expect(addressLimitKey('::FFFF:c000:0207')).to.equal('address:192.0.2.7');
    expect(addressLimitKey('0:0:0:0:0:ffff:192.0.2.7')).to.equal('address:192.0.2.7');
    expect(addressLimitKey('192.0.2.8')).not.to.equal(addressLimitKey('192.0.2.7'));
  });

  it('is the key of the callers without a token, while their audit address stays the whole address', () => {
    for (const make of [localCaller, anonymousCaller]) {
      const caller = make('2001:db8:1:2:aaaa::1');
      expect(caller.limitKey).to.equal('address:2001:db8:1:2::/64');
      expect(caller.address).to.equal('2001:db8:1:2:aaaa::1');
    }
  });
});
