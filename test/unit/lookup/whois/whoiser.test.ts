import { expect } from 'chai';
import { createRequire } from 'node:module';
import { DossierError } from '../../../../lib/errors.js';
import { WHOISER_PARSERS_MODULE, loadWhoiserParser, whoiserVersion } from '../../../../lib/lookup/whois/whois-text.js';
import { verisignWhois } from '../../../support/whois-server.js';

const installed = (createRequire(import.meta.url)('whoiser/package.json') as { version: string }).version;

// whois-text.ts reaches into whoiser's src/parsers.js, which whoiser does not promise to keep. If an
// upgrade moves it, importing whois-text.ts (above) already fails with the message tested below.
describe("whoiser's internal parser, which the whois lookup depends on", () => {
  it(`is still ${WHOISER_PARSERS_MODULE}#parseDomainWhois in the installed whoiser ${installed}`, () => {
    let parse: ReturnType<typeof loadWhoiserParser> | undefined;
    try {
      parse = loadWhoiserParser();
    } catch (error) {
      expect.fail(`whoiser ${installed} broke the whois lookup: ${String(error)}`);
    }
    const fields = parse('example.com', verisignWhois({ domain: 'example.com' }), true);
    expect(fields, `whoiser ${installed}'s parseDomainWhois no longer reads a Verisign answer`).to.include({
      Registrar: 'MarkMonitor Inc.',
      'Registrar IANA ID': '292',
    });
  });

  it('fails with a message naming the installed whoiser version when the module or function is gone', () => {
    expect(whoiserVersion()).to.equal(installed);
    for (const specifier of ['whoiser/src/gone.js', 'whoiser/src/utils.js']) {
      expect(() => loadWhoiserParser(specifier))
        .to.throw(DossierError, `whoiser ${installed} has no parseDomainWhois function in ${specifier}`)
        .with.property('code', 'ERR_NOT_IMPLEMENTED');
    }
  });
});
