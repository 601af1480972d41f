import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { SERVER_SETTINGS, serverOptionsFromEnv } from '../../adapters/http/server-options.js';
import { SETTINGS } from '../../lib/config/settings.js';
import { isDossierError } from '../../lib/errors.js';
import { optionsFromEnv, resolveOptions } from '../../lib/options.js';
import { projectRoot } from '../support/paths.js';

// Any readable file passes the start-up check of the GeoIP paths; their content is read on first use.
const THIS_FILE = fileURLToPath(import.meta.url);

function configError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isDossierError(error, 'ERR_CONFIG_INVALID'), String(error)).to.equal(true);
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('options', () => {
  it('fills in the documented defaults', () => {
    const options = resolveOptions({});
    expect(options).to.include({
      store: 'sqlite://./data/dossier.sqlite',
      cache: 'memory://',
      dailyLimit: 1000,
      sslPort: 443,
      allowPrivateTargets: false,
      generator: 'offline',
      lookupTimeoutMs: 5000,
      generatorTimeoutMs: 60000,
      storeTimeoutMs: 2000,
      logLevel: 'info',
      shutdownTimeoutMs: 10000,
      watchesPerKey: 100,
      workers: true,
    });
    expect(options.adminToken).to.equal(undefined);
    expect(options.dnsServers).to.deep.equal([]);
    expect(options.dnsServerAddresses).to.deep.equal([]);
    expect(options.whoisServerAddress).to.equal(null);
    expect(serverOptionsFromEnv({})).to.deep.equal({
      host: '127.0.0.1',
      port: 3000,
      trustProxy: false,
      keepAliveTimeoutMs: 72000,
    });
  });

  it('reads every DOSSIER_* variable', () => {
    const env = {
      DOSSIER_STORE: 'redis://127.0.0.1:6379',
      DOSSIER_CACHE: 'sqlite:///tmp/cache.sqlite',
      DOSSIER_DAILY_LIMIT: '50',
      DOSSIER_DNS_SERVERS: '127.0.0.1:5353, [::1]:53, ::2,',
      DOSSIER_WHOIS_SERVER: 'whois.example.net:4343',
      DOSSIER_RDAP_URL: 'https://rdap.example.net/',
      DOSSIER_GEOIP_CITY: THIS_FILE,
      DOSSIER_GEOIP_ASN: THIS_FILE,
      DOSSIER_SSL_PORT: '8443',
      DOSSIER_ALLOW_PRIVATE_TARGETS: 'true',
      DOSSIER_GENERATOR: 'openai',
      DOSSIER_OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      DOSSIER_OPENAI_API_KEY: 'sk-test',
      DOSSIER_OPENAI_MODEL: 'llama3',
      DOSSIER_LOOKUP_TIMEOUT_MS: '2500',
      DOSSIER_GENERATOR_TIMEOUT_MS: '9000',
      DOSSIER_CUSTOM_TEMPLATES: '{"53":{"name":"Haiku","instruction":"Write a haiku."}}',
      DOSSIER_ADMIN_TOKEN: 'a'.repeat(32),
      DOSSIER_STORE_TIMEOUT_MS: '750',
      DOSSIER_LOG_LEVEL: 'warn',
      DOSSIER_SHUTDOWN_TIMEOUT_MS: '3000',
      DOSSIER_WATCHES_PER_KEY: '7',
      DOSSIER_WATCH_CONCURRENCY: '12',
      DOSSIER_WORKERS: 'false',
    };
    // Every variable of the schema is read here, but the CA file, which has its own test below.
    expect(Object.keys(env).concat('DOSSIER_SSL_CA_FILE')).to.have.members(
      Object.values(SETTINGS).map((setting) => setting.variable),
    );
    const options = optionsFromEnv(env);
    expect(options).to.deep.equal({
      store: 'redis://127.0.0.1:6379',
      cache: 'sqlite:///tmp/cache.sqlite',
      dailyLimit: 50,
      dnsServers: ['127.0.0.1:5353', '[::1]:53', '::2'],
      whoisServer: 'whois.example.net:4343',
      rdapUrl: 'https://rdap.example.net/',
      geoipCity: THIS_FILE,
      geoipAsn: THIS_FILE,
      sslPort: 8443,
      allowPrivateTargets: true,
      generator: 'openai',
      openai: { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'sk-test', model: 'llama3' },
      lookupTimeoutMs: 2500,
      generatorTimeoutMs: 9000,
      customTemplates: { 53: { name: 'Haiku', instruction: 'Write a haiku.' } },
      adminToken: 'a'.repeat(32),
      storeTimeoutMs: 750,
      logLevel: 'warn',
      shutdownTimeoutMs: 3000,
      watchesPerKey: 7,
      watchConcurrency: 12,
      workers: false,
    });
    expect(
      serverOptionsFromEnv({
        HOST: '0.0.0.0',
        PORT: '8080',
        DOSSIER_TRUST_PROXY: 'true',
        DOSSIER_KEEP_ALIVE_TIMEOUT_MS: '90000',
      }),
    ).to.deep.equal({
      host: '0.0.0.0',
      port: 8080,
      trustProxy: true,
      keepAliveTimeoutMs: 90000,
    });
  });

  it('reads the CA certificates of DOSSIER_SSL_CA_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-ca-'));
    try {
      const file = join(dir, 'bundle.pem');
      writeFileSync(file, `# two roots\n${rootCertificates[0]}\n${rootCertificates[1]}\n`);
      expect(optionsFromEnv({ DOSSIER_SSL_CA_FILE: file }).sslCaCertificates).to.deep.equal([
        rootCertificates[0],
        rootCertificates[1],
      ]);
      writeFileSync(file, 'not a certificate');
      expect(configError(() => optionsFromEnv({ DOSSIER_SSL_CA_FILE: file }))).to.include('DOSSIER_SSL_CA_FILE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes MySQL and MariaDB stores and caches that name their database', () => {
    const options = optionsFromEnv({
      DOSSIER_STORE: 'mysql://app:secret@db.internal:3306/dossier',
      DOSSIER_CACHE: 'mariadb://127.0.0.1/cache',
    });
    expect(options).to.include({ store: 'mysql://app:secret@db.internal:3306/dossier', cache: 'mariadb://127.0.0.1/cache' });
    expect(configError(() => optionsFromEnv({ DOSSIER_STORE: 'mysql://127.0.0.1:3306' }))).to.match(
      /DOSSIER_STORE must name its database \(mysql:\/\/USER:PASSWORD@HOST:3306\/DATABASE\)/,
    );
  });

  it('names the variable of a bad value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ DOSSIER_STORE: 'ftp://x' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'not a url' }, 'DOSSIER_STORE'],
      [{ DOSSIER_CACHE: 'mysql://x' }, 'DOSSIER_CACHE'],
      [{ DOSSIER_STORE: 'mariadb://root@127.0.0.1:3306/' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'mysql://root@127.0.0.1:3306/a/b' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'sqlite://' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'sqlite:' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'SQLITE:///tmp/x.sqlite' }, 'DOSSIER_STORE'],
      [{ DOSSIER_STORE: 'redis://127.0.0.1:6379/abc' }, 'DOSSIER_STORE'],
      [{ DOSSIER_CACHE: 'rediss://127.0.0.1:6379/1x' }, 'DOSSIER_CACHE'],
      [{ DOSSIER_DNS_SERVERS: ',' }, 'DOSSIER_DNS_SERVERS'],
      [{ DOSSIER_DAILY_LIMIT: '0' }, 'DOSSIER_DAILY_LIMIT'],
      [{ DOSSIER_DAILY_LIMIT: '-5' }, 'DOSSIER_DAILY_LIMIT'],
      [{ DOSSIER_DAILY_LIMIT: '1.5' }, 'DOSSIER_DAILY_LIMIT'],
      [{ DOSSIER_DNS_SERVERS: 'dns_server!' }, 'DOSSIER_DNS_SERVERS'],
      [{ DOSSIER_DNS_SERVERS: '1.1.1.1:99999' }, 'DOSSIER_DNS_SERVERS'],
      [{ DOSSIER_WHOIS_SERVER: 'a b' }, 'DOSSIER_WHOIS_SERVER'],
      [{ DOSSIER_RDAP_URL: 'ftp://rdap' }, 'DOSSIER_RDAP_URL'],
      [{ DOSSIER_SSL_PORT: '70000' }, 'DOSSIER_SSL_PORT'],
      [{ DOSSIER_ALLOW_PRIVATE_TARGETS: 'yes' }, 'DOSSIER_ALLOW_PRIVATE_TARGETS'],
      [{ DOSSIER_GENERATOR: 'gpt' }, 'DOSSIER_GENERATOR'],
      [{ DOSSIER_GENERATOR: 'openai' }, 'DOSSIER_OPENAI_BASE_URL'],
      [{ DOSSIER_GENERATOR: 'openai', DOSSIER_OPENAI_BASE_URL: 'http://x/v1' }, 'DOSSIER_OPENAI_MODEL'],
      [{ DOSSIER_LOOKUP_TIMEOUT_MS: 'soon' }, 'DOSSIER_LOOKUP_TIMEOUT_MS'],
      [{ DOSSIER_GENERATOR_TIMEOUT_MS: '0' }, 'DOSSIER_GENERATOR_TIMEOUT_MS'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '{' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '{"12":{"name":"x","instruction":"y"}}' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '{"54.0":{"name":"x","instruction":"y"}}' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '{"53":{"name":5,"instruction":[1]}}' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '{"53":null}' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: 'null' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_CUSTOM_TEMPLATES: '[]' }, 'DOSSIER_CUSTOM_TEMPLATES'],
      [{ DOSSIER_SSL_CA_FILE: '/nonexistent/ca.pem' }, 'DOSSIER_SSL_CA_FILE'],
      [{ DOSSIER_GEOIP_CITY: '/nonexistent/city.mmdb' }, 'DOSSIER_GEOIP_CITY'],
      [{ DOSSIER_GEOIP_ASN: '/tmp' }, 'DOSSIER_GEOIP_ASN'],
      [{ DOSSIER_OPENAI_BASE_URL: 'ftp://x' }, 'DOSSIER_OPENAI_BASE_URL'],
      [{ DOSSIER_ADMIN_TOKEN: 'a'.repeat(31) }, 'DOSSIER_ADMIN_TOKEN'],
      [{ DOSSIER_STORE_TIMEOUT_MS: '0' }, 'DOSSIER_STORE_TIMEOUT_MS'],
      [{ DOSSIER_STORE_TIMEOUT_MS: '2s' }, 'DOSSIER_STORE_TIMEOUT_MS'],
      [{ DOSSIER_LOG_LEVEL: 'verbose' }, 'DOSSIER_LOG_LEVEL'],
      [{ DOSSIER_LOG_LEVEL: 'INFO' }, 'DOSSIER_LOG_LEVEL'],
      [{ DOSSIER_SHUTDOWN_TIMEOUT_MS: '-1' }, 'DOSSIER_SHUTDOWN_TIMEOUT_MS'],
      [{ DOSSIER_SHUTDOWN_TIMEOUT_MS: '3600001' }, 'DOSSIER_SHUTDOWN_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) {
      expect(
        configError(() => optionsFromEnv(env)),
        JSON.stringify(env),
      ).to.include(variable);
    }
    expect(configError(() => serverOptionsFromEnv({ PORT: 'http' }))).to.include('PORT');
    expect(configError(() => serverOptionsFromEnv({ PORT: '65536' }))).to.include('PORT');
    expect(configError(() => serverOptionsFromEnv({ DOSSIER_KEEP_ALIVE_TIMEOUT_MS: '0' }))).to.include(
      'DOSSIER_KEEP_ALIVE_TIMEOUT_MS',
    );
    expect(configError(() => serverOptionsFromEnv({ DOSSIER_KEEP_ALIVE_TIMEOUT_MS: '5s' }))).to.include(
      'DOSSIER_KEEP_ALIVE_TIMEOUT_MS',
    );
  });

  it('names every bad variable at once, and never repeats a secret', () => {
    const message = configError(() =>
      optionsFromEnv({ DOSSIER_DAILY_LIMIT: '0', DOSSIER_SSL_PORT: '0', DOSSIER_ADMIN_TOKEN: 'secret-but-short' }),
    );
    expect(message).to.include('DOSSIER_DAILY_LIMIT').and.include('DOSSIER_SSL_PORT').and.include('DOSSIER_ADMIN_TOKEN');
    expect(message).to.include('at least 32 characters');
    expect(message).to.not.include('secret-but-short');
  });

  it('names a value it cannot read beside those out of range, in the order of the table, with the range', () => {
    const message = configError(() =>
      optionsFromEnv({
        DOSSIER_LOOKUP_TIMEOUT_MS: '-5',
        DOSSIER_DAILY_LIMIT: 'lots',
        DOSSIER_GENERATOR: 'openai',
        DOSSIER_SSL_PORT: '65536',
      }),
    );
    expect(message).to.equal(
      'DOSSIER_DAILY_LIMIT must be a whole number, not "lots"; ' +
        'DOSSIER_SSL_PORT must be a whole number from 1 to 65535, not 65536; ' +
        'DOSSIER_OPENAI_BASE_URL is required when generator is "openai"; ' +
        'DOSSIER_OPENAI_MODEL is required when generator is "openai"; ' +
        'DOSSIER_LOOKUP_TIMEOUT_MS must be a whole number from 1 to 600000, not -5',
    );
  });

  it('treats a blank variable as unset, so that its default applies', () => {
    expect(optionsFromEnv({ DOSSIER_STORE: '  ', DOSSIER_LOG_LEVEL: '', DOSSIER_ADMIN_TOKEN: ' ' })).to.deep.equal({});
    expect(
      serverOptionsFromEnv({ HOST: ' ', PORT: '', DOSSIER_TRUST_PROXY: '', DOSSIER_KEEP_ALIVE_TIMEOUT_MS: '' }),
    ).to.deep.equal({
      host: '127.0.0.1',
      port: 3000,
      trustProxy: false,
      keepAliveTimeoutMs: 72000,
    });
  });

  it('hands components parsed host:port values', () => {
    const options = resolveOptions({
      dnsServers: ['192.0.2.1:5353', '[::1]:53', '::2', 'ns.example.net'],
      whoisServer: '[::1]:4343',
    });
    expect(options.dnsServerAddresses).to.deep.equal([
      { host: '192.0.2.1', port: 5353 },
      { host: '::1', port: 53 },
      { host: '::2', port: 53 },
      { host: 'ns.example.net', port: 53 },
    ]);
    expect(options.whoisServerAddress).to.deep.equal({ host: '::1', port: 4343 });
    expect(resolveOptions({ whoisServer: 'whois.example.net' }).whoisServerAddress).to.deep.equal({
      host: 'whois.example.net',
      port: 43,
    });
  });

  it('checks a default like a given value (the default SQLite folder must be writable)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-cwd-'));
    const cwd = process.cwd();
    try {
      writeFileSync(join(dir, 'data'), 'a file where the default store wants a folder');
      process.chdir(dir);
      expect(configError(() => resolveOptions({}))).to.match(/^store /);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is what the configuration table of docs/configuration.md says: every variable, its option and its default', () => {
    const page = readFileSync(join(projectRoot(), 'docs', 'configuration.md'), 'utf8');
    const rows = page.split('\n').filter((line) => line.startsWith('| `'));
    for (const [option, setting] of Object.entries({ ...SETTINGS, ...SERVER_SETTINGS })) {
      const row = rows.find((line) => line.split('|')[1]!.includes(`\`${setting.variable}\``));
      expect(row, setting.variable).to.be.a('string');
      const [, names, defaults] = row!.split('|') as [string, string, string];
      if (setting.variable.startsWith('DOSSIER_')) expect(names, setting.variable).to.include(`\`${option.split('.')[0]}\``);
      const value = 'default' in setting ? setting.default : undefined;
      if (typeof value === 'string' || typeof value === 'number') {
        expect(defaults, setting.variable).to.include(`\`${value}\``);
      }
    }
  });

  it('names the option of a bad value given in code', () => {
    expect(configError(() => resolveOptions({ dailyLimit: 0 }))).to.match(/^dailyLimit /);
    expect(configError(() => resolveOptions({ lookupTimeoutMs: Number.NaN }))).to.match(/^lookupTimeoutMs /);
    expect(configError(() => resolveOptions({ customTemplates: { 53: { name: '', instruction: 'x' } } }))).to.match(
      /^customTemplates /,
    );
    expect(configError(() => resolveOptions({ adminToken: 'short' }))).to.match(/^adminToken /);
    expect(configError(() => resolveOptions({ logLevel: 'loud' as 'info' }))).to.match(/^logLevel /);
    expect(configError(() => resolveOptions({ storeTimeoutMs: 0 }))).to.match(/^storeTimeoutMs /);
    expect(configError(() => resolveOptions({ shutdownTimeoutMs: 1.5 }))).to.match(/^shutdownTimeoutMs /);
    expect(configError(() => resolveOptions({ generator: 'openai', openai: { baseUrl: 'http://x/v1', model: '' } }))).to.match(
      /^openai\.model /,
    );
    expect(configError(() => resolveOptions({ dnsServers: '192.0.2.1' as unknown as string[] }))).to.match(/^dnsServers /);
    // A host that brings its own text generator needs no OpenAI settings.
    const textGenerator = { generate: async () => 'text' };
    expect(resolveOptions({ generator: 'openai', textGenerator }).textGenerator).to.equal(textGenerator);
  });
});
