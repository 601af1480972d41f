import { expect } from 'chai';
import { dmarcPolicy, spfRecord } from '../../../../lib/lookup/dns/mail-policy.js';

describe('spfRecord', () => {
  it('is the one TXT record that starts with v=spf1, in any case', () => {
    expect(spfRecord(['site-verification=x', 'v=spf1 include:_spf.example.com ~all'])).to.equal(
      'v=spf1 include:_spf.example.com ~all',
    );
    expect(spfRecord(['V=SPF1 -all'])).to.equal('V=SPF1 -all');
    expect(spfRecord(['v=spf1'])).to.equal('v=spf1');
  });

  it('is null when there is none, or several (a permanent error under RFC 7208 §4.5)', () => {
    expect(spfRecord([])).to.equal(null);
    expect(spfRecord(['v=spf10 -all', 'spf1 -all', 'xv=spf1 -all'])).to.equal(null);
    expect(spfRecord(['v=spf1 -all', 'v=spf1 +all'])).to.equal(null);
  });
});

describe('dmarcPolicy', () => {
  it('reads the p tag of the one v=DMARC1 record, in lower case', () => {
    expect(dmarcPolicy(['v=DMARC1; p=Reject; rua=mailto:d@example.com'])).to.deep.equal({
      policy: 'reject',
      record: 'v=DMARC1; p=Reject; rua=mailto:d@example.com',
    });
    expect(dmarcPolicy(['unrelated', 'v=DMARC1;p=none'])).to.deep.equal({ policy: 'none', record: 'v=DMARC1;p=none' });
    expect(dmarcPolicy(['v = DMARC1 ; sp=reject; p = quarantine'])?.policy).to.equal('quarantine');
  });

  it('takes a missing or unknown p as none when the record has rua (RFC 7489 §6.6.3), else null', () => {
    expect(dmarcPolicy(['v=DMARC1; rua=mailto:d@example.com'])?.policy).to.equal('none');
    expect(dmarcPolicy(['v=DMARC1; p=block; rua=mailto:d@example.com'])?.policy).to.equal('none');
    expect(dmarcPolicy(['v=DMARC1; p=block'])).to.deep.equal({ policy: null, record: 'v=DMARC1; p=block' });
  });

  it('is null when no record starts with v=DMARC1, or several do', () => {
    expect(dmarcPolicy([])).to.equal(null);
    expect(dmarcPolicy(['p=reject; v=DMARC1', 'v=dmarc1; p=reject'])).to.equal(null);
    expect(dmarcPolicy(['v=DMARC1; p=reject', 'v=DMARC1; p=none'])).to.equal(null);
  });
});
